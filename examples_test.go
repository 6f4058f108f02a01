package akshara

import (
	"fmt"
	"sort"
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
		if len(exs) == 0 {
			t.Errorf("%s: no examples", l.Tag)
		}
		for _, ex := range exs {
			total++
			name := fmt.Sprintf("%s/%d_%s", l.Tag, ex.Line, ex.Text)
			t.Run(name, func(t *testing.T) {
				res := l.Check(ex.Text)
				if res.Valid != l.Valid(ex.Text) {
					t.Errorf("Check says valid=%v, Valid says %v", res.Valid, !res.Valid)
				}
				switch ex.Kind {
				case "valid":
					if !res.Valid {
						t.Errorf("%q (%s, %s) should be valid: %v", ex.Text, hexOf(ex.Text), ex.Ref, codesOf(res))
					}
				case "akshara":
					if len(res.Syllables) != 1 || res.Syllables[0] != res.ULabel {
						t.Errorf("%q (%s, %s) should be one syllable, got %q", ex.Text, hexOf(ex.Text), ex.Ref, res.Syllables)
					}
					for _, e := range res.Errors {
						if e.Code != TooShort {
							t.Errorf("%q (%s, %s): unexpected %v", ex.Text, hexOf(ex.Text), ex.Ref, e)
						}
					}
				case "invalid":
					if res.Valid {
						t.Fatalf("%q (%s, %s) should be invalid", ex.Text, hexOf(ex.Text), ex.Ref)
					}
					var want, got []string
					for _, w := range ex.Want {
						want = append(want, w.Code.String())
					}
					for _, e := range res.Errors {
						got = append(got, e.Code.String())
					}
					sort.Strings(want)
					sort.Strings(got)
					if strings.Join(want, " ") != strings.Join(got, " ") {
						t.Errorf("%q (%s, %s): codes %v, want %v (%v)", ex.Text, hexOf(ex.Text), ex.Ref, got, want, codesOf(res))
					}
					for _, w := range ex.Want {
						if w.Pos < 0 {
							continue
						}
						found := false
						for _, e := range res.Errors {
							found = found || (e.Code == w.Code && e.Pos == w.Pos)
						}
						if !found {
							t.Errorf("%q (%s): no %v at %d: %v", ex.Text, hexOf(ex.Text), w.Code, w.Pos, codesOf(res))
						}
					}
				}
			})
		}
	}
	if total < 100 {
		t.Errorf("only %d examples in all; the two 2013 documents alone give more", total)
	}
}
