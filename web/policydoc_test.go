package web

import (
	"regexp"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara"
)

// TestPolicyDocumentCited: the policy pages cite "docs/policy.md §N"; the
// server serves that document at /docs/policy.md with an anchor #sN for
// every section a page cites, and every page links to it (issue 22: the
// pages cited a file that was in no repository and on no server).
func TestPolicyDocumentCited(t *testing.T) {
	h := Handler()
	code, doc, hdr := get(t, h, "/docs/policy.md")
	if code != 200 {
		t.Fatalf("/docs/policy.md: status %d", code)
	}
	if !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") || hdr.Get("Content-Security-Policy") == "" {
		t.Errorf("/docs/policy.md: headers %v", hdr)
	}
	for _, want := range []string{"The grammar of v1.8", "VARIANT_LIMIT", "consonant-syllable = *k(C[N]H)"} {
		if !strings.Contains(doc, want) {
			t.Errorf("/docs/policy.md lacks %q", want)
		}
	}
	cite := regexp.MustCompile(`docs/policy\.md,? §(\d+)`)
	cited := map[string]bool{}
	for _, tag := range akshara.Tags() {
		code, page, _ := get(t, h, "/policy/"+tag)
		if code != 200 {
			t.Fatalf("/policy/%s: status %d", tag, code)
		}
		if !strings.Contains(page, `href="/docs/policy.md"`) {
			t.Errorf("/policy/%s does not link to /docs/policy.md", tag)
		}
		for _, m := range cite.FindAllStringSubmatch(page, -1) {
			cited[m[1]] = true
		}
	}
	if len(cited) == 0 {
		t.Fatal("no page cites docs/policy.md §N")
	}
	for n := range cited {
		if !strings.Contains(doc, `<section id="s`+n+`">`) {
			t.Errorf("the pages cite docs/policy.md §%s; /docs/policy.md has no section #s%s", n, n)
		}
	}
}
