package akshara

import (
	"fmt"

	"golang.org/x/text/secure/bidirule"
	"golang.org/x/text/unicode/bidi"
)

// The alphabet grammar family and right-to-left labels.
//
// A language file with "grammar alphabet" has only letters (class C) and
// marks (class M): the generic grammar's C[M] with k = 0, so every letter
// is a unit of its own and takes at most one mark, and nothing joins
// letters (no halant). The Arabic-script languages (ur, sd, ks) and Ol
// Chiki (sat) use it; the engine is the same, only the words of the
// messages change ("letter", "mark").
//
// A language file with "direction rtl" is written right to left: its labels
// must satisfy the Bidi rule of RFC 5893 (checked with
// golang.org/x/text/secure/bidirule), so a label cannot begin with a digit
// and a label of digits alone is not a label of the language (rule 1: an
// RTL label begins with a letter of class R or AL).

// bidiFault reports whether u, an NFC label of an RTL language, breaks the
// Bidi rule; digitFirst says the reason is the leading digit, which is
// reported even when the label has other errors (the Bidi rule's other
// failures follow from characters already refused).
func (l *Language) bidiFault(u string) (bad, digitFirst bool) {
	if !l.RTL || u == "" {
		return false, false
	}
	if c := u[0]; c >= '0' && c <= '9' {
		return true, true
	}
	return !bidirule.ValidString(u), false
}

// checkRTL holds an RTL language's repertoire to bidi classes R, AL and NSM.
// With ASCII digits (EN) and the hyphen (ES) that makes the Bidi rule of a
// label that the grammar accepts (no hyphen at either end, no
// Arabic-Indic digit, which is AN) hold exactly when it does not begin with
// a digit, so the verdict-only path checks only that; Check runs bidirule
// itself, and TestFastPath holds the two to each other.
func (l *Language) checkRTL() error {
	if !l.RTL {
		return nil
	}
	for r := range l.class {
		p, _ := bidi.LookupRune(r)
		if c := p.Class(); c != bidi.R && c != bidi.AL && c != bidi.NSM {
			return fmt.Errorf("U+%04X has bidi class %v: a right-to-left language takes only R, AL and NSM", r, c)
		}
	}
	return nil
}

// classWord names a class in messages: as the language file's class-word
// says, else in the words of the language's grammar family.
func (l *Language) classWord(c Class) string {
	if w, ok := l.spec.classWords[c]; ok {
		return w
	}
	if l.Alphabet {
		switch c {
		case C:
			return "a letter"
		case M:
			return "a mark"
		}
	}
	return classWords[c]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
