package akshara

import (
	"math/rand"
	"sort"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// TestEveryMessage checks the messages a registrant reads, for every
// language: every rule code the language can break is produced by at least
// one label (the language's examples, labels built for the rule, and random
// labels of its repertoire), every error has a message, no message
// contradicts itself ("cannot follow a consonant …: … must follow a
// consonant"), and no message shows letters of a script that is neither the
// language's nor in the label (a Devanagari example in a Telugu message).
// Run with -v to read one message of each code for each language.
func TestEveryMessage(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		seen := map[Code][]string{}
		for _, s := range messageLabels(l) {
			for _, e := range l.Check(s).Errors {
				switch {
				case e.Message == "":
					t.Errorf("%s %q: %v has no message", tag, s, e.Code)
				case contradicts(l, e.Message):
					t.Errorf("%s %q: %v contradicts itself: %s", tag, s, e.Code, e.Message)
				}
				if r, bad := foreignLetter(l, s, e.Message); bad {
					t.Errorf("%s %q: %v shows %q of another script: %s", tag, s, e.Code, r, e.Message)
				}
				if len(seen[e.Code]) < 3 && !contains(seen[e.Code], e.Message) {
					seen[e.Code] = append(seen[e.Code], s+" → "+e.Message)
				}
			}
		}
		for _, c := range applicableCodes(l) {
			if len(seen[c]) == 0 {
				t.Errorf("%s: no label produced %v", tag, c)
			}
		}
		if testing.Verbose() {
			var codes []Code
			for c := range seen {
				codes = append(codes, c)
			}
			sort.Slice(codes, func(i, j int) bool { return codes[i] < codes[j] })
			for _, c := range codes {
				for _, m := range seen[c] {
					t.Logf("%s %v: %s", tag, c, m)
				}
			}
		}
	}
}

// TestMessageFixes holds the messages that once contradicted the rule they
// explain (issue 13).
func TestMessageFixes(t *testing.T) {
	tests := []struct {
		tag, label string
		code       Code
		want, not  string
	}{
		{"pa", "ਕੱਲ੍ਹ", Syllable, "after an addak", "must follow a consonant"},
		{"pa", "ਹੱਲ਼", Syllable, "after an addak", "must follow a consonant"},
		{"ta", "ஃபார்ம்", Syllable, "cannot begin a label: this sign must follow a consonant or an independent vowel", "vowel sign"},
		{"te", "అత్త్తమ", IdenticalConsonants, "(త్త is allowed, త్త్త is not)", "त"},
		{"kn", "ಅತ್ತ್ತ", IdenticalConsonants, "(ತ್ತ is allowed, ತ್ತ್ತ is not)", "त"},
		{"ml", "അത്ത്ത", IdenticalConsonants, "(ത്ത is allowed, ത്ത്ത is not)", "त"},
		{"hi", "कुत्त्ता", IdenticalConsonants, "(त्त is allowed, त्त्त is not)", ""},
		{"bn", "অ্যক", Syllable, "must end in a vowel sign", "incomplete"},
		{"ur", "123اردو", Bidi, "must begin with a letter", ""},
		{"ur", "ہمه", LetterMix, "cannot be in the same label as", ""},
		{"ks", "کُِر", Syllable, "a mark must follow a letter", "matra"},
	}
	for _, tt := range tests {
		l := mustLang(t, tt.tag)
		var msg string
		for _, e := range l.Check(tt.label).Errors {
			if e.Code == tt.code {
				msg = e.Message
			}
		}
		if !strings.Contains(msg, tt.want) || (tt.not != "" && strings.Contains(msg, tt.not)) {
			t.Errorf("%s %q %v: message %q, want it to contain %q and not %q", tt.tag, tt.label, tt.code, msg, tt.want, tt.not)
		}
	}
}

