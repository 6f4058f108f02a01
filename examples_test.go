package akshara

import (
	"fmt"
	"strings"
	"testing"
)

// codesOf renders a result's errors as "CODE@POS" in order.
func codesOf(r *Result) []string {
	var s []string
	for _, e := range r.Errors {
		s = append(s, fmt.Sprintf("%s@%d", e.Code, e.Pos))
	}
	return s
}

func hexOf(s string) string {
	var parts []string
	for _, r := range s {
		parts = append(parts, fmt.Sprintf("%04X", r))
	}
	return strings.Join(parts, " ")
}

// TestDocumentExamples runs every example of every language file: the
// policy documents' own examples (seeds 002 and 004 for Hindi and Sindhi).
func TestDocumentExamples(t *testing.T) {
	langs, err := Languages()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, l := range langs {
		exs := l.Examples()
		total += len(exs)
		if len(exs) == 0 {
			t.Errorf("%s: no examples", l.Tag)
		}
		for _, f := range l.CheckExamples() {
			t.Errorf("%s %s", l.Tag, f)
		}
	}
	if total < 100 {
		t.Errorf("only %d examples in all; the two 2013 documents alone give more", total)
	}
}

// TestCheckExamplesFails: the example checker reports each kind of wrong
// expectation (it must be able to fail).
func TestCheckExamplesFails(t *testing.T) {
	data := header + "class C\n  U+0915\n  U+0916\n  U+0917\nclass H\n  U+094D\n" +
		"example valid क्\n" + // too short: invalid
		"example invalid कखग SYLLABLE\n" + // valid
		"example invalid ्कख SYLLABLE@1\n" + // wrong position
		"example akshara कख\n" + // two syllables
		"example valid कखग\n" // right
	l, err := LoadLanguage("t.lang", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	fails := l.CheckExamples()
	if len(fails) != 4 {
		t.Fatalf("%d failures, want 4: %v", len(fails), fails)
	}
}
