// Package registrytest is the behaviour suite every registry.Store must
// pass: it drives a registry.Service on the store and checks the answers a
// registrar sees (zones, the domain lifecycle, conflict sets across
// languages and encodings, concurrent creates, registrar isolation, the
// error codes and the ASCII zone in).
//
// A store package runs it from its tests:
//
//	func TestRegistry(t *testing.T) {
//		registrytest.Run(t, func(t *testing.T) registry.Store { ... a fresh, empty store ... })
//	}
package registrytest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/internal/longtest"
	"github.com/akshara-idn/akshara/registry"
)

// Run runs the suite. open must return a fresh, empty store for each
// subtest (and arrange for it to be closed, with t.Cleanup).
func Run(t *testing.T, open func(t *testing.T) registry.Store) {
	tests := []struct {
		name string
		f    func(*testing.T, func(*testing.T) registry.Store)
	}{
		{"Zones", testZones},
		{"Lifecycle", testLifecycle},
		{"Race", testRace},
		{"CrossLanguage", testCrossLanguage},
		{"ArabicHeh", testArabicHeh},
		{"LatinTwins", testLatinTwins},
		{"KashmiriMarks", testKashmiriMarks},
		{"Encodings", testEncodings},
		{"RegistrarIsolation", testIsolation},
		{"Errors", testErrors},
		{"ASCIIZone", testASCIIZone},
		{"EPPCredentials", testEPPCredentials},
		{"LoginSecurity", testLoginSecurity}, // loginsec.go
		{"AllowList", testAllowList},
		{"Exemptions", testExemptions},
		{"Recompute", testRecompute},
		{"ExemptionModel", testExemptionModel},
		{"ExemptRace", testExemptRace},
		{"HostileNames", testHostileNames},
		{"Operators", testOperators},
		{"Reserved", testReserved},
		{"AddZone", testAddZone},
		{"Hosts", testHosts},
		{"HostRace", testHostRace},
		{"DNSSEC", testDNSSEC},
		{"Contacts", testContacts},
		{"DomainContacts", testDomainContacts},
		{"ContactRace", testContactRace},
		{"ZoneExport", testZoneExport},
		{"ZoneExportLifecycle", testZoneExportLifecycle},
		{"ZoneExportHostsOfUnpublished", testZoneExportHostsOfUnpublished},
		{"DNSOutbox", testDNSOutbox}, // dnsoutbox.go
		{"LifecycleScenario", testLifecycleScenario},
		{"LifecyclePolicies", testLifecyclePolicies},
		{"PurgeRace", testPurgeRace},
		{"PurgeExempted", testPurgeExempted},
		{"ConcurrentWorkers", testConcurrentWorkers},
		{"LifecycleTransfers", testLifecycleTransfers},
		{"Transfer", testTransfer},
		{"TransferWorker", testTransferWorker},
		{"TransferRace", testTransferRace},
		{"TransferDueOnRead", testTransferDueOnRead},
		{"EndTransfers", testEndTransfers},
		{"PollCommitOrder", testPollCommitOrder},
		{"PollOrder", testPollOrder},
		{"AuthGuess", testAuthGuess},
		{"AuthGuessRegistrar", testAuthGuessRegistrar},
		{"AuthGuessContact", testAuthGuessContact},
		{"AuthGuessDays", testAuthGuessDays},
		{"TransferStorm", testTransferStorm},
		{"Paging", testPaging},
		{"Search", testSearch},
		{"RegistrarAbuse", testRegistrarAbuse},
		{"Family", testFamily},
		{"FamilyRecompute", testFamilyRecompute},
		{"FamilyRace", testFamilyRace},
		{"FamilyImport", testFamilyImport},
		{"FamilyReaudit", testFamilyReaudit},
		{"FamilyReserved", testFamilyReserved},
		// billing (billing.go)
		{"BillingRace", testBillingRace},
		{"BillingEdge", testBillingEdge},
		{"BillingPrices", testBillingPrices},
		{"BillingGrace", testBillingGrace},
		{"BillingAutoRenew", testBillingAutoRenew},
		{"BillingTransfer", testBillingTransfer},
		{"SameEntity", testSameEntity},
		{"SameEntityRace", testSameEntityRace},
		{"RegistryLock", testRegistryLock},
		{"OperatorStatusGlue", testOperatorStatusGlue},
		{"CDS", testCDS}, // cds.go
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.f(t, open) })
	}
}

// The names the suite uses.
const (
	kitab       = "किताब.भारत"
	kitabALabel = "xn--11b4aya5ed.xn--h2brj9c"
	kittab      = "कित्ताब.भारत" // Hindi variant of किताब (row त = त्त)
	kittabA     = "xn--11b4aa6a3fd3h"
	kittabALbl  = kittabA + ".xn--h2brj9c"
)

// env is a service on a fresh store, with a clock that moves only when
// the test moves it.
type env struct {
	t     *testing.T
	ctx   context.Context
	store registry.Store
	svc   *registry.Service
	clock *registry.ManualClock
}

func newEnv(t *testing.T, open func(*testing.T) registry.Store) *env {
	t.Helper()
	store := open(t)
	ctx := t.Context()
	clock := registry.NewManualClock(time.Now())
	svc, err := registry.NewServiceWith(ctx, store, Exempt(registry.ServiceOptions{Clock: clock}, ""))
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	return &env{t: t, ctx: ctx, store: store, svc: svc, clock: clock}
}

// purge moves the clock past the redemption and pending delete periods
// of every deleted domain (36 days) and runs the lifecycle worker.
func (e *env) purge() *registry.LifecycleReport {
	e.t.Helper()
	e.clock.Advance(36 * 24 * time.Hour)
	rep, err := e.svc.RunLifecycle(e.ctx, 0)
	if err != nil {
		e.t.Fatalf("RunLifecycle: %v", err)
	}
	return rep
}

// registrar adds a registrar and returns it with its token.
func (e *env) registrar(name string) (*registry.Registrar, string) {
	e.t.Helper()
	r, token, err := e.svc.AddRegistrar(e.ctx, name)
	if err != nil {
		e.t.Fatalf("AddRegistrar(%q): %v", name, err)
	}
	if r.Name != name || r.ID == 0 {
		e.t.Fatalf("AddRegistrar(%q) = %+v, want name %q and an ID", name, r, name)
	}
	return r, token
}

