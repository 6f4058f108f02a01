package akshara

// aLabelLength returns the length in octets of the A-label ("xn--" and the
// Punycode of RFC 3492 §6.3) of a label of n code points whose first
// len(rs) are rs and of which nBasic are ASCII. It counts without building
// the string, so the verdict-only path does not allocate; the A-label itself
// is made by golang.org/x/net/idna, and TestALabelLength and
// FuzzALabelLength hold this count to it. Labels longer than rs are too long
// by any count.
func aLabelLength(rs []rune, nBasic, n int) int {
	if n > len(rs) || n > MaxALabelLength {
		return MaxALabelLength + n
	}
	const (
		base        = 36
		tmin        = 1
		tmax        = 26
		skew        = 38
		damp        = 700
		initialBias = 72
		initialN    = 128
	)
	out := 4 + nBasic
	if nBasic > 0 {
		out++ // the delimiter
	}
	cur, delta, bias, h := rune(initialN), 0, initialBias, nBasic
	for h < n {
		m := rune(0x7FFFFFFF)
		for _, r := range rs {
			if r >= cur && r < m {
				m = r
			}
		}
		delta += int(m-cur) * (h + 1)
		cur = m
		for _, r := range rs {
			if r < cur {
				delta++
			}
			if r != cur {
				continue
			}
			q := delta
			for k := base; ; k += base {
				t := k - bias
				if t < tmin {
					t = tmin
				} else if t > tmax {
					t = tmax
				}
				if q < t {
					break
				}
				out++
				q = (q - t) / (base - t)
			}
			out++
			// adapt the bias (RFC 3492 §6.1)
			dl := delta
			if h == nBasic {
				dl /= damp
			} else {
				dl /= 2
			}
			dl += dl / (h + 1)
			kk := 0
			for dl > ((base-tmin)*tmax)/2 {
				dl /= base - tmin
				kk += base
			}
			bias = kk + (base-tmin+1)*dl/(dl+skew)
			delta = 0
			h++
		}
		delta++
		cur++
	}
	return out
}
