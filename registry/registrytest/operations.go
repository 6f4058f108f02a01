package registrytest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// i. Hostile names never reach a store unvalidated (F1, F2, F4 of issue
// 10): every operation refuses them with BAD_NAME, and every refused
// create and delete is in the audit log, its name made storable.
func testHostileNames(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	r, _ := e.registrar("alpha")
	long := strings.Repeat("क", registry.MaxNameBytes) + ".भारत" // 3 KB
	huge := strings.Repeat("a", 60<<10) + ".in"                  // the 60 KB of F4
	hostile := []struct{ what, name string }{
		{"NUL", "ab\x00c.in"},
		{"NUL in an IDN", "कि\x00ताब.भारत"},
		{"NUL in the zone", "kitab.i\x00n"},
		{"NUL alone", "\x00"},
		{"escape", "ab\x1bc.in"},
		{"DEL", "ab\x7fc.in"},
		{"C1 control", "ab\u0085c.in"},
		{"newline", "ab\nc.in"},
		{"invalid UTF-8", "ab\xffc.in"},
		{"surrogate bytes", "ab\xed\xa0\x80c.in"},
		{"long", long},
		{"60 KB", huge},
	}
	for _, h := range hostile {
		_, err := e.svc.Check(e.ctx, h.name, "")
		wantErr(t, h.what+": Check", err, registry.ErrBadName)
		_, err = e.svc.Info(e.ctx, h.name)
		wantErr(t, h.what+": Info", err, registry.ErrBadName)
		_, err = e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: h.name})
		wantErr(t, h.what+": Create", err, registry.ErrBadName)
		err = Err(e.svc.DeleteDomain(e.ctx, r, registry.DomainDelete{Name: h.name}))
		wantErr(t, h.what+": Delete", err, registry.ErrBadName)
		_, err = e.svc.Reserve(e.ctx, h.name, "")
		wantErr(t, h.what+": Reserve", err, registry.ErrBadName)
	}
	if n := e.svc.AuditFailures(); n != 0 {
		t.Errorf("%d audit writes failed", n)
	}
	log, err := e.store.AuditQuery(e.ctx, registry.AuditFilter{Registrar: "alpha"})
	if err != nil {
		t.Fatalf("AuditQuery: %v", err)
	}
	var refused []registry.AuditEntry
	for _, a := range log {
		if a.Action == "create" || a.Action == "delete" {
			refused = append(refused, a)
		}
	}
	if len(refused) != 2*len(hostile) {
		t.Fatalf("%d refused creates and deletes recorded, want %d: %+v", len(refused), 2*len(hostile), refused)
	}
	for i, a := range refused {
		h := hostile[i/2]
		if a.Result != registry.CodeBadName || len(a.Name) > 256 || strings.ContainsRune(a.Name, 0) {
			t.Errorf("%s: audit record %+v: want BAD_NAME and a name of at most 256 bytes without NUL", h.what, a)
		}
	}
	if a := refused[0]; a.Name != "ab\uFFFDc.in" {
		t.Errorf("NUL: recorded as %q, want ab\uFFFDc.in", a.Name)
	}

	// registrar names and audit filters with a NUL are refused too
	for _, name := range []string{"bad\x00name", "acme\u202eemca", "ac\u200bme", "ac\u200dme", "\u2067acme", "acme\ufeff"} {
		if _, _, err := e.svc.AddRegistrar(e.ctx, name); !errors.Is(err, registry.ErrBadName) {
			t.Errorf("AddRegistrar(%q) = %v, want BAD_NAME", name, err)
		}
	}
	if err := e.svc.RevokeRegistrar(e.ctx, "al\x00pha"); !errors.Is(err, registry.ErrBadName) {
		t.Errorf("RevokeRegistrar(NUL) = %v, want BAD_NAME", err)
	}
	if _, err := e.svc.RotateToken(e.ctx, "al\x00pha"); !errors.Is(err, registry.ErrBadName) {
		t.Errorf("RotateToken(NUL) = %v, want BAD_NAME", err)
	}
	for _, f := range []registry.AuditFilter{{Name: "a\x00"}, {Registrar: "\xff"}, {Action: strings.Repeat("x", 2000)}} {
		if _, err := e.svc.Audit(e.ctx, f); !errors.Is(err, registry.ErrBadName) {
			t.Errorf("Audit(%+v) = %v, want BAD_NAME", f, err)
		}
	}
	if err := e.svc.Unreserve(e.ctx, "a\x00.in"); !errors.Is(err, registry.ErrBadName) {
		t.Errorf("Unreserve(NUL) = %v, want BAD_NAME", err)
	}
}

