package registrytest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/internal/longtest"
	"github.com/akshara-idn/akshara/registry"
)

// Registrar accounts and billing (issue 36; docs/billing.md).

// rupees reads an amount for a test.
func rupees(t testing.TB, s string) registry.Money {
	t.Helper()
	m, err := registry.ParseMoney(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// setPrice sets a price for a test.
func (e *env) setPrice(zone, command string, years int, amount string, from time.Time) {
	e.t.Helper()
	if _, err := e.svc.SetPrice(e.ctx, registry.Price{Zone: zone, Command: command, Years: years, Amount: rupees(e.t, amount), From: from}); err != nil {
		e.t.Fatalf("SetPrice(%s %s %d %s): %v", zone, command, years, amount, err)
	}
}

// credit credits a registrar for a test.
func (e *env) credit(r *registry.Registrar, amount string) {
	e.t.Helper()
	if _, err := e.svc.Credit(e.ctx, r.Name, rupees(e.t, amount), registry.EntryCredit, "test"); err != nil {
		e.t.Fatalf("Credit(%s, %s): %v", r.Name, amount, err)
	}
}

// balance reads a registrar's balance.
func (e *env) balance(r *registry.Registrar) registry.Money {
	e.t.Helper()
	a, err := e.svc.Account(e.ctx, r)
	if err != nil {
		e.t.Fatalf("Account(%s): %v", r.Name, err)
	}
	return a.Balance
}

// reconciled requires every account to agree with its ledger.
func (e *env) reconciled() []registry.Reconciliation {
	e.t.Helper()
	rs, err := e.svc.Reconcile(e.ctx)
	if err != nil {
		e.t.Fatalf("Reconcile: %v", err)
	}
	for _, r := range rs {
		if !r.OK() {
			e.t.Errorf("reconcile: %+v", r)
		}
	}
	return rs
}

// debits returns a registrar's ledger entries of a kind.
func (e *env) entries(r *registry.Registrar, kind string) []registry.LedgerEntry {
	e.t.Helper()
	es, err := e.svc.Ledger(e.ctx, registry.LedgerFilter{RegistrarID: r.ID, Kind: kind})
	if err != nil {
		e.t.Fatalf("Ledger(%s): %v", r.Name, err)
	}
	return es
}

// wantBalance requires a registrar's balance.
func (e *env) wantBalance(what string, r *registry.Registrar, want string) {
	e.t.Helper()
	if got := e.balance(r); got != rupees(e.t, want) {
		e.t.Errorf("%s: the balance of %s is %s, want %s", what, r.Name, got, want)
	}
}

func billingEnv(t *testing.T, open func(*testing.T) registry.Store, lc map[string]akshara.ZoneLifecycle) *env {
	t.Helper()
	store := open(t)
	clock := registry.NewManualClock(T0)
	svc, err := registry.NewServiceWith(t.Context(), store, registry.ServiceOptions{Clock: clock, Lifecycle: lc, Contacts: NoContacts()})
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	return &env{t: t, ctx: t.Context(), store: store, svc: svc, clock: clock}
}

// testBillingRace: the concurrent-create race (testRace's, with
// goroutines registrars racing for one conflict set a round) in a zone
// with a price: every create that succeeded is debited once, at its
// price, to its registrar, with its audit record; none that failed is;
// the accounts reconcile.
func testBillingRace(t *testing.T, open func(*testing.T) registry.Store) {
	goroutines, rounds := longtest.Pick(16, 64), longtest.Pick(8, 100)
	e := billingEnv(t, open, nil)
	e.setPrice("भारत", registry.BillCreate, 1, "450.00", time.Time{})
	e.setPrice("in", registry.BillCreate, 1, "699.50", time.Time{})
	regs := make([]*registry.Registrar, goroutines)
	for g := range regs {
		regs[g], _ = e.registrar(fmt.Sprintf("payer-%02d", g))
		e.credit(regs[g], "1000000")
	}
	cons := []string{"क", "ख", "च", "ज", "ड", "ब", "य", "ल", "स", "न"}
	twin := []string{"ट", "ठ", "ढ", "प", "भ", "म", "ह", "घ", "व"}
	mat := []string{"", "ि", "ी", "े"}
	wins := map[int64]registry.Money{}
	created := map[string]string{} // name -> registrar
	for round := 0; round < rounds; round++ {
		zone, label := "भारत", "द्धष्टश्व"+cons[round%10]+cons[(round/10)%10]
		price := rupees(t, "450.00")
		if round%2 == 1 {
			i := round / 2
			zone, label = "in", twin[i%9]+mat[(i/9)%4]+twin[(i/36+1)%9]+"ी"+twin[(i/4)%9]
			price = rupees(t, "699.50")
		}
		rel, err := akshara.NewZoneRelation(zoneLanguages(e, zone))
		if err != nil {
			t.Fatal(err)
		}
		members, _ := rel.ConflictSet(label)
		var wg sync.WaitGroup
		errs := make([]error, goroutines)
		ds := make([]*registry.Domain, goroutines)
		gate := make(chan struct{})
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				ds[g], errs[g] = e.svc.CreateDomain(e.ctx, regs[g], registry.DomainCreate{Name: members[g%len(members)] + "." + zone})
			}()
		}
		close(gate)
		wg.Wait()
		n := 0
		for g, err := range errs {
			switch {
			case err == nil:
				n++
				wins[regs[g].ID] += price
				created[ds[g].Name] = regs[g].Name
			case !errors.Is(err, registry.ErrConflict) && !errors.Is(err, registry.ErrExists) && registry.CodeOf(err) != registry.CodeInvalid:
				t.Fatalf("round %d: goroutine %d: %v", round, g, err)
			}
		}
		if n != 1 {
			t.Fatalf("round %d: %d creates succeeded, want 1", round, n)
		}
	}
	var sum registry.Money
	for _, r := range regs {
		debits := e.entries(r, registry.EntryDebit)
		var paid registry.Money
		for _, d := range debits {
			paid -= d.Amount
			if created[d.Name] != r.Name || d.Command != registry.BillCreate || d.AuditID == 0 {
				t.Errorf("%s: debit %+v is not of a create it made", r.Name, d)
			}
			delete(created, d.Name)
		}
		if paid != wins[r.ID] {
			t.Errorf("%s paid %s, want %s (its creates times their prices)", r.Name, paid, wins[r.ID])
		}
		e.wantBalance("after the race", r, (rupees(t, "1000000") - wins[r.ID]).String())
		sum += paid
	}
	if len(created) != 0 {
		t.Errorf("creates without a debit: %v", created)
	}
	rs := e.reconciled()
	if len(rs) != goroutines {
		t.Errorf("%d accounts reconciled, want %d", len(rs), goroutines)
	}
	t.Logf("%d rounds of %d registrars: %s debited in all", rounds, goroutines, sum)
}

