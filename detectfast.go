package akshara

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The verdict of every language of a script in one go, for "-lang auto"
// over many labels (audit). Detect's loop runs Valid once per language: it
// decodes the label and checks its normalization each time. validMask
// decodes it once into block offsets, settles normalization once, then
// walks each language's grammar table over the offsets, which is all that
// differs between the languages of a script. TestValidMask holds it to
// Valid for every language.

// Mask is a set of languages, by their index in Detector.Languages.
type Mask uint64

// Detector is "-lang auto" for bulk use: the accepting languages of a
// label as a Mask, without allocating.
type Detector struct {
	langs []*Language // every language, in the zones file's order
	index map[*Language]int
}

// NewDetector returns a Detector over every language of the registry.
func NewDetector() (*Detector, error) {
	byScript.once.Do(loadScripts)
	if byScript.err != nil {
		return nil, byScript.err
	}
	return &Detector{langs: byScript.all.langs, index: byScript.index}, nil
}

// Languages returns the languages, indexed as in a Mask.
func (d *Detector) Languages() []*Language { return d.langs }

// Valid returns the languages that accept the label and the most
// permissive language of its script (to diagnose an invalid label), as
// DetectValid does.
func (d *Detector) Valid(label string) (Mask, *Language) {
	sl := candidatesLoaded(label)
	m, ok := sl.validMask(label)
	if !ok {
		m = 0
		for _, l := range sl.langs {
			if l.Valid(label) {
				m |= 1 << d.index[l]
			}
		}
	}
	return m, sl.permissive
}

// validMask returns the accepting languages of the script, as a Mask over
// every language, when the label is a plain NFC U-label of the script's
// block; ok is false when the label needs Valid (an A-label, a character
// outside the block, text that is not NFC, more than 63 code points).
func (sl *scriptLangs) validMask(s string) (mask Mask, ok bool) {
	if len(sl.langs) == 0 || len(s) == 0 || hasACEPrefix(s) || !sl.walkable {
		return 0, false
	}
	block := sl.langs[0].block
	var offs [MaxALabelLength]uint8 // block offset, or offDigit, offHyphen
	const (
		offDigit  = 128
		offHyphen = 129
	)
	n, nBasic := 0, 0
	var seen1, seen2 [2]uint64
	triple := false
	// quickNFC's test, on the way, with the block's tables (the same for
	// every language of the script)
	q := &sl.langs[0].blockNFC
	nfc, lastCC, prevOff := true, uint8(0), rune(-1)
	for i := 0; i < len(s); n++ {
		if n == len(offs) {
			return 0, false
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= '0' && c <= '9':
				offs[n] = offDigit
			case c == '-':
				offs[n] = offHyphen
			default:
				return 0, true // no normalization makes an ASCII letter or sign valid
			}
			nBasic++
			lastCC, prevOff = 0, -1
			i++
			continue
		}
		var r rune
		size := 3
		if c == 0xE0 && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
			r = rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
		} else if r, size = utf8.DecodeRuneInString(s[i:]); r == utf8.RuneError && size == 1 {
			return 0, false
		}
		off := r - block
		if off < 0 || off >= 128 {
			return 0, false
		}
		o := uint8(off)
		offs[n] = o
		if nfc {
			cc := q.ccc[o]
			switch {
			case q.never[o], cc != 0 && cc < lastCC:
				nfc = false
			case q.maybe[o]:
				if prevOff < 0 || lastCC != 0 {
					nfc = cc == 0 // see mayCompose
				} else {
					nfc = q.composes[o][prevOff/64]&(1<<(prevOff%64)) == 0
				}
			}
			lastCC, prevOff = cc, off
		}
		// three of a kind: only then can a language find three identical
		// consonants joined by halants
		bit, w := uint64(1)<<(o&63), o>>6
		switch {
		case seen2[w]&bit != 0:
			triple = true
		case seen1[w]&bit != 0:
			seen2[w] |= bit
		default:
			seen1[w] |= bit
		}
		i += size
	}
	// The script's product automaton settles the grammar of every language
	// at once (a code point outside a language's repertoire kills it:
	// that language refuses an NFC label); the whole-label rules follow
	// for the languages it accepts. Normalization is settled once.
	if mask, ok = sl.productMask(s, offs[:n], nBasic, triple); !ok {
		// the automaton is full: each language walks the offsets
		for li, l := range sl.langs {
			if valid, _ := l.walk(s, offs[:n], nBasic, triple); valid {
				mask |= 1 << sl.index[li]
			}
		}
	}
	if nfc || norm.NFC.IsNormalString(s) {
		return mask, true
	}
	return 0, false // NFC might change the verdicts
}

