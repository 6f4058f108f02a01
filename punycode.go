package akshara

// aLabelLength returns the length in octets of the A-label ("xn--" and the
// Punycode of RFC 3492 §6.3) of a label of n code points whose first
// len(rs) are rs and of which nBasic are ASCII, without building it, so the
// verdict-only path does not allocate. Labels longer than rs are too long by
// any count.
func aLabelLength(rs []rune, nBasic, n int) int {
	if n > len(rs) || n > MaxALabelLength {
		return MaxALabelLength + n
	}
	length, _ := punycode(rs, nBasic, nil)
	return length
}

// appendALabel appends the A-label of rs (nBasic of them ASCII) to dst.
func appendALabel(dst []byte, rs []rune, nBasic int) []byte {
	dst = append(dst, "xn--"...)
	for _, r := range rs {
		if r < 0x80 {
			dst = append(dst, byte(r))
		}
	}
	if nBasic > 0 {
		dst = append(dst, '-')
	}
	_, dst = punycode(rs, nBasic, dst)
	return dst
}

// punycode runs the encoder of RFC 3492 §6.3 over rs and returns the
// length of the whole A-label; with a non-nil dst it also appends the
// encoded digits (not the prefix or the basic code points) to dst. The
// lengths and strings are held to golang.org/x/net/idna by TestALabelLength
// and FuzzALabelLength.
func punycode(rs []rune, nBasic int, dst []byte) (int, []byte) {
	const (
		base        = 36
		tmin        = 1
		tmax        = 26
		skew        = 38
		damp        = 700
		initialBias = 72
		initialN    = 128
		digits      = "abcdefghijklmnopqrstuvwxyz0123456789"
	)
	// Every quantity fits in 32 bits (a delta is below 0x110000 × 64), and
	// 32-bit division is several times faster than 64-bit here.
	n := uint32(len(rs))
	out := 4 + nBasic
	if nBasic > 0 {
		out++ // the delimiter
	}
	cur, delta, bias, h := uint32(initialN), uint32(0), uint32(initialBias), uint32(nBasic)
	for h < n {
		m := uint32(0xFFFFFFFF)
		for _, r := range rs {
			if uint32(r) >= cur && uint32(r) < m {
				m = uint32(r)
			}
		}
		delta += (m - cur) * (h + 1)
		cur = m
		for _, r := range rs {
			if uint32(r) < cur {
				delta++
			}
			if uint32(r) != cur {
				continue
			}
			q := delta
			for k := uint32(base); ; k += base {
				t := uint32(tmin)
				if k >= bias+tmax {
					t = tmax
				} else if k > bias+tmin {
					t = k - bias
				}
				if q < t {
					break
				}
				d := base - t
				quo := div(q-t, d)
				if dst != nil {
					dst = append(dst, digits[t+(q-t)-quo*d])
				}
				out++
				q = quo
			}
			if dst != nil {
				dst = append(dst, digits[q])
			}
			out++
			// adapt the bias (RFC 3492 §6.1)
			dl := delta
			if h == uint32(nBasic) {
				dl /= damp
			} else {
				dl /= 2
			}
			dl += div(dl, h+1)
			kk := uint32(0)
			for dl > ((base-tmin)*tmax)/2 {
				dl /= base - tmin
				kk += base
			}
			bias = kk + uint32(biasStep[dl])
			delta = 0
			h++
		}
		delta++
		cur++
	}
	return out, dst
}

// aLabelBound is an upper bound on the A-label length of a label of n code
// points, nBasic of them ASCII and the others all in the 128-code-point
// block that starts at block. It lets the verdict-only path skip the exact
// count for the many labels that are far from 63 octets.
//
// Why it holds (RFC 3492 §6.3): a delta q is written as digits; each digit
// but the last turns q into (q-t)/(36-t) with 1 <= t <= 26, so q shrinks at
// least tenfold per digit and q needs at most ceil(log10 q)+1 digits. The
// first delta is at most (block-1)(nBasic+1)+n (from code point 128 to the
// block's last), and each later delta at most 127(h+1)+n <= 128n, since all
// other code points lie within 128 of each other. TestALabelBound checks it.
func aLabelBound(n, nBasic int, block rune) int {
	out := 4 + nBasic
	if nBasic > 0 {
		out++
	}
	out += digitBound(int(block-1)*(nBasic+1) + n)
	return out + (n-nBasic-1)*digitBound(128*n)
}

// digitBound is ceil(log10 q) + 1, at least 1.
func digitBound(q int) int {
	d := 1
	for p := 1; p < q; p *= 10 {
		d++
	}
	return d
}

// aLabelLengthOf is aLabelLength of the string u, of n code points, nBasic
// of them ASCII.
func aLabelLengthOf(u string, nBasic, n int) int {
	if n > MaxALabelLength {
		return MaxALabelLength + n
	}
	var rs [MaxALabelLength]rune
	i := 0
	for _, r := range u {
		rs[i] = r
		i++
	}
	return aLabelLength(rs[:n], nBasic, n)
}

// div returns x / d for x < 2^27 and 1 <= d <= 64 (every division of the
// encoder: a delta is below 0x110000 × 64 < 2^27) as a multiplication by
// the reciprocal ceil(2^33 / d): the error is below 2^27 / 2^33 = 1/64,
// too small to reach the next integer for d <= 64. TestDiv checks every d
// at the edges of the range.
func div(x, d uint32) uint32 {
	return uint32((uint64(x) * recip[d]) >> 33)
}

var recip = func() (r [65]uint64) {
	for d := uint64(1); d <= 64; d++ {
		r[d] = (1<<33 + d - 1) / d
	}
	return r
}()

// biasStep is (base-tmin+1)*dl/(dl+skew) of RFC 3492's adapt for every dl
// it can see (dl <= (base-tmin)*tmax/2 = 455).
var biasStep = func() (t [456]uint8) {
	for dl := range t {
		t[dl] = uint8(36 * dl / (dl + 38))
	}
	return t
}()
