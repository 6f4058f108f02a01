package registrytest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
)

// The lifecycle scenarios (issue 23; docs/lifecycle.md): whole
// conversations pinned to instants with a ManualClock, an invariant
// checked after every step.

// lifeEnv is a service on a fresh store with a clock at T0 and the
// zones' policies of lc (nil: the zones file's).
func lifeEnv(t *testing.T, open func(*testing.T) registry.Store, lc map[string]akshara.ZoneLifecycle) *env {
	t.Helper()
	store := open(t)
	clock := registry.NewManualClock(T0)
	svc, err := registry.NewServiceWith(t.Context(), store, Exempt(registry.ServiceOptions{Clock: clock, Lifecycle: lc}, ""))
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	return &env{t: t, ctx: t.Context(), store: store, svc: svc, clock: clock}
}

// Held tracks the domains a scenario expects to exist (not purged), with
// their whole conflict sets.
type Held map[string][]string // label.zone -> conflict set

// CheckHeld is the scenarios' invariant: every domain not purged still
// holds its whole set (each label of it found held by that domain), no
// label is held by two of them, and every domain purged is gone.
func CheckHeld(t *testing.T, step string, svc *registry.Service, held Held, purged []string) {
	t.Helper()
	ctx := t.Context()
	owner := map[string]string{}
	for name, set := range held {
		d, err := svc.Info(ctx, name)
		if err != nil {
			t.Fatalf("%s: Info(%s): %v (the domain is not purged)", step, name, err)
		}
		if !slices.Equal(d.Blocks, set) {
			t.Errorf("%s: %s holds %q, want its whole set %q", step, name, d.Blocks, set)
		}
		for _, l := range set {
			if o, ok := owner[d.Zone+" "+l]; ok {
				t.Errorf("%s: label %s of zone %s held by %s and %s", step, l, d.Zone, o, name)
			}
			owner[d.Zone+" "+l] = name
			b, err := svc.Store().FindBlocker(ctx, d.Zone, []string{l})
			if err != nil || b.Name != name {
				t.Errorf("%s: label %s of %s: FindBlocker = %v, %v; want %s", step, l, d.Zone, b, err, name)
			}
		}
	}
	for _, name := range purged {
		if _, err := svc.Info(ctx, name); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("%s: Info(%s) after its purge = %v, want NOT_FOUND", step, name, err)
		}
	}
}

func wantStatuses(t *testing.T, what string, svc *registry.Service, d *registry.Domain, want ...string) {
	t.Helper()
	if got := svc.Statuses(d); !slices.Equal(got, want) {
		t.Errorf("%s: statuses %q, want %q", what, got, want)
	}
}