// create registers name and checks the domain returned.
func (e *env) create(r *registry.Registrar, name, lang string, want registry.Domain) *registry.Domain {
	e.t.Helper()
	d, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: name, Lang: lang})
	if err != nil {
		e.t.Fatalf("Create(%q, %q): %v", name, lang, err)
	}
	want.Registrar = r.Name
	checkDomain(e.t, fmt.Sprintf("Create(%q, %q)", name, lang), d, want)
	return d
}

// checkDomain compares the fields of d that do not depend on time and
// order of creation with want, and requires an ID and a creation time.
func checkDomain(t *testing.T, what string, d *registry.Domain, want registry.Domain) {
	t.Helper()
	if d == nil {
		t.Fatalf("%s: nil domain", what)
	}
	if d.Name != want.Name || d.ALabel != want.ALabel || d.Label != want.Label || d.Zone != want.Zone ||
		d.Lang != want.Lang || d.Registrar != want.Registrar || !slices.Equal(d.Blocks, want.Blocks) {
		t.Errorf("%s = {Name %q ALabel %q Label %q Zone %q Lang %q Registrar %q Blocks %q},\nwant {Name %q ALabel %q Label %q Zone %q Lang %q Registrar %q Blocks %q}",
			what, d.Name, d.ALabel, d.Label, d.Zone, d.Lang, d.Registrar, d.Blocks,
			want.Name, want.ALabel, want.Label, want.Zone, want.Lang, want.Registrar, want.Blocks)
	}
	if d.ID == 0 {
		t.Errorf("%s: ID is 0", what)
	}
	if d.Created.IsZero() {
		t.Errorf("%s: Created is zero", what)
	}
}

// check checks name and compares the status and the blocker.
func (e *env) check(name, lang string, status registry.Status, blockedBy string) *registry.CheckResult {
	e.t.Helper()
	res, err := e.svc.Check(e.ctx, name, lang)
	if err != nil {
		e.t.Fatalf("Check(%q, %q): %v", name, lang, err)
	}
	if res.Status != status || res.BlockedBy != blockedBy {
		e.t.Errorf("Check(%q, %q) = status %q blocked by %q (errors %v), want %q blocked by %q",
			name, lang, res.Status, res.BlockedBy, res.Errors, status, blockedBy)
	}
	if res.Name != name {
		e.t.Errorf("Check(%q, %q).Name = %q, want the input", name, lang, res.Name)
	}
	return res
}

// wantErr requires err to match the sentinel and returns it as *registry.Error.
func wantErr(t *testing.T, what string, err error, sentinel *registry.Error) *registry.Error {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("%s: error %v, want %s", what, err, sentinel.Code)
	}
	var re *registry.Error
	if !errors.As(err, &re) {
		t.Fatalf("%s: error %T %v is not a *registry.Error", what, err, err)
	}
	if re.Code != sentinel.Code {
		t.Fatalf("%s: code %s, want %s", what, re.Code, sentinel.Code)
	}
	return re
}

// wantConflict requires err to be ErrConflict naming blockedBy.
func wantConflict(t *testing.T, what string, err error, blockedBy string) {
	t.Helper()
	re := wantErr(t, what, err, registry.ErrConflict)
	if re.BlockedBy != blockedBy {
		t.Errorf("%s: conflict blocked by %q (%v), want %q", what, re.BlockedBy, err, blockedBy)
	}
}

// wantExists requires err to be ErrExists (the name itself is registered)
// naming the holder.
func wantExists(t *testing.T, what string, err error, holder string) {
	t.Helper()
	re := wantErr(t, what, err, registry.ErrExists)
	if re.BlockedBy != holder {
		t.Errorf("%s: exists as %q (%v), want %q", what, re.BlockedBy, err, holder)
	}
}

// codes returns the rule codes of errs.
func codes(errs []*akshara.Error) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Code.String())
	}
	return out
}

// a. The default zones.
func testZones(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	// the zones file's order: Hindi first among the Devanagari languages
	deva := []string{"hi", "mr", "mai", "ne", "sd-Deva", "doi", "kok", "brx", "sa"}
	all := []string{"hi", "mr", "mai", "sat-Deva", "ks-Deva", "ne", "sd-Deva", "doi", "kok", "brx", "sa",
		"bn", "as", "mni", "te", "ta", "gu", "ur", "ks", "sd", "kn", "or", "ml", "pa", "sat", "mni-Mtei"}
	want := []registry.Zone{
		{Name: "भारत", ALabel: "xn--h2brj9c", Languages: deva},
		{Name: "in", ALabel: "in", Languages: all, LDH: true},
		{Name: "ভারত", ALabel: "xn--45brj9c", Languages: []string{"bn"}},
		{Name: "ভাৰত", ALabel: "xn--45br5cyl", Languages: []string{"as"}},
		{Name: "ਭਾਰਤ", ALabel: "xn--s9brj9c", Languages: []string{"pa"}},
		{Name: "ભારત", ALabel: "xn--gecrj9c", Languages: []string{"gu"}},
		{Name: "ଭାରତ", ALabel: "xn--3hcrj9c", Languages: []string{"or"}},
		{Name: "இந்தியா", ALabel: "xn--xkc2dl3a5ee0h", Languages: []string{"ta"}},
		{Name: "భారత్", ALabel: "xn--fpcrj9c3d", Languages: []string{"te"}},
		{Name: "ಭಾರತ", ALabel: "xn--2scrj9c", Languages: []string{"kn"}},
		{Name: "ഭാരതം", ALabel: "xn--rvc1e0am3e", Languages: []string{"ml"}},
		{Name: "भारतम्", ALabel: "xn--h2breg3eve", Languages: []string{"sa"}},
		{Name: "भारोत", ALabel: "xn--h2brj9c8c", Languages: []string{"sat-Deva"}},
		{Name: "بھارت", ALabel: "xn--mgbbh1a71e", Languages: []string{"ur"}},
		{Name: "ڀارت", ALabel: "xn--mgbgu82a", Languages: []string{"sd"}},
		{Name: "بارت", ALabel: "xn--mgbbh1a", Languages: []string{"ks"}},
	}
	if tags := akshara.Tags(); len(all) != len(tags) || len(tags) != 26 {
		t.Fatalf("akshara.Tags() = %q: the zone in must take all %d languages, 26 of them", tags, len(tags))
	}
	compare := func(what string, got []registry.Zone) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %d zones, want %d: %+v", what, len(got), len(want), got)
		}
		byName := map[string]registry.Zone{}
		for _, z := range got {
			if _, dup := byName[z.Name]; dup {
				t.Errorf("%s: zone %s listed twice", what, z.Name)
			}
			byName[z.Name] = z
		}
		for _, w := range want {
			z, ok := byName[w.Name]
			if !ok {
				t.Errorf("%s: no zone %s", what, w.Name)
				continue
			}
			if z.ALabel != w.ALabel || z.LDH != w.LDH || !slices.Equal(z.Languages, w.Languages) ||
				z.MinLength != 3 || z.MaxLength != 63 {
				t.Errorf("%s: zone %+v, want %+v with MinLength 3, MaxLength 63", what, z, w)
			}
		}
	}
	compare("Service.Zones", e.svc.Zones())
	stored, err := e.store.Zones(e.ctx)
	if err != nil {
		t.Fatalf("Store.Zones: %v", err)
	}
	compare("Store.Zones", stored)

	// A second service on the same store creates nothing new.
	svc2, err := registry.NewServiceWith(e.ctx, e.store, Exempt(registry.ServiceOptions{}, ""))
	if err != nil {
		t.Fatalf("second NewService: %v", err)
	}
	compare("Zones after a second NewService", svc2.Zones())

	// A zone is found by its A-label too.
	r, _ := e.registrar("zones")
	e.create(r, "कमल.xn--h2brj9c", "hi", registry.Domain{
		Name: "कमल.भारत", ALabel: "xn--11b4cm.xn--h2brj9c", Label: "कमल", Zone: "भारत", Lang: "hi", Blocks: []string{"कमल"},
	})
}

