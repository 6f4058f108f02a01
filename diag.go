package akshara

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/runenames"
)

// diag collects what Check reports: errors, with the context their messages
// need, and syllable boundaries. A nil *diag is the verdict-only path and
// records nothing.
//
// A diag is Check's local variable, on its stack: the Result it fills is
// its own allocation, and nothing of the Result points into the diag. Its
// lists live in its own arrays as long as they fit (inPlace), so that
// no field points into the diag itself (which would move it to the heap)
// and the stack needs no pool nor write barriers.
type diag struct {
	lang       *Language
	brief      bool // Options.Brief: codes and positions only
	ulabel     string
	normalized bool
	res        *Result   // made by newResult when the pipeline has run
	sylBuf     []string  // room for the Result's syllables, in its allocation
	one        *oneError // room for one error, in the Result's allocation
	// varStarts counts the U-label's code points that may start a
	// variant sequence (scan's parseDiag counts them for variantLimit).
	varStarts int

	raw      inPlace[rawError]
	rawIn    [4]rawError
	segs     inPlace[segment]
	segIn    [16]segment
	runes    inPlace[rune] // the U-label's code points, once decoded (runesOf)
	runeIn   [64]rune
	runesFor string // the string runes holds
	decoded  bool
}

// inPlace is a list kept in an array of its owner (in, passed to each
// method) while it fits, then on the heap: the owner holds no pointer to
// itself. The array is the room of the common case; longer lists pay an
// allocation.
type inPlace[T any] struct {
	n    int
	heap []T // every item, once they outgrow the array
}

func (s *inPlace[T]) items(in []T) []T {
	if s.heap != nil {
		return s.heap
	}
	return in[:s.n]
}

func (s *inPlace[T]) push(in []T, v T) {
	switch {
	case s.heap != nil:
		s.heap = append(s.heap, v)
	case s.n < len(in):
		in[s.n] = v
		s.n++
	default:
		s.heap = make([]T, s.n, 2*s.n+1)
		copy(s.heap, in)
		s.heap = append(s.heap, v)
	}
}

func (d *diag) errs() []rawError    { return d.raw.items(d.rawIn[:]) }
func (d *diag) segments() []segment { return d.segs.items(d.segIn[:]) }
func (d *diag) push(e rawError)     { d.raw.push(d.rawIn[:], e) }
func (d *diag) codePoints() []rune  { return d.runes.items(d.runeIn[:]) }
func (d *diag) lastErr() *rawError  { errs := d.errs(); return &errs[len(errs)-1] }

// runesOf returns the code points of u, decoding it once per Check.
func (d *diag) runesOf(u string) []rune {
	if !d.decoded || d.runesFor != u {
		d.decode(u)
	}
	return d.codePoints()
}

// decode records the code points of s, as runesOf would, and reports
// whether s is valid UTF-8 (utf8.ValidString): the pipeline's first test
// and the decoding in one pass. It also applies quickNFC's test to the
// block's code points as it goes: quick says that s is NFC by that test
// alone (false: ask quickNFCRunes).
func (d *diag) decode(s string) (valid, quick bool) {
	q, block := &d.lang.blockNFC, d.lang.block
	lastCC, prevOff := uint8(0), rune(-1) // as in quickNFC
	quick = true
	in, n := d.runeIn[:], 0
	var out []rune // the room on the heap, for a label longer than runeIn
	if len(s) > len(in) {
		out = make([]rune, len(s)) // a code point has at least one byte
		in = out
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			in[n] = rune(c)
			n++
			lastCC, prevOff = 0, -1
			i++
			continue
		}
		if c >= 0xE0 && c < 0xF0 && i+2 < len(s) { // inlined: every Indic block
			b1, b2 := s[i+1], s[i+2]
			r := rune(c&0x0F)<<12 | rune(b1&0x3F)<<6 | rune(b2&0x3F)
			// not overlong, not a surrogate
			if b1&0xC0 == 0x80 && b2&0xC0 == 0x80 && r >= 0x800 && (r < 0xD800 || r > 0xDFFF) {
				in[n] = r
				n++
				i += 3
				if off := r - block; off >= 0 && off < 128 {
					quick = quick && q.fits(off, prevOff, lastCC)
					lastCC, prevOff = q.ccc[off], off
				} else {
					quick = false
				}
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			d.runes, d.decoded = inPlace[rune]{}, false
			return false, false
		}
		in[n] = r
		n++
		quick = false
		i += size
	}
	d.runes, d.runesFor, d.decoded = inPlace[rune]{n: n}, s, true
	if out != nil {
		d.runes.heap = out[:n]
	}
	return true, quick
}

