package akshara

import (
	"math"
	"math/bits"
)

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

// punycode runs the encoder of RFC 3492 §6.3 over rs (at most 63 code
// points) and returns the length of the whole A-label; with a non-nil dst it
// also appends the encoded digits (not the prefix or the basic code points)
// to dst. The lengths and strings are held to golang.org/x/net/idna by
// TestALabelLength and FuzzALabelLength.
//
// RFC 3492 walks the whole label once per distinct code point (O(n²)).
// This version visits the code points in the order the RFC emits them
// (by value, then position) and gets each delta's count of smaller code
// points from a bit set of their positions: a popcount instead of a walk.
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
	out := 4 + nBasic
	if nBasic > 0 {
		out++ // the delimiter
	}
	// order holds value<<6 | position of every non-basic code point, sorted:
	// the RFC's order of emission. smaller has a bit for each position whose
	// code point is below the value being emitted.
	var order [MaxALabelLength]uint32
	var smaller uint64
	k := 0
	for i, r := range rs {
		if r < initialN {
			smaller |= 1 << uint(i)
			continue
		}
		v := uint32(r)<<6 | uint32(i)
		j := k
		for ; j > 0 && order[j-1] > v; j-- {
			order[j] = order[j-1]
		}
		order[j] = v
		k++
	}
	// All quantities fit in 32 bits (a delta is below 0x110000 × 64).
	cur, delta, bias, h := uint32(initialN), uint32(0), uint32(initialBias), uint32(nBasic)
	lastPos := -1 // position of the previous emission of the current value
	for i := 0; i < k; i++ {
		m, pos := order[i]>>6, int(order[i]&63)
		if m != cur || lastPos < 0 {
			if i > 0 {
				// finish the previous value's walk: the smaller code points
				// after its last occurrence, then RFC's ++delta, ++n
				delta += uint32(bits.OnesCount64(smaller >> uint(lastPos+1)))
				delta++
				cur++
				// its positions now hold smaller code points too
				for j := i - 1; j >= 0 && order[j]>>6 == order[i-1]>>6; j-- {
					smaller |= 1 << (order[j] & 63)
				}
			}
			delta += (m - cur) * (h + 1)
			cur = m
			lastPos = -1
		}
		// smaller code points between the previous emission and this one
		between := smaller &^ (1<<uint(lastPos+1) - 1) & (1<<uint(pos) - 1)
		delta += uint32(bits.OnesCount64(between))
		lastPos = pos

		q := delta
		for kk := uint32(base); ; kk += base {
			t := uint32(tmin)
			if kk >= bias+tmax {
				t = tmax
			} else if kk > bias+tmin {
				t = kk - bias
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
	return out, dst
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

// safeLengths returns, for each number of ASCII code points nBasic, the
// largest label length n whose A-label a tighter bound proves to fit in 63
// octets when every other code point lies in the block at block, so that
// the verdict-only path can skip counting. The bound (TestALabelBound checks
// it against the exact count):
//   - a delta q is written in at most f(q) = 1 + log35(34q + 1) digits: the
//     fewest values a j-digit number can hold is (35^j - 1)/34, when every
//     threshold t is 1;
//   - the first delta is at most (block-1)(nBasic+1) + n;
//   - the other k-1 deltas add up to at most (n+1)(127+n): code point steps
//     of at most 127 in all, each times at most n+1, plus one count of the
//     smaller code points and one increment per value;
//   - f is concave, so those k-1 deltas take at most (k-1) f(S/(k-1))
//     digits in all (Jensen's inequality).
func safeLengths(block rune) (safe [MaxALabelLength + 1]uint8) {
	return safeLengthsSpan(block+127, 127)
}

// safeLengthsSpan is safeLengths for non-ASCII code points that lie
// between hi-span and hi: the first delta is at most (hi-128)(nBasic+1) + n
// and the code point steps add up to at most span. The alphabets whose
// letters do not fit in one 128-code-point block (Arabic: U+0621..U+06D3)
// use it.
func safeLengthsSpan(hi, span rune) (safe [MaxALabelLength + 1]uint8) {
	f := func(q float64) float64 { return 1 + math.Log(34*q+1)/math.Log(35) }
	for nBasic := 0; nBasic <= MaxALabelLength; nBasic++ {
		for n := nBasic + 1; n <= MaxALabelLength; n++ {
			k := float64(n - nBasic)
			total := float64(4 + nBasic)
			if nBasic > 0 {
				total++
			}
			total += math.Floor(f(float64(int(hi-128)*(nBasic+1) + n)))
			if k > 1 {
				total += (k - 1) * f(float64((n+1)*(int(span)+n))/(k-1))
			}
			if math.Floor(total+1e-9) > MaxALabelLength {
				break
			}
			safe[nBasic] = uint8(n)
		}
	}
	return safe
}