// b. Registrar, create, check, info, list, delete and the audit log.
func testLifecycle(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	r, token := e.registrar("alpha")
	if !strings.HasPrefix(token, "ak_") || len(token) != 3+64 {
		t.Errorf("token %q, want ak_ and 64 hex digits", token)
	}
	got, err := e.svc.Authenticate(e.ctx, token)
	if err != nil {
		t.Fatalf("Authenticate(token): %v", err)
	}
	if got.ID != r.ID || got.Name != "alpha" {
		t.Errorf("Authenticate(token) = %+v, want %+v", got, r)
	}

	wantKitab := registry.Domain{
		Name: kitab, ALabel: kitabALabel, Label: "किताब", Zone: "भारत", Lang: "hi",
		Registrar: "alpha", Blocks: []string{"किताब", "कित्ताब"},
	}
	d := e.create(r, kitab, "hi", wantKitab)

	res := e.check(kitab, "hi", registry.Registered, "")
	if res.ULabel != kitab || res.ALabel != kitabALabel || res.Zone != "भारत" || res.Lang != "hi" ||
		!slices.Equal(res.Variants, []string{"कित्ताब"}) || len(res.Errors) != 0 {
		t.Errorf("Check(%q) = %+v", kitab, res)
	}
	res = e.check(kittab, "hi", registry.Blocked, kitab)
	if res.ULabel != kittab || res.ALabel != kittabALbl || !slices.Equal(res.Variants, []string{"किताब"}) {
		t.Errorf("Check(%q) = %+v", kittab, res)
	}
	res = e.check("कमल.भारत", "hi", registry.Available, "")
	if res.ULabel != "कमल.भारत" || res.ALabel != "xn--11b4cm.xn--h2brj9c" || len(res.Variants) != 0 || len(res.Errors) != 0 {
		t.Errorf("Check(कमल.भारत) = %+v", res)
	}
	e.check("कमल.भारत", "", registry.Available, "")
	for _, lang := range []string{"hi", ""} {
		res = e.check("क्अब.भारत", lang, registry.Invalid, "")
		if !slices.Contains(codes(res.Errors), "HALANT_FOLLOWER") {
			t.Errorf("Check(क्अब.भारत, %q).Errors = %v, want HALANT_FOLLOWER", lang, res.Errors)
		}
		if res.ULabel != "" || res.ALabel != "" {
			t.Errorf("Check(क्अब.भारत, %q) = ULabel %q ALabel %q for an invalid label", lang, res.ULabel, res.ALabel)
		}
	}
	res = e.check("क्अब.भारत", "hi", registry.Invalid, "")
	if c := codes(res.Errors); !slices.Equal(c, []string{"HALANT_FOLLOWER"}) || res.Errors[0].Pos != 2 {
		t.Errorf("Check(क्अब.भारत, hi).Errors = %v, want HALANT_FOLLOWER at 2", res.Errors)
	}

	info, err := e.svc.Info(e.ctx, kitab)
	if err != nil {
		t.Fatalf("Info(%q): %v", kitab, err)
	}
	checkDomain(t, "Info", info, wantKitab)
	if info.ID != d.ID || !info.Created.Equal(d.Created) {
		t.Errorf("Info: ID %d created %v, Create gave ID %d created %v", info.ID, info.Created, d.ID, d.Created)
	}
	list, err := e.svc.List(e.ctx, r)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(list) != 1 {
		t.Fatalf("List = %d domains, want 1", len(list))
	}
	checkDomain(t, "List[0]", list[0], wantKitab)

	// refused creates: taken by a variant, and invalid
	_, err = e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: kittab, Lang: "hi"})
	wantConflict(t, "Create(कित्ताब.भारत)", err, kitab)
	_, err = e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "क्अब.भारत", Lang: "hi"})
	wantErr(t, "Create(क्अब.भारत)", err, registry.ErrInvalid)

	if err := Err(e.svc.DeleteDomain(e.ctx, r, registry.DomainDelete{Name: kitab})); err != nil {
		t.Fatalf("Delete(%q): %v", kitab, err)
	}
	// deleted, not purged: the whole set stays held (issue 23)
	if res := e.check(kittab, "hi", registry.Blocked, kitab); res.HolderState != registry.StatusRedemptionPeriod || res.FreesAt.IsZero() {
		t.Errorf("Check(%q) after Delete: holder state %q frees at %v, want redemptionPeriod and a date", kittab, res.HolderState, res.FreesAt)
	}
	if res := e.check(kitab, "hi", registry.Registered, ""); res.HolderState != registry.StatusRedemptionPeriod {
		t.Errorf("Check(%q) after Delete: holder state %q, want redemptionPeriod", kitab, res.HolderState)
	}
	_, err = e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: kittab, Lang: "hi"})
	wantConflict(t, "Create(कित्ताब.भारत) after Delete", err, kitab)
	if rep := e.purge(); rep.Purged != 1 {
		t.Errorf("purge: %+v, want 1 purged", rep)
	}
	e.check(kittab, "hi", registry.Available, "")
	e.check(kitab, "hi", registry.Available, "")
	_, err = e.svc.Info(e.ctx, kitab)
	wantErr(t, "Info after Delete", err, registry.ErrNotFound)
	list, err = e.svc.List(e.ctx, r)
	if err != nil || len(list) != 0 {
		t.Errorf("List after Delete = %d domains, %v; want none", len(list), err)
	}
	err = Err(e.svc.DeleteDomain(e.ctx, r, registry.DomainDelete{Name: kitab}))
	wantErr(t, "second Delete", err, registry.ErrNotFound)

	// the freed set can be taken by the variant
	e.create(r, kittab, "hi", registry.Domain{
		Name: kittab, ALabel: kittabALbl, Label: "कित्ताब", Zone: "भारत", Lang: "hi", Blocks: []string{"किताब", "कित्ताब"},
	})
	e.check(kitab, "hi", registry.Blocked, kittab)

	log, err := e.store.AuditLog(e.ctx, 100)
	if err != nil {
		t.Fatalf("AuditLog: %v", err)
	}
	type entry struct{ Registrar, Action, Name, Result string }
	wantLog := []entry{ // newest first
		{"alpha", "create", kittab, "ok"},
		{"alpha", "delete", kitab, "NOT_FOUND"},
		{"lifecycle", "purge", kitab, "ok"},
		{"alpha", "create", kittab, "CONFLICT"},
		{"alpha", "delete", kitab, "ok purge at " + e.clock.Now().Add(-36*24*time.Hour).Add(35*24*time.Hour).Format(time.RFC3339)},
		{"alpha", "create", "क्अब.भारत", "INVALID_LABEL"},
		{"alpha", "create", kittab, "CONFLICT"},
		{"alpha", "create", kitab, "ok"},
		{"alpha", "registrar-add", "alpha", "ok"},
	}
	var gotLog []entry
	for i, a := range log {
		gotLog = append(gotLog, entry{a.Registrar, a.Action, a.Name, a.Result})
		if a.At.IsZero() || a.ID == 0 {
			t.Errorf("AuditLog[%d] = %+v: no ID or time", i, a)
		}
		if i > 0 && a.ID >= log[i-1].ID {
			t.Errorf("AuditLog is not newest first: ID %d after %d", a.ID, log[i-1].ID)
		}
	}
	if !slices.Equal(gotLog, wantLog) {
		t.Errorf("AuditLog =\n%q\nwant\n%q", gotLog, wantLog)
	}
	if short, err := e.store.AuditLog(e.ctx, 2); err != nil || len(short) != 2 || short[0].ID != log[0].ID {
		t.Errorf("AuditLog(2) = %+v, %v; want the 2 newest", short, err)
	}
}