type rawError struct {
	code Code
	pos  int
	r    rune  // the character at pos, -1 for the end of the label
	prev Class // the class of the character before it
	msg  string
	run  int // refusals: how many characters in a row share the code

	grammar bool         // found by the generic grammar
	rule    *contextRule // found by a context rule of the language
}

type segment struct {
	off           int // byte offset in the U-label
	hyphen, digit bool
}

func (d *diag) add(code Code, pos int, r rune, prev Class) {
	if d == nil {
		return
	}
	d.push(rawError{code: code, pos: pos, r: r, prev: prev})
}

// addGrammar records an error of the generic grammar; a context rule of the
// language that names the same character takes its place.
func (d *diag) addGrammar(code Code, pos int, r rune, prev Class) {
	d.add(code, pos, r, prev)
	d.lastErr().grammar = true
}

// contexts applies the language's context rules to the U-label.
func (d *diag) contexts(u string) {
	if len(d.lang.contexts) == 0 {
		return
	}
	rs := d.runesOf(u)
	d.lang.checkContexts(rs, func(cr *contextRule, p int) bool {
		prev := NoClass
		if p > 0 {
			prev = d.lang.classOf(rs[p-1])
		}
		d.push(rawError{code: cr.code, pos: p, r: rs[p], prev: prev, rule: cr})
		return true
	})
}

// variantLimit reports VariantLimit when the U-label goes over the
// language's variant-limit: more than three aksharas (by default) contain a
// variant span, or the table generates more labels from it than the limit.
func (d *diag) variantLimit(u string) {
	l := d.lang
	if len(l.varIndex.rows) == 0 {
		return
	}
	if d.varStarts <= l.varFree {
		return // spans are fewer than the code points that start one
	}
	if count, pos := l.variantAksharas(d.runesOf(u)); count > l.varLimit {
		d.addMessageOf(VariantLimit, pos, func() string {
			if l.varLimitLabels {
				return "the label has more than " + itoa(l.varLimit) + " variant labels (homographs in the " + l.Name + " variant table), the most a label may have"
			}
			return itoa(count) + " aksharas of the label have variants (homographs in the " + l.Name + " variant table); at most " + itoa(l.varLimit) + " may"
		})
	}
}

// addMessageOf is addMessage for a message that costs its building: a
// brief diag, which reports no messages, does not build it.
func (d *diag) addMessageOf(code Code, pos int, build func() string) {
	if d == nil {
		return
	}
	msg := ""
	if !d.brief {
		msg = build()
	}
	d.addMessage(code, pos, msg)
}

func (d *diag) addMessage(code Code, pos int, msg string) {
	if d == nil {
		return
	}
	d.push(rawError{code: code, pos: pos, r: -1, msg: msg})
}

// refuse records a character outside the repertoire; a run of characters
// refused for the same rule is one error.
func (d *diag) refuse(r rune, pos, off int) {
	code := d.lang.otherCode(r)
	if len(d.errs()) > 0 {
		last := d.lastErr()
		if last.code == code && last.r >= 0 && last.pos+last.run == pos {
			last.run++
			return
		}
	}
	d.push(rawError{code: code, pos: pos, r: r, run: 1})
	d.boundary(off, false, false)
}

func (d *diag) boundary(off int, hyphen, digit bool) {
	d.segs.push(d.segIn[:], segment{off, hyphen, digit})
}

