package akshara

import (
	"strings"
	"testing"
)

// TestPolicyView checks that the exported view states what the file states:
// every repertoire code point is in exactly one listed class, and the
// counts of rules, variants and examples agree with the compiled language.
func TestPolicyView(t *testing.T) {
	ls, err := Languages()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		p := l.Policy()
		seen := map[rune]Class{}
		for _, c := range p.Classes {
			for _, ch := range c.Chars {
				for r := ch.Lo; r <= ch.Hi; r++ {
					if prev, dup := seen[r]; dup {
						t.Errorf("%s: U+%04X in classes %v and %v", l.Tag, r, prev, c.Class)
					}
					seen[r] = c.Class
				}
			}
		}
		rep := l.Repertoire()
		if len(seen) != len(rep) {
			t.Errorf("%s: the view lists %d code points, the repertoire has %d", l.Tag, len(seen), len(rep))
		}
		for _, m := range rep {
			if seen[m.Rune] != m.Class {
				t.Errorf("%s: U+%04X is %v in the repertoire, %v in the view", l.Tag, m.Rune, m.Class, seen[m.Rune])
			}
		}
		if len(p.Rules) != len(l.spec.contexts) { // vowel-conjuncts compile to one more rule; the view lists them apart
			t.Errorf("%s: %d rules in the view, %d in the file", l.Tag, len(p.Rules), len(l.spec.contexts))
		}
		for _, r := range p.Rules {
			if r.Kind == "" || r.Trigger == "" || len(r.Contexts) == 0 {
				t.Errorf("%s: incomplete rule %+v", l.Tag, r)
			}
		}
		if len(p.Digest) != 64 || strings.Trim(p.Digest, "0123456789abcdef") != "" {
			t.Errorf("%s: Digest %q is not a hex SHA-256", l.Tag, p.Digest)
		}
		if want := map[bool]string{false: "syllable", true: "alphabet"}[l.Alphabet]; p.Grammar != want || p.RTL != l.RTL {
			t.Errorf("%s: grammar %q rtl %v in the view, want %q %v", l.Tag, p.Grammar, p.RTL, want, l.RTL)
		}
		if len(p.Variants) != len(l.variants) || len(p.Examples) != len(l.spec.examples) || p.K != l.K {
			t.Errorf("%s: variants, examples or k differ from the compiled language", l.Tag)
		}
	}
	ur, sat := mustLang(t, "ur").Policy(), mustLang(t, "sat").Policy()
	if ur.Grammar != "alphabet" || !ur.RTL || ur.DirectionRef == "" || sat.Grammar != "alphabet" || sat.RTL {
		t.Errorf("ur %q %v %q, sat %q %v", ur.Grammar, ur.RTL, ur.DirectionRef, sat.Grammar, sat.RTL)
	}
	noMix := 0
	for _, r := range ur.Rules {
		if r.Kind == "no-mix" && r.Code == LetterMix {
			noMix++
		}
	}
	if noMix != 3 {
		t.Errorf("ur: %d no-mix rules in the view, want 3", noMix)
	}
}
