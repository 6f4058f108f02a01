package akshara

import (
	"bufio"
	"math/rand"
	"os"
	"strings"
	"testing"

	"golang.org/x/text/secure/bidirule"
)

// TestBidiRule holds the right-to-left languages to golang.org/x/text's
// implementation of RFC 5893: every label the language accepts satisfies
// the Bidi rule, and every label refused as BIDI breaks it.
func TestBidiRule(t *testing.T) {
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		if !l.RTL {
			continue
		}
		rng := rand.New(rand.NewSource(7))
		p := append(pool(l), '0', '9', '-', 0x0661, 0x06F1)
		bidiSeen := 0
		for i := 0; i < 5000; i++ {
			s := randomLabel(rng, p)
			valid := l.Valid(s)
			if valid && !bidirule.ValidString(s) {
				t.Fatalf("%s %q (%s): valid, but bidirule refuses it", tag, s, hexOf(s))
			}
			res := l.Check(s)
			if res.Valid != valid {
				t.Fatalf("%s %q: Check says %v, Valid %v", tag, s, res.Valid, valid)
			}
			hasBidi := false
			for _, e := range res.Errors {
				hasBidi = hasBidi || e.Code == Bidi
			}
			if hasBidi {
				bidiSeen++
				if bidirule.ValidString(s) {
					t.Fatalf("%s %q (%s): BIDI, but bidirule accepts it", tag, s, hexOf(s))
				}
			}
		}
		if bidiSeen == 0 {
			t.Errorf("%s: no random label broke the Bidi rule", tag)
		}
	}
}

// TestAlphabetGrammar checks the alphabet family's file invariants: only
// classes C and M, k = 0.
func TestAlphabetGrammar(t *testing.T) {
	header := "language xx\nname X\nscript Arab\ngrammar alphabet\n"
	for _, tt := range []struct{ name, text, want string }{
		{"halant", header + "k 0\nclass C\n  U+0628\nclass H\n  U+0652\n", "only classes C (letters) and M"},
		{"k", header + "k 1\nclass C\n  U+0628\n", "k must be 0"},
		{"unknown grammar", "language xx\nname X\nscript Arab\nk 0\ngrammar abugida\n", "want syllable or alphabet"},
		{"unknown direction", "language xx\nname X\nscript Arab\nk 0\ndirection up\n", "want rtl or ltr"},
		{"rtl latin", "language xx\nname X\nscript Deva\nk 0\ndirection rtl\nclass C\n  U+0915\n", "bidi class"},
	} {
		_, err := LoadLanguage("xx.lang", []byte(tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

// BenchmarkValidCorpus measures Valid on the words of each language's
// corpus (../shared/corpora/<tag>.txt, outside the repository; skipped
// where absent), so the languages can be compared with Hindi in one run.
func BenchmarkValidCorpus(b *testing.B) {
	for _, tag := range Tags() {
		f, err := os.Open("../shared/corpora/" + tag + ".txt")
		if err != nil {
			continue
		}
		var words []string
		sc := bufio.NewScanner(f)
		for sc.Scan() && len(words) < 20000 {
			words = append(words, sc.Text())
		}
		f.Close()
		l := mustLang(b, tag)
		b.Run(tag, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				l.Valid(words[i%len(words)])
			}
		})
	}
}

// TestArabicConflicts: the two encodings of yeh and heh make conflicting
// labels across the Arabic-script languages (conflict sets intersect
// whatever language each label is registered in), heh doachashmee ھ is a
// variant of both hehs (issue 25), and the LGR's wider sets are not
// variants.
func TestArabicConflicts(t *testing.T) {
	ur, sd, ks := mustLang(t, "ur"), mustLang(t, "sd"), mustLang(t, "ks")
	intersect := func(a, b []string) bool {
		for _, x := range a {
			if contains(b, x) {
				return true
			}
		}
		return false
	}
	tests := []struct {
		a      *Language
		la     string
		b      *Language
		lb     string
		expect bool
	}{
		{ur, "بیت", sd, "بيت", true},    // Farsi yeh / Arabic yeh
		{ur, "بیت", ks, "بیت", true},    // the same string in two languages
		{ur, "شہر", sd, "شهر", true},    // heh goal / heh
		{ks, "شہر", sd, "شهر", true},    // heh goal / heh
		{sd, "تارو", sd, "ٺارو", true},  // the LGR's dotted pair ت / ٺ
		{ur, "کتاب", sd, "ڪتاب", false}, // keheh / swash kaf: Sindhi letters of their own
		// issue 25: ه = ھ (the LGR's heh set; alike in the joined forms
		// of Naskh fonts), so ہ = ه = ھ is one row: the corpus pairs
		{sd, "آهي", sd, "آھي", true},       // Sindhi "is", both spellings in the corpus
		{ur, "پهلے", ur, "پھلے", true},     // Urdu, both in the corpus
		{ks, "آتهوار", ks, "آتھوار", true}, // Kashmiri, both in the corpus
		{ur, "بهارت", sd, "بھارت", true},   // across languages
		{ur, "بھارت", ur, "بہارت", true},   // through بهارت: ھ and ہ are one row with ه
		{ur, "بھارت", ks, "بہارت", true},
	}
	for _, tt := range tests {
		ca, cb := tt.a.ConflictSet(tt.la), tt.b.ConflictSet(tt.lb)
		if len(ca) == 0 || len(cb) == 0 {
			t.Errorf("%s %s / %s %s: a label is invalid", tt.a.Tag, tt.la, tt.b.Tag, tt.lb)
			continue
		}
		if got := intersect(ca, cb); got != tt.expect {
			t.Errorf("%s %s %v / %s %s %v: conflict %v, want %v", tt.a.Tag, tt.la, ca, tt.b.Tag, tt.lb, cb, got, tt.expect)
		}
	}
}