// newResult makes the Result of input, with the U-label the pipeline
// found, in the smallest box its syllables fit (the boundaries scan
// recorded, and the start of the label, bound them).
func (d *diag) newResult(input string) {
	segs := d.segments()
	room := len(segs)
	if room == 0 || segs[0].off != 0 {
		room++
	}
	switch {
	case d.brief:
		b := new(briefBox)
		d.res, d.one = &b.res, &b.one
	case room <= 4:
		b := new(resultBox4)
		d.res, d.sylBuf, d.one = &b.res, b.syl[:0], &b.one
	default:
		b := new(resultBox7)
		d.res, d.sylBuf, d.one = &b.res, b.syl[:0], &b.one
	}
	// field by field: a Result copied whole is a typed move
	r := d.res
	r.Input, r.Lang, r.ULabel, r.Normalized, r.Errors = input, d.lang.Tag, d.ulabel, d.normalized, noErrors
}

// finish builds the syllables, the messages and the A-label.
func (d *diag) finish() {
	u := d.res.ULabel
	d.res.Syllables = d.syllables(u)
	var runes []rune
	raw := d.errs()
	if len(raw) > 0 && !d.brief {
		runes = d.runesOf(u)
	}
	// Stable insertion sort by position: there are few errors.
	for i := 1; i < len(raw); i++ {
		for j := i; j > 0 && raw[j].pos < raw[j-1].pos; j-- {
			raw[j], raw[j-1] = raw[j-1], raw[j]
		}
	}
	kept := 0
	for i := range raw {
		e := &raw[i]
		if e.grammar && ruledAt(raw, e.pos) {
			e.code = OK // the language's own rule names this fault
			continue
		}
		dup := false
		for k := 0; k < i; k++ {
			if raw[k].code == e.code && raw[k].pos == e.pos {
				dup = true // two rules name the same fault
				break
			}
		}
		if dup {
			e.code = OK
			continue
		}
		kept++
	}
	if kept > 0 {
		var errs []Error
		var ptrs []*Error
		if kept == 1 {
			b := d.one
			if b == nil {
				b = &oneError{}
			}
			errs, ptrs = b.e[:0], b.p[:0]
		} else {
			errs, ptrs = make([]Error, 0, kept), make([]*Error, 0, kept)
		}
		for _, e := range raw {
			if e.code == OK {
				continue
			}
			msg := e.msg
			if d.brief {
				msg = ""
			} else if msg == "" {
				msg = d.lang.cachedMessage(e, runes)
			}
			errs = append(errs, Error{Code: e.code, Pos: e.pos, Message: msg})
			ptrs = append(ptrs, &errs[len(errs)-1])
		}
		d.res.Errors = ptrs
	}
	d.res.Valid = len(d.res.Errors) == 0
	if d.res.Valid && !isASCII(u) && !d.brief {
		var rs [MaxALabelLength]rune
		n, nBasic := 0, 0
		for _, r := range u {
			rs[n] = r // a valid label has at most 59 code points
			if r < 0x80 {
				nBasic++
			}
			n++
		}
		var buf [MaxALabelLength]byte
		d.res.ALabel = string(appendALabel(buf[:0], rs[:n], nBasic))
	}
}

// syllables splits the U-label u at the boundaries scan recorded (none
// for a brief Result), into the room of the Result's allocation when
// they fit there.
func (d *diag) syllables(u string) []string {
	syl := d.sylBuf
	if d.brief {
		return noSyllables
	}
	if u == "" {
		return syl
	}
	segs := d.segments()
	if len(segs) == 0 || segs[0].off != 0 {
		d.boundary(0, false, false)
		segs = d.segments()
		copy(segs[1:], segs)
		segs[0] = segment{off: 0}
	}
	if len(segs) > cap(syl) { // there are at most as many syllables
		syl = make([]string, 0, len(segs))
	}
	last := 0 // where the last syllable starts
	for i, s := range segs {
		end := len(u)
		if i+1 < len(segs) {
			end = segs[i+1].off
		}
		if s.hyphen || end <= s.off {
			continue
		}
		if s.digit && i > 0 && segs[i-1].digit && len(syl) > 0 {
			syl[len(syl)-1] = u[last:end] // a digit run is one unit
			continue
		}
		last = s.off
		syl = append(syl, u[s.off:end])
	}
	return syl
}

