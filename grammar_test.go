package akshara

import (
	"os"
	"strings"
	"testing"
)

func mustLang(t testing.TB, tag string) *Language {
	t.Helper()
	l, err := Lookup(tag)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// grammarLang is testdata/grammar.lang: every class of the grammar.
func grammarLang(t testing.TB) *Language { return testLang(t, "testdata/grammar.lang") }

func testLang(t testing.TB, file string) *Language {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	l, err := LoadLanguage(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

type vector struct {
	label string
	want  string // "" for valid, else the errors as "CODE@POS CODE@POS"
}

func runVectors(t *testing.T, l *Language, vs []vector) {
	t.Helper()
	for _, v := range vs {
		res := l.Check(v.label)
		got := strings.Join(codesOf(res), " ")
		if got != v.want {
			t.Errorf("%s %q (%s): got [%s], want [%s]", l.Tag, v.label, hexOf(v.label), got, v.want)
		}
		if res.Valid != (v.want == "") || l.Valid(v.label) != res.Valid {
			t.Errorf("%s %q: Valid=%v Check.Valid=%v, want %v", l.Tag, v.label, l.Valid(v.label), res.Valid, v.want == "")
		}
	}
}

// TestConsequences checks each consequence that docs/policy.md §3 lists, on Hindi.
func TestConsequences(t *testing.T) {
	hi := mustLang(t, "hi")
	t.Run("no leading H D B X M N Y", func(t *testing.T) {
		runVectors(t, hi, []vector{
			{"्कर", "SYLLABLE@0"}, {"ंकर", "SYLLABLE@0"}, {"ँकर", "SYLLABLE@0"}, {"ःकर", "SYLLABLE@0"},
			{"िकर", "SYLLABLE@0"}, {"़कर", "SYLLABLE@0"}, {"ऽकर", "SYLLABLE@0"},
		})
	})
	t.Run("H only after C or CN", func(t *testing.T) {
		runVectors(t, hi, []vector{
			{"क़्य", ""}, {"क्य", ""},
			{"अ्क", "SYLLABLE@1"}, {"का्क", "SYLLABLE@2"}, {"कं्क", "SYLLABLE@2"}, {"कँ्क", "SYLLABLE@2"},
			{"कः्क", "SYLLABLE@2"}, {"1्क", "SYLLABLE@1"}, {"क-्क", "SYLLABLE@2"}, {"कऽ्क", "SYLLABLE@2"},
			{"क््क", "HALANT_FOLLOWER@2"},
		})
	})
	t.Run("M only after a consonant cluster, once", func(t *testing.T) {
		runVectors(t, hi, []vector{
			{"क्या", ""}, {"क़ायदा", ""},
			{"अाक", "SYLLABLE@1"}, {"कीीक", "SYLLABLE@2"}, {"क्ाक", "HALANT_FOLLOWER@2"},
			{"कंाक", "SYLLABLE@2"}, {"कँाक", "SYLLABLE@2"}, {"कःाक", "SYLLABLE@2"},
			{"1ाक", "SYLLABLE@1"}, {"क-ाक", "SYLLABLE@2"}, {"कऽाक", "SYLLABLE@2"},
		})
	})
	t.Run("at most one of D B X", func(t *testing.T) {
		runVectors(t, hi, []vector{
			{"कंगा", ""}, {"काँच", ""}, {"अंक", ""},
			{"कंंक", "SIGN_COMBINATION@2"}, {"कंँक", "SIGN_COMBINATION@2"}, {"कंःक", "SIGN_COMBINATION@2"},
			{"कँंक", "SIGN_COMBINATION@2"}, {"कःंक", "SIGN_COMBINATION@2"}, {"आँँख", "SIGN_COMBINATION@2"},
		})
	})
	t.Run("no independent vowel after a halant", func(t *testing.T) {
		runVectors(t, hi, []vector{{"क्अक", "HALANT_FOLLOWER@2"}, {"क्-अक", ""}, {"क्1", ""}, {"क्ऽक", ""}})
	})
	t.Run("nukta", func(t *testing.T) {
		runVectors(t, hi, []vector{
			{"अ़क", "NUKTA_BASE@1"}, {"ल़का", "NUKTA_BASE@1"}, {"क़़ा", "SYLLABLE@2"}, {"का़क", "SYLLABLE@2"},
		})
	})
	t.Run("cluster length k+1", func(t *testing.T) {
		runVectors(t, hi, []vector{
			{"स्त्र्य", ""}, {"स्त्र्य्व", "CLUSTER_TOO_LONG@8"},
			{"त्त", ""}, {"त्त्त", "IDENTICAL_CONSONANTS@4"}, {"क़्क़्क़", "IDENTICAL_CONSONANTS@6"},
			{"क्क्क़", ""}, {"त्त-त", ""},
		})
	})
	t.Run("hyphens and digits", func(t *testing.T) {
		runVectors(t, hi, []vector{
			{"क-ख", ""}, {"123", ""}, {"1-2", ""}, {"क1ख", ""},
			{"-कर", "HYPHEN_START@0"}, {"कर-", "HYPHEN_END@2"}, {"क--ख", "HYPHEN_DOUBLE@2"},
			{"12", "TOO_SHORT@0 DIGITS_ONLY@0"}, {"1", "TOO_SHORT@0 DIGITS_ONLY@0"},
			{"---", "HYPHEN_START@0 HYPHEN_DOUBLE@1 HYPHEN_DOUBLE@2 HYPHEN_END@2"},
		})
	})
}

// TestGenericGrammar exercises the branches of the grammar that Hindi
// lacks, on the synthetic testdata/grammar.lang (k = 2, BD and BX allowed,
// nukta after क and the vowel आ).
func TestGenericGrammar(t *testing.T) {
	g := grammarLang(t)
	runVectors(t, g, []vector{
		// cluster
		{"क्ख्ग", ""}, {"क्ख्ग्त", "CLUSTER_TOO_LONG@6"},
		// Z: [CH]Z
		{"ऩकर", ""}, {"तक्ऩ", ""}, {"क्ऩर", ""}, {"क्ख्ऩ", "SYLLABLE@4"}, {"क्ऩा", "SYLLABLE@3"},
		// L: L[HC[D|H|M[D]]]
		{"ळकर", ""}, {"ळ्कर", ""}, {"ळ्किं", ""}, {"ळ्क्", ""}, {"ळ्कं", ""},
		{"ळ्कः", "SYLLABLE@3"}, {"ळ्किः", "SYLLABLE@4"}, {"करळ्", "SYLLABLE@3"},
		{"ळ्क्क", "HALANT_FOLLOWER@4"}, {"ळ्अक", "SYLLABLE@2"},
		// A: AC[D|X|M[D|X]], placement
		{"कऴक", ""}, {"कऴकिं", ""}, {"काऴका", ""}, {"कऴकः", ""},
		{"ऴकक", "ADDAK@0"}, {"ककऴ", "ADDAK@2"}, {"क्ऴक", "ADDAK@2"}, {"कंऴक", "ADDAK@2"},
		{"कःऴक", "ADDAK@2"}, {"1ऴक", "ADDAK@1"}, {"क-ऴक", "ADDAK@2"}, {"कऴअ", "ADDAK@2"},
		{"कऴकँ", "SYLLABLE@3"},
		// S after C, M, V; not first; one sign
		{"कʼक", ""}, {"काʼ", ""}, {"अʼक", ""}, {"ʼकक", "SYLLABLE@0"}, {"कंʼ", "SIGN_COMBINATION@2"},
		// BD and BX pairs where a language allows them
		{"कँंक", ""}, {"कँःक", ""}, {"अँंक", ""}, {"काँंक", ""},
		{"कंँक", "SIGN_COMBINATION@2"}, {"कँंःक", "SIGN_COMBINATION@3"}, {"कँँक", "SIGN_COMBINATION@2"},
		// nukta after a vowel that allows it
		{"आ़क", ""}, {"अ़क", "NUKTA_BASE@1"}, {"ख़क", "NUKTA_BASE@1"},
		// avagraha
		{"कऽक", ""}, {"क्ऽ", ""}, {"ऽकक", "SYLLABLE@0"}, {"कऽऽ", "SYLLABLE@2"},
		// no vowel conjunct in this language
		{"अ्कि", "SYLLABLE@1"},
	})
}

// TestContextRules exercises each kind of context rule on both sides, on
// the synthetic testdata/context.lang.
func TestContextRules(t *testing.T) {
	c := testLang(t, "testdata/context.lang")
	runVectors(t, c, []vector{
		// vowel-conjuncts: V H C M only as listed
		{"अ्याक", ""}, {"आ्याक", "CONJUNCT@1"}, {"अ्यिक", "CONJUNCT@1"},
		{"अ्य", "CONJUNCT@1 SYLLABLE@2"}, // not a listed conjunct, and the grammar wants the matra
		// only-in with a literal trigger (like ऱ)
		{"कर्य", ""}, {"कर्हा", ""}, {"र्यक", ""}, {"करक", "CONJUNCT@1"}, {"कार", "CONJUNCT@2"},
		// only-in with a class trigger (like the Punjabi halant)
		{"क्यक", ""}, {"क्हा", ""}, {"क्गा", "CONJUNCT@1"}, {"कक्", "CONJUNCT@2"}, {"क्-क", "CONJUNCT@1"},
		// only-after (like tippi) and not-after (like bindi)
		{"कँग", ""}, {"किँग", ""}, {"क़ँग", ""}, {"काँग", "TIPPI_BINDI@2"}, {"अँग", "TIPPI_BINDI@1"},
		{"कांग", ""}, {"अंग", ""}, {"कंग", "TIPPI_BINDI@1"}, {"किंग", "TIPPI_BINDI@2"}, {"क़ंग", "TIPPI_BINDI@2"},
		// not-after ^ (like khanda ta never first)
		{"कतक", ""}, {"तकक", "CONJUNCT@0"},
		// two rules naming one character report it once
		{"अ्गा", "CONJUNCT@1"},
	})
	res := c.Check("करक")
	if msg := res.Errors[0].Message; !strings.Contains(msg, "र्य or र्ह") || !strings.Contains(msg, "§ test") {
		t.Errorf("message does not quote the rule: %s", msg)
	}
}
