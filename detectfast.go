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
	langs []*Language // every language, sorted by tag
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
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		off := r - block
		if off < 0 || off >= 128 || (r == utf8.RuneError && size == 1) {
			return 0, false
		}
		offs[n] = uint8(off)
		i += size
	}
	// Normalization: a language whose repertoire holds every character
	// answers with its tables; else norm does, once.
	nfc, asked := false, false
	for li, l := range sl.langs {
		covers := true
		for _, o := range offs[:n] {
			if o < 128 && l.kinds[o] == kindNone {
				covers = false
				break
			}
		}
		if !covers {
			continue
		}
		if !asked {
			asked = true
			nfc = l.quickNFC(s) || norm.NFC.IsNormalString(s)
			if !nfc {
				return 0, false
			}
		}
		if l.walk(s, offs[:n], nBasic) {
			mask |= 1 << sl.index[li]
		}
	}
	if !asked && !norm.NFC.IsNormalString(s) {
		return 0, false // NFC might bring it into some repertoire
	}
	return mask, true
}

// walk is fast's grammar and whole-label rules over the block offsets of
// an NFC label every code point of which is in the language's repertoire.
func (l *Language) walk(s string, offs []uint8, nBasic int) bool {
	st := uint16(0)
	halants, varStarts := 0, 0
	digitsOnly, triggered := true, false
	for _, o := range offs {
		var k kind
		switch o {
		case 128:
			k = kindDigit
			triggered = triggered || l.asciiTrigger
		case 129:
			k, digitsOnly = kindHyph, false
			triggered = triggered || l.asciiTrigger
		default:
			k, digitsOnly = l.kinds[o], false
			triggered = triggered || l.trigger[o]
			if l.varStart[o] {
				varStarts++
			}
		}
		t := &l.table[st][k]
		if t.code != OK {
			return false
		}
		st = t.next
		if k == kind(H) {
			halants++
		}
	}
	n := len(offs)
	switch {
	case l.ends[st] != OK, n < MinLength, digitsOnly && n <= 2:
		return false
	case halants >= 2:
		if _, found := l.identicalConsonants(s); found {
			return false
		}
	}
	if nBasic == n {
		return len(s) <= MaxALabelLength
	}
	if n > int(l.safeLen[min(nBasic, MaxALabelLength)]) && aLabelLengthOf(s, nBasic, n) > MaxALabelLength {
		return false
	}
	if varStarts > MaxVariantAksharas && !l.variantLimitOK(s) {
		return false
	}
	return !triggered || l.contextsOK(s)
}