// oneError is the Errors of a label with one error, in the Result's
// allocation (resultBox).
type oneError struct {
	p [1]*Error
	e [1]Error
}

// ruledAt reports whether a context rule of the language reported an error
// at pos.
func ruledAt(raw []rawError, pos int) bool {
	for _, e := range raw {
		if e.rule != nil && e.pos == pos {
			return true
		}
	}
	return false
}

// msgKey is everything a message depends on (see message).
type msgKey struct {
	code      Code
	prev      Class
	r, p, cur rune // the character, the one before it, the one at pos
	p2, p3    rune // the two before that (consonantContext reads them)
	first     rune // the label's first, for Bidi
	run, pos  int  // pos only for InvalidUTF8 and position 0, whose messages name them
	rule      *contextRule
}

// maxCachedMessages bounds each language's message cache: labels are short
// and the characters that break rules are few, so real traffic stays far
// below it; beyond it, messages are built each time.
const maxCachedMessages = 4096

// messageCache memoizes a language's messages (pure functions of msgKey):
// building one (character names, concatenation) costs more than the rest
// of Check. The map holds them all; slots answer most lookups without
// the lock and the map's hashing: a direct-mapped table of the entries
// last found, read and written atomically.
type messageCache struct {
	mu    sync.RWMutex
	m     map[msgKey]*msgEntry
	slots atomic.Pointer[msgSlotTable] // made with the map
}

type msgSlotTable [msgSlots]atomic.Pointer[msgEntry]

// msgEntry is one memoized message, shared by the map and the slots (a
// slot that changes hands allocates nothing).
type msgEntry struct {
	k   msgKey
	msg string
}

// msgSlots is the size of the direct-mapped table, as many as the map
// may hold: the Hindi benchmark's invalid labels alone need 700 messages
// (a message names the characters around the error), and 512 slots
// missed two lookups in five.
const (
	msgSlots    = 1 << msgSlotBits
	msgSlotBits = 12
)

// slot picks k's slot: a multiplicative hash of the fields that vary
// (the rule and the first code point only make two keys share a slot),
// its top bits, the best mixed.
func (k *msgKey) slot() uint {
	const m = 0x9E3779B97F4A7C15
	h := (uint64(uint32(k.r)) | uint64(uint32(k.p))<<32) * m
	h = (h ^ h>>32 ^ (uint64(uint32(k.cur)) | uint64(uint32(k.p2))<<32)) * m
	h = (h ^ h>>32 ^ (uint64(uint32(k.p3)) | uint64(k.code)<<32 | uint64(k.prev)<<40 | uint64(uint16(k.run))<<48)) * m
	h = (h ^ h>>32 ^ uint64(k.pos)) * m
	return uint(h >> (64 - msgSlotBits))
}

// cachedMessage is message, memoized.
func (l *Language) cachedMessage(e rawError, runes []rune) string {
	at := func(i int) rune {
		if i >= 0 && i < len(runes) {
			return runes[i]
		}
		return -1
	}
	k := msgKey{code: e.code, prev: e.prev, r: e.r, p: at(e.pos - 1), p2: at(e.pos - 2), p3: at(e.pos - 3), cur: at(e.pos), run: e.run, rule: e.rule}
	if e.code == InvalidUTF8 || e.pos <= 0 {
		k.pos = e.pos
	}
	if e.code == Bidi {
		k.first = at(0)
	}
	mc := &l.msgs
	var slot *atomic.Pointer[msgEntry]
	if slots := mc.slots.Load(); slots != nil {
		slot = &slots[k.slot()]
		if me := slot.Load(); me != nil && me.k == k {
			return me.msg
		}
	}
	mc.mu.RLock()
	me, ok := mc.m[k]
	mc.mu.RUnlock()
	if ok {
		if slot != nil { // nil: the slots were made after our look
			slot.Store(me)
		}
		return me.msg
	}
	m := l.message(e, runes)
	mc.mu.Lock()
	if mc.m == nil {
		mc.m = make(map[msgKey]*msgEntry)
		mc.slots.Store(new(msgSlotTable))
	}
	if len(mc.m) < maxCachedMessages {
		me = &msgEntry{k, m}
		mc.m[k] = me
		mc.slots.Load()[k.slot()].Store(me)
	}
	mc.mu.Unlock()
	return m
}