// productMask is validMask's verdict through the product automaton.
func (sl *scriptLangs) productMask(s string, offs []uint8, nBasic int, triple bool) (Mask, bool) {
	sl.productOnce.Do(func() { sl.product = newProduct(sl.langs) })
	p := sl.product
	accept, trigger, ok := p.run(offs)
	if !ok {
		return 0, false
	}
	n := len(offs)
	if accept == 0 || n < MinLength {
		return 0, true
	}
	digitsOnly := true
	halantAt, varStartAt := 0, 0 // positions that are a halant, start a variant, in some language
	for _, o := range offs {
		digitsOnly = digitsOnly && o == 128
		if p.halant[o] != 0 {
			halantAt++
		}
		if p.varStart[o] != 0 {
			varStartAt++
		}
	}
	if digitsOnly && n <= 2 {
		return 0, true
	}
	// three identical consonants are possible only if a code point occurs
	// three times and two halants join the same code point
	maybeTriple := triple && halantAt >= 2 && mayHaveTriple(s, p.halants, p.nuktas)
	var mask Mask
	if nBasic == n { // digits and hyphens: as fast, no further rule
		if len(s) <= MaxALabelLength {
			for i := range sl.langs {
				if accept&(1<<i) != 0 {
					mask |= 1 << sl.index[i]
				}
			}
		}
		return mask, true
	}
	if l := sl.langs[0]; n > int(l.safeLen[min(nBasic, MaxALabelLength)]) && aLabelLengthOf(s, nBasic, n) > MaxALabelLength {
		return 0, true // the block, and so safeLen, is the script's
	}
	for i, l := range sl.langs {
		if accept&(1<<i) == 0 {
			continue
		}
		bit := uint64(1) << i
		if maybeTriple && count(offs, &p.halant, bit) >= 2 {
			if _, found := l.identicalConsonants(s); found {
				continue
			}
		}
		if varStartAt > l.varFree && count(offs, &p.varStart, bit) > l.varFree && !l.variantLimitOK(s) {
			continue
		}
		if trigger&bit != 0 && !l.contextsOK(s) {
			continue
		}
		mask |= 1 << sl.index[i]
	}
	return mask, true
}

// count returns how many of the symbols have the language's bit in table.
func count(offs []uint8, table *[productSymbols]uint64, bit uint64) int {
	c := 0
	for _, o := range offs {
		if table[o]&bit != 0 {
			c++
		}
	}
	return c
}

// walk is fast's grammar and whole-label rules over the block offsets of
// an NFC label (triple: some code point occurs three times); covers is false when a code point is not in the language's
// repertoire (and the label, if NFC, is invalid).
func (l *Language) walk(s string, offs []uint8, nBasic int, triple bool) (valid, covers bool) {
	st := uint16(0)
	halants, varStarts := 0, 0
	digitsOnly, triggered, broken := true, false, false
	for _, o := range offs {
		w := l.walkInfo[o]
		k := kind(w & walkKind)
		if k == kindNone {
			return false, false
		}
		if !broken {
			t := &l.table[st][k]
			broken = t.code != OK
			st = t.next
		}
		digitsOnly = digitsOnly && k == kindDigit
		triggered = triggered || w&walkTrigger != 0
		if w&walkVarStart != 0 {
			varStarts++
		}
		if k == kind(H) {
			halants++
		}
	}
	n := len(offs)
	switch {
	case broken, l.ends[st] != OK, n < MinLength, digitsOnly && n <= 2:
		return false, true
	case halants >= 2 && triple:
		if _, found := l.identicalConsonants(s); found {
			return false, true
		}
	}
	if nBasic == n {
		return len(s) <= MaxALabelLength, true
	}
	if n > int(l.safeLen[min(nBasic, MaxALabelLength)]) && aLabelLengthOf(s, nBasic, n) > MaxALabelLength {
		return false, true
	}
	if varStarts > l.varFree && !l.variantLimitOK(s) {
		return false, true
	}
	return !triggered || l.contextsOK(s), true
}

// walkInfo packs, for walk, a block offset's kind and flags (and those of
// a digit at 128, a hyphen at 129).
const (
	walkKind     = 0x1F
	walkTrigger  = 0x20
	walkVarStart = 0x40
)

func (l *Language) buildWalkInfo() {
	for o := 0; o < 128; o++ {
		w := uint8(l.kinds[o])
		if l.trigger[o] {
			w |= walkTrigger
		}
		if l.varStart[o] {
			w |= walkVarStart
		}
		l.walkInfo[o] = w
	}
	l.walkInfo[128], l.walkInfo[129] = uint8(kindDigit), uint8(kindHyph)
	if l.asciiTrigger {
		l.walkInfo[128] |= walkTrigger
		l.walkInfo[129] |= walkTrigger
	}
}
