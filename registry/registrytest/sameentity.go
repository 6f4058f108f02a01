package registrytest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/longtest"
	"github.com/akshara-idn/akshara/registry"
)

// Same entity (docs/variants.md, "Same entity"): the family ভারত/ভাৰত
// ships `variants same-label=same-entity other=block`.

// groupPW is the authInfo of the group tests' domains.
const groupPW = "Group-pw-2024!-strong"

// registrant is a create's contacts: the registrant alone.
func registrant(id string) []registry.DomainContact {
	return []registry.DomainContact{{Role: registry.RoleRegistrant, ID: id}}
}

// mustContact creates a contact of r.
func mustContact(t *testing.T, e *env, r *registry.Registrar, id string) {
	t.Helper()
	_, err := e.svc.CreateContact(e.ctx, r, registry.ContactCreate{ID: id, ContactData: DevanagariContact(), AuthInfo: "Contact-pw-" + id + "-strong"})
	must(t, "CreateContact "+id, err)
}

// registrantOf reads a domain's registrant.
func registrantOf(t *testing.T, e *env, name string) string {
	t.Helper()
	d, err := e.svc.Info(e.ctx, name)
	must(t, "Info "+name, err)
	for _, c := range d.Contacts {
		if c.Role == registry.RoleRegistrant {
			return c.ID
		}
	}
	return ""
}