// otherCode is classifyOther, from a table for ASCII and the block.
func (l *Language) otherCode(r rune) Code {
	switch off := r - l.block; {
	case r >= 0 && r < 128:
		return l.otherCodes[r]
	case off >= 0 && off < 128:
		return l.otherCodes[128+off]
	}
	return l.classifyOther(r)
}

// classifyOther names the rule that refuses a character outside the
// repertoire (docs/policy.md §2 step 3, §4).
func (l *Language) classifyOther(r rune) Code {
	if r == 0x200C || r == 0x200D {
		return Joiner
	}
	if code, _, ok := l.refusedBy(r); ok {
		return code
	}
	switch {
	case unicode.Is(l.script.table, r):
		switch {
		case unicode.Is(unicode.Nd, r):
			return NativeDigit
		case unicode.IsPunct(r):
			return Punctuation
		case unicode.IsSymbol(r):
			return Symbol
		}
		return NotInRepertoire
	case unicode.In(r, unicode.Common, unicode.Inherited):
		switch {
		case unicode.IsPunct(r):
			return Punctuation
		case unicode.IsSymbol(r):
			return Symbol
		}
		return NotInRepertoire
	case unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r):
		return MixedScript
	case unicode.IsPunct(r):
		return Punctuation
	case unicode.IsSymbol(r):
		return Symbol
	}
	return NotInRepertoire
}

// show writes a character for a message: the glyph (a combining mark on a
// dotted circle) and its Unicode name.
func show(r rune) string {
	name := runenames.Name(r)
	glyph := string(r)
	switch {
	case r < 0x20 || r == 0x7F || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r):
		glyph = ""
	case unicode.IsMark(r):
		glyph = "\u25CC" + glyph
	}
	if name == "" {
		name = "U+" + strings.ToUpper(hex(r))
	} else {
		name = "U+" + strings.ToUpper(hex(r)) + " " + name
	}
	if glyph == "" {
		return name
	}
	return "“" + glyph + "” (" + name + ")"
}

func hex(r rune) string {
	const digits = "0123456789ABCDEF"
	var b [8]byte
	i := len(b)
	for v := uint32(r); v > 0 || i > len(b)-4; v >>= 4 {
		i--
		b[i] = digits[v&15]
	}
	return string(b[i:])
}