func zoneLanguages(e *env, zone string) []string {
	for _, z := range e.svc.Zones() {
		if z.Name == zone {
			return z.Languages
		}
	}
	e.t.Fatalf("no zone %s", zone)
	return nil
}

// testBillingEdge: sessions of one registrar race creates of different
// names with a balance for exactly one: one succeeds, the others are
// refused BILLING_FAILURE with the balance and the price, and nothing of
// them is written.
func testBillingEdge(t *testing.T, open func(*testing.T) registry.Store) {
	e := billingEnv(t, open, nil)
	e.setPrice("भारत", registry.BillCreate, 1, "500", time.Time{})
	r, _ := e.registrar("edge")
	names := []string{"कमल", "कलश", "कदम", "कनक", "कपट", "करण", "कवच", "कसक"}
	for round := 0; round < 4; round++ {
		e.credit(r, "500")
		var wg sync.WaitGroup
		errs := make([]error, len(names))
		gate := make(chan struct{})
		for i, n := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				_, errs[i] = e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: fmt.Sprintf("%s%s.भारत", n, []string{"", "न", "म", "ल"}[round])})
			}()
		}
		close(gate)
		wg.Wait()
		ok := 0
		for i, err := range errs {
			switch {
			case err == nil:
				ok++
			case registry.CodeOf(err) == registry.CodeBillingFailure:
				var sf *registry.Shortfall
				if !errors.As(err, &sf) || sf.Price != rupees(t, "500") || sf.Balance != 0 {
					t.Errorf("round %d, %s: shortfall %+v (%v), want balance 0.00 and price 500.00", round, names[i], sf, err)
				}
				if registry.InfoOf(registry.CodeBillingFailure).EPP != 2104 || registry.InfoOf(registry.CodeBillingFailure).HTTP != 402 {
					t.Errorf("BILLING_FAILURE maps to %+v", registry.InfoOf(registry.CodeBillingFailure))
				}
			default:
				t.Errorf("round %d, %s: %v", round, names[i], err)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d creates succeeded with a balance for one, want exactly 1", round, ok)
		}
		e.wantBalance(fmt.Sprintf("round %d", round), r, "0")
	}
	ds, err := e.svc.List(e.ctx, r)
	if err != nil || len(ds) != 4 {
		t.Errorf("List: %d domains (%v), want 4", len(ds), err)
	}
	if n := len(e.entries(r, registry.EntryDebit)); n != 4 {
		t.Errorf("%d debits, want 4", n)
	}
	e.reconciled()
}

