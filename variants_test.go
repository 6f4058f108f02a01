package akshara

import (
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/internal/longtest"
	"golang.org/x/text/unicode/norm"
)

func contains(set []string, s string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

// TestKitaab is the seeds' own example (seed 002 § 2 rule 5).
func TestKitaab(t *testing.T) {
	hi := mustLang(t, "hi")
	if got := strings.Join(hi.Variants("किताब"), " "); got != "कित्ताब" {
		t.Errorf("variants(किताब) = %q, want कित्ताब", got)
	}
	got := hi.Variants("कित्ताब")
	if strings.Join(got, " ") != "किताब" {
		t.Errorf("variants(कित्ताब) = %q, want किताब (never कित्त्ताब)", got)
	}
	if hi.Variants("xn--11b4aya5ed")[0] != "कित्ताब" {
		t.Errorf("the A-label has other variants")
	}
	if got := strings.Join(hi.ConflictSet("किताब"), " "); got != "किताब कित्ताब" {
		t.Errorf("conflict set %q", got)
	}
	if hi.Variants("क्अब") != nil || hi.ConflictSet("क्अब") != nil {
		t.Errorf("an invalid label has variants")
	}
	if v := mustLang(t, "ta").Variants("கிடங்கு"); v != nil {
		t.Errorf("a language without a variant table gives %v", v)
	}
}

// rowLabel puts a row member in a label the language accepts.
func rowLabel(l *Language, m string) string {
	if l.Alphabet {
		// A letter of the language in no variant row, on both sides.
		for _, mem := range l.Repertoire() {
			x := string(mem.Rune)
			if mem.Class == C && len(l.varIndex.byFirst[mem.Rune]) == 0 && l.Valid(x+m+x) {
				return x + m + x
			}
		}
	}
	if l.Script != "Deva" {
		var c0 string
		for _, mem := range l.Repertoire() {
			if mem.Class == C {
				c0 = string(mem.Rune)
				break
			}
		}
		return c0 + m + c0
	}
	if l.Class([]rune(m)[0]) == C {
		return "अ" + m + "ार"
	}
	return "क" + m + "र"
}

// TestEveryRow: every member of every row of every language's table is a
// variant of every other, in both directions.
func TestEveryRow(t *testing.T) {
	rows := 0
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		for _, row := range l.VariantRows() {
			rows++
			for _, a := range row {
				la := rowLabel(l, a)
				if !l.Valid(la) {
					t.Fatalf("%s: test label %q is invalid: %v", tag, la, codesOf(l.Check(la)))
				}
				va := l.Variants(la)
				for _, b := range row {
					if b == a {
						continue
					}
					if lb := rowLabel(l, b); !contains(va, lb) {
						t.Errorf("%s: %s (%s) is not a variant of %s: %v", tag, lb, hexOf(lb), la, va)
					}
				}
			}
		}
	}
	if rows != 34 {
		t.Errorf("%d variant rows in all, want 34 (Hindi 13: the document's 10 and 3 identical renderings; Sindhi 9; Oriya 1, an identical rendering; Urdu 3, Sindhi (Arabic) 5, Kashmiri 3: 2 from ICANN's Arabic LGR and ئ = یٔ by canonical equivalence)", rows)
	}
}

func TestVariantLimit(t *testing.T) {
	hi := mustLang(t, "hi")
	runVectors(t, hi, []vector{
		{"ततत", ""},                            // three aksharas with a variant span
		{"तततक", ""},                           // the fourth akshara has none
		{"तततत", "VARIANT_LIMIT@3"},            // four
		{"कतकतकतकत", "VARIANT_LIMIT@7"},        // four, apart
		{"त्तात्ताता", ""},                     // three: त्त is one span
		{"द्धष्टश्वँ", ""},                     // three conjuncts and ँ in the same akshara as श्व
		{"द्धाष्टाश्वाहँ", "VARIANT_LIMIT@12"}, // four aksharas: हँ starts at 12
	})
	sd := mustLang(t, "sd-Deva")
	runVectors(t, sd, []vector{{"तततत", "VARIANT_LIMIT@3"}, {"ततत", ""}})
	if v := hi.Variants("तततत"); v != nil {
		t.Errorf("a label over the limit has variants %v", v)
	}
}

