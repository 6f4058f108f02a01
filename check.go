package akshara

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// MinLength is the default minimum label length in code points (the .in
// rule "3 to 63 characters", docs/policy.md §4). A registry zone may configure
// another with CheckOptions.
const MinLength = 3

// MaxALabelLength is the longest A-label (and ASCII label) in octets.
const MaxALabelLength = 63

// Result is the verdict on one label in one language, with every error.
type Result struct {
	Input      string   `json:"input"`      // the label as given
	Lang       string   `json:"lang"`       // the language tag
	Valid      bool     `json:"valid"`      // the label may be registered in the language
	ULabel     string   `json:"ulabel"`     // the NFC U-label ("" for undecodable input)
	ALabel     string   `json:"alabel"`     // the A-label of a valid non-ASCII label, else ""
	Normalized bool     `json:"normalized"` // NFC changed the input
	Syllables  []string `json:"syllables"`  // the U-label split into aksharas (digit runs are units; hyphens are not)
	Errors     []*Error `json:"errors"`     // every independent error, by position
}

// Error is one broken rule: its stable code, the position (index in code
// points of the NFC U-label), and a message fit to show a registrant.
type Error struct {
	Code    Code   `json:"code"`
	Pos     int    `json:"pos"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code.String() + " at " + itoa(e.Pos) + ": " + e.Message }

// Options change the whole-label rules a registry zone may configure, and
// how much Check reports.
type Options struct {
	MinLength int // minimum length in code points; 0 means MinLength

	// Brief leaves out what bulk users do not read: error messages
	// (Message is empty), syllables and the A-label. Codes and positions
	// are the same.
	Brief bool
}

// Valid reports whether label may be registered in the language. It is the
// verdict-only path of Check: the same rules, without diagnostics, and
// without allocating for a valid NFC U-label.
func (l *Language) Valid(label string) bool {
	if valid, sure := l.fast(label); sure {
		return valid
	}
	return l.run(label, nil, MinLength)
}

// Check returns the verdict on label with every error found.
func (l *Language) Check(label string) *Result {
	return l.CheckOptions(label, Options{})
}

// CheckOptions is Check with zone options.
func (l *Language) CheckOptions(label string, o Options) *Result {
	minLen := o.MinLength
	if minLen <= 0 {
		minLen = MinLength
	}
	// fast applies the default minimum length (a constant there: Valid's
	// loop is measurably faster for it)
	if valid, sure := l.fast(label); sure && valid && minLen == MinLength {
		if o.Brief {
			return l.briefResult(label)
		}
		var rec fastRec
		if l.segment(label, &rec) {
			return l.validResult(label, &rec)
		}
	}
	var d diag // (a composite literal would be zeroed, then copied)
	d.lang, d.brief = l, o.Brief
	l.run(label, &d, minLen)
	d.newResult(label)
	d.finish()
	return d.res
}

// noErrors is the Errors of a valid Result: empty, not nil, so that it is
// [] in JSON. Its capacity is 0, so appending to it never writes here.
var noErrors = []*Error{}

// fastRec is what segment records for Check when fast is sure a label is
// valid: the syllable boundaries and what the A-label's encoder needs. The
// label is then its own NFC U-label, so Check builds the Result from it
// without running the pipeline.
type fastRec struct {
	label blockLabel                  // the code points, for the A-label's encoder
	segs  [MaxALabelLength + 2]uint16 // off<<2 | hyphen<<1 | digit
	ascii [MaxALabelLength]byte       // the ASCII code points, in order
	nSegs int
	// wide: a code point has no ordinal for label (labelOrds), so the
	// A-label is encoded from the string
	wide bool
}

// segment walks fast's grammar table (fastSegTab: fastTab with a bit for
// where a syllable starts) over a label fast found valid and records the syllable
// boundaries and the code points (a second, light pass, so that Valid's
// loop carries nothing for Check); false if the label is too long to be
// valid (fast would not have said so). A boundary is written at every step
// and kept only where the table starts a syllable: no branch on the
// table's answer, which a word's letters make unpredictable.
func (l *Language) segment(s string, rec *fastRec) bool {
	tab, info, ords := l.fastSegTab, &l.fastInfo, &l.labelOrds
	st := uint32(0)
	n, nSegs := 0, 0
	// The straight lines: the three-octet code points of fastInfo (every
	// letter of an Indic block), then the two-octet ones (every letter of
	// an Arabic-script block), with the counts in registers. Anything else
	// goes on in the loop below, from the same state.
	rest := s
	// the three-octet line records block offsets: only where they are the
	// ordinals (one branch a label, none a code point)
	if ords.byOffset {
		for len(rest) >= 3 && n < MaxALabelLength {
			c := rest[0]
			r := rune(c&0x0F)<<12 | rune(rest[1]&0x3F)<<6 | rune(rest[2]&0x3F)
			o := uint(r - l.block)
			if c < 0xE0 || c >= 0xF0 || o-1 >= 127 || info[o] == 0 {
				break // o-1 >= 127: label.add takes the offsets 1..127
			}
			rec.label.offs[n&63] = byte(o)
			rec.segs[nSegs&63] = uint16(len(s)-len(rest)) << 2
			t := tab[st|uint32(info[o]&fiKind)]
			st = t &^ 1
			nSegs += int(t & 1)
			n++
			rest = rest[3:]
		}
	}
	for len(rest) >= 2 && n < MaxALabelLength {
		c := rest[0]
		o := uint(rune(c&0x1F)<<6 | rune(rest[1]&0x3F) - l.block)
		if c&0xE0 != 0xC0 || o >= 256 || info[o] == 0 || ords.ord[o] == 0 {
			break
		}
		rec.label.offs[n&63] = ords.ord[o]
		rec.segs[nSegs&63] = uint16(len(s)-len(rest)) << 2
		t := tab[st|uint32(info[o]&fiKind)]
		st = t &^ 1
		nSegs += int(t & 1)
		n++
		rest = rest[2:]
	}
	for i := len(s) - len(rest); i < len(s); n++ {
		if n == MaxALabelLength {
			return false
		}
		var w uint64
		v := uint16(i) << 2 // off<<2 | hyphen<<1 | digit
		if c := s[i]; c < utf8.RuneSelf {
			w, v = l.fastASCII[c], v|1 // fast is sure: ASCII here is a digit or a hyphen
			if c == '-' {
				v = v&^1 | 2
			}
			rec.ascii[rec.label.nBasic&63] = c
			rec.label.nBasic++
			i++
		} else {
			r, size := decodeValid(s, i)
			i += size
			ord := uint8(0)
			if o := uint(r - l.block); o < uint(len(info)) {
				w, ord = info[o], ords.ord[o]
			}
			if w == 0 {
				w = uint64(l.extra[r]) // a letter NFC may change, outside fastInfo
			}
			if !rec.label.add(n, rune(ord)) {
				rec.wide = true
			}
		}
		t := tab[st|uint32(w&fiKind)]
		st = t &^ 1
		rec.segs[nSegs&63] = v
		nSegs += int(t & 1)
	}
	rec.nSegs = nSegs
	rec.label.n = n
	return true
}

// aLabel writes the A-label of the label s segment recorded to buf (as
// far as it fits) and returns its length.
func (l *Language) aLabel(s string, rec *fastRec, buf *punyBuf) int {
	if rec.wide {
		return punycodeOf(s, rec.label.nBasic, rec.label.n, buf)
	}
	return rec.label.encode(buf[:], prefix(buf[:], rec.ascii[:rec.label.nBasic]), &l.labelOrds)
}

// The Result of Check's diagnostics, room for its syllables and for one
// error, so that the Result of a label with one error is one allocation,
// in three sizes (size classes of the allocator: 176, 240 and 288 bytes):
// a brief Result has no syllables; most words have at most 4.
type (
	briefBox struct {
		res Result
		one oneError
	}
	resultBox4 struct {
		res Result
		syl [4]string
		one oneError
	}
	resultBox7 struct {
		res Result
		syl [7]string
		one oneError
	}
)

// The Result of a valid label, its syllables and its A-label in one
// allocation, in two sizes (224 and 320 bytes, two of the allocator's size
// classes): most Hindi words have at most 4 syllables and an A-label of at
// most 32 octets.
type (
	validBox4 struct {
		res Result
		syl [4]string
		a   [32]byte
	}
	validBox8 struct {
		res Result
		syl [8]string
		a   [64]byte
	}
)

// noSyllables is the Syllables of a brief Result: empty, not nil.
var noSyllables = []string{}

// briefResult is the Result of a label fast is sure is valid, for
// Options.Brief: no syllables, no A-label. Its fields are stored one by one
// (see validResult).
func (l *Language) briefResult(s string) *Result {
	r := new(Result)
	r.Input, r.Lang, r.Valid, r.ULabel = s, l.Tag, true, s
	r.Syllables, r.Errors = noSyllables, noErrors
	return r
}

// validResult builds the Result of a label fast is sure is valid, as
// run and diag.finish would: the label is NFC, so it is its own U-label.
func (l *Language) validResult(s string, rec *fastRec) *Result {
	segs := rec.segs[:rec.nSegs]
	if len(segs) == 0 || segs[0]>>2 != 0 {
		// the first syllable starts at 0 whatever the table says
		segs = rec.segs[:rec.nSegs+1]
		copy(segs[1:], segs)
		segs[0] = 0
	}
	// the syllables' byte offsets (a label fast found valid has at most
	// 63 code points: 252 octets): with no digit or hyphen, each segment
	// is a syllable, up to the next (segs has room for len(s) after them)
	var from, to [MaxALabelLength + 2]uint8
	nSyl := len(segs)
	if rec.label.nBasic == 0 {
		rec.segs[nSyl] = uint16(len(s)) << 2
		for i := range nSyl {
			from[i], to[i] = uint8(rec.segs[i]>>2), uint8(rec.segs[i+1]>>2)
		}
	} else {
		nSyl = sylRanges(s, segs, &from, &to)
	}
	var a punyBuf
	alen := 0
	if rec.label.nBasic < rec.label.n {
		alen = l.aLabel(s, rec, &a)
	}
	if nSyl <= 4 && alen <= 32 {
		// The fields are stored one by one: a composite literal is built
		// on the stack and copied in with typedmemmove, whose bulk write
		// barrier (while the GC marks) cost more than the rest of this
		// function.
		b := new(validBox4)
		for i := range nSyl {
			b.syl[i] = s[from[i]:to[i]]
		}
		b.a = [32]byte(a[:32])
		r := &b.res
		r.Input, r.Lang, r.Valid, r.ULabel = s, l.Tag, true, s
		r.ALabel = unsafe.String(&b.a[0], alen)
		r.Syllables, r.Errors = b.syl[:nSyl], noErrors
		return r
	}
	b := &validBox8{}
	syl := b.syl[:0]
	if nSyl > len(b.syl) {
		syl = make([]string, 0, nSyl)
	}
	for i := 0; i < nSyl; i++ {
		syl = append(syl, s[from[i]:to[i]])
	}
	r := &b.res
	r.Input, r.Lang, r.Valid, r.ULabel = s, l.Tag, true, s
	r.Syllables, r.Errors = syl, noErrors
	switch {
	case alen > len(b.a):
		// not for a label fast is sure is valid (its A-label has at most
		// 63 octets), but never a wrong A-label
		r.ALabel = string(appendALabel(nil, []rune(s), rec.label.nBasic))
	case alen > 0:
		// b.a is not written again: the string may point into it
		copy(b.a[:], a[:alen])
		r.ALabel = unsafe.String(&b.a[0], alen)
	}
	return r
}

// sylRanges turns the segments of a label that holds digits or hyphens
// into its syllables' byte ranges: a hyphen is not a syllable, and a run of
// digits is one.
func sylRanges(s string, segs []uint16, from, to *[MaxALabelLength + 2]uint8) int {
	nSyl := 0
	for i, v := range segs {
		off, end := int(v>>2), len(s)
		if i+1 < len(segs) {
			end = int(segs[i+1] >> 2)
		}
		if v&2 != 0 || end <= off {
			continue // a hyphen is not a syllable
		}
		if v&1 != 0 && i > 0 && segs[i-1]&1 != 0 && nSyl > 0 {
			to[nSyl-1] = uint8(end) // a digit run is one unit
			continue
		}
		from[nSyl], to[nSyl] = uint8(off), uint8(end)
		nSyl++
	}
	return nSyl
}

// hasACEPrefix reports whether s begins with "xn--", in any ASCII case.
func hasACEPrefix(s string) bool {
	return len(s) >= 4 && (s[0]|0x20) == 'x' && (s[1]|0x20) == 'n' && s[2] == '-' && s[3] == '-'
}

// decodeALabel turns an A-label into its U-label, or says why it is not one
// (RFC 5891 §5.4: it must decode, be NFC as decoded and re-encode to itself).
func decodeALabel(s string) (string, string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c == '.' {
			return "", "an A-label contains only ASCII letters, digits and hyphens"
		}
	}
	lower := strings.ToLower(s)
	if len(lower) == 4 {
		return "", "the A-label has nothing after xn--"
	}
	u, err := idna.Punycode.ToUnicode(lower)
	if err != nil || hasACEPrefix(u) {
		return "", "the A-label is not valid Punycode"
	}
	if isASCII(u) {
		return "", "the A-label decodes to plain ASCII, which must not be written as an A-label"
	}
	if !utf8.ValidString(u) {
		return "", "the A-label decodes to invalid text"
	}
	if !norm.NFC.IsNormalString(u) {
		return "", "the A-label decodes to text that is not in Unicode normalization form NFC"
	}
	if re, err := idna.Punycode.ToASCII(u); err != nil || re != lower {
		return "", "the A-label does not re-encode to itself"
	}
	return u, ""
}

// run is the pipeline of docs/policy.md §2: input, normalization, classes,
// syllables, whole-label rules. With d == nil it stops at the first error.
func (l *Language) run(s string, d *diag, minLen int) bool {
	if s == "" {
		d.add(Empty, 0, -1, NoClass)
		return false
	}
	valid, quick := false, false
	if d != nil {
		valid, quick = d.decode(s)
	} else {
		valid = utf8.ValidString(s)
	}
	if !valid {
		if d != nil {
			pos := 0
			for i, r := range s {
				if r == utf8.RuneError {
					if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
						d.add(InvalidUTF8, pos, rune(s[i]), NoClass)
						break
					}
				}
				pos++
			}
		}
		return false
	}
	u := s
	if hasACEPrefix(s) {
		dec, why := decodeALabel(s)
		if why != "" {
			if d != nil {
				d.ulabel = ""
				d.addMessage(BadALabel, 0, why)
			}
			return false
		}
		if len(s) > MaxALabelLength {
			d.addMessageOf(TooLong, 0, func() string {
				return "the A-label has " + itoa(len(s)) + " characters; at most 63 are allowed"
			})
			if d == nil {
				return false
			}
		}
		u = dec
	}
	normalized := false
	if d != nil {
		quick = u == s && (quick || l.quickNFCRunes(u, d.codePoints()))
	} else {
		quick = l.quickNFC(u)
	}
	if !quick && (d != nil || !l.hopeless(u)) && !norm.NFC.IsNormalString(u) {
		u = norm.NFC.String(u)
		normalized = true
	}
	if d != nil {
		d.ulabel, d.normalized = u, normalized
		if u != s {
			d.decode(u) // the code points of the U-label, for scan and the messages
		}
	}
	valid = l.scan(u, d, minLen)
	if d != nil {
		d.contexts(u)
		d.variantLimit(u)
		if bad, digitFirst := l.bidiFault(u); bad && (digitFirst || len(d.errs()) == 0) {
			d.add(Bidi, 0, -1, NoClass)
		}
		return valid && len(d.errs()) == 0
	}
	if bad, _ := l.bidiFault(u); bad {
		return false
	}
	return valid && l.contextsOK(u) && l.variantLimitOK(u)
}

// quickNFC reports whether u is certainly NFC, using the language's tables;
// false means "ask norm" (TestQuickNFC holds it to norm's answer).
func (l *Language) quickNFC(u string) bool {
	q := &l.blockNFC
	var lastCC uint8
	prevOff := rune(-1) // block offset of the previous character; -1 none, ASCII or a composer outside the block; -2 see mayCompose
	for i := 0; i < len(u); {
		c := u[i]
		if c < utf8.RuneSelf {
			// ASCII is NFC and starts no composition: only a mark after
			// it could change (prevOff -1 sends that to norm).
			lastCC, prevOff = 0, -1
			i++
			continue
		}
		r, size := rune(0), 3
		if c >= 0xE0 && c < 0xF0 && i+2 < len(u) { // inlined: every Indic block
			r = rune(c&0x0F)<<12 | rune(u[i+1]&0x3F)<<6 | rune(u[i+2]&0x3F)
		} else {
			r, size = decodeValid(u, i)
		}
		i += size
		off := r - l.block
		if off < 0 || off >= 128 {
			p, ok := l.outsideNFC(r, u[i-size:i])
			if !ok {
				return false
			}
			lastCC, prevOff = 0, p
			continue
		}
		if !q.fits(off, prevOff, lastCC) {
			return false
		}
		lastCC, prevOff = q.ccc[off], off
	}
	return true
}

// outsideNFC is quickNFC's answer for a code point r outside the block
// (enc is its UTF-8): false means "ask norm"; else the prevOff to go on
// with. A repertoire letter NFC never changes gives -1 (a mark after it may
// compose with it: its composer flag speaks only of the repertoire's marks,
// quickNFC reads any); one NFC leaves alone with its neighbours, -2.
func (l *Language) outsideNFC(r rune, enc string) (rune, bool) {
	if _, ok := l.extraStarters[r]; ok {
		return -1, true
	}
	if inertNFC(enc) {
		return -2, true
	}
	return 0, false
}

// quickNFCRunes is quickNFC for the diagnostics, over the code points rs
// of u that d.decode recorded (TestQuickNFC holds the two to each other).
func (l *Language) quickNFCRunes(u string, rs []rune) bool {
	q := &l.blockNFC
	var lastCC uint8
	prevOff := rune(-1) // as in quickNFC
	i := 0              // the byte offset after r in u
	for _, r := range rs {
		if r < utf8.RuneSelf {
			lastCC, prevOff = 0, -1
			i++
			continue
		}
		size := 2
		if r >= 0x800 {
			size = 3
			if r >= 0x10000 {
				size = 4
			}
		}
		i += size
		off := r - l.block
		if off < 0 || off >= 128 {
			p, ok := l.outsideNFC(r, u[i-size:i])
			if !ok {
				return false
			}
			lastCC, prevOff = 0, p
			continue
		}
		if !q.fits(off, prevOff, lastCC) {
			return false
		}
		lastCC, prevOff = q.ccc[off], off
	}
	return true
}

// fits is quickNFC's test of the block's code point at off after the
// code point at block offset prevOff, of combining class lastCC (prevOff
// as in quickNFC): false means "ask norm".
func (q *blockNFC) fits(off, prevOff rune, lastCC uint8) bool {
	if q.never[off] {
		return false
	}
	cc := q.ccc[off]
	switch {
	case cc != 0 && cc < lastCC:
		return false
	case !q.maybe[off] || prevOff == -2:
		return true
	case prevOff < 0 || lastCC != 0:
		return cc == 0 // see mayCompose
	}
	return q.composes[off][prevOff/64]&(1<<(prevOff%64)) == 0
}

// inertNFC reports whether the one character c is one that NFC leaves
// alone whatever is next to it: no decomposition, combining class 0, and
// nothing composes with it on either side (a zero width joiner, a Latin
// letter, a danda).
func inertNFC(c string) bool {
	p := norm.NFC.PropertiesString(c)
	return p.CCC() == 0 && p.BoundaryBefore() && p.BoundaryAfter() && p.Decomposition() == nil
}

// mayCompose reports whether the block character at off, of combining
// class cc, which NFC may compose with a character before it (maybe), might
// do so here. prevOff is the block offset of the character before it (-1
// for the start of the label or an ASCII character) and lastCC that
// character's combining class (-2: a letter outside the block that nothing
// composes with, which also blocks any composition across it). A starter
// (cc 0) composes only with the
// character just before it, and only if that is a starter of the block
// that the tables say it composes with (a mark in between blocks it:
// Bengali য় + া, Oriya ଡ଼ + ା). A mark may compose with an earlier starter
// across other marks, so after the start, ASCII or a mark the answer is
// "perhaps" and norm decides.
func (l *Language) mayCompose(off rune, cc uint8, prevOff rune, lastCC uint8) bool {
	if prevOff == -2 {
		return false // after a letter outside the block that nothing composes with
	}
	if prevOff < 0 || lastCC != 0 {
		return cc != 0
	}
	return l.composes[off][prevOff/64]&(1<<(prevOff%64)) != 0
}

// starter returns the extraStarter r is, if any: from the table of the
// 128 code points after the block, else the map.
func (l *Language) starter(r rune) (extraStarter, bool) {
	if o := r - l.block - 128; o >= 0 && o < 128 {
		es := l.nextStarters[o]
		return es, es.ok
	}
	es, ok := l.extraStarters[r]
	return es, ok
}

// classOf is Class without a map lookup for the script's block.
func (l *Language) classOf(r rune) Class {
	if off := r - l.block; off >= 0 && off < 128 {
		return l.kinds[off].class()
	}
	if k, ok := l.extra[r]; ok {
		return k.class()
	}
	return NoClass
}

// fast is the verdict-only path for the common case, in one pass over the
// bytes: it decodes (validating UTF-8), checks NFC with the language's
// tables, walks the grammar table and applies the whole-label rules. It is
// sure of its answer only when normalization cannot change it; otherwise
// (an A-label, a string that may not be NFC, a character outside the block
// that NFC might turn into a repertoire character) it leaves the label to
// run. TestFastPath holds its sure answers to run's, TestFastMatchesRef
// its answers to the former loop's (refFast).
//
// Each code point costs one load of its fastInfo word (kind, combining
// class, flags) and one of fastTab; the counts the whole-label rules need
// are added up from the words, the flags or-ed together, and the rare
// cases (a character NFC may compose, one outside the tables) leave the
// loop's straight line.
func (l *Language) fast(s string) (valid, sure bool) {
	if len(s) == 0 || hasACEPrefix(s) {
		return false, false
	}
	if !l.fastIsSmall {
		return l.fastRest(s, 0, 0, 0, 0, 0, 0, l.fastStart, 0)
	}
	tab, info := &l.fastSmall, &l.fastInfo
	st, maxSt := uint32(0), uint32(0)
	cnt := uint64(0)     // code points, plus ASCII code points<<32
	var sum uint64       // fiCounted fields added up
	prevW := l.fastStart // the word of the code point before
	pairs := uint64(0)   // prevW>>fiPrevShift & w or-ed over the label
	i := 0
	// The straight line: ASCII and the code points of fastInfo that NFC
	// cannot compose with the one before; no call, so that the loop's
	// state stays in registers. Anything else goes on in fastRest.
	for i < len(s) {
		var w uint64
		c := s[i]
		switch {
		case c < 0x80:
			if w = l.fastASCII[c]; w == 0 {
				// no normalization makes an ASCII letter or sign valid;
				// unsure if NFC may have composed a pair before it
				return false, pairs&fiCompose == 0
			}
			cnt += 1 << 32
			i++
		case c >= 0xE0 && c < 0xF0 && i+2 < len(s):
			// a 3-byte form of a code point below U+0800 is overlong
			b1, b2 := s[i+1], s[i+2]
			r := rune(c&0x0F)<<12 | rune(b1&0x3F)<<6 | rune(b2&0x3F)
			if b1&0xC0 != 0x80 || b2&0xC0 != 0x80 || r < 0x800 {
				goto rest
			}
			o := uint(r - l.block)
			if o >= uint(len(info)) {
				// the joiners of U+2000..U+207F (fastPunct)
				if u := uint(r - 0x2000); u < uint(len(l.fastPunct)) && l.fastPunct[u] != punctStarter {
					return false, l.fastPunct[u] == punctHopeless && pairs&fiCompose == 0
				}
				goto rest
			}
			if w = info[o]; w == 0 {
				return false, l.fastHopeless[o] && pairs&fiCompose == 0 // as hopelessAt says
			}
			if w&fiMaybe != 0 {
				goto rest
			}
			i += 3
		case c >= 0xC2 && c < 0xE0 && i+1 < len(s):
			b1 := s[i+1]
			o := uint(rune(c&0x1F)<<6 | rune(b1&0x3F) - l.block)
			if b1&0xC0 != 0x80 || o >= uint(len(info)) {
				goto rest
			}
			if w = info[o]; w == 0 {
				return false, l.fastHopeless[o] && pairs&fiCompose == 0 // as hopelessAt says
			}
			if w&fiMaybe != 0 {
				goto rest
			}
			i += 2
		default:
			goto rest
		}
		if cc := uint8(w >> fiCCCShift); cc != 0 && cc < uint8(prevW>>fiCCCShift) {
			return false, false
		}
		st = uint32(tab[(st|uint32(w&fiKind))&fastMask])
		maxSt = max(maxSt, st)
		sum += w & fiCounted
		pairs |= prevW >> fiPrevShift & w
		prevW = w
		cnt++
	}
	if pairs&fiCompose != 0 {
		return false, false // NFC may compose a pair
	}
	return l.fastEnd(s, st, maxSt, int(uint32(cnt)), int(cnt>>32), sum, pairs)
rest:
	return l.fastRest(s, i, st, maxSt, int(uint32(cnt)), int(cnt>>32), sum, prevW, pairs)
}

// fastRest is fast's loop for the rest of s from i, where a code point
// that is not on fast's straight line stands: one NFC may compose with
// the code point before it, a letter outside fastInfo, a code point
// outside the repertoire, invalid UTF-8.
func (l *Language) fastRest(s string, i int, st, maxSt uint32, n, nBasic int, sum, prevW, pairs uint64) (valid, sure bool) {
	if pairs&fiCompose != 0 {
		return false, false // NFC may compose a pair before i
	}
	tab, info := l.fastTab, &l.fastInfo
	var prevSet [2]uint64 // prev -3: the marks that compose with the letter before
	lastCC := uint8(prevW >> fiCCCShift)
	// prev is the character before, for mayCompose: a block offset, an
	// offset 128..255 of fastInfo (a letter after the block, see
	// mayComposeAfter), or -1 (none, ASCII, a letter a mark from outside
	// the block composes with), -2 (a letter nothing composes with), -3 (a
	// letter the marks of prevSet compose with). Before i only ASCII and
	// fastInfo's code points were read.
	prev := -1
	if i > 0 && s[i-1] >= 0x80 {
		j := i - 1
		for j > 0 && s[j]&0xC0 == 0x80 {
			j--
		}
		r, _ := utf8.DecodeRuneInString(s[j:i])
		prev = int(r - l.block)
	}
	for i < len(s) {
		var w uint64
		off := -1
		if c := s[i]; c < 0x80 {
			if w = l.fastASCII[c]; w == 0 {
				return false, true // no normalization makes an ASCII letter or sign valid
			}
			nBasic++
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return false, true // INVALID_UTF8
			}
			if o := int(r - l.block); o >= 0 && o < len(info) && info[o] != 0 {
				w, off = info[o], o
			} else {
				es, ok := l.extraStarters[r]
				if !ok {
					return false, l.hopelessAt(s, i, size)
				}
				// A repertoire letter outside the tables that NFC never
				// changes (Bodo's U+02BC): as mayComposeAfter says for
				// those of fastInfo.
				w = es.fast
				off = -2
				switch {
				case es.wide:
					off = -1
				case es.composer:
					off, prevSet = -3, es.composes
				}
			}
			i += size
		}
		cc := uint8(w >> fiCCCShift)
		if cc != 0 && cc < lastCC {
			return false, false
		}
		if w&fiMaybe != 0 && l.mayComposeAfter(off, cc, prev, lastCC, &prevSet) {
			return false, false
		}
		lastCC, prev = cc, off
		st = tab[st|uint32(w&fiKind)]
		maxSt = max(maxSt, st)
		sum += w & fiCounted
		if pairs |= prevW >> fiPrevShift & w; pairs&fiCompose != 0 {
			return false, false // NFC may compose this pair
		}
		prevW = w
		n++
	}
	return l.fastEnd(s, st, maxSt, n, nBasic, sum, pairs)
}

// fastEnd applies the whole-label rules to a label fast read to the end:
// it is NFC, st is the grammar's state after it, maxSt the largest state
// it visited, and sum and pairs what fast accumulated.
func (l *Language) fastEnd(s string, st, maxSt uint32, n, nBasic int, sum, pairs uint64) (valid, sure bool) {
	if n > MaxALabelLength {
		return false, true // NFC, and too long for any A-label (and the counts may have overflowed)
	}
	halants := int(sum>>16) & 0xFF
	varStarts := int(sum>>24) & 0xFF
	switch {
	case !l.fastEnds[st>>fastShift], n < MinLength, pairs&fiNonDigit == 0 && n <= 2:
		return false, true
	case maxSt >= l.fastTriple && halants >= 2 && l.mayHaveTriple(s):
		if _, found := l.identicalConsonants(s); found {
			return false, true
		}
	}
	if l.RTL && s[0] <= '9' && s[0] >= '0' {
		return false, true // BIDI: checkRTL makes the leading digit the only way to break the Bidi rule here
	}
	if nBasic == n {
		return len(s) <= MaxALabelLength, true
	}
	safe := &l.safeLen
	if pairs&fiOutside != 0 {
		safe = &l.safeLenWide
	}
	if n > int(safe[nBasic]) && l.fastALabelLength(s, nBasic, n) > MaxALabelLength {
		return false, true
	}
	if varStarts > l.varFree && !l.variantLimitOK(s) {
		return false, true
	}
	if pairs&fiRulesT != 0 {
		return false, true // a not-after or only-after rule is broken
	}
	switch {
	case pairs&(fiTrigger|fiTrig2) == 0:
		return true, true
	case pairs&fiTrig2 == 0 && l.fastNoMixOnly:
		return !l.mixes(s), true
	}
	return l.contextsOK(s), true
}

// mayComposeAfter is mayCompose for fast's prev (see fast): whether the
// block character at off, of combining class cc, which NFC may compose
// with a character before it, might do so after prev.
func (l *Language) mayComposeAfter(off int, cc uint8, prev int, lastCC uint8, prevSet *[2]uint64) bool {
	if off < 0 || off >= 128 {
		return true // not a block offset: fiMaybe is set only for those
	}
	if prev >= 128 {
		es := l.nextStarters[prev-128]
		switch {
		case es.wide:
			prev = -1
		case es.composer:
			prev, prevSet = -3, &es.composes
		default:
			prev = -2
		}
	}
	if prev == -3 {
		// just after a letter outside the block that some repertoire
		// marks compose with: is this one of them?
		return prevSet[off/64]&(1<<(off%64)) != 0
	}
	return l.mayCompose(rune(off), cc, rune(prev), lastCC)
}

// hopelessAt is hopeless for the one character at s[i:i+size].
func (l *Language) hopelessAt(s string, i, size int) bool {
	return l.hopeless(s[i : i+size])
}

// hopeless reports whether u holds a character that no normalization can
// turn into repertoire characters: one with no canonical decomposition that
// is not part of the decomposition of any repertoire character. NFD(u)
// keeps such a character, so NFC(u) is not made of the repertoire either and
// the label is invalid whatever its form; the verdict-only path can stop
// without normalizing.
func (l *Language) hopeless(u string) bool {
	for i := 0; i < len(u); {
		c := u[i]
		if c < utf8.RuneSelf {
			if c != '-' && (c < '0' || c > '9') {
				return true
			}
			i++
			continue
		}
		r, size := decodeValid(u, i)
		if off := r - l.block; off >= 0 && off < 128 {
			if l.decomposed[off] {
				i += size
				continue
			}
		} else if _, ok := l.extra[r]; ok {
			i += size
			continue
		}
		if norm.NFD.PropertiesString(u[i:i+size]).Decomposition() == nil {
			return true
		}
		i += size
	}
	return false
}

// scan classifies and parses the NFC label u and applies the whole-label
// rules. The verdict-only path (d == nil) reads u and stops at the first
// error; the diagnostics read the code points d.decode recorded (parseDiag).
func (l *Language) scan(u string, d *diag, minLen int) bool {
	var w parsed
	if d != nil {
		w = l.parseDiag(u, d)
	} else if w = l.parse(u); !w.ok {
		return false
	}
	if code := l.ends[w.st]; code != OK {
		if d == nil {
			return false
		}
		prev := w.prev
		if d != nil {
			prev = l.classBefore(d.codePoints(), w.n) // parseDiag leaves it to the rare error
		}
		d.addGrammar(code, w.n-1, -1, prev)
	}
	n, nBasic := w.n, w.nBasic
	if n < minLen {
		if d == nil {
			return false
		}
		d.addMessageOf(TooShort, 0, func() string {
			return "the label has " + itoa(n) + plural(n, " character", " characters") + "; at least " + itoa(minLen) + " are required"
		})
	}
	if w.allDigits && n <= 2 {
		if d == nil {
			return false
		}
		d.addMessage(DigitsOnly, 0, DigitsOnly.Summary())
	}
	if w.halants >= 2 {
		var pos int
		var found bool
		if d != nil {
			pos, found = l.identicalRunes(d.codePoints())
		} else if l.mayHaveTriple(u) { // the prefilter fast uses (TestTriplePrefilter)
			pos, found = l.identicalConsonants(u)
		}
		if found {
			if d == nil {
				return false
			}
			d.add(IdenticalConsonants, pos, -1, NoClass)
		}
	}
	safe := &l.safeLen // the A-label of fewer code points fits: no need to count
	if !w.inBlock {
		safe = &safeLenAny
	}
	if nBasic < n && n > int(safe[min(nBasic, MaxALabelLength)]) {
		if alen := aLabelLengthOf(u, nBasic, n); alen > MaxALabelLength {
			if d == nil {
				return false
			}
			d.addMessageOf(TooLong, 0, func() string {
				return "the A-label would have " + itoa(alen) + " characters; at most 63 are allowed"
			})
		}
	} else if nBasic == n && len(u) > MaxALabelLength {
		if d == nil {
			return false
		}
		d.addMessageOf(TooLong, 0, func() string {
			return "the label has " + itoa(len(u)) + " characters; at most 63 are allowed"
		})
	}
	return true
}

// parsed is what scan's parse found in a label: the grammar's state at
// the end, the class of the last code point (parse only: for parseDiag,
// scan asks classBefore in the rare case it needs it), the counts the
// whole-label rules need; ok is false when the verdict-only parse met an
// error.
type parsed struct {
	st                     uint16
	prev                   Class
	n, nBasic, halants     int
	allDigits, inBlock, ok bool
}

// parse is scan's loop for the verdict-only path: it decodes u and stops at
// the first error.
func (l *Language) parse(u string) parsed {
	st := uint16(0)
	n, nBasic, halants := 0, 0, 0
	allDigits := true
	inBlock := true // every non-ASCII code point is in the script's block
	prev := NoClass
	for i := 0; i < len(u); {
		var r rune
		var k kind
		size := 1
		if c := u[i]; c < utf8.RuneSelf {
			r = rune(c)
			switch {
			case c >= '0' && c <= '9':
				k = kindDigit
			case c == '-':
				k = kindHyph
			}
			nBasic++
		} else {
			if size = 3; c >= 0xE0 && c < 0xF0 && i+2 < len(u) { // inlined: every Indic block
				r = rune(c&0x0F)<<12 | rune(u[i+1]&0x3F)<<6 | rune(u[i+2]&0x3F)
			} else {
				r, size = decodeValid(u, i)
			}
			if off := r - l.block; off >= 0 && off < 128 {
				k = l.kinds[off]
			} else {
				inBlock = false
				if ek, ok := l.extra[r]; ok {
					k = ek
				}
			}
		}
		if k != kindDigit {
			allDigits = false
		}
		if k == kindNone {
			return parsed{}
		}
		t := &l.table[st][k]
		if t.code != OK {
			return parsed{}
		}
		st = t.next
		if k == kind(H) {
			halants++
		}
		prev = k.class()
		n++
		i += size
	}
	return parsed{st: st, prev: prev, n: n, nBasic: nBasic, halants: halants, allDigits: allDigits, inBlock: inBlock, ok: true}
}

// parseDiag is scan's loop for the diagnostics: over the code points of u
// that d.decode recorded, recording every error, the syllable boundaries,
// and how many code points may start a variant sequence (variantLimit).
// The loop carries only what it must (the class of the code point before,
// the digits, the block are found again where needed): fewer registers to
// spill around its calls.
func (l *Language) parseDiag(u string, d *diag) parsed {
	st := uint16(0)
	nBasic, halants, varStarts := 0, 0, 0
	i := 0 // the byte offset of rs[n] in u
	rs := d.codePoints()
	for n, r := range rs {
		var k kind
		size := 1
		if r < utf8.RuneSelf {
			switch {
			case r >= '0' && r <= '9':
				k = kindDigit
			case r == '-':
				k = kindHyph
			}
			nBasic++
		} else {
			size = 2
			if r >= 0x800 {
				size = 3
				if r >= 0x10000 {
					size = 4
				}
			}
			if off := r - l.block; off >= 0 && off < 128 {
				k = l.kinds[off]
				if l.varStart[off] {
					varStarts++
				}
			} else {
				k = l.extra[r]
			}
		}
		if k == kindNone {
			d.refuse(r, n, i)
			st = 1 // nRecover
		} else {
			t := &l.table[st][k]
			if t.code != OK {
				d.addGrammar(t.code, n, r, l.classBefore(rs, n))
			}
			if t.start {
				d.boundary(i, k == kindHyph, k == kindDigit)
			}
			st = t.next
			if k == kind(H) {
				halants++
			}
		}
		i += size
	}
	if l.varStartOutside {
		varStarts += l.varStartsOutside(rs)
	}
	d.varStarts = varStarts
	p := parsed{st: st, n: len(rs), nBasic: nBasic, halants: halants, inBlock: true, ok: true}
	if len(rs) <= 2 {
		p.allDigits = true
		for _, r := range rs {
			p.allDigits = p.allDigits && r >= '0' && r <= '9'
		}
	}
	if nBasic < len(rs) && len(rs) > int(safeLenAny[min(nBasic, MaxALabelLength)]) {
		// only then can the block decide the A-label's length check
		for _, r := range rs {
			if off := r - l.block; r >= utf8.RuneSelf && (off < 0 || off >= 128) {
				p.inBlock = false
				break
			}
		}
	}
	return p
}

// classBefore is the class of rs[n-1] as scan reads it (NoClass at the
// start and for a code point outside the repertoire).
func (l *Language) classBefore(rs []rune, n int) Class {
	if n == 0 {
		return NoClass
	}
	switch r := rs[n-1]; {
	case r >= '0' && r <= '9':
		return Digit
	case r == '-':
		return Hyphen
	case r < utf8.RuneSelf:
		return NoClass
	}
	return l.classOf(rs[n-1])
}

// varStartsOutside counts the code points of rs outside the block that
// start a variant sequence.
func (l *Language) varStartsOutside(rs []rune) int {
	n := 0
	for _, r := range rs {
		if off := r - l.block; off < 0 || off >= 128 {
			if _, ok := l.varIndex.byFirst[r]; ok {
				n++
			}
		}
	}
	return n
}

// mayHaveTriple is a quick necessary condition for identicalConsonants in
// an NFC label of the block: two halants that each have the same code point
// just before them (skipping a nukta) and just after them, the second
// pair starting where the first ends (with one halant in the language). It looks only
// at the halants (strings.IndexByte), not at every code point;
// TestTriplePrefilter holds it to identicalConsonants.
func (l *Language) mayHaveTriple(s string) bool {
	return mayHaveTriple(s, l.halantUTF8, l.nuktaUTF8)
}

// mayHaveTriple is the method with the halants and nuktas given: for a
// script, the union of its languages' (more halants and nuktas only make
// it true more often).
func mayHaveTriple(s string, halantUTF8, nuktaUTF8 []string) bool {
	pairs, prevAfter := 0, -1
	for _, h := range halantUTF8 {
		last := h[len(h)-1]
		for from := 0; ; {
			// the halant's last byte (IndexByte is the fastest search),
			// then the rest of it
			j := strings.IndexByte(s[from:], last)
			if j < 0 {
				break
			}
			end := from + j + 1
			p := end - len(h)
			from = end
			if p < 0 || s[p:end] != h {
				continue
			}
			before := p
			for _, n := range nuktaUTF8 {
				if strings.HasSuffix(s[:before], n) {
					before -= len(n)
					break
				}
			}
			// the code points before (past a nukta) and after: the same?
			if before == 0 || from == len(s) {
				continue
			}
			size := 3 // the block's code points: U+0800..U+FFFF
			if s[from] < 0xE0 || s[from] >= 0xF0 {
				_, size = utf8.DecodeRuneInString(s[from:])
			}
			if before < size || from+size > len(s) || s[before-size:before] != s[from:from+size] {
				continue
			}
			// With one halant, the two pairs of a run share the consonant
			// between them: the second starts where the first ended.
			if len(halantUTF8) == 1 && before-size == prevAfter {
				return true
			}
			prevAfter = from
			if pairs++; pairs >= 2 && len(halantUTF8) > 1 {
				return true
			}
		}
	}
	return false
}

// identicalConsonants finds three identical consonants (with the same
// nukta) joined by halants, and returns the position of the third.
func (l *Language) identicalConsonants(u string) (int, bool) {
	var t tripleRun
	t.reset()
	for i, pos := 0, 0; i < len(u); pos++ {
		r, size := rune(u[i]), 1
		if r >= 0xE0 && r < 0xF0 && i+2 < len(u) { // inlined: every Indic block
			r, size = (r&0x0F)<<12|rune(u[i+1]&0x3F)<<6|rune(u[i+2]&0x3F), 3
		} else if r >= utf8.RuneSelf {
			r, size = decodeValid(u, i)
		}
		i += size
		cl, id := l.classOf(r), r
		if cl == C && i < len(u) && u[i] >= utf8.RuneSelf {
			if next, _ := decodeValid(u, i); l.classOf(next) == N {
				id |= 1 << 30
			}
		}
		if t.third(cl, id) {
			return pos, true
		}
	}
	return 0, false
}

// identicalRunes is identicalConsonants over the code points of the label.
func (l *Language) identicalRunes(rs []rune) (int, bool) {
	var t tripleRun
	t.reset()
	for pos, r := range rs {
		cl, id := l.classOf(r), r
		if cl == C && pos+1 < len(rs) && rs[pos+1] >= utf8.RuneSelf && l.classOf(rs[pos+1]) == N {
			id |= 1 << 30
		}
		if t.third(cl, id) {
			return pos, true
		}
	}
	return 0, false
}

// tripleRun is identicalConsonants' reading of a label so far.
type tripleRun struct {
	run    int  // identical consonant units joined so far
	last   rune // the last consonant unit (id), -1 none
	joined bool // a halant joins the last consonant unit to the next
	prev   Class
}

func (t *tripleRun) reset() { *t = tripleRun{last: -1, prev: NoClass} }

// third reads the next code point, of class cl (id: a consonant, with
// 1<<30 when a nukta follows it) and reports whether it is the third
// identical consonant joined by halants.
func (t *tripleRun) third(cl Class, id rune) bool {
	switch cl {
	case C:
		if t.joined && id == t.last {
			t.run++
		} else {
			t.run = 1
		}
		if t.run >= 3 {
			return true
		}
		t.last, t.joined = id, false
	case N:
	case H:
		t.joined = t.last >= 0 && (t.prev == C || t.prev == N)
		if !t.joined {
			t.run, t.last = 0, -1
		}
	default:
		t.run, t.last, t.joined = 0, -1, false
	}
	t.prev = cl
	return false
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// decodeValid decodes the non-ASCII code point at u[i:] of a string already
// known to be valid UTF-8.
func decodeValid(u string, i int) (rune, int) {
	switch c := u[i]; {
	case c < 0xE0:
		return rune(c&0x1F)<<6 | rune(u[i+1]&0x3F), 2
	case c < 0xF0:
		return rune(c&0x0F)<<12 | rune(u[i+1]&0x3F)<<6 | rune(u[i+2]&0x3F), 3
	default:
		return rune(c&0x07)<<18 | rune(u[i+1]&0x3F)<<12 | rune(u[i+2]&0x3F)<<6 | rune(u[i+3]&0x3F), 4
	}
}
