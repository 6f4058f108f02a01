package akshara

import (
	"strings"
	"testing"
)

// TestMessageWording: the messages a registrar shows a customer read as
// English: "an Assamese label", "the character after it" (not "a
// Assamese", "the 1 characters after it").
func TestMessageWording(t *testing.T) {
	for _, tc := range []struct {
		lang, label, want, never string
	}{
		{"as", "কab", "an Assamese label uses only", "a Assamese"},
		{"or", "କab", "an Oriya label uses only", "a Oriya"},
		{"hi", "कab", "a Hindi label uses only", "an Hindi"},
		{"hi", "कखab", "and the character after it", "1 characters"},
		{"hi", "कखabc", "and the 2 characters after it", "character after it"},
		{"hi", "क", "the label has 1 character;", "1 characters"},
		{"hi", "कख", "the label has 2 characters;", "2 character;"},
	} {
		l, err := Lookup(tc.lang)
		if err != nil {
			t.Fatal(err)
		}
		res := l.Check(tc.label)
		var msgs []string
		for _, e := range res.Errors {
			msgs = append(msgs, e.Message)
		}
		all := strings.Join(msgs, " | ")
		if !strings.Contains(all, tc.want) || strings.Contains(all, tc.never) {
			t.Errorf("%s %q: %q, want %q and not %q", tc.lang, tc.label, all, tc.want, tc.never)
		}
	}
}