// c. Concurrent creates of the members of one zone conflict set, each in
// a language of the zone that accepts it: exactly one wins. Rounds
// alternate between sets of Devanagari variants in भारत (languages with
// and without variant tables) and sets that span scripts in in (a
// Devanagari label and its Gurmukhi twins). 12 rounds of 16 creates;
// 200 of 64 with AKSHARA_LONG_TESTS=1.
func testRace(t *testing.T, open func(*testing.T) registry.Store) {
	goroutines, rounds := longtest.Pick(16, 64), longtest.Pick(12, 200)
	e := newEnv(t, open)
	regs := make([]*registry.Registrar, goroutines)
	for g := range regs {
		regs[g], _ = e.registrar(fmt.Sprintf("racer-%02d", g))
	}
	zones := map[string]registry.Zone{}
	for _, z := range e.svc.Zones() {
		zones[z.Name] = z
	}
	// suffixes without variants or twins, for भारत
	cons := []string{"क", "ख", "च", "ज", "ड", "ब", "य", "ल", "स", "न"}
	var suffixes []string
	for _, a := range cons {
		for _, b := range cons {
			suffixes = append(suffixes, a+b)
		}
	}
	// labels every code point of which has a Gurmukhi twin, for in
	twin := []string{"ट", "ठ", "ढ", "प", "भ", "म", "ह", "घ", "व"}
	mat := []string{"", "ि", "ी", "े"}
	type answer struct {
		d   *registry.Domain
		err error
	}
	start := time.Now()
	spans := map[string]bool{}
	for round := 0; round < rounds; round++ {
		zone, label := "भारत", "द्धष्टश्व"+suffixes[(round/2)%len(suffixes)]
		if round%2 == 1 {
			i := round / 2
			zone = "in"
			label = twin[i%9] + mat[(i/9)%4] + twin[(i/36+1)%9] + "ी" + twin[(i/4)%9]
		}
		z := zones[zone]
		rel, err := akshara.NewZoneRelation(z.Languages)
		if err != nil {
			t.Fatal(err)
		}
		members, ok := rel.ConflictSet(label)
		if !ok || len(members) < 2 {
			t.Fatalf("round %d: zone %s ConflictSet(%q) = %q, %v: want at least 2 members", round, zone, label, members, ok)
		}
		// every member conflicts with every other, and the languages of
		// the zone that accept each
		sets := map[string][]string{}
		langs := map[string][]string{}
		for _, m := range members {
			sets[m], _ = rel.ConflictSet(m)
			for _, tag := range z.Languages {
				if l, _ := akshara.Lookup(tag); l.Valid(m) {
					langs[m] = append(langs[m], tag)
				}
			}
			if len(langs[m]) == 0 {
				t.Fatalf("round %d: no language of %s accepts %s", round, zone, m)
			}
			spans[zone+" "+akshara.ScriptOf(m)] = true
		}
		for _, m := range members {
			for _, o := range members {
				if !slices.ContainsFunc(sets[m], func(x string) bool { return slices.Contains(sets[o], x) }) {
					t.Fatalf("round %d: %s and %s of one set do not conflict", round, m, o)
				}
			}
		}
		answers := make([]answer, goroutines)
		choice := make([]string, goroutines)
		gate := make(chan struct{})
		var done sync.WaitGroup
		for g := 0; g < goroutines; g++ {
			m := members[g%len(members)]
			lang := langs[m][(g/len(members))%len(langs[m])]
			choice[g] = m
			done.Add(1)
			go func() {
				defer done.Done()
				<-gate
				d, err := e.svc.CreateDomain(e.ctx, regs[g], registry.DomainCreate{Name: m + "." + zone, Lang: lang})
				answers[g] = answer{d, err}
			}()
		}
		close(gate)
		done.Wait()

		var winners []int
		for g, a := range answers {
			if a.err == nil {
				winners = append(winners, g)
			}
		}
		if len(winners) != 1 {
			var names []string
			for _, g := range winners {
				names = append(names, answers[g].d.Name+" ("+answers[g].d.Lang+")")
			}
			t.Fatalf("round %d (%s in %s): %d creates succeeded %q, want exactly 1", round, label, zone, len(winners), names)
		}
		g := winners[0]
		w := answers[g].d
		if want := choice[g] + "." + zone; w.Name != want || w.Registrar != regs[g].Name || !slices.Equal(w.Blocks, sets[choice[g]]) {
			t.Errorf("round %d: winner %d got %+v, want %s of %s blocking %q", round, g, w, want, regs[g].Name, sets[choice[g]])
		}
		for i, a := range answers {
			if i == g {
				continue
			}
			want := registry.ErrConflict // blocked by a variant
			if choice[i] == w.Label {
				want = registry.ErrExists // the very name the winner took
			}
			if !errors.Is(a.err, want) {
				t.Errorf("round %d: goroutine %d (%s): error %v, want %s", round, i, choice[i], a.err, want.Code)
				continue
			}
			var re *registry.Error
			if errors.As(a.err, &re); re.BlockedBy != w.Name {
				t.Errorf("round %d: goroutine %d (%s): blocked by %q (%v), want %q", round, i, choice[i], re.BlockedBy, a.err, w.Name)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
		for _, m := range members {
			status, by := registry.Blocked, w.Name
			if m == w.Label {
				status, by = registry.Registered, ""
			}
			e.check(m+"."+zone, "", status, by)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	for _, want := range []string{"भारत Deva", "in Deva", "in Guru"} {
		if !spans[want] {
			t.Errorf("no round raced labels of %s", want)
		}
	}
	t.Logf("%d rounds of %d concurrent creates in %v", rounds, goroutines, time.Since(start).Round(time.Millisecond))
	total := 0
	for _, r := range regs {
		ds, err := e.svc.List(e.ctx, r)
		if err != nil {
			t.Fatalf("List(%s): %v", r.Name, err)
		}
		total += len(ds)
	}
	if total != rounds {
		t.Errorf("%d domains registered in all, want %d (one per round)", total, rounds)
	}
}

// d. Conflict sets are the zone's: the same whatever language either
// registrant names (issue 9: किताब in Marathi, कित्ताब in Nepali).
func testCrossLanguage(t *testing.T, open func(*testing.T) registry.Store) {
	zoneSet := []string{"किताब", "कित्ताब"}
	for _, tc := range []struct{ first, firstLang, second, secondLang string }{
		{kitab, "hi", kittab, "mr"},
		{kittab, "mr", kitab, "hi"},
		{kitab, "mr", kittab, "ne"}, // neither language has a variant table
		{kittab, "ne", kitab, "mr"},
		{kitab, "", kittab, "sd-Deva"},
		{kittab, "sa", kitab, ""},
	} {
		t.Run(tc.firstLang+"-"+tc.secondLang, func(t *testing.T) {
			e := newEnv(t, open)
			alpha, _ := e.registrar("alpha")
			beta, _ := e.registrar("beta")
			d, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: tc.first, Lang: tc.firstLang})
			if err != nil {
				t.Fatalf("Create(%s, %q): %v", tc.first, tc.firstLang, err)
			}
			if !slices.Equal(d.Blocks, zoneSet) {
				t.Errorf("Create(%s, %q).Blocks = %q, want the zone set %q", tc.first, tc.firstLang, d.Blocks, zoneSet)
			}
			if tc.firstLang == "" && d.Lang != "hi" {
				t.Errorf("Create(%s) without a language chose %q, want hi (first in भारत)", tc.first, d.Lang)
			}
			res := e.check(tc.second, tc.secondLang, registry.Blocked, tc.first)
			if !slices.Equal(res.Variants, []string{strings.TrimSuffix(tc.first, ".भारत")}) {
				t.Errorf("Check(%s, %q).Variants = %q, want the other", tc.second, tc.secondLang, res.Variants)
			}
			_, err = e.svc.CreateDomain(e.ctx, beta, registry.DomainCreate{Name: tc.second, Lang: tc.secondLang})
			wantConflict(t, fmt.Sprintf("Create(%s, %q)", tc.second, tc.secondLang), err, tc.first)
			for _, lang := range []string{"hi", "mr", "ne", "mai", ""} {
				e.check(tc.second, lang, registry.Blocked, tc.first)
			}
		})
	}
}

// testArabicHeh: heh ه and heh doachashmee ھ are variants in Urdu, Sindhi
// and Kashmiri (issue 25; the heh rows of languages/ur.lang, sd.lang,
// ks.lang): in the joined forms most words use, common Naskh fonts draw
// them alike, so a word and its other spelling (Sindhi آهي / آھي, both in
// the corpus) have one holder, in each language's own zone and in in,
// whichever is registered first and whatever language the second names.
// testLatinTwins (issue 25): in zone in, which takes plain LDH labels,
// an Ol Chiki label and the plain label it looks like (the homoglyph
// table's Latin rows: ᱠ = b, ᱛ = o, ᱞ = p, ᱧ = q) block each other,
// whichever comes first; a plain label with no lookalike blocks nothing.
func testLatinTwins(t *testing.T, open func(*testing.T) registry.Store) {
	for _, tc := range []struct{ first, firstLang, second, secondLang string }{
		{"bop.in", "", "ᱠᱛᱞ.in", "sat"},
		{"ᱠᱛᱞ.in", "sat", "bop.in", ""},
		{"ᱛᱠᱧ.in", "", "obq.in", "ldh"},
		{"ooo.in", "ldh", "ᱛᱛᱛ.in", ""},
		{"ooo.in", "", "ଠଠଠ.in", "or"}, // through ᱛᱛᱛ: ଠ = ᱛ = o
	} {
		t.Run(tc.first+"/"+tc.second, func(t *testing.T) {
			e := newEnv(t, open)
			alpha, _ := e.registrar("alpha")
			beta, _ := e.registrar("beta")
			if _, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: tc.first, Lang: tc.firstLang}); err != nil {
				t.Fatalf("Create(%s, %q): %v", tc.first, tc.firstLang, err)
			}
			e.check(tc.second, tc.secondLang, registry.Blocked, tc.first)
			_, err := e.svc.CreateDomain(e.ctx, beta, registry.DomainCreate{Name: tc.second, Lang: tc.secondLang})
			wantConflict(t, fmt.Sprintf("Create(%s, %q)", tc.second, tc.secondLang), err, tc.first)
		})
	}
	t.Run("unrelated", func(t *testing.T) {
		e := newEnv(t, open)
		alpha, _ := e.registrar("alpha")
		beta, _ := e.registrar("beta")
		for _, c := range []struct {
			r    *registry.Registrar
			name string
		}{{alpha, "abc.in"}, {beta, "ᱠᱟᱛ.in"}, {beta, "abd.in"}} {
			if _, err := e.svc.CreateDomain(e.ctx, c.r, registry.DomainCreate{Name: c.name}); err != nil {
				t.Fatalf("Create(%s): %v", c.name, err)
			}
		}
	})
}

