package akshara

import (
	"math"
	"math/bits"
	"unicode/utf8"
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
	var buf punyBuf
	return punycode(rs, nBasic, &buf)
}

// appendALabel appends the A-label of rs (nBasic of them ASCII) to dst.
// rs has at most MaxALabelLength code points (the encoder's arrays and its
// bit set of ASCII positions are that long); every caller gives a label
// that short, and a longer one panics rather than encode wrongly.
func appendALabel(dst []byte, rs []rune, nBasic int) []byte {
	var buf punyBuf
	n := punycode(rs, nBasic, &buf)
	if n > len(buf) {
		// longer than any valid A-label: encode again, unbounded
		return append(dst, punycodeLong(rs, nBasic)...)
	}
	return append(dst, buf[:n]...)
}

// punyBuf holds an A-label of up to 63 octets, and a little more so that a
// label just over the limit is still written whole.
type punyBuf [MaxALabelLength + 1]byte

// punycode writes the A-label of rs (at most 63 code points, nBasic of them
// ASCII) to buf, as far as it fits, and returns its whole length.
func punycode(rs []rune, nBasic int, buf *punyBuf) int {
	if len(rs) > MaxALabelLength {
		return MaxALabelLength + len(rs)
	}
	var keys [MaxALabelLength]uint32
	var ascii [MaxALabelLength]byte
	k, b, basic := splitRunes(rs, &keys, &ascii)
	return encodeKeys(buf, ascii[:b], basic, keys[:k])
}

// splitRunes sorts out rs (at most 63 code points) for the encoder: the
// ASCII code points in order (ascii[:b]) and their positions (basic, a bit
// each), and the others as keys, code point << 6 | position (keys[:k]).
func splitRunes(rs []rune, keys *[MaxALabelLength]uint32, ascii *[MaxALabelLength]byte) (k, b int, basic uint64) {
	for i, r := range rs {
		if r < 0x80 {
			basic |= 1 << uint(i)
			ascii[b] = byte(r)
			b++
			continue
		}
		keys[k] = uint32(r)<<6 | uint32(i)
		k++
	}
	return k, b, basic
}

// punycodeLong is the A-label of rs, written without a bound (only labels
// too long to be valid need it: their messages do not show the A-label,
// but appendALabel is held to x/net/idna for every length).
func punycodeLong(rs []rune, nBasic int) []byte {
	var keys [MaxALabelLength]uint32
	var ascii [MaxALabelLength]byte
	k, b, basic := splitRunes(rs, &keys, &ascii)
	sortKeys(keys[:k])
	out := make([]byte, encodeDigits(nil, prefix(nil, ascii[:b]), basic, b, keys[:k]))
	encodeDigits(out, prefix(out, ascii[:b]), basic, b, keys[:k])
	return out
}

// prefix writes "xn--", the basic code points and the delimiter to out if
// they fit, and returns their length.
func prefix(out []byte, ascii []byte) int {
	w := 4 + len(ascii)
	if len(ascii) > 0 {
		w++
	}
	if len(out) < w {
		return w
	}
	copy(out, "xn--")
	copy(out[4:], ascii)
	if len(ascii) > 0 {
		out[w-1] = '-'
	}
	return w
}

// encodeKeys writes the A-label to buf (as far as it fits) and returns its
// length. ascii are the basic code points in order, basic a bit for the
// position of each; keys holds value<<6 | position of every non-basic code
// point (encodeKeys sorts it).
func encodeKeys(buf *punyBuf, ascii []byte, basic uint64, keys []uint32) int {
	sortKeys(keys)
	return encodeDigits(buf[:], prefix(buf[:], ascii), basic, len(ascii), keys)
}

// sortKeys sorts keys by insertion (there are at most 63). A counting
// sort by the values' offsets in their block, without branches that depend
// on the data, mispredicted as often here (on loop exits) and ran more
// instructions.
func sortKeys(keys []uint32) {
	for i := 1; i < len(keys); i++ {
		v := keys[i]
		j := i
		for ; j > 0 && keys[j-1] > v; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = v
	}
}

// encodeDigits runs the encoder of RFC 3492 §6.3 and writes its digits to
// out from w on (as far as they fit); it returns the whole length. keys are
// value<<6 | position of the non-basic code points, sorted; basic has a bit
// for the position of each basic one. The lengths and strings are held to
// golang.org/x/net/idna by TestALabelLength and FuzzALabelLength.
//
// RFC 3492 walks the whole label once per distinct code point (O(n²)).
// This version visits the code points in the order the RFC emits them
// (by value, then position) and gets each delta's count of smaller code
// points from a bit set of their positions: a popcount instead of a walk.
func encodeDigits(out []byte, w int, basic uint64, nBasic int, keys []uint32) int {
	const (
		base        = 36
		tmin        = 1
		tmax        = 26
		damp        = 700
		initialBias = 72
		initialN    = 128
	)
	// smaller has a bit for each position whose code point is below the
	// value being emitted; same, for those of the value being emitted.
	smaller, same := basic, uint64(0)
	// All quantities fit in 32 bits (a delta is below 0x110000 × 64).
	cur, delta, bias, h := uint32(initialN), uint32(0), uint32(initialBias), uint32(nBasic)
	// the first delta is divided by damp, the others by 2, as
	// multiplications by ceil(2^37 / d): exact for a delta below 2^27
	// (the error is below 2^27 / 2^37, less than 1/damp), and the
	// product fits in 64 bits
	dampMul := uint64((1<<37 + damp - 1) / damp)
	lastPos := uint(0) // one past the position of the previous emission of the current value
	for i, key := range keys {
		m, pos := key>>6, uint(key&63)
		if m != cur || i == 0 {
			if i > 0 {
				// finish the previous value's walk: the smaller code points
				// after its last occurrence, then RFC's ++delta, ++n
				delta += uint32(bits.OnesCount64(smaller>>lastPos)) + 1
				cur++
				smaller |= same // its positions now hold smaller code points too
				same = 0
			}
			delta += (m - cur) * (h + 1)
			cur = m
			lastPos = 0
		}
		// smaller code points between the previous emission and this one
		delta += uint32(bits.OnesCount64(smaller >> lastPos & (1<<(pos-lastPos) - 1)))
		lastPos = pos + 1
		same |= 1 << pos

		q := delta
		for kk := uint32(base); ; kk += base {
			// t = kk - bias clamped to [tmin, tmax], without a branch
			x := int32(kk) - int32(bias) - tmin
			x = x&^(x>>31) + tmin
			y := x - tmax
			t := uint32(y&(y>>31) + tmax)
			if q < t {
				break
			}
			d := base - t
			quo := div(q-t, d)
			if w < len(out) {
				out[w] = punyDigits[t+(q-t)-quo*d]
			}
			w++
			q = quo
		}
		if w < len(out) {
			out[w] = punyDigits[q]
		}
		w++
		// adapt the bias (RFC 3492 §6.1)
		dl := uint32(uint64(delta) * dampMul >> 37) // delta / damp on the first, then / 2
		dampMul = 1 << 36
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
	return w
}

// punyDigits are Punycode's digits, by value.
const punyDigits = "abcdefghijklmnopqrstuvwxyz0123456789"

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

// safeLenAny is safeLengths for any code points: a label of at most
// safeLenAny[nBasic] code points, nBasic of them ASCII, has an A-label of
// at most 63 octets whatever its other code points (10 with no ASCII).
var safeLenAny = safeLengthsSpan(utf8.MaxRune, utf8.MaxRune-0x80)

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