// j. Operators: registrars listed, revoked and rotated; the audit log
// queried; failed registrar creations recorded; lang auto.
func testOperators(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	start := time.Now().Add(-time.Second)
	a, tokenA := e.registrar("alpha")
	b, tokenB := e.registrar("beta")
	if _, _, err := e.svc.AddRegistrar(e.ctx, "alpha"); !errors.Is(err, registry.ErrExists) {
		t.Fatalf("AddRegistrar(alpha) again = %v, want EXISTS", err)
	}
	e.create(a, kitab, "hi", registry.Domain{Name: kitab, ALabel: kitabALabel, Label: "किताब", Zone: "भारत", Lang: "hi", Blocks: []string{"किताब", "कित्ताब"}})

	list, err := e.svc.Registrars(e.ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("Registrars = %+v, %v; want alpha and beta", list, err)
	}
	if list[0].Name != "alpha" || list[0].Domains != 1 || !list[0].Revoked.IsZero() || list[1].Name != "beta" || list[1].Domains != 0 {
		t.Errorf("Registrars = %+v", list)
	}

	// revoke: the token stops at once; the domains stay
	if err := e.svc.RevokeRegistrar(e.ctx, "beta"); err != nil {
		t.Fatalf("RevokeRegistrar(beta): %v", err)
	}
	if _, err := e.svc.Authenticate(e.ctx, tokenB); !errors.Is(err, registry.ErrUnauthorized) {
		t.Errorf("Authenticate(beta's revoked token) = %v, want UNAUTHORIZED", err)
	}
	if err := e.svc.RevokeRegistrar(e.ctx, "nobody"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("RevokeRegistrar(nobody) = %v, want NOT_FOUND", err)
	}
	list, _ = e.svc.Registrars(e.ctx)
	if len(list) != 2 || list[1].Revoked.IsZero() {
		t.Errorf("Registrars after revoking beta = %+v", list)
	}
	// rotate: the old token stops, the new one works (and lifts a revocation)
	newA, err := e.svc.RotateToken(e.ctx, "alpha")
	if err != nil || newA == tokenA || !strings.HasPrefix(newA, "ak_") {
		t.Fatalf("RotateToken(alpha) = %q, %v", newA, err)
	}
	if _, err := e.svc.Authenticate(e.ctx, tokenA); !errors.Is(err, registry.ErrUnauthorized) {
		t.Errorf("Authenticate(alpha's old token) = %v, want UNAUTHORIZED", err)
	}
	if got, err := e.svc.Authenticate(e.ctx, newA); err != nil || got.ID != a.ID {
		t.Errorf("Authenticate(alpha's new token) = %+v, %v", got, err)
	}
	// issue 22: a rotation never lifts a revocation; reinstating is its
	// own step, which gives a new token (the old one stays dead)
	if tok, err := e.svc.RotateToken(e.ctx, "beta"); registry.CodeOf(err) != registry.CodeRevoked || tok != "" {
		t.Errorf("RotateToken(revoked beta) = %q, %v; want REVOKED", tok, err)
	}
	if err := e.svc.RegistrarActive(e.ctx, b); registry.CodeOf(err) != registry.CodeRevoked {
		t.Errorf("RegistrarActive(beta) after RotateToken = %v, want REVOKED (the rotation lifted the revocation)", err)
	}
	if _, err := e.svc.Authenticate(e.ctx, tokenB); !errors.Is(err, registry.ErrUnauthorized) {
		t.Errorf("Authenticate(beta's revoked token) after RotateToken = %v, want UNAUTHORIZED", err)
	}
	if err := e.svc.RegistrarActive(e.ctx, a); err != nil {
		t.Errorf("RegistrarActive(alpha) = %v, want nil", err)
	}
	if err := e.svc.RegistrarActive(e.ctx, &registry.Registrar{ID: 1 << 40, Name: "ghost"}); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("RegistrarActive(no such ID) = %v, want NOT_FOUND", err)
	}
	if _, err := e.svc.ReinstateRegistrar(e.ctx, "alpha"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("ReinstateRegistrar(alpha, not revoked) = %v, want NOT_FOUND", err)
	}
	newB, err := e.svc.ReinstateRegistrar(e.ctx, "beta")
	if err != nil || newB == tokenB || !strings.HasPrefix(newB, "ak_") {
		t.Fatalf("ReinstateRegistrar(beta) = %q, %v", newB, err)
	}
	if got, err := e.svc.Authenticate(e.ctx, newB); err != nil || got.ID != b.ID {
		t.Errorf("Authenticate(beta's reinstated token) = %+v, %v", got, err)
	}
	if _, err := e.svc.Authenticate(e.ctx, tokenB); !errors.Is(err, registry.ErrUnauthorized) {
		t.Errorf("Authenticate(beta's token of before the revocation) = %v, want UNAUTHORIZED", err)
	}
	if err := e.svc.RegistrarActive(e.ctx, b); err != nil {
		t.Errorf("RegistrarActive(reinstated beta) = %v", err)
	}
	if _, err := e.svc.RotateToken(e.ctx, "nobody"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("RotateToken(nobody) = %v, want NOT_FOUND", err)
	}

	// the audit log, queried
	all, err := e.svc.Audit(e.ctx, registry.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	type entry struct{ Registrar, Action, Name, Result string }
	var got []entry
	for _, x := range all {
		got = append(got, entry{x.Registrar, x.Action, x.Name, x.Result})
	}
	want := []entry{ // oldest first
		{"alpha", "registrar-add", "alpha", "ok"},
		{"beta", "registrar-add", "beta", "ok"},
		{"alpha", "registrar-add", "alpha", "EXISTS"},
		{"alpha", "create", kitab, "ok"},
		{"beta", "registrar-revoke", "beta", "ok"},
		{"nobody", "registrar-revoke", "nobody", "NOT_FOUND"},
		{"alpha", "registrar-rotate", "alpha", "ok"},
		{"beta", "registrar-rotate", "beta", "REVOKED"},
		{"alpha", "registrar-reinstate", "alpha", "NOT_FOUND"},
		{"beta", "registrar-reinstate", "beta", "ok"},
		{"nobody", "registrar-rotate", "nobody", "NOT_FOUND"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Audit() =\n%q\nwant\n%q", got, want)
	}
	for _, tc := range []struct {
		f    registry.AuditFilter
		want int
	}{
		{registry.AuditFilter{Registrar: "alpha"}, 5},
		{registry.AuditFilter{Registrar: "alpha", Action: "create"}, 1},
		{registry.AuditFilter{Name: kitab}, 1},
		{registry.AuditFilter{Action: "registrar-add"}, 3},
		{registry.AuditFilter{Since: start}, len(want)},
		{registry.AuditFilter{Until: start}, 0},
		{registry.AuditFilter{Since: time.Now().Add(time.Hour)}, 0},
		{registry.AuditFilter{AfterID: all[2].ID}, len(want) - 3},
		{registry.AuditFilter{Limit: 2}, 2},
		{registry.AuditFilter{Registrar: "alpha", AfterID: all[0].ID, Limit: 2}, 2},
		{registry.AuditFilter{Registrar: "nobody", Action: "create"}, 0},
	} {
		got, err := e.svc.Audit(e.ctx, tc.f)
		if err != nil || len(got) != tc.want {
			t.Errorf("Audit(%+v) = %d records, %v; want %d", tc.f, len(got), err, tc.want)
		}
	}

	// lang auto is the zone's first accepting language, as in /v1/analyze
	res, err := e.svc.Check(e.ctx, "कमल.भारत", "auto")
	if err != nil || res.Status != registry.Available || res.Lang != "hi" {
		t.Errorf("Check(कमल.भारत, auto) = %+v, %v; want available in hi", res, err)
	}
	if err := e.svc.Ready(e.ctx); err != nil {
		t.Errorf("Ready: %v", err)
	}
}

// k. Reserved names: check answers reserved, for the name and for its
// variants; create is refused with RESERVED; released, the name is free.
func testReserved(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	r, _ := e.registrar("alpha")
	rn, err := e.svc.Reserve(e.ctx, kitabALabel, "the operator's own")
	if err != nil {
		t.Fatalf("Reserve(%s): %v", kitabALabel, err)
	}
	if rn.Zone != "भारत" || rn.Label != "किताब" || rn.Reason != "the operator's own" {
		t.Errorf("Reserve = %+v, want किताब in भारत, stored canonical", rn)
	}
	if _, err := e.svc.Reserve(e.ctx, kitab, ""); !errors.Is(err, registry.ErrExists) {
		t.Errorf("Reserve again = %v, want EXISTS", err)
	}
	if _, err := e.svc.Reserve(e.ctx, "क्अब.भारत", ""); !errors.Is(err, registry.ErrInvalid) {
		t.Errorf("Reserve(invalid) = %v, want INVALID_LABEL", err)
	}
	if _, err := e.svc.Reserve(e.ctx, "www.in", "infrastructure"); err != nil {
		t.Errorf("Reserve(www.in): %v", err)
	}
	for _, name := range []string{kitab, kittab, "WWW.in"} {
		e.check(name, "", registry.Reserved, "")
		_, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: name})
		wantErr(t, fmt.Sprintf("Create(%s)", name), err, registry.ErrReserved)
	}
	e.check("कमल.भारत", "hi", registry.Available, "")
	all, err := e.svc.ReservedNames(e.ctx, "")
	if err != nil || len(all) != 2 {
		t.Errorf("ReservedNames() = %+v, %v; want 2", all, err)
	}
	in, err := e.svc.ReservedNames(e.ctx, "IN")
	if err != nil || len(in) != 1 || in[0].Label != "www" {
		t.Errorf("ReservedNames(IN) = %+v, %v; want www", in, err)
	}
	if _, err := e.svc.ReservedNames(e.ctx, "xyz"); !errors.Is(err, registry.ErrUnknownZone) {
		t.Errorf("ReservedNames(xyz) = %v, want UNKNOWN_ZONE", err)
	}
	if err := e.svc.Unreserve(e.ctx, "XN--11B4AYA5ED.xn--h2brj9c"); err != nil {
		t.Fatalf("Unreserve: %v", err)
	}
	if err := e.svc.Unreserve(e.ctx, kitab); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("Unreserve again = %v, want NOT_FOUND", err)
	}
	e.check(kittab, "hi", registry.Available, "")
	e.create(r, kittab, "hi", registry.Domain{Name: kittab, ALabel: kittabALbl, Label: "कित्ताब", Zone: "भारत", Lang: "hi", Blocks: []string{"किताब", "कित्ताब"}})
	// a registered name stays registered when it is reserved after
	if _, err := e.svc.Reserve(e.ctx, kittab, ""); err != nil {
		t.Fatal(err)
	}
	e.check(kittab, "hi", registry.Registered, "")
}