func testArabicHeh(t *testing.T, open func(*testing.T) registry.Store) {
	for _, tc := range []struct{ first, second, lang string }{
		{"آهي.ڀارت", "آھي.ڀارت", "sd"},
		{"آھي.ڀارت", "آهي.ڀارت", ""},
		{"پهلے.بھارت", "پھلے.بھارت", "ur"},
		{"پھلے.بھارت", "پهلے.بھارت", ""},
		{"آتهوار.بارت", "آتھوار.بارت", "ks"},
		{"آهي.in", "آھي.in", "sd"},
		{"پهلے.in", "پھلے.in", "ur"},
		{"آتھوار.in", "آتهوار.in", ""},
		// through the third label بهارت: ہ and ھ are one row with ه
		{"بہارت.بھارت", "بھارت.بھارت", "ur"},
	} {
		t.Run(tc.first, func(t *testing.T) {
			e := newEnv(t, open)
			alpha, _ := e.registrar("alpha")
			beta, _ := e.registrar("beta")
			if _, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: tc.first, Lang: tc.lang}); err != nil {
				t.Fatalf("Create(%s, %q): %v", tc.first, tc.lang, err)
			}
			e.check(tc.second, tc.lang, registry.Blocked, tc.first)
			_, err := e.svc.CreateDomain(e.ctx, beta, registry.DomainCreate{Name: tc.second, Lang: tc.lang})
			wantConflict(t, fmt.Sprintf("Create(%s, %q)", tc.second, tc.lang), err, tc.first)
		})
	}
	// Names both spellings of which were registered before the row (under
	// a Sindhi file without ھ in its heh row): the re-audit under the
	// compiled-in data finds the pair and, applied, exempts it.
	t.Run("reaudit", func(t *testing.T) {
		e := newEnv(t, open)
		text := string(akshara.DataFiles()["languages/sd.lang"])
		old := strings.Replace(text, "\n  ه = ہ = ھ   | 0647 = 06C1 = 06BE\n", "\n  ه = ہ   | 0647 = 06C1\n", 1)
		if old == text {
			t.Fatal("sd.lang no longer has the heh row the test changes")
		}
		sd, err := akshara.LoadLanguage("sd.lang", []byte(old))
		if err != nil {
			t.Fatal(err)
		}
		before, err := registry.NewServiceWith(e.ctx, e.store, registry.ServiceOptions{
			NoRecompute: true, Clock: e.clock, DataVersion: "before", ContactsExempt: []string{""},
			Lookup: func(tag string) (*akshara.Language, error) {
				if tag == "sd" {
					return sd, nil
				}
				return akshara.Lookup(tag)
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := e.registrar("old")
		for _, n := range []string{"آهي.ڀارت", "آھي.ڀارت"} {
			if _, err := before.CreateDomain(e.ctx, r, registry.DomainCreate{Name: n, Lang: "sd"}); err != nil {
				t.Fatalf("Create(%s) before the row: %v", n, err)
			}
		}
		for _, apply := range []bool{false, true} {
			got := map[string][]string{}
			if _, err := e.svc.Reaudit(e.ctx, apply, func(f *registry.ReauditFinding) error {
				got[f.Name] = f.ConflictsWith
				return nil
			}); err != nil {
				t.Fatalf("Reaudit(apply %v): %v", apply, err)
			}
			if !slices.Equal(got["آهي.ڀارت"], []string{"آھي.ڀارت"}) || !slices.Equal(got["آھي.ڀارت"], []string{"آهي.ڀارت"}) {
				t.Errorf("Reaudit(apply %v) conflicts = %q, want the pair", apply, got)
			}
		}
		if d, err := e.svc.Info(e.ctx, "آهي.ڀارت"); err != nil || !d.Exempted {
			t.Errorf("after the re-audit: آهي.ڀارت %+v, %v; want it exempted", d, err)
		}
	})
}

// e. A-labels, upper case and non-NFC input cannot bypass a conflict.
func testEncodings(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	r, _ := e.registrar("alpha")
	e.create(r, kitab, "hi", registry.Domain{
		Name: kitab, ALabel: kitabALabel, Label: "किताब", Zone: "भारत", Lang: "hi", Blocks: []string{"किताब", "कित्ताब"},
	})
	for _, tc := range []struct {
		name, lang string
		same       bool // the registered name itself: EXISTS, else CONFLICT
	}{
		{kittabA + ".भारत", "", false},
		{kittabA + ".भारत", "hi", false},
		{kittabALbl, "hi", false},
		{"XN--11B4AYA5ED.XN--H2BRJ9C", "", true},
		{"XN--11B4AYA5ED.XN--H2BRJ9C", "hi", true},
		{kitabALabel, "hi", true},
		{"xn--11b4aya5ed.भारत", "mr", true},
		{"किताब.भारत.", "hi", true},
	} {
		_, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: tc.name, Lang: tc.lang})
		if tc.same {
			wantExists(t, fmt.Sprintf("Create(%q, %q)", tc.name, tc.lang), err, kitab)
		} else {
			wantConflict(t, fmt.Sprintf("Create(%q, %q)", tc.name, tc.lang), err, kitab)
		}
	}
	res := e.check(kittabALbl, "hi", registry.Blocked, kitab)
	if res.ULabel != kittab || res.ALabel != kittabALbl {
		t.Errorf("Check(%q) = ULabel %q ALabel %q", kittabALbl, res.ULabel, res.ALabel)
	}
	res = e.check(kitabALabel, "hi", registry.Registered, "")
	if res.ULabel != kitab || res.ALabel != kitabALabel {
		t.Errorf("Check(%q) = ULabel %q ALabel %q", kitabALabel, res.ULabel, res.ALabel)
	}
	e.check("XN--11B4AYA5ED.XN--H2BRJ9C", "", registry.Registered, "")
	e.check(kittabA+".भारत", "", registry.Blocked, kitab)

	// NFC: क़ is क + nukta (U+0958 is excluded from composition)
	const qalam = "\u0915\u093cलम.भारत"
	e.create(r, qalam, "hi", registry.Domain{
		Name: qalam, ALabel: "xn--11b4cl3b.xn--h2brj9c", Label: "\u0915\u093cलम", Zone: "भारत", Lang: "hi", Blocks: []string{"\u0915\u093cलम"},
	})
	_, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "\u0958लम.भारत", Lang: "hi"})
	wantExists(t, "Create(U+0958 लम.भारत)", err, qalam)
	_, err = e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "\u0958लम.भारत"})
	wantExists(t, "Create(U+0958 लम.भारत, \"\")", err, qalam)
	e.check("\u0958लम.भारत", "hi", registry.Registered, "")
	e.check("xn--11b4cl3b.xn--h2brj9c", "hi", registry.Registered, "")

	// Info and Delete accept every form.
	for _, name := range []string{kitabALabel, "XN--11B4AYA5ED.XN--H2BRJ9C", "xn--11b4aya5ed.भारत", "किताब.xn--h2brj9c"} {
		d, err := e.svc.Info(e.ctx, name)
		if err != nil {
			t.Errorf("Info(%q): %v", name, err)
			continue
		}
		if d.Name != kitab {
			t.Errorf("Info(%q).Name = %q, want %q", name, d.Name, kitab)
		}
	}
	if d, err := e.svc.Info(e.ctx, "\u0958लम.भारत"); err != nil || d.Name != qalam {
		t.Errorf("Info(U+0958 लम.भारत) = %v, %v; want %q", d, err, qalam)
	}
	if err := Err(e.svc.DeleteDomain(e.ctx, r, registry.DomainDelete{Name: "XN--11B4AYA5ED.XN--H2BRJ9C"})); err != nil {
		t.Fatalf("Delete(XN--11B4AYA5ED.XN--H2BRJ9C): %v", err)
	}
	e.check(kittab, "hi", registry.Blocked, kitab)
	e.purge()
	e.check(kittab, "hi", registry.Available, "")
	_, err = e.svc.Info(e.ctx, kitab)
	wantErr(t, "Info after Delete", err, registry.ErrNotFound)
	if err := Err(e.svc.DeleteDomain(e.ctx, r, registry.DomainDelete{Name: "\u0958लम.भारत"})); err != nil {
		t.Fatalf("Delete(U+0958 लम.भारत): %v", err)
	}
	e.purge()
	e.check(qalam, "hi", registry.Available, "")
}

