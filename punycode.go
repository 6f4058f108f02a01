package akshara

import (
	"encoding/binary"
	"math"
	"math/bits"
	"unicode/utf8"
)

// The parameters of Punycode (RFC 3492 §5).
const (
	punyBase        = 36
	punyTmin        = 1
	punyTmax        = 26
	punyDamp        = 700
	punyInitialBias = 72
	punyInitialN    = 128
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

// punyInserts holds a label's non-basic code points in the order the
// encoder emits them (by value, then position), each as value<<6 | the
// index where the decoder inserts it.
type punyInserts [MaxALabelLength + 1]uint32

// punycode writes the A-label of rs (at most 63 code points, nBasic of them
// ASCII) to buf, as far as it fits, and returns its whole length.
func punycode(rs []rune, nBasic int, buf *punyBuf) int {
	if len(rs) > MaxALabelLength {
		return MaxALabelLength + len(rs)
	}
	var ascii [MaxALabelLength]byte
	var ins punyInserts
	k, b := runeInserts(rs, &ins, &ascii)
	return encodeInserts(buf[:], prefix(buf[:], ascii[:b]), b, ins[:k])
}

// runeInserts sorts out rs (at most 63 code points) for the encoder: its
// ASCII code points in order (ascii[:b]) and the inserts of the others
// (ins[:k]), from their keys sorted.
func runeInserts(rs []rune, ins *punyInserts, ascii *[MaxALabelLength]byte) (k, b int) {
	var keys [MaxALabelLength]uint32
	k, b, basic := splitRunes(rs, &keys, ascii)
	sortKeys(keys[:k])
	keyInserts(ins, keys[:k], basic)
	return k, b
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
	var ascii [MaxALabelLength]byte
	var ins punyInserts
	k, b := runeInserts(rs, &ins, &ascii)
	out := make([]byte, encodeInserts(nil, prefixLen(b), b, ins[:k]))
	encodeInserts(out, prefix(out, ascii[:b]), b, ins[:k])
	return out
}

// prefixLen is the length of "xn--", nBasic basic code points and, if
// there are any, the delimiter.
func prefixLen(nBasic int) int {
	if nBasic > 0 {
		return 5 + nBasic
	}
	return 4
}

// prefix writes "xn--", the basic code points and the delimiter to out if
// they fit, and returns their length.
func prefix(out []byte, ascii []byte) int {
	w := prefixLen(len(ascii))
	if len(out) < w {
		return w
	}
	copy(out, "xn--")
	if len(ascii) > 0 { // most labels have none: no call to copy them
		copy(out[4:], ascii)
		out[w-1] = '-'
	}
	return w
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

// The encoder of RFC 3492 §6.3 walks the whole label once per distinct
// code point (O(n²)), counting the code points it passes into a delta per
// insertion of a non-basic one. This one gets each delta in closed form,
// in two steps: the code points in the order the RFC emits them (by value,
// then position) with the index of each insertion (keyInserts from sorted
// keys, blockLabel.inserts without sorting), then the deltas and their
// digits (encodeInserts).
//
// The delta is the step of the decoder's state n×(h+1) + i from one
// insertion to the next: h code points are in place, n is the code point
// inserted last and i the index after it (128 and 0 at first); the next
// code point m goes to index i' (the code points before it in the label
// that are in place: the basic ones, the smaller ones and its own earlier
// occurrences), so delta = (m-n)×(h+1) + i' - i. The lengths and strings
// are held to golang.org/x/net/idna by TestALabelLength and
// FuzzALabelLength.

// keyInserts writes to ins the inserts of the non-basic code points, keys
// (value<<6 | position, sorted), of a label whose basic code points are at
// the positions of the bits of basic.
func keyInserts(ins *punyInserts, keys []uint32, basic uint64) {
	inPlace := basic // a bit for the position of each code point in place
	for j, key := range keys {
		ins[j&63] = key&^63 | place(&inPlace, uint(key&63))
	}
}

// place returns the index where the decoder inserts the code point at
// position pos, the code points in place before it (a bit each in
// inPlace), and puts it in place.
func place(inPlace *uint64, pos uint) uint32 {
	at := uint32(bits.OnesCount64(*inPlace & (1<<pos - 1)))
	*inPlace |= 1 << pos
	return at
}

// A blockLabel is a label whose non-basic code points all have ordinals
// 1 to 127 in the language's labelOrds (their offsets in its block, or
// for a repertoire that does not fit the block's 1..127, such as Arabic's
// U+0621..U+06D3, their ranks), as the encoder reads it without sorting:
// the ordinal of each code point, a byte each (0 for a basic one), so that
// blockLabel.inserts compares them eight at a time. The ordinals keep the
// code points' order, which is all the encoder compares; their values
// come from labelOrds.val.
type blockLabel struct {
	offs   [64]byte // offs[p]: the ordinal of the code point at position p, 0 if ASCII
	n      int      // the code points
	nBasic int      // the ASCII ones
}

// add records the code point of ordinal off at position p; it reports
// false if off is outside 1..127, which the encoder cannot take (0 stands
// for ASCII).
func (bl *blockLabel) add(p int, off rune) bool {
	if off <= 0 || off >= 128 {
		return false
	}
	bl.offs[p&63] = byte(off)
	return true
}

// labelOrds maps the code points of a language's fastInfo range (its
// block and the 128 code points after it) to the ordinals blockLabel
// holds, and back. When every repertoire code point there lies at offsets
// 1..127 of the block (every Indic block), the ordinal is the offset, for
// every offset 1..127, so that segment's straight line writes the offset
// it has; otherwise, if the repertoire there has at most 127 code points,
// they are numbered 1, 2, ... in order. A code point without an ordinal
// (0) makes segment encode the label from its string.
type labelOrds struct {
	ord [256]uint8 // ord[o]: the ordinal of block+o, 0 if none
	val [128]rune  // val[ord]: the code point of the ordinal
	// byOffset: the ordinals are the block offsets (segment's
	// three-octet straight line writes the offset); the inserts then
	// carry code points at once (base is the block), otherwise ordinals
	// (base 0) until values turns them into code points
	byOffset bool
	base     rune
}

// values turns the ordinals of inserts written with base 0 into their
// code points; by offset, the inserts have them already (one predictable
// branch a label, instead of a load a code point on the Indic blocks).
func (lo *labelOrds) values(ins []uint32) {
	if lo.byOffset {
		return
	}
	for j, in := range ins {
		ins[j] = uint32(lo.val[in>>6&127])<<6 | in&63
	}
}

// buildLabelOrds numbers the code points of the fastInfo range in the
// repertoire (inRep of an offset 0..255) for the encoder.
func buildLabelOrds(block rune, inRep func(o int) bool) (lo labelOrds) {
	fits := !inRep(0)
	n := 0
	for o := 0; o < 256; o++ {
		if inRep(o) {
			n++
			fits = fits && o < 128
		}
	}
	switch {
	case fits:
		lo.byOffset, lo.base = true, block
		for o := 1; o < 128; o++ {
			lo.ord[o] = uint8(o)
			lo.val[o] = block + rune(o)
		}
	case n <= 127:
		k := 0
		for o := 0; o < 256; o++ {
			if inRep(o) {
				k++
				lo.ord[o] = uint8(k)
				lo.val[k] = block + rune(o)
			}
		}
	}
	return lo
}

// Bytes of eight, for the per-byte comparisons of blockLabel.inserts.
const (
	bytesOne  = 0x0101010101010101
	bytesHigh = 0x8080808080808080
)

// inserts is keyInserts for a label of up to eight code points (most),
// one word of offs: it writes the inserts of its non-basic code points to
// ins and returns their number. A code point's place in the order is its
// rank (the code points less than it, and those equal to it before it),
// its index of insertion the code points no greater before it (ASCII
// included), both counted in the word without a branch (compare8).
// TestBlockInserts holds it and insertsLong to keyInserts.
func (bl *blockLabel) inserts(ins *[8]uint32, block rune) int {
	// the bytes of 0 in the word, which compare8 counts as less: the
	// ASCII code points and the padding
	zeros := uint64(8 - bl.n + bl.nBasic)
	x := binary.LittleEndian.Uint64(bl.offs[:8])
	rest, before := x, uint64(0) // before: the bytes before position p
	for p := 0; p < bl.n; p++ {
		if off := rest & 0xFF; off != 0 { // not ASCII
			rank, at := compare8(x, off, before)
			ins[(rank-zeros)&7] = (uint32(block)+uint32(off))<<6 | uint32(at)
		}
		rest >>= 8
		before = before<<8 | 0xFF
	}
	return bl.n - bl.nBasic
}

// insertsLong is inserts for labels of any length, in time linear in it
// (the comparisons of compare8 grow with its square), by blockSets.
func (bl *blockLabel) insertsLong(ins *punyInserts, block rune) int {
	var bs blockSets
	for p := 0; p < bl.n; p++ {
		bs.add(p, rune(bl.offs[p&63]))
	}
	return bs.inserts(ins, block)
}

// blockSets is a label whose non-basic code points all have ordinals
// (labelOrds) as bit sets: the ordinals present, and the positions of
// each, so that the encoder visits the values in order without sorting
// them and without comparing each code point with every other.
type blockSets struct {
	at      [128]uint64 // at[off]: the positions of the code points of ordinal off
	present [2]uint64   // the ordinals present
	inPlace uint64      // the positions of the ASCII code points
}

// add records the code point of ordinal off (0 for an ASCII code point)
// at position p; it reports false if off is outside 0..127.
func (bs *blockSets) add(p int, off rune) bool {
	if off < 0 || off >= 128 {
		return false
	}
	if off == 0 {
		bs.inPlace |= 1 << p
		return true
	}
	bs.at[off] |= 1 << p
	bs.present[off>>6] |= 1 << (off & 63)
	return true
}

// inserts writes the inserts of the non-basic code points to ins and
// returns their number.
func (bs *blockSets) inserts(ins *punyInserts, block rune) int {
	inPlace := bs.inPlace
	j := 0
	for half := 0; half < 2; half++ {
		for set := bs.present[half]; set != 0; set &= set - 1 {
			off := half*64 + bits.TrailingZeros64(set)
			m := (uint32(block) + uint32(off)) << 6
			for ps := bs.at[off&127]; ps != 0; ps &= ps - 1 {
				ins[j&63] = m | place(&inPlace, uint(bits.TrailingZeros64(ps)))
				j++
			}
		}
	}
	return j
}

// compare8 compares the eight bytes of x (each 0 to 127) with off (1 to
// 127) and counts those less than off, and those equal to it among the
// bytes of before (rank), and those no greater among the bytes of before
// (at). A byte with its high bit set, minus another, keeps the high bit
// exactly when the other is no greater, and borrows nothing from the next
// byte. One multiplication adds up the bytes of both counts: bit 0 of each
// byte for rank, bit 4 for at (each count is at most 8).
func compare8(x, off, before uint64) (rank, at uint64) {
	spread := off * bytesOne
	noGreater := ((spread | bytesHigh) - x) & bytesHigh
	less := ((spread - bytesOne | bytesHigh) - x) & bytesHigh
	sum := ((less|noGreater&before)>>7 | (noGreater&before)>>3) * bytesOne >> 56
	return sum & 15, sum >> 4
}

// encode writes the A-label's digits to out from w on (the prefix is
// written) as far as they fit, and returns its whole length.
func (bl *blockLabel) encode(out []byte, w int, lo *labelOrds) int {
	if bl.n > 8 {
		var ins punyInserts
		k := bl.insertsLong(&ins, lo.base)
		lo.values(ins[:k])
		return encodeInserts(out, w, bl.nBasic, ins[:k])
	}
	var ins [8]uint32 // not a punyInserts: less to clear
	k := bl.inserts(&ins, lo.base)
	lo.values(ins[:k])
	return encodeInserts(out, w, bl.nBasic, ins[:k])
}

// encodeInserts writes the digits of the deltas of ins (of a label with
// nBasic basic code points) to out from w on, as far as they fit, adapting
// the bias after each (RFC 3492 §6.1, §6.3); it returns the whole length.
//
// Most deltas after the first (below smallDeltas, at a bias below
// smallBiases, which the first's, 72, is not) take their digits and the
// next bias from tables (smallDigits, smallBias). Otherwise a delta of up
// to three digits (the first in the Indic blocks takes three) is written
// without a branch on how many (a branch would mispredict), from a table
// of the bias's thresholds (digitSteps); a longer one by putDigits.
func encodeInserts(out []byte, w, nBasic int, ins []uint32) int {
	// the decoder's state n×(h+1) + i before the next insertion
	h := uint32(nBasic)
	state := punyInitialN * (h + 1)
	bias := uint32(punyInitialBias)
	// the first delta is divided by damp, the others by 2, as
	// multiplications by ceil(2^37 / d): exact for a delta below 2^27
	// (the error is below 2^27 / 2^37, less than 1/damp), and the
	// product fits in 64 bits
	dampMul := uint64((1<<37 + punyDamp - 1) / punyDamp)
	for _, in := range ins {
		m := in >> 6
		next := m*(h+1) + in&63
		delta := next - state
		// after the insertion: h+1 in place, i one past it
		state = next + m + 1
		if delta < smallDeltas && bias < smallBiases {
			// most deltas after the first: their digits and the next bias
			// from tables
			c := smallDigits[bias][delta]
			bias = uint32(smallBias[h&63][delta>>1])
			if w+2 <= len(out) {
				binary.LittleEndian.PutUint16(out[w:w+2], c)
			} else if w < len(out) {
				out[w] = byte(c)
			}
			w++
			if c >= 1<<8 {
				w++
			}
			h++
			continue
		}
		if ds := &digitSteps[bias&maxBias]; delta < ds.limit3 {
			// the digits t + r mod d and what remains, r / d, twice; the
			// digits past the last are not written
			r0 := delta - ds.t0
			q1 := uint32(uint64(r0) * ds.recip0 >> 33)
			r1 := q1 - ds.t1
			q2 := uint32(uint64(r1) * ds.recip1 >> 33)
			d0 := uint64(ds.t0 + r0 - q1*ds.d0)
			v, digits := d0|uint64(ds.t1+r1-q2*ds.d1)<<8|uint64(q2)<<16, 3
			if delta < ds.limit2 {
				v, digits = d0|uint64(q1)<<8, 2
			}
			if delta < ds.t0 {
				v, digits = uint64(delta), 1
			}
			w = putChars(out, w, punyChars(v), digits)
		} else {
			w = putDigits(out, w, delta, bias)
		}
		bias = adapt(uint32(uint64(delta)*dampMul>>37), h+1)
		dampMul = 1 << 36
		h++
	}
	return w
}

// maxBias bounds the bias: adapt's loop divides a delta below 2^27, damped
// at least by 2, by 35 at most four times before it is at most 455, so the
// bias is at most 4×36 + biasStep[455] = 177 (TestAdaptBound).
const maxBias = 255

// adapt returns the bias after a delta (RFC 3492 §6.1), given the delta
// already divided by damp (the first) or 2, and the number of code points
// handled, numPoints.
func adapt(dl, numPoints uint32) uint32 {
	dl += div(dl, numPoints)
	k := uint32(0)
	for dl > ((punyBase-punyTmin)*punyTmax)/2 {
		dl /= punyBase - punyTmin
		k += punyBase
	}
	return k + uint32(biasStep[dl])
}

// A digitStep holds what the first three digits of a delta need for a
// bias: the thresholds t0 and t1 of the first two, d = base - t and the
// reciprocal of d (div) for each, and the limits below which a delta has
// at most two digits (t0 + d0×t1) and three (that + d0×d1×t2). A value
// past the last digit wraps around; its digits are not written, and the
// products stay within 64 bits (below 2^32 × 2^30).
type digitStep struct {
	t0, d0, t1, d1 uint32
	limit2, limit3 uint32
	recip0, recip1 uint64
}

// digitSteps are the digitSteps of every bias.
var digitSteps = func() (ds [maxBias + 1]digitStep) {
	for bias := range ds {
		t0 := threshold(punyBase, uint32(bias))
		t1 := threshold(2*punyBase, uint32(bias))
		t2 := threshold(3*punyBase, uint32(bias))
		d0, d1 := punyBase-t0, punyBase-t1
		ds[bias] = digitStep{
			t0: t0, d0: d0, t1: t1, d1: d1,
			limit2: t0 + d0*t1, limit3: t0 + d0*t1 + d0*d1*t2,
			recip0: recip[d0], recip1: recip[d1],
		}
	}
	return ds
}()

// smallDigits holds the digits of every delta below smallDeltas for every
// bias below smallBiases (the deltas after the first in a word of an Indic
// block), as characters: the first in the low byte, the second, if any, in
// the next (no delta there takes more than two: for a bias below 36, t1 is
// tmax, and t0 + (base-t0)×tmax >= 286).
const (
	smallDeltas = 256
	smallBiases = 36
)

var smallDigits = func() (sd [smallBiases][smallDeltas]uint16) {
	for bias := range sd {
		for delta := range sd[bias] {
			var buf [8]byte
			switch putDigits(buf[:], 0, uint32(delta), uint32(bias)) {
			case 1:
				sd[bias][delta] = uint16(buf[0])
			case 2:
				sd[bias][delta] = binary.LittleEndian.Uint16(buf[:])
			default:
				panic("smallDigits: a delta of more than two digits")
			}
		}
	}
	return sd
}()

// smallBias[h][dl] is the bias after a delta of smallDigits with h code
// points in place before it: adapt(dl, h+1) for dl = delta/2 (it is not
// the first delta).
var smallBias = func() (sb [MaxALabelLength + 1][smallDeltas / 2]uint8) {
	for h := range sb {
		for dl := range sb[h] {
			sb[h][dl] = uint8(adapt(uint32(dl), uint32(h)+1))
		}
	}
	return sb
}()

// threshold is RFC 3492's t for the digit at k (a multiple of base): k -
// bias clamped to [tmin, tmax].
func threshold(k, bias uint32) uint32 {
	return uint32(min(max(int32(k)-int32(bias), punyTmin), punyTmax))
}

// putDigits writes the digits of delta for bias to out from w on, as far
// as they fit, one at a time (RFC 3492 §6.3), and returns the new length.
func putDigits(out []byte, w int, delta, bias uint32) int {
	q := delta
	for k := uint32(punyBase); ; k += punyBase {
		t := threshold(k, bias)
		if q < t {
			break
		}
		rest := div(q-t, punyBase-t)
		w = putChars(out, w, punyChars(uint64(q-rest*(punyBase-t))), 1) // t + (q-t) mod (base-t)
		q = rest
	}
	return putChars(out, w, punyChars(uint64(q)), 1)
}

// punyChars turns the digit values in the bytes of v (each below 36)
// into Punycode's digits: a-z for 0-25, 0-9 for 26-35 (a byte of 26 or
// more plus 102 has its high bit set; no byte carries into the next).
func punyChars(v uint64) uint64 {
	const a, zero = 'a' * bytesOne, ('a' - '0' + 26) // 'a'+v, or '0'+v-26
	return v + a - ((v+(128-26)*bytesOne)>>7&bytesOne)*zero
}

// putChars writes the first n bytes of c to out from w on, as far as they
// fit, and returns w+n.
func putChars(out []byte, w int, c uint64, n int) int {
	if w+8 <= len(out) {
		binary.LittleEndian.PutUint64(out[w:], c)
	} else {
		for i := 0; i < n && w+i < len(out); i++ {
			out[w+i] = byte(c >> (8 * i))
		}
	}
	return w + n
}

// div returns x / d for x < 2^27 and 1 <= d <= 64 (every division of the
// encoder: a delta is below 0x110000 × 64 < 2^27) as a multiplication by
// the reciprocal ceil(2^33 / d): the error is below 2^27 / 2^33 = 1/64,
// too small to reach the next integer for d <= 64. TestDiv checks every d
// at the edges of the range.
func div(x, d uint32) uint32 {
	return uint32((uint64(x) * recip[d&127]) >> 33)
}

var recip = func() (r [128]uint64) {
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
	var buf punyBuf
	return punycodeOf(u, nBasic, n, &buf)
}

// punycodeOf is punycode of the string u, of n code points (at most 63),
// nBasic of them ASCII.
func punycodeOf(u string, nBasic, n int, buf *punyBuf) int {
	var rs [MaxALabelLength]rune
	i := 0
	for _, r := range u {
		rs[i] = r
		i++
	}
	return punycode(rs[:n], nBasic, buf)
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
