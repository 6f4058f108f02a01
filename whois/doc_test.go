package whois_test

import (
	"os"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/whois"
)

// TestDocAnswers (issue 34 item 15): the answers docs/whois.md shows are
// the server's: each block's lines are lines of the real answer, in order
// and next to each other except where the block has "…" (a date's value
// may differ).
func TestDocAnswers(t *testing.T) {
	doc, err := os.ReadFile("../docs/whois.md")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, registrytest.SQLiteService(t), whois.Options{RateLimit: -1})
	for _, tc := range []struct{ heading, query string }{
		{"A **registered domain**", kitab},
		{"A **blocked variant**", kittab},
	} {
		block := docBlock(string(doc), tc.heading)
		if len(block) < 3 {
			t.Fatalf("docs/whois.md: no answer after %q", tc.heading)
		}
		answer := strings.Split(strings.ReplaceAll(e.query(t, tc.query+"\r\n"), "\r\n", "\n"), "\n")
		at, gap := 0, true // where the next line is looked for; whether it may be further on
		for _, want := range block {
			if want == "…" {
				gap = true
				continue
			}
			found := -1
			for i := at; i < len(answer) && (gap || i == at); i++ {
				if sameLine(answer[i], want) {
					found = i
					break
				}
			}
			if found < 0 {
				t.Errorf("docs/whois.md, %s: %q is not the answer's line %d (or later, after …):\n%s", tc.heading, want, at+1, strings.Join(answer, "\n"))
				break
			}
			at, gap = found+1, false
		}
	}
}

// docBlock returns the indented block that follows the paragraph starting
// with heading.
func docBlock(doc, heading string) []string {
	_, rest, ok := strings.Cut(doc, "\n"+heading)
	if !ok {
		return nil
	}
	var block []string
	for _, l := range strings.Split(rest, "\n") {
		if code, ok := strings.CutPrefix(l, "    "); ok {
			block = append(block, code)
		} else if len(block) > 0 {
			break
		}
	}
	return block
}

// sameLine: equal, or the same date field (its value is the day's).
func sameLine(got, want string) bool {
	if got == want {
		return true
	}
	gk, _, _ := strings.Cut(got, ": ")
	wk, _, _ := strings.Cut(want, ": ")
	return gk == wk && strings.HasSuffix(wk, " Date")
}