// testBillingPrices: a price list that takes effect at T applies to a
// command at T and not at T-1s; premium names have their own price; a
// multi-year period without a row of its own costs the 1-year price
// times the years; a fee agreed below the price is refused; a zone
// without a price list charges nothing.
func testBillingPrices(t *testing.T, open func(*testing.T) registry.Store) {
	e := billingEnv(t, open, nil)
	r, _ := e.registrar("pricey")
	e.credit(r, "100000")
	T := T0.Add(10 * 24 * time.Hour)
	e.setPrice("भारत", registry.BillCreate, 1, "300", T0.Add(-time.Hour))
	e.setPrice("भारत", registry.BillCreate, 1, "400", T)
	e.setPrice("भारत", registry.BillCreate, 2, "700", T0.Add(-time.Hour))
	if _, err := e.svc.SetPrice(e.ctx, registry.Price{Zone: "भारत", Label: "सोना", Command: registry.BillCreate, Years: 1, Amount: rupees(t, "25000"), From: T0.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	create := func(name string, years int, want string) {
		t.Helper()
		before := e.balance(r)
		fees := &registry.Fees{}
		ctx := registry.WithFees(e.ctx, fees)
		if _, err := e.svc.CreateDomain(ctx, r, registry.DomainCreate{Name: name, Period: registry.Period{N: years, Unit: 'y'}}); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		if paid := before - e.balance(r); paid != rupees(t, want) || fees.Charged != paid || !fees.Priced {
			t.Errorf("create %s for %d years at %s: paid %s (fees %+v), want %s", name, years, e.clock.Now().Format(time.RFC3339), paid, fees, want)
		}
	}
	e.clock.Set(T.Add(-time.Second))
	create("कमल.भारत", 1, "300")
	create("कलश.भारत", 2, "700")
	create("कदम.भारत", 3, "900") // 3 × the 1-year price
	create("सोना.भारत", 1, "25000")
	q, err := e.svc.Quote(e.ctx, "सोना.भारत", registry.BillCreate, registry.Period{})
	if err != nil || q.Class != "premium" || q.Amount != rupees(t, "25000") {
		t.Errorf("Quote(सोना): %+v, %v", q, err)
	}
	e.clock.Set(T)
	create("कनक.भारत", 1, "400")
	create("कपट.भारत", 3, "1200")
	q, err = e.svc.Quote(e.ctx, "करण.भारत", registry.BillCreate, registry.Period{N: 1, Unit: 'y'})
	if err != nil || q.Class != "standard" || q.Amount != rupees(t, "400") || !q.Priced || q.Currency != "INR" {
		t.Errorf("Quote(करण): %+v, %v", q, err)
	}
	// a fee agreed below the price: refused, nothing written
	low := rupees(t, "399.99")
	before := e.balance(r)
	_, err = e.svc.CreateDomain(registry.WithFees(e.ctx, &registry.Fees{Agreed: &low}), r, registry.DomainCreate{Name: "करण.भारत"})
	wantCode(t, "create with a fee below the price", err, registry.CodeFeeTooLow)
	if registry.InfoOf(registry.CodeFeeTooLow).EPP != 2004 {
		t.Errorf("FEE_MISMATCH maps to EPP %d, want 2004", registry.InfoOf(registry.CodeFeeTooLow).EPP)
	}
	if _, err := e.svc.Info(e.ctx, "करण.भारत"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("a create refused for its fee left the domain: %v", err)
	}
	_, err = e.svc.CreateDomain(registry.WithFees(e.ctx, &registry.Fees{Currency: "USD"}), r, registry.DomainCreate{Name: "करण.भारत"})
	wantCode(t, "create with a fee in USD", err, registry.CodeFeeTooLow)
	e.wantBalance("after the refused creates", r, before.String())
	// a zone without a price list: free, no ledger entry
	n := len(e.entries(r, registry.EntryDebit))
	if _, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "kamal.in"}); err != nil {
		t.Fatal(err)
	}
	if got := len(e.entries(r, registry.EntryDebit)); got != n {
		t.Errorf("a create in a zone without prices wrote %d debits", got-n)
	}
	e.wantBalance("after a free create", r, before.String())
	e.reconciled()
	ps, err := e.svc.Prices(e.ctx, "भारत")
	if err != nil || len(ps) != 4 {
		t.Errorf("Prices: %d (%v), want 4", len(ps), err)
	}
}