// message explains an error to a registrant.
func (l *Language) message(e rawError, runes []rune) string {
	at := func(i int) rune {
		if i >= 0 && i < len(runes) {
			return runes[i]
		}
		return -1
	}
	what := "the end of the label"
	if e.r >= 0 {
		what = show(e.r)
	}
	after := "the start of the label"
	if p := at(e.pos - 1); p >= 0 && e.pos > 0 {
		after = l.classWord(e.prev) + " " + show(p)
		if e.prev == NoClass {
			after = show(p)
		}
	}
	if e.rule != nil {
		return l.contextMessage(e, what, after)
	}
	switch e.code {
	case Syllable:
		if e.r < 0 {
			return "the label ends in the middle of a syllable, after " + after
		}
		cl := l.class[e.r]
		why := "it cannot stand here"
		switch cl {
		case M:
			why = "a vowel sign (matra) must follow a consonant, and a syllable takes only one"
			if l.Alphabet {
				why = "a mark must follow a letter, and a letter takes only one"
			}
		case H:
			why = "a halant must follow a consonant"
		case D, B, X, S:
			why = "this sign must follow " + l.signPredecessors(e.r)
		case N:
			why = "a nukta must follow a consonant"
		case Y:
			why = "an avagraha must follow a syllable, once"
		case C:
			why = "the syllable before it is incomplete"
		}
		if e.prev == C && cl != M {
			// The consonant ends a syllable shape that does not take this
			// character: say which, rather than "must follow a consonant".
			if c := l.consonantContext(runes, e.pos); c != "" {
				why = c
			} else if cl != C {
				why = "the syllable that this consonant ends cannot take it"
			}
		}
		if e.pos == 0 {
			return what + " cannot begin a label: " + why
		}
		return what + " cannot follow " + after + ": " + why
	case NuktaBase:
		return "the nukta cannot follow " + after + ": " + l.Name + " allows the nukta only after " + l.nuktaBases()
	case HalantFollower:
		return what + " cannot follow a halant: a syllable that ends in a halant may be followed only by " + l.halantFollowers()
	case ClusterTooLong:
		return what + " makes a cluster of more than " + itoa(l.K+1) + " consonants joined by halants, the most " + l.Name + " allows"
	case IdenticalConsonants:
		return show(at(e.pos)) + " is the third identical consonant joined by halants: at most two may be joined" + l.identicalExample(at(e.pos))
	case SignCombination:
		return what + " cannot follow " + after + ": " + l.signRule()
	case HyphenStart, HyphenEnd, HyphenDouble, Empty:
		return e.code.Summary()
	case Addak:
		return what + " cannot follow " + after + ": " + Addak.Summary()
	case Bidi:
		if len(runes) > 0 && runes[0] >= '0' && runes[0] <= '9' {
			return "the label begins with a digit: a right-to-left (" + l.Name + ") label must begin with a letter (the Bidi rule, RFC 5893)"
		}
		return "the label breaks the Bidi rule for right-to-left labels (RFC 5893)"
	}
	// Refusals of single characters (docs/policy.md §4).
	more := ""
	if e.run > 1 {
		more = " and the " + itoa(e.run-1) + " characters after it"
		if e.run == 2 {
			more = " and the character after it"
		}
	}
	switch e.code {
	case MixedScript:
		return what + more + ": " + e.code.Summary() + "; " + article(l.Name) + " " + l.Name + " label uses only " + l.scriptName() + " letters, ASCII digits and hyphens"
	case NotInRepertoire:
		return what + more + " is not in the " + l.Name + " language table"
	case InvalidUTF8:
		return "byte 0x" + hex(e.r) + " at position " + itoa(e.pos) + " is not valid UTF-8"
	}
	return what + more + ": " + e.code.Summary()
}

// signPredecessors lists what a sign may follow in the language: a
// consonant, an independent vowel or a vowel sign, less what a not-after
// rule of the language forbids for the sign (Tamil rule 5: no aytham after
// a vowel sign).
func (l *Language) signPredecessors(r rune) string {
	afterM := l.hasClass(M)
	for _, cr := range l.contexts {
		if cr.kind != ruleNotAfter || !l.matches(cr.trigger[0], []rune{r}, 0) {
			continue
		}
		for _, c := range cr.contexts {
			if c[0].kind == itemClass && c[0].class == M {
				afterM = false
			}
		}
	}
	if afterM {
		return "a consonant, an independent vowel or a vowel sign"
	}
	return "a consonant or an independent vowel"
}

// consonantContext explains why a character cannot follow the consonant at
// pos-1: the consonant closes a syllable shape that does not take it.
func (l *Language) consonantContext(runes []rune, pos int) string {
	class := func(i int) Class {
		if i >= 0 && i < len(runes) {
			return l.classOf(runes[i])
		}
		return NoClass
	}
	switch {
	case class(pos-2) == A:
		return "a consonant after an addak takes only a vowel sign, a bindi or a visarga (the addak syllable is addak, consonant, then at most a vowel sign and a sign)"
	case class(pos-2) == H && class(pos-3) == V:
		return "a vowel, halant and consonant (such as " + l.vowelConjunctExample() + ") must end in a vowel sign"
	case class(pos-2) == H && class(pos-3) == L:
		return "a consonant after a chillu and halant takes only a vowel sign, an anusvara or a halant"
	}
	return ""
}