// contradicts reports a message that says a character cannot follow a class
// and, in its reason, that it must follow that class.
func contradicts(l *Language, msg string) bool {
	_, rest, ok := strings.Cut(msg, "cannot follow ")
	if !ok {
		return false
	}
	_, list, ok := strings.Cut(rest, "must follow ")
	if !ok {
		return false
	}
	list, _, _ = strings.Cut(list, ", and")
	list, _, _ = strings.Cut(list, ":")
	for c := NoClass + 1; c < numClasses; c++ {
		w := l.classWord(c)
		if strings.HasPrefix(rest, w+" ") && strings.Contains(list, w) {
			return true
		}
	}
	return false
}

// foreignLetter finds a letter or mark in msg that is neither of the
// language's script, nor Latin, Common or Inherited, nor in the label.
func foreignLetter(l *Language, label, msg string) (rune, bool) {
	for _, r := range msg {
		if !unicode.IsLetter(r) && !unicode.IsMark(r) {
			continue
		}
		if unicode.In(r, l.script.table, unicode.Latin, unicode.Common, unicode.Inherited) || strings.ContainsRune(label, r) ||
			strings.ContainsRune(norm.NFD.String(label), r) {
			continue
		}
		return r, true
	}
	return 0, false
}

// applicableCodes are the codes a label can break in the language.
func applicableCodes(l *Language) []Code {
	codes := []Code{Empty, InvalidUTF8, BadALabel, TooLong, TooShort, DigitsOnly, HyphenStart, HyphenEnd,
		HyphenDouble, Joiner, MixedScript, Punctuation, Symbol, NotInRepertoire}
	if len(l.spec.classes) > 1 {
		codes = append(codes, Syllable) // a sign or mark out of place
	}
	for _, f := range l.refused {
		codes = append(codes, f.code)
	}
	for _, cr := range l.contexts {
		codes = append(codes, cr.code)
	}
	if l.hasClass(H) {
		codes = append(codes, HalantFollower, IdenticalConsonants, ClusterTooLong)
	}
	if l.hasClass(N) {
		codes = append(codes, NuktaBase)
	}
	if l.hasClass(D) || l.hasClass(B) || l.hasClass(X) || l.hasClass(S) {
		codes = append(codes, SignCombination)
	}
	if l.hasClass(A) {
		codes = append(codes, Addak)
	}
	if len(l.varIndex.rows) > 0 {
		codes = append(codes, VariantLimit)
	}
	if l.RTL {
		codes = append(codes, Bidi)
	}
	return codes
}

// messageLabels are labels that break each rule of the language.
func messageLabels(l *Language) []string {
	var labels []string
	for _, ex := range l.Examples() {
		labels = append(labels, ex.Text)
	}
	var cs, hs []rune
	for _, m := range l.Repertoire() {
		switch m.Class {
		case C:
			cs = append(cs, m.Rune)
		case H:
			hs = append(hs, m.Rune)
		}
	}
	x := string(cs[0])
	labels = append(labels, "", "\xff", "xn--ab!", strings.Repeat(x, 70), x+x, "12", "-"+x+x, x+x+"-", x+"--"+x,
		x+"!"+x, x+"+"+x, x+"a"+x, x+"\u200d"+x, "1"+x+x)
	// A letter of the script outside the table and the refuse lists.
	for _, rg := range l.script.table.R16 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			if _, _, refused := l.refusedBy(r); l.Class(r) == NoClass && !refused && unicode.IsLetter(r) {
				labels = append(labels, x+string(r)+x)
				break
			}
		}
	}
	for _, f := range l.refused {
		labels = append(labels, x+string(f.lo)+x)
	}
	for _, row := range l.variants {
		for _, m := range row {
			labels = append(labels, strings.Repeat(m, 5), strings.Repeat(x+m, 5))
		}
	}
	rng := rand.New(rand.NewSource(13))
	p := pool(l)
	for i := 0; i < 1500; i++ {
		labels = append(labels, randomLabel(rng, p))
	}
	if len(hs) > 0 {
		ch := append(append([]rune(nil), cs...), hs...)
		for i := 0; i < 500; i++ {
			labels = append(labels, randomLabel(rng, ch))
		}
		for _, c := range cs {
			labels = append(labels, string([]rune{c, hs[0], c, hs[0], c}))
		}
	}
	return labels
}