// testBillingGrace: a delete within the add grace period refunds the
// create (and the renewals since); within the renew grace period the
// renewal; after them nothing. Renewals and restores are charged.
func testBillingGrace(t *testing.T, open func(*testing.T) registry.Store) {
	lc := akshara.DefaultLifecycle() // add and renew grace 5 days, redemption 30
	e := billingEnv(t, open, map[string]akshara.ZoneLifecycle{"भारत": lc})
	e.setPrice("भारत", registry.BillCreate, 1, "500", time.Time{})
	e.setPrice("भारत", registry.BillRenew, 1, "400", time.Time{})
	e.setPrice("भारत", registry.BillRestore, 1, "2000", time.Time{})
	r, _ := e.registrar("graceful")
	e.credit(r, "10000")
	// delete in add grace, after a renew: both refunded
	d, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "कमल.भारत"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.RenewDomain(e.ctx, r, registry.DomainRenew{Name: "कमल.भारत", CurExpiry: d.Expires}); err != nil {
		t.Fatal(err)
	}
	e.wantBalance("after a create and a renew", r, "9100")
	e.clock.Advance(24 * time.Hour)
	fees := &registry.Fees{}
	if _, err := e.svc.DeleteDomain(registry.WithFees(e.ctx, fees), r, registry.DomainDelete{Name: "कमल.भारत"}); err != nil {
		t.Fatal(err)
	}
	e.wantBalance("after a delete in add grace", r, "10000")
	if fees.Refunded != rupees(t, "900") {
		t.Errorf("delete in add grace: refunded %s, want 900.00", fees.Refunded)
	}
	// delete in renew grace (after add grace): the renewal refunded
	d, err = e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "कलश.भारत"})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(10 * 24 * time.Hour)
	if _, err := e.svc.RenewDomain(e.ctx, r, registry.DomainRenew{Name: "कलश.भारत", CurExpiry: d.Expires}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(2 * 24 * time.Hour)
	if _, err := e.svc.DeleteDomain(e.ctx, r, registry.DomainDelete{Name: "कलश.भारत"}); err != nil {
		t.Fatal(err)
	}
	e.wantBalance("after a delete in renew grace", r, "9500")
	// restore: request charged the restore price
	if _, err := e.svc.RestoreDomain(e.ctx, r, registry.DomainRestore{Name: "कलश.भारत", Op: registry.RestoreRequest}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.RestoreDomain(e.ctx, r, registry.DomainRestore{Name: "कलश.भारत", Op: registry.RestoreReport}); err != nil {
		t.Fatal(err)
	}
	e.wantBalance("after a restore", r, "7500")
	// a delete after the grace periods: no refund
	d, err = e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "कदम.भारत"})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(6 * 24 * time.Hour)
	if _, err := e.svc.DeleteDomain(e.ctx, r, registry.DomainDelete{Name: "कदम.भारत"}); err != nil {
		t.Fatal(err)
	}
	e.wantBalance("after a delete out of grace", r, "7000")
	// a restore the account cannot pay: refused, the domain still deleted
	e.clock.Advance(time.Hour)
	if _, err := e.svc.Credit(e.ctx, r.Name, rupees(t, "-6000"), registry.EntryAdjustment, "test"); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.RestoreDomain(e.ctx, r, registry.DomainRestore{Name: "कदम.भारत", Op: registry.RestoreRequest})
	wantCode(t, "restore with ₹1000", err, registry.CodeBillingFailure)
	got, err := e.svc.Info(e.ctx, "कदम.भारत")
	if err != nil || got.HasStatus(registry.StatusPendingRestore) {
		t.Errorf("a refused restore changed the domain: %+v, %v", got, err)
	}
	if n := len(e.entries(r, registry.EntryRefund)); n != 3 {
		t.Errorf("%d refunds, want 3", n)
	}
	e.reconciled()
}