// f. A registrar sees and deletes only its own domains.
func testIsolation(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	a, tokenA := e.registrar("alpha")
	b, tokenB := e.registrar("beta")
	if tokenA == tokenB || a.ID == b.ID {
		t.Fatalf("two registrars share a token or an ID: %+v %+v", a, b)
	}
	if got, err := e.svc.Authenticate(e.ctx, tokenB); err != nil || got.ID != b.ID || got.Name != "beta" {
		t.Errorf("Authenticate(tokenB) = %+v, %v; want beta", got, err)
	}
	e.create(a, kitab, "hi", registry.Domain{
		Name: kitab, ALabel: kitabALabel, Label: "किताब", Zone: "भारत", Lang: "hi", Blocks: []string{"किताब", "कित्ताब"},
	})
	err := Err(e.svc.DeleteDomain(e.ctx, b, registry.DomainDelete{Name: kitab}))
	wantErr(t, "beta deleting alpha's domain", err, registry.ErrForbidden)
	err = Err(e.svc.DeleteDomain(e.ctx, b, registry.DomainDelete{Name: kitabALabel}))
	wantErr(t, "beta deleting alpha's domain by A-label", err, registry.ErrForbidden)
	d, err := e.svc.Info(e.ctx, kitab)
	if err != nil || d.Registrar != "alpha" {
		t.Fatalf("Info after a forbidden delete = %+v, %v; want alpha's domain", d, err)
	}
	e.check(kittab, "hi", registry.Blocked, kitab)
	_, err = e.svc.CreateDomain(e.ctx, b, registry.DomainCreate{Name: kittab, Lang: "hi"})
	wantConflict(t, "beta creating a variant", err, kitab)

	if list, err := e.svc.List(e.ctx, b); err != nil || len(list) != 0 {
		t.Errorf("List(beta) = %d domains, %v; want none", len(list), err)
	}
	if list, err := e.svc.List(e.ctx, a); err != nil || len(list) != 1 || list[0].Name != kitab {
		t.Errorf("List(alpha) = %v, %v; want [%s]", list, err, kitab)
	}
	for _, token := range []string{"bad", "", "ak_" + strings.Repeat("0", 64)} {
		r, err := e.svc.Authenticate(e.ctx, token)
		if r != nil {
			t.Errorf("Authenticate(%q) = %+v", token, r)
		}
		wantErr(t, fmt.Sprintf("Authenticate(%q)", token), err, registry.ErrUnauthorized)
	}
	for _, name := range []string{"alpha", " alpha "} {
		_, _, err := e.svc.AddRegistrar(e.ctx, name)
		wantErr(t, fmt.Sprintf("AddRegistrar(%q)", name), err, registry.ErrExists)
	}
	_, _, err = e.svc.AddRegistrar(e.ctx, "  ")
	wantErr(t, "AddRegistrar(blank)", err, registry.ErrBadName)
	// alpha may delete it
	if err := Err(e.svc.DeleteDomain(e.ctx, a, registry.DomainDelete{Name: kitab})); err != nil {
		t.Fatalf("alpha deleting its domain: %v", err)
	}
}