// TestVariantSymmetry: b is a variant of a exactly when a is a variant of b
// (both valid), over the Hindi and Sindhi sample words and random labels
// built from the variant tables.
func TestVariantSymmetry(t *testing.T) {
	_, words := benchLabels(t)
	rng := rand.New(rand.NewSource(7))
	for _, tag := range []string{"hi", "sd-Deva"} {
		l := mustLang(t, tag)
		var pieces []string
		for _, row := range l.VariantRows() {
			pieces = append(pieces, row...)
		}
		pieces = append(pieces, "क", "ा", "र", "ि", "ं", "स", "्", "ब")
		labels := append([]string(nil), words...)
		for i := 0; i < longtest.Pick(4000, 20000); i++ {
			var b strings.Builder
			for j := 0; j < 2+rng.Intn(5); j++ {
				b.WriteString(pieces[rng.Intn(len(pieces))])
			}
			labels = append(labels, b.String())
		}
		checked := 0
		for _, a := range labels {
			va := l.Variants(a)
			ua, _ := l.normalized(a)
			for _, b := range va {
				checked++
				if !contains(l.Variants(b), ua) {
					t.Errorf("%s: %s ∈ variants(%s) but not the reverse (%v)", tag, b, ua, l.Variants(b))
				}
			}
		}
		if checked < 1000 {
			t.Errorf("%s: only %d variant pairs checked", tag, checked)
		}
	}
}

// TestVariantsNFCEveryLanguage: in every language with a variant table,
// every variant of a label is an NFC label the language accepts, and the
// relation is symmetric, over random labels built from the table's members,
// the marks of the repertoire and a few letters. Kashmiri's ی = ي row made
// ي + ٔ, which NFC composes to ئ, until the variants were normalized and
// the row ئ = یٔ added.
func TestVariantsNFCEveryLanguage(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, tag := range Tags() {
		l := mustLang(t, tag)
		if len(l.VariantRows()) == 0 {
			continue
		}
		// Pieces: the table's members, each followed by each code point of
		// the repertoire (so that a replacement meets every mark it might
		// compose with), and the repertoire's code points alone.
		var members, pieces []string
		for _, row := range l.VariantRows() {
			members = append(members, row...)
		}
		var repertoire []string
		for _, c := range l.Policy().Classes {
			for _, ch := range c.Chars {
				for r := ch.Lo; r <= ch.Hi; r++ {
					repertoire = append(repertoire, string(r))
				}
			}
		}
		for _, m := range members {
			pieces = append(pieces, m)
			for _, r := range repertoire {
				pieces = append(pieces, m+r)
			}
		}
		checked := 0
		for i := 0; i < longtest.Pick(5000, 30000); i++ {
			var b strings.Builder
			start := rng.Intn(2)
			for j := 0; j < 1+rng.Intn(4); j++ {
				if (j+start)%2 == 0 {
					b.WriteString(pieces[rng.Intn(len(pieces))])
				} else {
					b.WriteString(repertoire[rng.Intn(len(repertoire))])
				}
			}
			a := b.String()
			ua, ok := l.normalized(a)
			if !ok {
				continue
			}
			for _, v := range l.Variants(a) {
				checked++
				if !norm.NFC.IsNormalString(v) {
					t.Fatalf("%s: variant %s of %s is not NFC", tag, hexOf(v), hexOf(ua))
				}
				if !l.Valid(v) || v == ua {
					t.Fatalf("%s: variant %s of %s is invalid or the label itself", tag, hexOf(v), hexOf(ua))
				}
				// Null variants are one way (RFC 7940 §5.3.5): a variant
				// with fewer of them need not have the label as its own.
				if !contains(l.Variants(v), ua) && nullCount(l, v) >= nullCount(l, ua) {
					t.Fatalf("%s: %s ∈ variants(%s) but not the reverse (%v)", tag, hexOf(v), hexOf(ua), l.Variants(v))
				}
			}
		}
		if checked < 50 {
			t.Errorf("%s: only %d variants checked", tag, checked)
		}
	}
}

func FuzzVariants(f *testing.F) {
	for _, s := range []string{"किताब", "द्धष्ट", "श्र्व", "तँ", "त्तत"} {
		f.Add(s)
	}
	hi := mustLang(f, "hi")
	f.Fuzz(func(t *testing.T, s string) {
		vs := hi.Variants(s)
		if !sort.StringsAreSorted(vs) {
			t.Fatalf("unsorted %v", vs)
		}
		ua, ok := hi.normalized(s)
		for _, v := range vs {
			if !ok || !hi.Valid(v) || v == ua {
				t.Fatalf("%q: variant %q is invalid or the label itself", s, v)
			}
			if !contains(hi.Variants(v), ua) {
				t.Fatalf("%q: %q is a variant but not the reverse", s, v)
			}
		}
	})
}

// nullCount counts the spans of s that a null variant may drop (a null
// variant's code point inside a longer sequence of the table is not one).
func nullCount(l *Language, s string) int {
	n := 0
	for _, sp := range l.varIndex.spans([]rune(s), nil) {
		if row := l.varIndex.rows[sp.row]; slices.Contains(row, "") {
			n++
		}
	}
	return n
}