// testBillingAutoRenew: an auto-renewal is charged to the sponsor (at
// the renew price without an autorenew one); one its sponsor cannot pay
// deletes the domain at its expiry, into its redemption period, and the
// sponsor is told by a poll message. A charge that takes the balance
// below the threshold queues a low-balance message.
func testBillingAutoRenew(t *testing.T, open func(*testing.T) registry.Store) {
	e := billingEnv(t, open, nil) // भारत: the zones file's: auto-renew on
	e.setPrice("भारत", registry.BillCreate, 1, "500", time.Time{})
	e.setPrice("भारत", registry.BillRenew, 1, "450", time.Time{})
	rich, _ := e.registrar("rich")
	poor, _ := e.registrar("poor")
	e.credit(rich, "2000")
	e.credit(poor, "500")
	low := rupees(t, "1200")
	if _, err := e.svc.SetAccount(e.ctx, rich.Name, registry.AccountSettings{LowBalance: &low}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r    *registry.Registrar
		name string
	}{{rich, "कमल.भारत"}, {poor, "कलश.भारत"}} {
		if _, err := e.svc.CreateDomain(e.ctx, c.r, registry.DomainCreate{Name: c.name}); err != nil {
			t.Fatal(err)
		}
	}
	e.wantBalance("rich after a create", rich, "1500")
	e.wantBalance("poor after a create", poor, "0")
	e.clock.Advance(366 * 24 * time.Hour)
	rep, err := e.svc.RunLifecycle(e.ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.AutoRenewed != 1 || rep.Expired != 1 {
		t.Errorf("lifecycle: %+v, want 1 auto-renewed and 1 deleted at expiry", rep)
	}
	e.wantBalance("rich after its auto-renewal", rich, "1050")
	debits := e.entries(rich, registry.EntryDebit)
	if last := debits[len(debits)-1]; last.Command != registry.BillAutoRenew || last.Price != rupees(t, "450") || last.AuditID == 0 {
		t.Errorf("the auto-renewal's debit: %+v", last)
	}
	d, err := e.svc.Info(e.ctx, "कलश.भारत")
	if err != nil || !d.HasStatus(registry.StatusRedemptionPeriod) {
		t.Fatalf("the unpaid auto-renewal: %+v, %v; want the domain in its redemption period", d, err)
	}
	m, _, err := e.svc.PollRequest(e.ctx, poor)
	if err != nil || m == nil || m.Kind != registry.PollDeletion {
		t.Errorf("poor's poll: %+v, %v, want a deletion message", m, err)
	}
	// rich crossed its threshold (1500 -> 1050 < 1200): told once
	var kinds []string
	for {
		m, _, err := e.svc.PollRequest(e.ctx, rich)
		if err != nil || m == nil {
			break
		}
		kinds = append(kinds, m.Kind)
		if _, err := e.svc.PollAck(e.ctx, rich, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	lows := 0
	for _, k := range kinds {
		if k == registry.PollLowBalance {
			lows++
		}
	}
	if lows != 1 {
		t.Errorf("rich's poll messages %q: %d low-balance ones, want 1", kinds, lows)
	}
	e.reconciled()
}

// testBillingTransfer: the gaining registrar pays a transfer at its
// approval, and a priced transfer adds a year even when the request
// asks for none; a request the gaining registrar cannot pay is refused;
// an approval it cannot pay is refused without telling the approver its
// balance; a due transfer it cannot pay is cancelled by the server.
func testBillingTransfer(t *testing.T, open func(*testing.T) registry.Store) {
	e := billingEnv(t, open, nil)
	ctx := e.ctx
	e.setPrice("भारत", registry.BillTransfer, 1, "350", time.Time{})
	if err := e.svc.SetTransferPolicy(ctx, "भारत", 5*24*time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	losing, _ := e.registrar("losing")
	gaining, _ := e.registrar("gaining")
	d, err := e.svc.CreateDomain(ctx, losing, registry.DomainCreate{Name: kitab, Lang: "hi", AuthInfo: "Auth-Info-0001-strong"})
	if err != nil {
		t.Fatal(err)
	}
	req := registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-0001-strong"}
	_, err = e.svc.TransferDomain(ctx, gaining, req)
	wantCode(t, "a request the gaining registrar cannot pay", err, registry.CodeBillingFailure)
	e.credit(gaining, "350")
	tr, err := e.svc.TransferDomain(ctx, gaining, req)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Period != 1 {
		t.Errorf("a priced transfer requested with no period records %d years, want 1", tr.Period)
	}
	// the gaining registrar spends its balance meanwhile: the approval is refused
	if _, err := e.svc.Credit(ctx, gaining.Name, rupees(t, "-100"), registry.EntryAdjustment, "test"); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferApproveOp})
	wantCode(t, "an approval the gaining registrar cannot pay", err, registry.CodeBillingFailure)
	var sf *registry.Shortfall
	if errors.As(err, &sf) && (sf.Balance != 0 || sf.Own) {
		t.Errorf("the approver is told the gaining registrar's balance: %+v", sf)
	}
	e.credit(gaining, "100")
	if _, err := e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferApproveOp}); err != nil {
		t.Fatal(err)
	}
	e.wantBalance("after the approval", gaining, "0")
	after, err := e.svc.Info(ctx, kitab)
	if err != nil || after.Registrar != gaining.Name || !after.Expires.Equal(registry.AddMonths(d.Expires, 12)) {
		t.Errorf("after the transfer: %+v (%v), want gaining's, a year added to %s", after, err, d.Expires)
	}
	// a due transfer the gaining registrar cannot pay: cancelled by the server
	if err := SetAuthInfo(e.svc, ctx, gaining, kitab, "Auth-Info-0002-strong"); err != nil {
		t.Fatal(err)
	}
	e.credit(losing, "350")
	if _, err := e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-0002-strong"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Credit(ctx, losing.Name, rupees(t, "-350"), registry.EntryAdjustment, "test"); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(6 * 24 * time.Hour)
	if _, err := e.svc.ApproveDueTransfers(ctx, 0); err != nil {
		t.Fatal(err)
	}
	after, err = e.svc.Info(ctx, kitab)
	if err != nil || after.Registrar != gaining.Name {
		t.Errorf("after an unpaid due transfer: %+v, %v; want it kept by gaining", after, err)
	}
	st, err := e.svc.DomainTransferState(ctx, gaining, after)
	if err != nil || st.Last == nil || st.Last.Status != registry.TransferServerCancelled || st.Pending != nil {
		t.Errorf("the unpaid due transfer: %+v, %v; want serverCancelled", st, err)
	}
	e.wantBalance("losing, which could not pay", losing, "0")
	e.reconciled()
}