// testLifecycleScenario: create at T0 for 2 years → expiry passes →
// auto-renew → renew (wrong curExpDate, beyond the horizon, someone
// else's) → statuses → delete → restore request and report → delete →
// redemption ends → purge → the variant is free, on the .IN profile
// (add grace 0, redemption 30 d, pending delete 5 d).
func testLifecycleScenario(t *testing.T, open func(*testing.T) registry.Store) {
	e := lifeEnv(t, open, nil)
	alpha, _ := e.registrar("alpha")
	beta, _ := e.registrar("beta")
	held := Held{}
	var purged []string
	step := func(name string) { t.Helper(); CheckHeld(t, name, e.svc, held, purged) }
	set := []string{"किताब", "कित्ताब"}

	_, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kitab, Lang: "hi", Period: registry.Period{N: 11, Unit: 'y'}})
	wantCode(t, "create for 11 years", err, registry.CodePeriodRange)
	_, err = e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kitab, Lang: "hi", Period: registry.Period{N: 24, Unit: 'm'}})
	wantCode(t, "create in months", err, registry.CodePeriodRange)
	d, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kitab, Lang: "hi", Period: registry.Period{N: 2, Unit: 'y'}})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	held[kitab] = set
	if !d.Created.Equal(T0) || !d.Expires.Equal(T0.AddDate(2, 0, 0)) {
		t.Errorf("create: created %v expires %v, want %v and 2 years on", d.Created, d.Expires, T0)
	}
	wantStatuses(t, "after create", e.svc, d, "ok")
	step("create")

	// a day after expiry: the worker auto-renews for a year
	e.clock.Set(T0.AddDate(2, 0, 1))
	rep, err := e.svc.RunLifecycle(e.ctx, 0)
	if err != nil || rep.AutoRenewed != 1 {
		t.Fatalf("RunLifecycle after expiry = %+v, %v; want 1 auto-renewed", rep, err)
	}
	if rep, _ := e.svc.RunLifecycle(e.ctx, 0); *rep != (registry.LifecycleReport{}) {
		t.Errorf("second RunLifecycle = %+v, want nothing (idempotent)", rep)
	}
	d, _ = e.svc.Info(e.ctx, kitab)
	if !d.Expires.Equal(T0.AddDate(3, 0, 0)) {
		t.Errorf("after auto-renew: expires %v, want %v", d.Expires, T0.AddDate(3, 0, 0))
	}
	wantStatuses(t, "after auto-renew", e.svc, d, "autoRenewPeriod")
	step("auto-renew")

	// renew: wrong curExpDate, beyond the horizon, not yours, then right
	_, err = e.svc.RenewDomain(e.ctx, alpha, registry.DomainRenew{Name: kitab, CurExpiry: T0.AddDate(2, 0, 0), Period: registry.Period{N: 1, Unit: 'y'}})
	wantCode(t, "renew with the old expiry date", err, registry.CodeWrongExpiry)
	_, err = e.svc.RenewDomain(e.ctx, alpha, registry.DomainRenew{Name: kitab, CurExpiry: d.Expires, Period: registry.Period{N: 10, Unit: 'y'}})
	wantCode(t, "renew past 10 years", err, registry.CodeNotRenewable)
	_, err = e.svc.RenewDomain(e.ctx, alpha, registry.DomainRenew{Name: kitab, CurExpiry: d.Expires, Period: registry.Period{N: 0, Unit: 'y'}})
	wantCode(t, "renew for 0 years", err, registry.CodePeriodRange)
	_, err = e.svc.RenewDomain(e.ctx, beta, registry.DomainRenew{Name: kitab, CurExpiry: d.Expires, Period: registry.Period{}})
	wantCode(t, "renew by another registrar", err, registry.CodeForbidden)
	d, err = e.svc.RenewDomain(e.ctx, alpha, registry.DomainRenew{Name: kitab, CurExpiry: d.Expires, Period: registry.Period{N: 2, Unit: 'y'}})
	if err != nil || !d.Expires.Equal(T0.AddDate(5, 0, 0)) {
		t.Fatalf("renew for 2 years = %v, %v; want expiry %v", d, err, T0.AddDate(5, 0, 0))
	}
	wantStatuses(t, "after renew", e.svc, d, "autoRenewPeriod", "renewPeriod")
	step("renew")

	// statuses: the registrar's client*, the operator's server*
	_, err = e.svc.UpdateDomain(e.ctx, alpha, registry.DomainUpdate{Name: kitab, AddStatuses: []string{registry.StatusServerHold}})
	wantCode(t, "registrar sets serverHold", err, registry.CodeBadStatus)
	_, err = e.svc.UpdateDomain(e.ctx, beta, registry.DomainUpdate{Name: kitab, AddStatuses: []string{registry.StatusClientHold}})
	wantCode(t, "another registrar sets clientHold", err, registry.CodeForbidden)
	if _, err := e.svc.UpdateDomain(e.ctx, alpha, registry.DomainUpdate{Name: kitab, AddStatuses: []string{registry.StatusClientDeleteProhibited, registry.StatusClientUpdateProhibited}}); err != nil {
		t.Fatalf("add client statuses: %v", err)
	}
	wantCode(t, "delete on clientDeleteProhibited", Err(e.svc.DeleteDomain(e.ctx, alpha, registry.DomainDelete{Name: kitab})), registry.CodeStatusProhibits)
	_, err = e.svc.UpdateDomain(e.ctx, alpha, registry.DomainUpdate{Name: kitab, AddStatuses: []string{registry.StatusClientHold}})
	wantCode(t, "update on clientUpdateProhibited", err, registry.CodeStatusProhibits)
	if _, err := e.svc.UpdateDomain(e.ctx, alpha, registry.DomainUpdate{Name: kitab, RemStatuses: []string{registry.StatusClientDeleteProhibited, registry.StatusClientUpdateProhibited}}); err != nil {
		t.Fatalf("remove client statuses: %v", err)
	}
	if _, err := e.svc.UpdateDomain(e.ctx, nil, registry.DomainUpdate{Name: kitab, AddStatuses: []string{registry.StatusServerRenewProhibited}}); err != nil {
		t.Fatalf("operator adds serverRenewProhibited: %v", err)
	}
	_, err = e.svc.RenewDomain(e.ctx, alpha, registry.DomainRenew{Name: kitab, CurExpiry: d.Expires, Period: registry.Period{}})
	wantCode(t, "renew on serverRenewProhibited", err, registry.CodeStatusProhibits)
	_, err = e.svc.UpdateDomain(e.ctx, alpha, registry.DomainUpdate{Name: kitab, RemStatuses: []string{registry.StatusServerRenewProhibited}})
	wantCode(t, "registrar removes a server status", err, registry.CodeBadStatus)
	if d, err = e.svc.UpdateDomain(e.ctx, nil, registry.DomainUpdate{Name: kitab, RemStatuses: []string{registry.StatusServerRenewProhibited}}); err != nil {
		t.Fatalf("operator removes serverRenewProhibited: %v", err)
	}
	step("statuses")

	// delete outside add grace: redemption, the set still held
	e.clock.Set(T0.AddDate(2, 1, 0))
	del := e.clock.Now()
	d, err = e.svc.DeleteDomain(e.ctx, alpha, registry.DomainDelete{Name: kitab})
	if err != nil || d == nil {
		t.Fatalf("delete = %v, %v; want the domain in redemption", d, err)
	}
	wantStatuses(t, "after delete", e.svc, d, "pendingDelete", "redemptionPeriod")
	if !d.PurgeAt.Equal(del.Add(35*day)) || !d.RedemptionEnds.Equal(del.Add(30*day)) {
		t.Errorf("after delete: redemption ends %v, purge at %v; want 30 and 35 days on", d.RedemptionEnds, d.PurgeAt)
	}
	res := e.check(kittab, "hi", registry.Blocked, kitab)
	if res.HolderState != registry.StatusRedemptionPeriod || !res.FreesAt.Equal(del.Add(35*day)) {
		t.Errorf("check of the variant in redemption: %q until %v", res.HolderState, res.FreesAt)
	}
	if res := e.check(kitab, "hi", registry.Registered, ""); res.HolderState != registry.StatusRedemptionPeriod {
		t.Errorf("Check(%q) after Delete: holder state %q, want redemptionPeriod", kitab, res.HolderState)
	}
	_, err = e.svc.CreateDomain(e.ctx, beta, registry.DomainCreate{Name: kittab, Lang: "hi"})
	wantConflict(t, "create of the variant in redemption", err, kitab)
	_, err = e.svc.CreateDomain(e.ctx, beta, registry.DomainCreate{Name: kitab, Lang: "hi"})
	if wantCode(t, "create of the name in redemption", err, registry.CodeExists); err != nil && !strings.Contains(err.Error(), "is purged at") {
		t.Errorf("create of the name in redemption: %v, want the purge date", err)
	}
	_, err = e.svc.RenewDomain(e.ctx, alpha, registry.DomainRenew{Name: kitab, CurExpiry: d.Expires, Period: registry.Period{}})
	wantCode(t, "renew in redemption", err, registry.CodeStatusProhibits)
	wantCode(t, "delete again", Err(e.svc.DeleteDomain(e.ctx, alpha, registry.DomainDelete{Name: kitab})), registry.CodeStatusProhibits)
	step("delete")

	// restore: report first refused, request, report
	_, err = e.svc.RestoreDomain(e.ctx, alpha, registry.DomainRestore{Name: kitab, Op: registry.RestoreReport})
	wantCode(t, "restore report without request", err, registry.CodeStatusProhibits)
	_, err = e.svc.RestoreDomain(e.ctx, beta, registry.DomainRestore{Name: kitab, Op: registry.RestoreRequest})
	wantCode(t, "restore by another registrar", err, registry.CodeForbidden)
	e.clock.Advance(10 * day)
	d, err = e.svc.RestoreDomain(e.ctx, alpha, registry.DomainRestore{Name: kitab, Op: registry.RestoreRequest})
	if err != nil {
		t.Fatalf("restore request: %v", err)
	}
	wantStatuses(t, "after restore request", e.svc, d, "pendingDelete", "pendingRestore", "redemptionPeriod")
	d, err = e.svc.RestoreDomain(e.ctx, alpha, registry.DomainRestore{Name: kitab, Op: registry.RestoreReport})
	if err != nil {
		t.Fatalf("restore report: %v", err)
	}
	wantStatuses(t, "after restore report (40 days after the auto-renew)", e.svc, d, "autoRenewPeriod")
	if !d.PurgeAt.IsZero() || !d.Expires.Equal(T0.AddDate(5, 0, 0)) {
		t.Errorf("restored: purge at %v, expires %v", d.PurgeAt, d.Expires)
	}
	e.check(kittab, "hi", registry.Blocked, kitab)
	step("restore")

	// delete again and let it run out
	if err := Err(e.svc.DeleteDomain(e.ctx, alpha, registry.DomainDelete{Name: kitab})); err != nil {
		t.Fatalf("second delete: %v", err)
	}
	del = e.clock.Now()
	e.clock.Set(del.Add(30 * day))
	// issue 34 item 8: the redemption is over at its end by the clock,
	// before the worker has moved the domain on (its stored statuses
	// still say redemptionPeriod): a restore, request or report, is
	// refused and changes nothing
	if d, err := e.svc.Info(e.ctx, kitab); err != nil || !d.HasStatus(registry.StatusRedemptionPeriod) {
		t.Fatalf("before the worker runs: %v, %v; want still redemptionPeriod as stored", d, err)
	}
	for _, op := range []string{registry.RestoreRequest, registry.RestoreReport} {
		_, err = e.svc.RestoreDomain(e.ctx, alpha, registry.DomainRestore{Name: kitab, Op: op})
		wantCode(t, "restore "+op+" at the redemption end, before the worker", err, registry.CodeStatusProhibits)
	}
	if rep, err := e.svc.RunLifecycle(e.ctx, 0); err != nil || rep.Redeemed != 1 || rep.Purged != 0 {
		t.Fatalf("RunLifecycle at the end of redemption = %+v, %v", rep, err)
	}
	d, _ = e.svc.Info(e.ctx, kitab)
	wantStatuses(t, "after redemption", e.svc, d, "pendingDelete")
	_, err = e.svc.RestoreDomain(e.ctx, alpha, registry.DomainRestore{Name: kitab, Op: registry.RestoreRequest})
	wantCode(t, "restore after redemption", err, registry.CodeStatusProhibits)
	if res := e.check(kittab, "hi", registry.Blocked, kitab); res.HolderState != registry.StatusPendingDelete {
		t.Errorf("check in pending delete: holder %q", res.HolderState)
	}
	step("redemption over")

	e.clock.Set(del.Add(35 * day).Add(-time.Nanosecond))
	if rep, _ := e.svc.RunLifecycle(e.ctx, 0); rep.Purged != 0 {
		t.Errorf("purged a nanosecond early")
	}
	e.clock.Set(del.Add(35 * day))
	if rep, err := e.svc.RunLifecycle(e.ctx, 0); err != nil || rep.Purged != 1 {
		t.Fatalf("RunLifecycle at the purge = %+v, %v", rep, err)
	}
	delete(held, kitab)
	purged = append(purged, kitab)
	e.check(kittab, "hi", registry.Available, "")
	step("purge")
	if _, err := e.svc.CreateDomain(e.ctx, beta, registry.DomainCreate{Name: kittab, Lang: "hi"}); err != nil {
		t.Fatalf("create of the variant after the purge: %v", err)
	}
	held[kittab] = set
	step("variant taken")

	log, err := e.svc.Audit(e.ctx, registry.AuditFilter{Name: kitab})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, a := range log {
		if a.Result == "ok" || len(a.Result) > 2 && a.Result[:3] == "ok " {
			actions = append(actions, a.Registrar+":"+a.Action)
		}
	}
	want := []string{"alpha:create", "lifecycle:autorenew", "alpha:renew", "alpha:status", "alpha:status", "operator:status", "operator:status",
		"alpha:delete", "alpha:restore-request", "alpha:restore-report", "alpha:delete", "lifecycle:redemption-end", "lifecycle:purge"}
	if !slices.Equal(actions, want) {
		t.Errorf("audit of %s:\n%q\nwant\n%q", kitab, actions, want)
	}
}