// TestNullVariants: Kashmiri's vowel marks are null variants (issue 25):
// a marked label has its unmarked and partly marked spellings as variants,
// one way, and any two spellings of the same letters conflict in the zone.
func TestNullVariants(t *testing.T) {
	ks := mustLang(t, "ks")
	const marked, unmarked, other = "سِرینَگَر", "سرینگر", "سَرینگر"
	v := ks.Variants(marked)
	for _, w := range []string{unmarked, "سِرینگر", "سرینَگَر"} {
		if !contains(v, w) {
			t.Errorf("variants(%s) lack %s: %v", marked, w, v)
		}
	}
	if contains(ks.Variants(unmarked), marked) {
		t.Errorf("variants(%s) hold the marked %s: a null variant is one way", unmarked, marked)
	}
	z, err := NewZoneRelation([]string{"ks"})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]bool{}
	a, _ := z.ConflictSet(marked)
	for _, s := range a {
		in[s] = true
	}
	for _, w := range []string{unmarked, other} {
		b, ok := z.ConflictSet(w)
		if !ok || !slices.ContainsFunc(b, func(s string) bool { return in[s] }) {
			t.Errorf("zone sets of %s %v and %s %v do not intersect", marked, a, w, b)
		}
	}
	// Languages without null-variants are unchanged: Urdu refuses marks.
	if n := mustLang(t, "ur").NullVariants(); len(n) != 0 {
		t.Errorf("ur has null variants %U", n)
	}
}

// TestVariantLimitLabels: in the alphabets VARIANT_LIMIT counts the labels
// the table generates, not letters (issue 25): ویکیپیڈیا (four ی, 16
// labels) is valid Urdu, eleven ی (2,048 labels) are not.
func TestVariantLimitLabels(t *testing.T) {
	for _, tag := range []string{"ur", "sd", "ks"} {
		l := mustLang(t, tag)
		if unit, n := l.VariantLimit(); unit != "labels" || n != 1024 {
			t.Errorf("%s: variant-limit %s %d, want labels 1024", tag, unit, n)
		}
	}
	ur := mustLang(t, "ur")
	runVectors(t, ur, []vector{
		{"ویکیپیڈیا", ""},
		{"بیبیبیبیبیبیبیبیبیبی", ""},                   // ten ی: 1,024 labels
		{"بیبیبیبیبیبیبیبیبیبیبی", "VARIANT_LIMIT@21"}, // eleven
	})
	if got := len(ur.Variants("ویکیپیڈیا")); got != 15 {
		t.Errorf("ویکیپیڈیا has %d variants, want 15", got)
	}
	if unit, n := mustLang(t, "hi").VariantLimit(); unit != "aksharas" || n != 3 {
		t.Errorf("hi: variant-limit %s %d, want the default aksharas 3", unit, n)
	}
}

// TestVariantRuleErrors: the loader refuses null-variants and variant-limit
// lines that break their rules.
func TestVariantRuleErrors(t *testing.T) {
	base := `language  xx
name      Test
native    تست
script    Arab
source    test
k         0   § test
grammar   alphabet  § test
direction rtl  § test
class C  § test
  U+0628  ب  ARABIC LETTER BEH
  U+06CC  ی  ARABIC LETTER FARSI YEH
  U+064A  ي  ARABIC LETTER YEH
class M  § test
  U+064E  ◌َ  ARABIC FATHA
`
	rows := "variants  § test\n  ی = ي   | 06CC = 064A\n"
	for _, tc := range []struct{ name, text, want string }{
		{"ok", base + rows + "variant-limit labels 64  § test\nnull-variants  § test\n  U+064E  ◌َ  ARABIC FATHA\n", ""},
		{"no limit", base + rows, "must state its variant-limit"},
		{"not in repertoire", base + "variant-limit labels 64\nnull-variants\n  U+064F  ◌ُ  ARABIC DAMMA\n", "not in the repertoire"},
		{"in a row", base + rows + "variant-limit labels 64\nnull-variants\n  U+064A  ي  ARABIC LETTER YEH\n", "member of a variant row"},
		{"twice", base + "variant-limit labels 64\nnull-variants\n  U+064E  ◌َ  ARABIC FATHA\n  U+064E  ◌َ  ARABIC FATHA\n", "listed twice"},
		{"unit", base + rows + "variant-limit letters 3\n", "variant-limit: want"},
		{"too many", base + rows + "variant-limit labels 5000\n", "variant-limit: want"},
	} {
		_, err := LoadLanguage("xx.lang", []byte(tc.text))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
