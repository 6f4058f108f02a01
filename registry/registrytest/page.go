package registrytest

import (
	"slices"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// testPaging: ListPage walks a registrar's domains page by page (issue 22
// item 10), the same domains, conflict sets and exemptions as List, in
// the order of creation, none of another registrar's.
func testPaging(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	a, _ := e.registrar("a")
	b, _ := e.registrar("b")
	mine := []string{kitab, "कमल.भारत", "नमूना.भारत", "मकान.भारत", "पानी.भारत", "दरवाज़ा.भारत", "आमदनी.भारत"}
	theirs := []string{"सरोवर.भारत", "पुस्तक.भारत", "बादल.भारत"}
	for i, n := range mine {
		if _, err := e.svc.CreateDomain(e.ctx, a, registry.DomainCreate{Name: n, Lang: "hi"}); err != nil {
			t.Fatalf("Create(%s): %v", n, err)
		}
		if i < len(theirs) {
			if _, err := e.svc.CreateDomain(e.ctx, b, registry.DomainCreate{Name: theirs[i], Lang: "hi"}); err != nil {
				t.Fatalf("Create(%s): %v", theirs[i], err)
			}
		}
	}
	all, err := e.svc.List(e.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{1, 3, 7, 8, 0} {
		var got []*registry.Domain
		var after int64
		for pages := 0; ; pages++ {
			if pages > len(mine) {
				t.Fatalf("limit %d: more pages than domains", limit)
			}
			p, err := e.svc.ListPage(e.ctx, a, after, limit)
			if err != nil {
				t.Fatalf("limit %d, after %d: %v", limit, after, err)
			}
			if limit > 0 && len(p.Domains) > limit {
				t.Errorf("limit %d: a page of %d", limit, len(p.Domains))
			}
			got = append(got, p.Domains...)
			if p.Next == 0 {
				break
			}
			if p.Next <= after {
				t.Fatalf("limit %d: cursor %d after %d", limit, p.Next, after)
			}
			after = p.Next
		}
		if len(got) != len(all) {
			t.Fatalf("limit %d: %d domains, want %d", limit, len(got), len(all))
		}
		for i := range got {
			g, w := got[i], all[i]
			if g.ID != w.ID || g.Name != mine[i] || g.Name != w.Name || g.ALabel != w.ALabel || g.Lang != w.Lang || g.Registrar != "a" ||
				!slices.Equal(g.Blocks, w.Blocks) || g.Exempted != w.Exempted || !slices.Equal(g.ExemptWith, w.ExemptWith) || !g.Created.Equal(w.Created) {
				t.Errorf("limit %d: domain %d = %+v, want %+v", limit, i, g, w)
			}
		}
	}
	for _, bad := range []struct {
		after int64
		limit int
	}{{0, -1}, {0, registry.MaxPageSize + 1}, {-5, 10}} {
		if _, err := e.svc.ListPage(e.ctx, a, bad.after, bad.limit); err == nil {
			t.Errorf("ListPage(after %d, limit %d): no error", bad.after, bad.limit)
		}
	}
}