// testSameEntity: the holder's registrar may register the same label
// under the other member TLD for the same registrant, as a member of the
// holder's variant group; everyone else, another registrant, and the
// other variants are refused. The group's life: one set, one registrant
// (a change propagates), one sponsor (a transfer moves the group, a
// member is not deleted while one is pending), members deleted and
// purged each, the last purge freeing the set.
func testSameEntity(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := e.ctx
	a, _ := e.registrar("se-a")
	b, _ := e.registrar("se-b")
	mustContact(t, e, a, "reg-a")
	mustContact(t, e, a, "reg-a2")
	mustContact(t, e, a, "reg-a3")
	mustContact(t, e, b, "reg-b")
	holder, variant := "কিতাব."+bnZone, "কিতাব."+asZone
	// a label with র under ভারত: its র/ৰ spelling under ভাৰত is a variant
	// label (the family's row), which the policy blocks (and the same
	// label is no Assamese: ৰ is)
	other := "সৰকাৰ." + asZone
	mustCreateFor(t, e, a, "সরকার."+bnZone, "reg-a")
	h, err := e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: holder, Contacts: registrant("reg-a"), AuthInfo: groupPW})
	must(t, "Create "+holder, err)
	set := slices.Clone(h.Blocks)

	// checks: blocked for everyone, available to the holder's registrar
	res, err := e.svc.Check(ctx, variant, "")
	if err != nil || res.Status != registry.Blocked || res.BlockedBy != holder || res.SameEntity != holder {
		t.Fatalf("Check(%s) = %+v, %v; want blocked by %s, same entity %s", variant, res, err, holder, holder)
	}
	if res, err := e.svc.CheckFor(ctx, a, variant, ""); err != nil || res.Status != registry.Available || res.SameEntity != holder {
		t.Errorf("CheckFor(holder's registrar, %s) = %+v, %v; want available, same entity %s", variant, res, err, holder)
	}
	if res, err := e.svc.CheckFor(ctx, b, variant, ""); err != nil || res.Status != registry.Blocked || res.BlockedBy != holder {
		t.Errorf("CheckFor(another registrar, %s) = %+v, %v; want blocked by %s", variant, res, err, holder)
	}
	if res, err := e.svc.CheckFor(ctx, a, other, ""); err != nil || res.Status != registry.Blocked || res.SameEntity != "" {
		t.Errorf("CheckFor(holder's registrar, %s) = %+v, %v; want blocked, not same entity (other variants block)", other, res, err)
	}

	// creates refused: another registrar, another registrant, no
	// registrant, another kind of variant
	_, err = e.svc.CreateDomain(ctx, b, registry.DomainCreate{Name: variant, Contacts: registrant("reg-b")})
	var re *registry.Error
	if !errors.As(err, &re) || re.Code != registry.CodeConflict || re.BlockedBy != holder || !strings.Contains(re.Message, "same entity") {
		t.Errorf("Create(%s) by another registrar = %v; want CONFLICT naming %s, saying same entity", variant, err, holder)
	}
	for _, c := range [][]registry.DomainContact{registrant("reg-a2"), nil} {
		_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: variant, Contacts: c})
		if !errors.As(err, &re) || re.Code != registry.CodeNotSameEntity || re.BlockedBy != holder {
			t.Errorf("Create(%s) by the holder's registrar with contacts %v = %v; want %s naming %s", variant, c, err, registry.CodeNotSameEntity, holder)
		}
	}
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: other, Contacts: registrant("reg-a")})
	wantCode(t, "Create "+other+" (a variant label, blocked by the policy)", err, registry.CodeConflict)
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "কিতাব.in", Contacts: registrant("reg-a")})
	must(t, "Create কিতাব.in (another zone, no family)", err)
	mustCreateFor(t, e, a, "किताब.भारत", "reg-a")
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: kittab, Contacts: registrant("reg-a")})
	wantCode(t, "Create "+kittab+" (zone भारत blocks)", err, registry.CodeConflict)

	// the join
	v, err := e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: variant, Contacts: registrant("reg-a"), AuthInfo: groupPW})
	must(t, "Create "+variant+" for the holder's registrant", err)
	if v.Group == 0 {
		t.Errorf("Create(%s) = %+v: not of a group", variant, v)
	}
	for _, p := range [][2]string{{holder, variant}, {variant, holder}} {
		d, err := e.svc.Info(ctx, p[0])
		must(t, "Info "+p[0], err)
		if !slices.Equal(d.VariantGroup, []string{p[1]}) || !slices.Equal(d.Blocks, set) {
			t.Errorf("Info(%s): group %q, blocks %q; want group [%s], blocks %q (the set unchanged)", p[0], d.VariantGroup, d.Blocks, p[1], set)
		}
	}
	g, err := e.svc.VariantGroup(ctx, variant)
	must(t, "VariantGroup", err)
	if len(g) != 2 || g[0].Name != holder || g[0].OriginalName != "" || g[1].Name != variant || g[1].OriginalName != holder {
		t.Errorf("VariantGroup(%s) = %+v; want %s (original), %s (original %s)", variant, g, holder, variant, holder)
	}
	for _, n := range []string{holder, variant} {
		if res, err := e.svc.Check(ctx, n, ""); err != nil || res.Status != registry.Registered || res.BlockedBy != "" {
			t.Errorf("Check(%s) after the join = %+v, %v; want registered", n, res, err)
		}
	}

	// a re-audit finds nothing: a group's members are no conflict, and
	// its apply keeps the group as it is
	for _, apply := range []bool{false, true} {
		if _, err := e.svc.Reaudit(ctx, apply, func(f *registry.ReauditFinding) error {
			if f.Name == holder || f.Name == variant {
				t.Errorf("Reaudit(apply %v): a finding of the group: %+v", apply, f)
			}
			return nil
		}); err != nil {
			t.Fatalf("Reaudit(apply %v): %v", apply, err)
		}
	}
	if d, err := e.svc.Info(ctx, variant); err != nil || d.Exempted || !slices.Equal(d.VariantGroup, []string{holder}) || !slices.Equal(d.Blocks, set) {
		t.Errorf("Info(%s) after the re-audit's apply = %+v, %v; want the group as it was", variant, d, err)
	}

	// one registrant: a change propagates; a removal is refused
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: variant, Registrant: "reg-a3"})
	must(t, "Update registrant", err)
	for _, n := range []string{holder, variant} {
		if got := registrantOf(t, e, n); got != "reg-a3" {
			t.Errorf("registrant of %s after the change on %s: %q, want reg-a3", n, variant, got)
		}
	}
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: holder, RemContacts: registrant("reg-a3")})
	wantCode(t, "removing a member's registrant", err, registry.CodeNotSameEntity)

	// one sponsor: a transfer moves the group; no member is deleted
	// while it is pending
	e.clock.Advance(61 * day)
	_, err = e.svc.TransferDomain(ctx, b, registry.DomainTransfer{Name: variant, Op: registry.TransferRequestOp, AuthInfo: groupPW})
	must(t, "transfer request", err)
	_, err = e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: holder})
	wantCode(t, "Delete a member while its group's transfer is pending", err, registry.CodeStatusProhibits)
	_, err = e.svc.TransferDomain(ctx, a, registry.DomainTransfer{Name: variant, Op: registry.TransferApproveOp})
	must(t, "transfer approve", err)
	for _, n := range []string{holder, variant} {
		d, err := e.svc.Info(ctx, n)
		if err != nil || d.Registrar != "se-b" {
			t.Errorf("Info(%s) after the group's transfer = %+v, %v; want sponsored by se-b", n, d, err)
		}
	}
	found := false
	for {
		m, _, err := e.svc.PollRequest(ctx, b)
		must(t, "poll", err)
		if m == nil {
			break
		}
		found = found || (m.Kind == registry.PollGroupTransfer && m.Name == holder)
		_, err = e.svc.PollAck(ctx, b, m.ID)
		must(t, "ack", err)
	}
	if !found {
		t.Errorf("the gaining registrar got no %s message for %s", registry.PollGroupTransfer, holder)
	}

	// members deleted and purged each; the set held until the last purge
	_, err = e.svc.DeleteDomain(ctx, b, registry.DomainDelete{Name: holder})
	must(t, "Delete "+holder, err)
	// the set is held by the live member now: a check of it says so
	res, err = e.svc.Check(ctx, variant, "")
	if err != nil || res.Status != registry.Registered || res.HolderState != "" {
		t.Errorf("Check(%s) with the other member deleted = %+v, %v; want registered, live", variant, res, err)
	}
	if res, err = e.svc.Check(ctx, holder, ""); err != nil || res.Status != registry.Registered || res.HolderState != registry.StatusRedemptionPeriod {
		t.Errorf("Check(%s), deleted = %+v, %v; want registered, in its redemption period", holder, res, err)
	}
	_, err = e.svc.CreateDomain(ctx, b, registry.DomainCreate{Name: holder, Contacts: registrant("reg-b")})
	wantCode(t, "Create "+holder+", deleted, by another registrar", err, registry.CodeExists)
	e.purge()
	if _, err := e.svc.Info(ctx, holder); registry.CodeOf(err) != registry.CodeNotFound {
		t.Errorf("Info(%s) after its purge: %v, want NOT_FOUND", holder, err)
	}
	d, err := e.svc.Info(ctx, variant)
	if err != nil || d.Group != 0 || len(d.VariantGroup) != 0 || !slices.Equal(d.Blocks, set) {
		t.Errorf("Info(%s), the last member = %+v, %v; want no group, the whole set %q", variant, d, err, set)
	}
	if res, err := e.svc.Check(ctx, holder, ""); err != nil || res.Status != registry.Blocked || res.BlockedBy != variant {
		t.Errorf("Check(%s) after its purge = %+v, %v; want blocked by %s", holder, res, err, variant)
	}
	_, err = e.svc.DeleteDomain(ctx, b, registry.DomainDelete{Name: variant})
	must(t, "Delete "+variant, err)
	e.purge()
	for _, n := range []string{holder, variant} {
		if res, err := e.svc.Check(ctx, n, ""); err != nil || res.Status != registry.Available {
			t.Errorf("Check(%s) after the last purge = %+v, %v; want available", n, res, err)
		}
	}
}