// CheckExactlyOnce is the exactly-once check of a load of creates at one
// price (a load test, a crash test): every debit names the audit record
// of a create of a registered domain of its registrar, once; every
// acknowledged create has its debit at the price; there are as many
// debits as domains (no create committed without its debit, acknowledged
// or not), each registrar's debits are its domains times the price; and
// every account reconciles.
func CheckExactlyOnce(t testing.TB, ctx context.Context, svc *registry.Service, price registry.Money, acked map[string]string) {
	t.Helper()
	es, err := svc.Ledger(ctx, registry.LedgerFilter{Kind: registry.EntryDebit})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	paid := map[string]registry.Money{}
	for _, e := range es {
		seen[e.Name]++
		paid[e.Registrar] -= e.Amount
		if e.AuditID == 0 || e.Command != registry.BillCreate || e.Price != price || e.Amount != -price {
			t.Errorf("debit %+v: not a create at %s with its audit record", e, price)
		}
		if seen[e.Name] == 2 {
			t.Errorf("%s debited twice", e.Name)
		}
		d, err := svc.Info(ctx, e.Name)
		if err != nil || d.Registrar != e.Registrar {
			t.Errorf("debit %d of %s (%s): the domain is %+v, %v", e.ID, e.Name, e.Registrar, d, err)
		}
	}
	for name, r := range acked {
		if seen[name] != 1 {
			t.Errorf("%s (%s): acknowledged, debited %d times", name, r, seen[name])
		}
	}
	rs, err := svc.Registrars(ctx)
	if err != nil {
		t.Fatal(err)
	}
	domains := 0
	for _, r := range rs {
		domains += r.Domains
		if want := registry.Money(r.Domains) * price; paid[r.Name] != want {
			t.Errorf("%s paid %s for %d domains, want %s", r.Name, paid[r.Name], r.Domains, want)
		}
	}
	if domains != len(es) {
		t.Errorf("%d domains, %d debits", domains, len(es))
	}
	recs, err := svc.Reconcile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if !r.OK() {
			t.Errorf("reconcile: %+v", r)
		}
	}
	t.Logf("exactly once: %d acknowledged creates, %d domains, %d debits, %d accounts reconciled", len(acked), domains, len(es), len(recs))
}