// testLifecyclePolicies: add grace (a delete inside it purges at once),
// a zone without auto-renew (expiry deletes), months.
func testLifecyclePolicies(t *testing.T, open func(*testing.T) registry.Store) {
	lc := akshara.DefaultLifecycle()
	lc.AutoRenew, lc.Months, lc.MinYears, lc.MaxYears = false, true, 1, 5
	e := lifeEnv(t, open, map[string]akshara.ZoneLifecycle{"भारत": lc})
	alpha, _ := e.registrar("alpha")
	held := Held{}
	var purged []string
	set := []string{"किताब", "कित्ताब"}

	d, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kitab, Lang: "hi", Period: registry.Period{N: 18, Unit: 'm'}})
	if err != nil || !d.Expires.Equal(T0.AddDate(0, 18, 0)) {
		t.Fatalf("create for 18 months = %v, %v", d, err)
	}
	_, err = e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: "कमल.भारत", Lang: "hi", Period: registry.Period{N: 6, Unit: 'y'}})
	wantCode(t, "6 years where 5 is the most", err, registry.CodePeriodRange)
	wantStatuses(t, "in add grace", e.svc, d, "addPeriod")
	e.clock.Advance(4 * day)
	d, err = e.svc.DeleteDomain(e.ctx, alpha, registry.DomainDelete{Name: kitab})
	if err != nil || d != nil {
		t.Fatalf("delete in add grace = %v, %v; want purged (nil)", d, err)
	}
	purged = append(purged, kitab)
	e.check(kittab, "hi", registry.Available, "")
	CheckHeld(t, "add grace delete", e.svc, held, purged)

	// no auto-renew: expiry deletes (redemption first)
	if _, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kittab, Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	held[kittab] = set
	e.clock.Advance(366 * day)
	rep, err := e.svc.RunLifecycle(e.ctx, 0)
	if err != nil || rep.Expired != 1 {
		t.Fatalf("RunLifecycle at expiry = %+v, %v; want 1 expired", rep, err)
	}
	d, _ = e.svc.Info(e.ctx, kittab)
	wantStatuses(t, "expired", e.svc, d, "pendingDelete", "redemptionPeriod")
	CheckHeld(t, "expired", e.svc, held, purged)
	// restoring an expired domain renews it past now
	if _, err := e.svc.RestoreDomain(e.ctx, alpha, registry.DomainRestore{Name: kittab, Op: registry.RestoreRequest}); err != nil {
		t.Fatal(err)
	}
	d, err = e.svc.RestoreDomain(e.ctx, alpha, registry.DomainRestore{Name: kittab, Op: registry.RestoreReport})
	if err != nil || !d.Expires.After(e.clock.Now()) {
		t.Fatalf("restore of an expired domain = %v, %v; want an expiry after now", d, err)
	}
	CheckHeld(t, "restored", e.svc, held, purged)
}