// g. Error codes.
func testErrors(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	r, _ := e.registrar("alpha")
	for _, tc := range []struct {
		name, lang string
		want       *registry.Error
	}{
		{"किताब.xyz", "hi", registry.ErrUnknownZone},
		{"किताब.xyz", "", registry.ErrUnknownZone},
		{"किताब", "hi", registry.ErrBadName},
		{"किताब.", "hi", registry.ErrBadName},
		{".भारत", "hi", registry.ErrBadName},
		{"किताब.भारत.भारत", "hi", registry.ErrBadName},
		{"", "", registry.ErrBadName},
		{"\xff\xfe.भारत", "hi", registry.ErrBadName},
		{kitab, "xx", registry.ErrUnknownLanguage},
		{kitab, "ta", registry.ErrUnknownLanguage},
		{kitab, "ldh", registry.ErrUnknownLanguage},
	} {
		_, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: tc.name, Lang: tc.lang})
		wantErr(t, fmt.Sprintf("Create(%q, %q)", tc.name, tc.lang), err, tc.want)
		_, err = e.svc.Check(e.ctx, tc.name, tc.lang)
		wantErr(t, fmt.Sprintf("Check(%q, %q)", tc.name, tc.lang), err, tc.want)
	}
	for _, tc := range []struct {
		name, lang string
		codes      []string
	}{
		{"क्अब.भारत", "hi", []string{"HALANT_FOLLOWER"}},
		{"कि.भारत", "hi", []string{"TOO_SHORT"}},
		{"kitab.भारत", "hi", []string{"MIXED_SCRIPT"}},
	} {
		_, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: tc.name, Lang: tc.lang})
		re := wantErr(t, fmt.Sprintf("Create(%q, %q)", tc.name, tc.lang), err, registry.ErrInvalid)
		if got := codes(re.Errors); !slices.Equal(got[:min(len(got), 1)], tc.codes) {
			t.Errorf("Create(%q, %q): errors %v, want %v first", tc.name, tc.lang, re.Errors, tc.codes)
		}
	}
	_, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "क्अब.भारत", Lang: "hi"})
	re := wantErr(t, "Create(क्अब.भारत)", err, registry.ErrInvalid)
	if got := codes(re.Errors); !slices.Equal(got, []string{"HALANT_FOLLOWER"}) || re.Errors[0].Pos != 2 {
		t.Errorf("Create(क्अब.भारत).Errors = %v, want HALANT_FOLLOWER at 2", re.Errors)
	}
	err = Err(e.svc.DeleteDomain(e.ctx, r, registry.DomainDelete{Name: kitab}))
	wantErr(t, "Delete of an unregistered name", err, registry.ErrNotFound)
	_, err = e.svc.Info(e.ctx, kitab)
	wantErr(t, "Info of an unregistered name", err, registry.ErrNotFound)
	err = Err(e.svc.DeleteDomain(e.ctx, r, registry.DomainDelete{Name: "किताब.xyz"}))
	wantErr(t, "Delete in an unknown zone", err, registry.ErrUnknownZone)
	if list, err := e.svc.List(e.ctx, r); err != nil || len(list) != 0 {
		t.Errorf("List after refused creates = %d domains, %v; want none", len(list), err)
	}
}