// mustCreateFor creates name for r with registrant id.
func mustCreateFor(t *testing.T, e *env, r *registry.Registrar, name, id string) *registry.Domain {
	t.Helper()
	d, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: name, Contacts: registrant(id), AuthInfo: groupPW})
	if err != nil {
		t.Fatalf("Create(%s): %v", name, err)
	}
	return d
}

// testSameEntityRace: the races of a variant group, each with exactly one
// winner: the holder's join racing other registrars' creates of the same
// name; a group transfer request racing a member's delete; the purges of
// the last members racing creates of the freed name.
func testSameEntityRace(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := e.ctx
	rounds := longtest.Pick(6, 40)
	a, _ := e.registrar("race-a")
	mustContact(t, e, a, "race-reg")
	others := make([]*registry.Registrar, 3)
	for i := range others {
		others[i], _ = e.registrar(fmt.Sprintf("race-o%d", i))
		mustContact(t, e, others[i], fmt.Sprintf("race-reg%d", i))
	}
	cons := []string{"ক", "খ", "গ", "চ", "জ", "ত", "দ", "ন", "প", "ম"}
	stem := func(round, k int) string { return cons[round%10] + "া" + cons[(round/10+k)%10] + "ল" }
	for round := 0; round < rounds; round++ {
		// 1. the join racing the others' creates of the same name
		label := stem(round, 0)
		mustCreateFor(t, e, a, label+"."+bnZone, "race-reg")
		var wg sync.WaitGroup
		errs := make([]error, 1+len(others))
		run := func(i int, f func() error) {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = f() }()
		}
		run(0, func() error {
			return Err(e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: label + "." + asZone, Contacts: registrant("race-reg"), AuthInfo: groupPW}))
		})
		for i, o := range others {
			run(i+1, func() error {
				return Err(e.svc.CreateDomain(ctx, o, registry.DomainCreate{Name: label + "." + asZone, Contacts: registrant(fmt.Sprintf("race-reg%d", i))}))
			})
		}
		wg.Wait()
		if errs[0] != nil {
			t.Fatalf("round %d: the holder's join: %v", round, errs[0])
		}
		for i, err := range errs[1:] {
			if c := registry.CodeOf(err); err == nil || (c != registry.CodeConflict && c != registry.CodeExists) {
				t.Fatalf("round %d: another registrar's create %d: %v, want CONFLICT or EXISTS", round, i, err)
			}
		}

		// 2. the group's transfer racing a member's delete
		e.clock.Advance(61 * day)
		errs = make([]error, 2)
		run(0, func() error {
			return Err(e.svc.TransferDomain(ctx, others[0], registry.DomainTransfer{Name: label + "." + asZone, Op: registry.TransferRequestOp, AuthInfo: groupPW}))
		})
		run(1, func() error {
			return Err(e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: label + "." + bnZone}))
		})
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("round %d: transfer request %v, member delete %v: want exactly one to win", round, errs[0], errs[1])
		}
		for _, err := range errs {
			if c := registry.CodeOf(err); err != nil && c != registry.CodeStatusProhibits {
				t.Fatalf("round %d: the loser: %v, want STATUS_PROHIBITS", round, err)
			}
		}
		if errs[0] == nil { // the transfer won: end it, delete the group's members
			_, err := e.svc.TransferDomain(ctx, others[0], registry.DomainTransfer{Name: label + "." + asZone, Op: registry.TransferCancelOp})
			must(t, "cancel", err)
			must(t, "delete", Err(e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: label + "." + bnZone})))
		}
		must(t, "delete", Err(e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: label + "." + asZone})))

		// 3. the purges of the last members racing creates of the name
		e.clock.Advance(36 * day)
		won := make([]bool, len(others))
		var mu sync.Mutex
		done := make(chan struct{})
		for i, o := range others {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for attempt := 0; ; attempt++ {
					_, err := e.svc.CreateDomain(ctx, o, registry.DomainCreate{Name: label + "." + asZone, Contacts: registrant(fmt.Sprintf("race-reg%d", i))})
					if err == nil {
						mu.Lock()
						won[i] = true
						mu.Unlock()
						return
					}
					select {
					case <-done:
						if attempt > 0 {
							return
						}
					default:
					}
				}
			}()
		}
		for range 2 { // two workers
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := e.svc.RunLifecycle(ctx, 1); err != nil {
					t.Errorf("round %d: RunLifecycle: %v", round, err)
				}
			}()
		}
		go func() { // until a creator won, at most 20 s (a set never freed: none wins, the test fails)
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				if d, err := e.svc.Info(ctx, label+"."+asZone); err == nil && d.Registrar != "race-a" {
					break
				}
			}
			close(done)
		}()
		wg.Wait()
		n := 0
		for _, w := range won {
			if w {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("round %d: %d creates of %s won after the purges, want exactly one", round, n, label+"."+asZone)
		}
		if res, err := e.svc.Check(ctx, label+"."+bnZone, ""); err != nil || res.Status != registry.Blocked || res.BlockedBy != label+"."+asZone {
			t.Fatalf("round %d: Check(%s) = %+v, %v; want blocked by the winner's %s", round, label+"."+bnZone, res, err, label+"."+asZone)
		}
	}
}