// testPurgeRace: 64 clients race to create a variant of a deleted name in
// the instant it is purged: exactly one wins, and none before the purge.
func testPurgeRace(t *testing.T, open func(*testing.T) registry.Store) {
	const clients = 64
	e := lifeEnv(t, open, nil)
	alpha, _ := e.registrar("alpha")
	if _, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kitab, Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	if err := Err(e.svc.DeleteDomain(e.ctx, alpha, registry.DomainDelete{Name: kitab})); err != nil {
		t.Fatal(err)
	}
	regs := make([]*registry.Registrar, clients)
	for i := range regs {
		regs[i], _ = e.registrar(fmt.Sprintf("r%02d", i))
	}
	e.clock.Advance(35 * day)
	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var winners []string
	purged := make(chan struct{})
	for i := range regs {
		wg.Add(1)
		go func(r *registry.Registrar) {
			defer wg.Done()
			<-start
			for {
				_, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: kittab, Lang: "hi"})
				var re *registry.Error
				switch {
				case err == nil:
					mu.Lock()
					winners = append(winners, r.Name)
					mu.Unlock()
					return
				case errors.As(err, &re) && re.BlockedBy == kitab:
					continue // still held by the deleted domain
				case errors.As(err, &re) && (re.Code == registry.CodeConflict || re.Code == registry.CodeExists):
					return // another client won
				default:
					t.Errorf("%s: Create: %v", r.Name, err)
					return
				}
			}
		}(regs[i])
	}
	close(start)
	go func() {
		defer close(purged)
		if rep, err := e.svc.RunLifecycle(e.ctx, 0); err != nil || rep.Purged != 1 {
			t.Errorf("RunLifecycle = %+v, %v", rep, err)
		}
	}()
	wg.Wait()
	<-purged
	if len(winners) != 1 {
		t.Fatalf("winners %q, want exactly one", winners)
	}
	// and it won after the purge: the audit log is in commit order
	log, err := e.svc.Audit(e.ctx, registry.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var purgeID, winID int64
	for _, a := range log {
		switch {
		case a.Action == "purge" && a.Name == kitab:
			purgeID = a.ID
		case a.Action == "create" && a.Name == kittab && a.Result == "ok":
			winID = a.ID
		}
	}
	if purgeID == 0 || winID <= purgeID {
		t.Errorf("audit: purge at record %d, the winning create at %d: want the create after the purge", purgeID, winID)
	}
	CheckHeld(t, "after the race", e.svc, Held{kittab: {"किताब", "कित्ताब"}}, nil)
}

