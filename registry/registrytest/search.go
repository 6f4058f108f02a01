package registrytest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/testlabel"
	"github.com/akshara-idn/akshara/registry"
)

// testSearch: SearchDomains (RDAP's domains?name=PREFIX*.ZONE, issue 34
// item 13) finds, page by page, exactly the domains of the zone whose
// label (U-label prefix) or A-label name (ASCII prefix) starts with the
// prefix, in byte order, each once, none of another zone; the zone and
// the prefix in either form and any case; refusals with their codes.
func testSearch(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	a, _ := e.registrar("a")
	b, _ := e.registrar("b")
	var names []string
	for i := range 40 {
		names = append(names, "कि"+testlabel.Hindi(i)+".भारत") // a common prefix
	}
	for i := range 15 {
		names = append(names, testlabel.Hindi(5000+i)+".भारत")
	}
	// a label that is a prefix of another: the cursor after it is the
	// prefix itself
	names = append(names, "कमल.भारत", "कमला.भारत", "abx.in", "abc.in", "abd.in", "ab-x.in", "xyz.in", "xnab.in", "कि"+testlabel.Hindi(0)+".in")
	var all []*registry.Domain
	for i, n := range names {
		r := a
		if i%3 == 0 {
			r = b
		}
		d, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: n})
		if err != nil {
			t.Fatalf("Create(%s): %v", n, err)
		}
		all = append(all, d)
	}
	// what a search must find: by brute force over every domain
	want := func(zone, prefix string, alabel bool) []string {
		var out []string
		for _, d := range all {
			key := d.Label
			if alabel {
				key = d.ALabel
			}
			if d.Zone == zone && strings.HasPrefix(key, prefix) {
				out = append(out, key)
			}
		}
		slices.Sort(out) // Go's string order: byte order
		return out
	}
	kitab := all[0]
	idn := kitab.ALabel[:len("xn--")+3]
	for _, tc := range []struct {
		pattern, zone, prefix string
		alabel                bool
		min                   int // at least this many (the brute force is not empty)
	}{
		{"कि*.भारत", "भारत", "कि", false, 40},
		{"कि*.xn--h2brj9c", "भारत", "कि", false, 40},
		{"कि*.भारत.", "भारत", "कि", false, 40},
		{"किक*.भारत", "भारत", "किक", false, 2},
		{"कमल*.भारत", "भारत", "कमल", false, 2},
		{idn + "*.xn--h2brj9c", "भारत", idn, true, 1},
		{strings.ToUpper(idn) + "*.XN--H2BRJ9C", "भारत", idn, true, 1},
		{"ab*.in", "in", "ab", true, 4},
		{"AB*.IN", "in", "ab", true, 4},
		{"xna*.in", "in", "xna", true, 1},
		{"कि*.in", "in", "कि", false, 1},
		{"zz*.in", "in", "zz", true, 0},
	} {
		exp := want(tc.zone, tc.prefix, tc.alabel)
		if len(exp) < tc.min {
			t.Fatalf("%s: the test expects %d of %v", tc.pattern, tc.min, exp)
		}
		for _, limit := range []int{1, 3, 0} {
			var got []string
			after := ""
			for pages := 0; ; pages++ {
				if pages > len(exp)+1 {
					t.Fatalf("%s, limit %d: more pages than domains", tc.pattern, limit)
				}
				p, err := e.svc.SearchDomains(e.ctx, tc.pattern, after, limit)
				if err != nil {
					t.Fatalf("%s, limit %d, after %q: %v", tc.pattern, limit, after, err)
				}
				if limit > 0 && len(p.Domains) > limit {
					t.Errorf("%s: a page of %d, limit %d", tc.pattern, len(p.Domains), limit)
				}
				for _, d := range p.Domains {
					key := d.Label
					if tc.alabel {
						key = d.ALabel
					}
					got = append(got, key)
					if d.Zone != tc.zone || d.Name != d.Label+"."+d.Zone || d.ID == 0 || (d.Registrar != "a" && d.Registrar != "b") || d.Created.IsZero() {
						t.Errorf("%s: %+v", tc.pattern, d)
					}
				}
				if p.Next == "" {
					break
				}
				if p.Next <= after {
					t.Fatalf("%s, limit %d: cursor %q after %q", tc.pattern, limit, p.Next, after)
				}
				after = p.Next
			}
			if !slices.Equal(got, exp) {
				t.Errorf("%s, limit %d:\n got %q\nwant %q", tc.pattern, limit, got, exp)
			}
		}
	}
	for _, tc := range []struct {
		pattern, after string
		limit          int
		code           string
	}{
		{"*.भारत", "", 0, registry.CodeUnsupportedSearch},
		{"क*.भारत", "", 0, registry.CodeUnsupportedSearch}, // one character
		{"xn--*.xn--h2brj9c", "", 0, registry.CodeUnsupportedSearch},
		{"xn*.in", "", 0, registry.CodeUnsupportedSearch},
		{"a*c.in", "", 0, registry.CodeUnsupportedSearch},
		{"*abc.in", "", 0, registry.CodeUnsupportedSearch},
		{"abc.in", "", 0, registry.CodeUnsupportedSearch},
		{"abc*", "", 0, registry.CodeUnsupportedSearch},
		{"abc*.*", "", 0, registry.CodeUnsupportedSearch},
		{"abc*.co.in", "", 0, registry.CodeUnsupportedSearch},
		{"abc*.nozone", "", 0, registry.CodeUnknownZone},
		{"ab c*.in", "", 0, registry.CodeBadName},
		{"", "", 0, registry.CodeBadName},
		{"ab\x00*.in", "", 0, registry.CodeBadName},
		{"ab\xff*.in", "", 0, registry.CodeBadName},
		{"ab*.in", "zz.in", 0, registry.CodeBadName}, // a cursor of another search
		{"ab*.in", "ab\xff", 0, registry.CodeBadName},
		{"ab*.in", "", registry.MaxSearchPage + 1, registry.CodeBadName},
		{"ab*.in", "", -1, registry.CodeBadName},
	} {
		_, err := e.svc.SearchDomains(e.ctx, tc.pattern, tc.after, tc.limit)
		if registry.CodeOf(err) != tc.code {
			t.Errorf("SearchDomains(%q, %q, %d) = %v, want %s", tc.pattern, tc.after, tc.limit, err, tc.code)
		}
	}
	// a deleted domain stays found until its purge (as a lookup finds it)
	if err := Err(e.svc.DeleteDomain(e.ctx, a, registry.DomainDelete{Name: "कमला.भारत"})); err != nil {
		t.Fatal(err)
	}
	p, err := e.svc.SearchDomains(e.ctx, "कमल*.भारत", "", 0)
	if err != nil || len(p.Domains) != 2 || !p.Domains[1].Deleted() {
		t.Errorf("after a delete: %+v, %v", p, err)
	}
	// the statuses are those of now: a pending transfer is read with the
	// page (as StatusesNow reads it for one domain)
	if _, err := e.svc.CreateDomain(e.ctx, a, registry.DomainCreate{Name: "पानी.भारत", Lang: "hi", AuthInfo: "Auth-Info-0001-strong"}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(61 * 24 * time.Hour) // past the lock after a create
	if _, err := e.svc.TransferDomain(e.ctx, b, registry.DomainTransfer{Name: "पानी.भारत", Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-0001-strong", Years: 0}); err != nil {
		t.Fatal(err)
	}
	info, err := e.svc.Info(e.ctx, "पानी.भारत")
	if err != nil {
		t.Fatal(err)
	}
	now, err := e.svc.StatusesNow(e.ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	p, err = e.svc.SearchDomains(e.ctx, "पानी*.भारत", "", 0)
	if err != nil || len(p.Domains) != 1 || !slices.Equal(p.Domains[0].Statuses, now) || !slices.Contains(now, registry.StatusPendingTransfer) {
		t.Errorf("a domain pending transfer: %+v, %v; want the statuses %v", p, err, now)
	}
}

// testRegistrarAbuse: the operator records a registrar's abuse contact;
// it is read back by name and ID and listed; malformed ones are refused
// with BAD_CONTACT and an unknown registrar with NOT_FOUND; every attempt
// is in the audit log.
func testRegistrarAbuse(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	acme, _ := e.registrar("acme")
	pr, err := e.svc.PublicRegistrar(e.ctx, "acme")
	if err != nil || pr.ID != acme.ID || pr.Name != "acme" || !pr.Abuse.IsZero() || pr.Created.IsZero() || !pr.Revoked.IsZero() {
		t.Fatalf("PublicRegistrar before: %+v, %v", pr, err)
	}
	abuse := registry.AbuseContact{Email: "abuse@acme.example", Phone: "+91.1123456789"}
	if err := e.svc.SetRegistrarAbuse(e.ctx, "acme", abuse); err != nil {
		t.Fatal(err)
	}
	for _, get := range []func() (*registry.PublicRegistrar, error){
		func() (*registry.PublicRegistrar, error) { return e.svc.PublicRegistrar(e.ctx, "acme") },
		func() (*registry.PublicRegistrar, error) { return e.svc.PublicRegistrarByID(e.ctx, acme.ID) },
	} {
		if pr, err := get(); err != nil || pr.Abuse != abuse || pr.Name != "acme" || pr.ID != acme.ID {
			t.Errorf("after SetRegistrarAbuse: %+v, %v", pr, err)
		}
	}
	rs, err := e.svc.Registrars(e.ctx)
	if err != nil || len(rs) != 1 || rs[0].Abuse != abuse {
		t.Errorf("Registrars: %+v, %v", rs, err)
	}
	for _, tc := range []struct {
		name string
		a    registry.AbuseContact
		code string
	}{
		{"acme", registry.AbuseContact{Email: "not an address"}, registry.CodeBadContact},
		{"acme", registry.AbuseContact{Email: "abuse@localhost"}, registry.CodeBadContact},
		{"acme", registry.AbuseContact{Phone: "011 2345 6789"}, registry.CodeBadContact},
		{"nobody", abuse, registry.CodeNotFound},
		{"", abuse, registry.CodeBadName},
	} {
		if err := e.svc.SetRegistrarAbuse(e.ctx, tc.name, tc.a); registry.CodeOf(err) != tc.code {
			t.Errorf("SetRegistrarAbuse(%q, %+v) = %v, want %s", tc.name, tc.a, err, tc.code)
		}
	}
	if pr, _ := e.svc.PublicRegistrar(e.ctx, "acme"); pr == nil || pr.Abuse != abuse {
		t.Errorf("a refused change changed the abuse contact: %+v", pr)
	}
	if _, err := e.svc.PublicRegistrar(e.ctx, "nobody"); registry.CodeOf(err) != registry.CodeNotFound {
		t.Errorf("PublicRegistrar(nobody) = %v", err)
	}
	if _, err := e.svc.PublicRegistrarByID(e.ctx, acme.ID+100); registry.CodeOf(err) != registry.CodeNotFound {
		t.Errorf("PublicRegistrarByID(unknown) = %v", err)
	}
	// revoked: still published (its domains stay), with the time
	if err := e.svc.RevokeRegistrar(e.ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if pr, err := e.svc.PublicRegistrar(e.ctx, "acme"); err != nil || pr.Revoked.IsZero() {
		t.Errorf("revoked: %+v, %v", pr, err)
	}
	// cleared
	if err := e.svc.SetRegistrarAbuse(e.ctx, "acme", registry.AbuseContact{}); err != nil {
		t.Fatal(err)
	}
	if pr, _ := e.svc.PublicRegistrar(e.ctx, "acme"); pr == nil || !pr.Abuse.IsZero() {
		t.Errorf("cleared: %+v", pr)
	}
	log, err := e.svc.Audit(e.ctx, registry.AuditFilter{Action: "registrar-abuse"})
	if err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, r := range log {
		results = append(results, r.Registrar+" "+r.Result)
	}
	if want := []string{"acme ok", "acme BAD_CONTACT", "acme BAD_CONTACT", "acme BAD_CONTACT", "nobody NOT_FOUND", " BAD_NAME", "acme ok"}; !slices.Equal(results, want) {
		t.Errorf("audit log of registrar-abuse: %q, want %q", results, want)
	}
}