// l. Zones as data: an operator adds a zone; a service on the store
// takes it.
func testAddZone(t *testing.T, open func(*testing.T) registry.Store) {
	store := open(t)
	svc, err := registry.NewServiceWith(t.Context(), store, Exempt(registry.ServiceOptions{}, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		langs []string
		ldh   bool
		want  *registry.Error
	}{
		{"", []string{"hi"}, false, registry.ErrBadName},
		{"a.b", []string{"hi"}, false, registry.ErrBadName},
		{"bhārat\x00", []string{"hi"}, false, registry.ErrBadName},
		{"test", []string{"xx"}, false, registry.ErrUnknownLanguage},
		{"test", nil, false, registry.ErrUnknownLanguage},
	} {
		if _, err := registry.NewZone(tc.name, tc.langs, tc.ldh); !errors.Is(err, tc.want) {
			t.Errorf("NewZone(%q, %q) = %v, want %s", tc.name, tc.langs, err, tc.want.Code)
		}
	}
	z, err := registry.NewZone("भारतम्", []string{"hi"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.AddZone(t.Context(), z); !errors.Is(err, registry.ErrExists) {
		t.Errorf("AddZone(भारतम्) = %v, want EXISTS", err)
	}
	z, err = registry.NewZone("Test", []string{"hi", "mr"}, true)
	if err != nil || z.Name != "test" || z.ALabel != "test" {
		t.Fatalf("NewZone(Test) = %+v, %v", z, err)
	}
	if err := svc.AddZone(t.Context(), z); err != nil {
		t.Fatalf("AddZone(test): %v", err)
	}
	svc2, err := registry.NewServiceWith(t.Context(), store, Exempt(registry.ServiceOptions{}, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*registry.Service{svc, svc2} {
		res, err := s.Check(t.Context(), "कमल.test", "")
		if err != nil || res.Status != registry.Available || res.Zone != "test" {
			t.Errorf("Check(कमल.test) = %+v, %v", res, err)
		}
		if res, err := s.Check(t.Context(), "example.TEST", ""); err != nil || res.Lang != registry.LDH {
			t.Errorf("Check(example.TEST) = %+v, %v", res, err)
		}
	}
}