// testPurgeExempted: two domains exempted with each other, both deleted
// and purged in one batch: both gone, every label free (the labels one
// hands the other on its purge are not left behind), the variant free.
func testPurgeExempted(t *testing.T, open func(*testing.T) registry.Store) {
	e := lifeEnv(t, open, nil)
	alpha, _ := e.registrar("alpha")
	beta, _ := e.registrar("beta")
	if _, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kitab, Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	b := &registry.Domain{Name: "किताबें.भारत", ALabel: "xn--b.xn--h2brj9c", Label: "किताबें", Zone: "भारत", Lang: "hi", Registrar: "beta",
		Blocks: []string{"किताबें", "कित्ताब", "कमल"}, Created: T0}
	if d, err := e.store.CreateExemptDomain(e.ctx, b, beta.ID); err != nil || !d.Exempted {
		t.Fatalf("CreateExemptDomain = %v, %v", d, err)
	}
	if err := Err(e.svc.DeleteDomain(e.ctx, alpha, registry.DomainDelete{Name: kitab})); err != nil {
		t.Fatal(err)
	}
	if err := Err(e.svc.DeleteDomain(e.ctx, beta, registry.DomainDelete{Name: "किताबें.भारत"})); err != nil {
		t.Fatal(err)
	}
	e.check("कमल.भारत", "hi", registry.Blocked, "किताबें.भारत")
	e.clock.Advance(35 * day)
	if rep, err := e.svc.RunLifecycle(e.ctx, 0); err != nil || rep.Purged != 2 {
		t.Fatalf("RunLifecycle = %+v, %v; want 2 purged", rep, err)
	}
	CheckHeld(t, "both purged", e.svc, Held{}, []string{kitab, "किताबें.भारत"})
	for _, l := range []string{"किताब", "कित्ताब", "किताबें", "कमल"} {
		if d, err := e.store.FindBlocker(e.ctx, "भारत", []string{l}); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("label %s after both purges: held by %v (%v)", l, d, err)
		}
	}
	if _, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kittab, Lang: "hi"}); err != nil {
		t.Errorf("create of the variant after both purges: %v", err)
	}
}