// h. The ASCII zone in takes plain LDH labels and IDNs.
func testASCIIZone(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	r, _ := e.registrar("alpha")
	e.create(r, "example.in", "", registry.Domain{
		Name: "example.in", ALabel: "example.in", Label: "example", Zone: "in", Lang: "ldh", Blocks: []string{"example"},
	})
	for _, name := range []string{"EXAMPLE.in", "Example.IN", "example.in."} {
		_, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: name})
		wantExists(t, fmt.Sprintf("Create(%q)", name), err, "example.in")
	}
	res := e.check("EXAMPLE.IN", "", registry.Registered, "")
	if res.Lang != "ldh" || res.ULabel != "example.in" || res.ALabel != "example.in" {
		t.Errorf("Check(EXAMPLE.IN) = %+v", res)
	}
	if d, err := e.svc.Info(e.ctx, "EXAMPLE.in"); err != nil || d.Name != "example.in" {
		t.Errorf("Info(EXAMPLE.in) = %v, %v", d, err)
	}
	for _, tc := range []struct{ name, code string }{
		{"ab--c.in", "HYPHEN_DOUBLE"},
		{"ab.in", "TOO_SHORT"},
		{"-abc.in", "HYPHEN_START"},
		{"abc-.in", "HYPHEN_END"},
		{"a_bc.in", "NOT_IN_REPERTOIRE"},
	} {
		_, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: tc.name})
		re := wantErr(t, fmt.Sprintf("Create(%q)", tc.name), err, registry.ErrInvalid)
		if got := codes(re.Errors); !slices.Equal(got, []string{tc.code}) {
			t.Errorf("Create(%q): errors %v, want [%s]", tc.name, re.Errors, tc.code)
		}
		res := e.check(tc.name, "", registry.Invalid, "")
		if got := codes(res.Errors); !slices.Equal(got, []string{tc.code}) {
			t.Errorf("Check(%q): errors %v, want [%s]", tc.name, res.Errors, tc.code)
		}
	}
	e.create(r, "किताब.in", "hi", registry.Domain{
		Name: "किताब.in", ALabel: "xn--11b4aya5ed.in", Label: "किताब", Zone: "in", Lang: "hi", Blocks: []string{"किताब", "कित्ताब"},
	})
	_, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "कित्ताब.in"})
	wantConflict(t, "Create(कित्ताब.in)", err, "किताब.in")
	_, err = e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "xn--11b4aa6a3fd3h.in", Lang: "hi"})
	wantConflict(t, "Create(xn--11b4aa6a3fd3h.in)", err, "किताब.in")
	// zones are separate
	e.check(kitab, "hi", registry.Available, "")
	if list, err := e.svc.List(e.ctx, r); err != nil || len(list) != 2 {
		t.Errorf("List = %d domains, %v; want 2", len(list), err)
	}
}