func (l *Language) vowelConjunctExample() string {
	if len(l.spec.vowelConjuncts) > 0 {
		return l.spec.vowelConjuncts[0]
	}
	return "a vowel conjunct"
}

// identicalExample gives the rule's example in the label's own letters:
// " (త్త is allowed, త్త్త is not)".
func (l *Language) identicalExample(c rune) string {
	var h rune = -1
	for _, m := range l.Repertoire() {
		if m.Class == H {
			h = m.Rune
			break
		}
	}
	if c < 0 || h < 0 {
		return ""
	}
	two := string([]rune{c, h, c})
	return " (" + two + " is allowed, " + two + string(h) + string(c) + " is not)"
}

func (l *Language) scriptName() string {
	for name, t := range unicode.Scripts {
		if t == l.script.table {
			return strings.ReplaceAll(name, "_", " ")
		}
	}
	return l.Script
}

func (l *Language) nuktaBases() string {
	if len(l.spec.nuktaAfter) == 0 {
		return "no letter"
	}
	var parts []string
	for _, m := range l.spec.nuktaAfter {
		parts = append(parts, string(m.lo))
	}
	return strings.Join(parts, " ")
}

func (l *Language) halantFollowers() string {
	if l.hasClass(Y) {
		return "a hyphen, a digit, an avagraha or the end of the label"
	}
	return "a hyphen, a digit or the end of the label"
}

func (l *Language) signRule() string {
	if l.grammar.pairs != 0 {
		return "a syllable takes one sign, or chandrabindu followed by anusvara or visarga"
	}
	var names []string
	for _, c := range []struct {
		class Class
		name  string
	}{{D, "anusvara"}, {B, "chandrabindu"}, {X, "visarga"}, {S, "modifier letter apostrophe"}} {
		if l.hasClass(c.class) {
			names = append(names, c.name)
		}
	}
	if len(names) < 2 {
		return "a syllable takes at most one " + strings.Join(names, "")
	}
	return "a syllable takes at most one of " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// article is "a" or "an" before an English name.
func article(name string) string {
	if name != "" && strings.ContainsRune("AEIOUaeiou", rune(name[0])) {
		return "an"
	}
	return "a"
}

func (l *Language) hasClass(c Class) bool {
	for _, cs := range l.spec.classes {
		if cs.class == c && len(cs.members) > 0 {
			return true
		}
	}
	return false
}

// contextMessage explains a context rule's refusal, quoting the rule.
func (l *Language) contextMessage(e rawError, what, after string) string {
	cr := e.rule
	var alts []string
	for _, c := range cr.contexts {
		alts = append(alts, describeItems(c))
	}
	list := strings.Join(alts, ", ")
	if len(alts) > 1 {
		list = strings.Join(alts[:len(alts)-1], ", ") + " or " + alts[len(alts)-1]
	}
	rule := " (" + l.Name + " rule"
	if cr.ref != "" {
		rule += ", " + string(cr.ref)
	}
	rule += ")"
	switch cr.kind {
	case ruleOnlyIn:
		return what + " is allowed here only as part of " + list + rule
	case ruleNotAfter:
		if e.pos == 0 {
			return what + " cannot begin a label: " + e.code.Summary() + rule
		}
		return what + " cannot follow " + after + ": " + e.code.Summary() + rule
	case ruleNoMix:
		return describeItems(cr.trigger) + " cannot be in the same label as " + list + rule
	}
	return what + " may follow only " + list + ", not " + after + rule
}

func describeItems(items []item) string {
	var b strings.Builder
	for i, it := range items {
		switch it.kind {
		case itemRune:
			b.WriteRune(it.r)
			continue
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		switch it.kind {
		case itemClass:
			b.WriteString(classWords[it.class])
		case itemStart:
			b.WriteString("the start of the label")
		case itemHyphen:
			b.WriteString("a hyphen")
		case itemDigit:
			b.WriteString("a digit")
		}
		if i < len(items)-1 {
			b.WriteByte(' ')
		}
	}
	return strings.TrimSpace(b.String())
}