// testConcurrentWorkers: four workers (two services, as two servers on
// one database) run at once over 60 domains to purge and 60 expired ones
// to auto-renew: every purge done once, every domain renewed exactly once
// (a step decided on a revision another worker changed is decided again).
func testConcurrentWorkers(t *testing.T, open func(*testing.T) registry.Store) {
	e := lifeEnv(t, open, nil)
	svc2, err := registry.NewServiceWith(e.ctx, e.store, Exempt(registry.ServiceOptions{Clock: e.clock}, ""))
	if err != nil {
		t.Fatal(err)
	}
	alpha, _ := e.registrar("alpha")
	const n = 60
	for i := range 2 * n {
		name := fmt.Sprintf("worker%03d.in", i)
		if _, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Advance(40 * day)
	for i := range n {
		if err := Err(e.svc.DeleteDomain(e.ctx, alpha, registry.DomainDelete{Name: fmt.Sprintf("worker%03d.in", i)})); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Set(T0.AddDate(1, 0, 1)) // the deleted ones due for purge, the others expired
	var wg sync.WaitGroup
	reps := make([]*registry.LifecycleReport, 4)
	for i := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := e.svc
			if i%2 == 1 {
				svc = svc2
			}
			var err error
			if reps[i], err = svc.RunLifecycle(e.ctx, 7); err != nil {
				t.Errorf("worker %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	var total registry.LifecycleReport
	for _, r := range reps {
		if r == nil {
			t.FailNow()
		}
		total.Purged += r.Purged
		total.AutoRenewed += r.AutoRenewed
	}
	if total.Purged != n || total.AutoRenewed != n {
		t.Errorf("the workers purged %d and auto-renewed %d, want %d each", total.Purged, total.AutoRenewed, n)
	}
	for i := range 2 * n {
		name := fmt.Sprintf("worker%03d.in", i)
		d, err := e.svc.Info(e.ctx, name)
		switch {
		case i < n && !errors.Is(err, registry.ErrNotFound):
			t.Errorf("%s: %v, want purged", name, err)
		case i >= n && (err != nil || !d.Expires.Equal(T0.AddDate(2, 0, 0))):
			t.Errorf("%s: %v, %v; want renewed once, to %v", name, d, err, T0.AddDate(2, 0, 0))
		}
	}
}

// testLifecycleTransfers: the lifecycle with transfers and the poll queue.
// A transfer's period extends the expiry; the lifecycle's statuses
// (clientTransferProhibited, pendingDelete) refuse a transfer; a pending
// transfer refuses a delete; a deletion at expiry cancels a pending
// transfer (both parties told) and tells the sponsor; an auto-renewal and
// a purge are told to the sponsor by poll, with the new expiry.
func testLifecycleTransfers(t *testing.T, open func(*testing.T) registry.Store) {
	noRenew := akshara.DefaultLifecycle()
	noRenew.AutoRenew, noRenew.AddGrace = false, 0
	e := lifeEnv(t, open, map[string]akshara.ZoneLifecycle{"in": noRenew})
	ctx := e.ctx
	alpha, _ := e.registrar("alpha")
	beta, _ := e.registrar("beta")
	for _, z := range []string{"भारत", "in"} {
		if err := e.svc.SetTransferPolicy(ctx, z, 5*day, 0); err != nil {
			t.Fatal(err)
		}
	}
	held := Held{}
	d, err := e.svc.CreateDomain(ctx, alpha, registry.DomainCreate{Name: kitab, Lang: "hi", AuthInfo: "Auth-Info-0001-strong", Period: registry.Period{N: 1, Unit: 'y'}})
	if err != nil {
		t.Fatal(err)
	}
	held[kitab] = d.Blocks
	// a transfer adding a year: the expiry moves on by one
	if _, err := e.svc.TransferDomain(ctx, beta, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-0001-strong", Years: 1}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "delete while a transfer is pending", Err(e.svc.DeleteDomain(ctx, alpha, registry.DomainDelete{Name: kitab})), registry.CodeStatusProhibits)
	if _, err := e.svc.TransferDomain(ctx, alpha, registry.DomainTransfer{Name: kitab, Op: registry.TransferApproveOp}); err != nil {
		t.Fatal(err)
	}
	d, err = e.svc.Info(ctx, kitab)
	if err != nil || d.Registrar != "beta" || !d.Expires.Equal(T0.AddDate(2, 0, 0)) {
		t.Fatalf("after the transfer: %+v, %v; want beta's, expiring %v", d, err, T0.AddDate(2, 0, 0))
	}
	CheckHeld(t, "transferred", e.svc, held, nil)
	// the lifecycle's statuses refuse a transfer
	if err := SetAuthInfo(e.svc, ctx, beta, kitab, "Auth-Info-0002-strong"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.UpdateDomain(ctx, beta, registry.DomainUpdate{Name: kitab, AddStatuses: []string{registry.StatusClientTransferProhibited}}); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.TransferDomain(ctx, alpha, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-0002-strong", Years: 0})
	wantCode(t, "transfer on clientTransferProhibited", err, registry.CodeStatusProhibits)
	if _, err := e.svc.UpdateDomain(ctx, beta, registry.DomainUpdate{Name: kitab, RemStatuses: []string{registry.StatusClientTransferProhibited}}); err != nil {
		t.Fatal(err)
	}
	if err := Err(e.svc.DeleteDomain(ctx, beta, registry.DomainDelete{Name: kitab})); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.TransferDomain(ctx, alpha, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-0002-strong", Years: 0})
	if code := registry.CodeOf(err); code != registry.CodeStatusProhibits && code != registry.CodeBadAuthInfo {
		t.Errorf("transfer of a deleted domain: %v, want STATUS_PROHIBITS (or BAD_AUTH_INFO: its authInfo is gone)", err)
	}
	CheckHeld(t, "deleted", e.svc, held, nil)

	// in (no auto-renew): a pending transfer at expiry is cancelled
	x, err := e.svc.CreateDomain(ctx, alpha, registry.DomainCreate{Name: "expiring.in", AuthInfo: "Auth-Info-0003-strong"})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Set(x.Expires.Add(-day))
	if _, err := e.svc.TransferDomain(ctx, beta, registry.DomainTransfer{Name: "expiring.in", Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-0003-strong", Years: 0}); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(x.Expires)
	if _, err := e.svc.RunLifecycle(ctx, 0); err != nil {
		t.Fatal(err)
	}
	x, err = e.svc.Info(ctx, "expiring.in")
	if err != nil || !x.Deleted() {
		t.Fatalf("at expiry: %+v, %v; want deleted", x, err)
	}
	st, err := e.svc.DomainTransferState(ctx, alpha, x)
	if err != nil || st.Pending != nil || st.Last == nil || st.Last.Status != registry.TransferServerCancelled {
		t.Errorf("the pending transfer at expiry: %+v, %v; want serverCancelled", st, err)
	}
	var kinds []string
	for {
		m, n, err := e.svc.PollRequest(ctx, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil || n == 0 {
			break
		}
		kinds = append(kinds, m.Kind+" "+m.Name)
		if _, err := e.svc.PollAck(ctx, alpha, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Contains(kinds, registry.PollDeletion+" expiring.in") || !slices.Contains(kinds, registry.PollTransferCancelled+" expiring.in") {
		t.Errorf("alpha's poll messages: %q, want the deletion and the cancelled transfer of expiring.in", kinds)
	}

	// भारत auto-renews: the sponsor is told, with the new expiry; a purge
	// is told too
	y, err := e.svc.CreateDomain(ctx, alpha, registry.DomainCreate{Name: "कमल.भारत", Lang: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Set(y.Expires.Add(time.Hour))
	if _, err := e.svc.RunLifecycle(ctx, 0); err != nil {
		t.Fatal(err)
	}
	// (expiring.in's purge came before, 35 days after its deletion)
	var renewed *registry.PollMessage
	kinds = nil
	for {
		m, _, err := e.svc.PollRequest(ctx, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			break
		}
		kinds = append(kinds, m.Kind+" "+m.Name)
		if m.Kind == registry.PollAutoRenew {
			renewed = m
		}
		if _, err := e.svc.PollAck(ctx, alpha, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(kinds, []string{registry.PollPurge + " expiring.in", registry.PollAutoRenew + " कमल.भारत"}) {
		t.Errorf("alpha's poll messages: %q, want the purge of expiring.in and the auto-renewal of कमल.भारत", kinds)
	}
	if renewed == nil || !renewed.ExDate.Equal(y.Expires.AddDate(1, 0, 0)) {
		t.Errorf("the auto-renewal's message: %+v, want the new expiry %v", renewed, y.Expires.AddDate(1, 0, 0))
	}
}
