package registrytest

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// T0 is the instant the transfer conversations start at.
var T0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// clocked is a service on a fresh store with a ManualClock at T0.
type clocked struct {
	*env
	clock *registry.ManualClock
}

func newClocked(t *testing.T, open func(*testing.T) registry.Store) *clocked {
	t.Helper()
	store := open(t)
	clk := registry.NewManualClock(T0)
	svc, err := registry.NewServiceWith(t.Context(), store, registry.ServiceOptions{Clock: clk, Contacts: NoContacts()})
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	return &clocked{env: &env{t: t, ctx: t.Context(), store: store, svc: svc}, clock: clk}
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := registry.CodeOf(err); err == nil || got != code {
		t.Fatalf("%s: %v, want %s", what, err, code)
	}
}

// wantTransfer compares a transfer's status, parties and dates.
func wantTransfer(t *testing.T, what string, tr *registry.Transfer, err error, status, gaining, losing string, requested, act time.Time) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if tr.Name != kitab || tr.ALabel != kitabALabel || tr.Status != status || tr.Gaining != gaining || tr.Losing != losing || !tr.Requested.Equal(requested) || !tr.ActDate.Equal(act) {
		t.Fatalf("%s = %+v,\nwant %s %s→%s requested %s act %s", what, tr, status, losing, gaining, requested, act)
	}
}

// wantPoll reads the head of r's queue and acknowledges it: its kind, the
// transfer status it reports and the count.
func (e *clocked) wantPoll(r *registry.Registrar, kind, status string, count int) *registry.PollMessage {
	e.t.Helper()
	m, n, err := e.svc.PollRequest(e.ctx, r)
	if err != nil {
		e.t.Fatalf("poll %s: %v", r.Name, err)
	}
	if m == nil || m.Kind != kind || n != count || m.Name != kitab || m.Transfer == nil || m.Transfer.Status != status || !m.Queued.Equal(e.clock.Now()) && kind != registry.PollTransferRequested {
		e.t.Fatalf("poll %s = %+v (count %d), want %s %s count %d", r.Name, m, n, kind, status, count)
	}
	left, err := e.svc.PollAck(e.ctx, r, m.ID)
	if err != nil || left != count-1 {
		e.t.Fatalf("ack %s %d: %d, %v; want %d left", r.Name, m.ID, left, err, count-1)
	}
	return m
}

func (e *clocked) wantEmpty(r *registry.Registrar) {
	e.t.Helper()
	if m, n, err := e.svc.PollRequest(e.ctx, r); m != nil || n != 0 || err != nil {
		e.t.Fatalf("poll %s: %+v, %d, %v; want an empty queue", r.Name, m, n, err)
	}
}

// testTransfer is a whole transfer conversation pinned to instants: a
// request refused in the lock period, with a wrong authInfo, by the
// sponsor; a request at t1, queried by both parties; rejected, requested
// again and cancelled, requested again and approved; the conflict set
// moved; then a request approved by the server at t2+5d, on read and by
// the worker, once. Every step's poll messages are read and acknowledged.
func testTransfer(t *testing.T, open func(*testing.T) registry.Store) {
	e := newClocked(t, open)
	ctx := registry.WithChannel(e.ctx, registry.Channel{Name: "epp", ClTRID: "CL-1", SvTRID: "SV-1"})
	e.ctx = ctx
	losing, _ := e.registrar("losing")
	gaining, _ := e.registrar("gaining")
	third, _ := e.registrar("third")
	const pw = "Auth-Info-0001-strong"
	d, err := e.svc.CreateDomain(ctx, losing, registry.DomainCreate{Name: kitab, Lang: "hi", AuthInfo: pw})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Created.Equal(T0) {
		t.Errorf("created %s, want the clock's %s", d.Created, T0)
	}
	if _, err := e.svc.CreateDomain(ctx, losing, registry.DomainCreate{Name: "कमल.भारत", Lang: "hi", AuthInfo: "short"}); registry.CodeOf(err) != registry.CodeWeakAuthInfo {
		t.Errorf("create with a 5-character authInfo: %v, want WEAK_AUTH_INFO", err)
	}

	// t0: within the lock period after the create
	_, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: pw, Years: 0})
	wantCode(t, "request at t0 (locked)", err, registry.CodeNotEligible)
	t1 := e.clock.Advance(61 * day)
	_, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: "not-the-auth-info", Years: 0})
	wantCode(t, "request with a wrong authInfo", err, registry.CodeBadAuthInfo)
	_, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: "", Years: 0})
	wantCode(t, "request without authInfo", err, registry.CodeBadAuthInfo)
	_, err = e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: pw, Years: 0})
	wantCode(t, "request by the sponsor", err, registry.CodeNotEligible)
	_, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: pw, Years: 11})
	wantCode(t, "request of 11 years", err, registry.CodePeriodRange)
	_, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: "कमल.भारत", Op: registry.TransferRequestOp, AuthInfo: pw, Years: 0})
	wantCode(t, "request of an unregistered name", err, registry.CodeNotFound)
	_, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferQueryOp, AuthInfo: ""})
	wantCode(t, "query before any transfer", err, registry.CodeForbidden)
	_, err = e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferQueryOp, AuthInfo: ""})
	wantCode(t, "query by the sponsor before any transfer", err, registry.CodeNotPendingTransfer)
	_, err = e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferApproveOp})
	wantCode(t, "approve with nothing pending", err, registry.CodeNotPendingTransfer)
	e.wantEmpty(losing)

	// t1: requested, queried by both, rejected
	due := t1.Add(registry.DefaultTransferPeriod)
	tr, err := e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: pw, Years: 1})
	wantTransfer(t, "request at t1", tr, err, registry.TransferPending, "gaining", "losing", t1, due)
	if tr.Period != 1 {
		t.Errorf("period %d, want 1", tr.Period)
	}
	_, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: pw, Years: 0})
	wantCode(t, "request again", err, registry.CodePendingTransfer)
	_, err = e.svc.TransferDomain(ctx, third, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: pw, Years: 0})
	wantCode(t, "request by a third while pending", err, registry.CodePendingTransfer)
	_, err = e.svc.TransferDomain(ctx, third, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: "wrong-auth-info", Years: 0})
	wantCode(t, "request by a third with a wrong authInfo while pending", err, registry.CodeBadAuthInfo)
	for _, r := range []*registry.Registrar{losing, gaining} {
		tr, err := e.svc.TransferDomain(ctx, r, registry.DomainTransfer{Name: kitab, Op: registry.TransferQueryOp, AuthInfo: ""})
		wantTransfer(t, "query by "+r.Name, tr, err, registry.TransferPending, "gaining", "losing", t1, due)
	}
	_, err = e.svc.TransferDomain(ctx, third, registry.DomainTransfer{Name: kitab, Op: registry.TransferQueryOp, AuthInfo: ""})
	wantCode(t, "query by a third", err, registry.CodeForbidden)
	_, err = e.svc.TransferDomain(ctx, third, registry.DomainTransfer{Name: kitab, Op: registry.TransferQueryOp, AuthInfo: "wrong-auth-info"})
	wantCode(t, "query by a third with a wrong authInfo", err, registry.CodeBadAuthInfo)
	tr, err = e.svc.TransferDomain(ctx, third, registry.DomainTransfer{Name: kitab, Op: registry.TransferQueryOp, AuthInfo: pw})
	wantTransfer(t, "query by a third with the authInfo", tr, err, registry.TransferPending, "gaining", "losing", t1, due)
	st, err := e.svc.DomainTransferState(ctx, losing, d)
	if err != nil || st.Pending == nil || !st.AuthInfoSet {
		t.Fatalf("state for the sponsor: %+v, %v", st, err)
	}
	if st, _ := e.svc.DomainTransferState(ctx, gaining, d); st.AuthInfoSet {
		t.Errorf("the requester is told whether the authInfo is set")
	}
	_, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferApproveOp})
	wantCode(t, "approve by the requester", err, registry.CodeForbidden)
	_, err = e.svc.TransferDomain(ctx, third, registry.DomainTransfer{Name: kitab, Op: registry.TransferApproveOp})
	wantCode(t, "approve by a third", err, registry.CodeForbidden)
	_, err = e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferCancelOp})
	wantCode(t, "cancel by the sponsor", err, registry.CodeForbidden)
	e.clock.Advance(time.Hour)
	tr, err = e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferRejectOp})
	wantTransfer(t, "reject", tr, err, registry.TransferClientRejected, "gaining", "losing", t1, e.clock.Now())
	e.wantPoll(losing, registry.PollTransferRequested, registry.TransferPending, 1)
	e.wantPoll(gaining, registry.PollTransferRejected, registry.TransferClientRejected, 1)
	e.wantEmpty(losing)

	// requested again, cancelled by the requester
	t1b := e.clock.Advance(time.Hour)
	tr, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: pw, Years: 0})
	wantTransfer(t, "request again", tr, err, registry.TransferPending, "gaining", "losing", t1b, t1b.Add(5*day))
	tr, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferCancelOp})
	wantTransfer(t, "cancel", tr, err, registry.TransferClientCancelled, "gaining", "losing", t1b, t1b)
	// the sponsor had not taken the request off its queue: it is
	// withdrawn, and no cancellation is queued (issue 34)
	e.wantEmpty(losing)
	e.wantEmpty(gaining)

	// requested again, the sponsor acknowledges the request, cancelled:
	// the sponsor is told of the cancellation
	t1bb := e.clock.Advance(10 * time.Minute)
	tr, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: pw, Years: 0})
	wantTransfer(t, "request again", tr, err, registry.TransferPending, "gaining", "losing", t1bb, t1bb.Add(5*day))
	e.wantPoll(losing, registry.PollTransferRequested, registry.TransferPending, 1)
	tr, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferCancelOp})
	wantTransfer(t, "cancel", tr, err, registry.TransferClientCancelled, "gaining", "losing", t1bb, t1bb)
	e.wantPoll(losing, registry.PollTransferCancelled, registry.TransferClientCancelled, 1)
	e.wantEmpty(gaining)

	// requested again, approved: the domain and its conflict set move
	t1c := e.clock.Advance(time.Hour)
	if _, err := e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: pw, Years: 2}); err != nil {
		t.Fatal(err)
	}
	ta := e.clock.Advance(day)
	tr, err = e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferApproveOp})
	wantTransfer(t, "approve", tr, err, registry.TransferClientApproved, "gaining", "losing", t1c, ta)
	_, err = e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferApproveOp})
	wantCode(t, "approve again", err, registry.CodeNotPendingTransfer)
	got, err := e.svc.Info(ctx, kitab)
	if err != nil || got.Registrar != "gaining" || got.ID != d.ID || !slices.Equal(got.Blocks, d.Blocks) {
		t.Fatalf("info after the transfer: %+v, %v; want sponsor gaining, the same domain and set %q", got, err, d.Blocks)
	}
	e.wantPoll(losing, registry.PollTransferRequested, registry.TransferPending, 1)
	e.wantPoll(gaining, registry.PollTransferApproved, registry.TransferClientApproved, 1)
	checkSetHeld(t, e.env, "gaining", d)
	_, err = e.svc.CreateDomain(ctx, losing, registry.DomainCreate{Name: kittab, Lang: "hi"})
	wantConflict(t, "the losing registrar creates a variant", err, kitab)
	_, err = e.svc.CreateDomain(ctx, gaining, registry.DomainCreate{Name: kittab, Lang: "hi"})
	wantConflict(t, "the gaining registrar creates a variant", err, kitab)
	e.check(kittab, "", registry.Blocked, kitab)
	st, _ = e.svc.DomainTransferState(ctx, gaining, got)
	if st.AuthInfoSet || !st.Transferred.Equal(ta) || st.Pending != nil {
		t.Errorf("state after the transfer: %+v; want no authInfo (the old one is the losing registrar's), transferred at %s", st, ta)
	}
	// the old authInfo is gone; the new sponsor sets another
	e.clock.Advance(61 * day)
	_, err = e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: pw, Years: 0})
	wantCode(t, "request back with the old authInfo", err, registry.CodeBadAuthInfo)
	err = SetAuthInfo(e.svc, ctx, losing, kitab, "Auth-Info-0002-strong")
	wantCode(t, "authInfo set by the losing registrar", err, registry.CodeForbidden)
	if err := SetAuthInfo(e.svc, ctx, gaining, kitab, "Auth-Info-0002-strong"); err != nil {
		t.Fatal(err)
	}

	// t2: requested back; the server approves at t2+5d, on read
	t2 := e.clock.Now()
	tr, err = e.svc.TransferDomain(ctx, losing, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-0002-strong", Years: 0})
	wantTransfer(t, "request back", tr, err, registry.TransferPending, "losing", "gaining", t2, t2.Add(5*day))
	e.clock.Advance(5*day - time.Second)
	if n, err := e.svc.ApproveDueTransfers(ctx, 0); n != 0 || err != nil {
		t.Fatalf("worker a second early: %d, %v", n, err)
	}
	if got, _ := e.svc.Info(ctx, kitab); got.Registrar != "gaining" {
		t.Fatalf("info a second early: sponsor %s", got.Registrar)
	}
	t3 := e.clock.Advance(time.Second)
	got, err = e.svc.Info(ctx, kitab)
	if err != nil || got.Registrar != "losing" {
		t.Fatalf("info at t2+5d: %+v, %v; want sponsor losing (approved on read)", got, err)
	}
	if n, err := e.svc.ApproveDueTransfers(ctx, 0); n != 0 || err != nil {
		t.Fatalf("worker after the read approved it: %d, %v", n, err)
	}
	tr, err = e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferQueryOp, AuthInfo: ""})
	wantTransfer(t, "query after the auto-approval", tr, err, registry.TransferServerApproved, "losing", "gaining", t2, t3)
	e.wantPoll(gaining, registry.PollTransferRequested, registry.TransferPending, 2)
	e.wantPoll(gaining, registry.PollTransferAuto, registry.TransferServerApproved, 1)
	e.wantPoll(losing, registry.PollTransferAuto, registry.TransferServerApproved, 1)
	checkSetHeld(t, e.env, "losing", d)

	// the audit log has each transition with its channel and transaction ids
	log, err := e.svc.Audit(ctx, registry.AuditFilter{Name: kitab})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, a := range log {
		if a.Result != "ok" {
			continue
		}
		actions = append(actions, a.Action)
		if a.Channel != "epp" || a.ClTRID != "CL-1" || a.SvTRID != "SV-1" {
			t.Errorf("audit %+v: want channel epp, CL-1, SV-1", a)
		}
	}
	want := []string{"create", "transfer-request", "transfer-reject", "transfer-request", "transfer-cancel", "transfer-request", "transfer-cancel", "transfer-request", "transfer-approve", "auth-info", "transfer-request", "transfer-auto-approve"}
	if !slices.Equal(actions, want) {
		t.Errorf("audit actions %q,\nwant %q", actions, want)
	}
}

// checkSetHeld checks that the domain d, sponsored by registrar, holds
// its whole conflict set: every label is blocked by it, and the
// registrar's list has it with the set.
func checkSetHeld(t *testing.T, e *env, registrar string, d *registry.Domain) {
	t.Helper()
	blocker, err := e.store.FindBlocker(e.ctx, d.Zone, d.Blocks)
	if err != nil || blocker.ID != d.ID || blocker.Registrar != registrar {
		t.Fatalf("blocker of %q: %+v, %v; want %s of %s", d.Blocks, blocker, err, d.Name, registrar)
	}
	for _, l := range d.Blocks {
		b, err := e.store.FindBlocker(e.ctx, d.Zone, []string{l})
		if err != nil || b.ID != d.ID {
			t.Fatalf("label %s: held by %+v, %v; want %s", l, b, err, d.Name)
		}
	}
}

// testTransferWorker: transfers approved by the worker, once, with
// several workers at once; the sponsor can neither delete nor change the
// authInfo of a domain pending transfer.
func testTransferWorker(t *testing.T, open func(*testing.T) registry.Store) {
	e := newClocked(t, open)
	ctx := e.ctx
	losing, _ := e.registrar("losing")
	gaining, _ := e.registrar("gaining")
	if err := e.svc.SetTransferPolicy(ctx, "भारत", 2*day, 0); err != nil {
		t.Fatal(err)
	}
	if p, l, err := e.svc.TransferPolicy(ctx, "xn--h2brj9c"); p != 2*day || l != 0 || err != nil {
		t.Fatalf("policy: %s %s %v", p, l, err)
	}
	names := []string{kitab, "कमल.भारत", "नमक.भारत", "सड़क.भारत"}
	for _, n := range names {
		if _, err := e.svc.CreateDomain(ctx, losing, registry.DomainCreate{Name: n, Lang: "hi", AuthInfo: "Auth-Info-" + n}); err != nil {
			t.Fatal(err)
		}
		// no lock period in this zone now
		if _, err := e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: n, Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-" + n, Years: 0}); err != nil {
			t.Fatalf("request %s: %v", n, err)
		}
	}
	// pendingTransfer refuses the sponsor's transforms (RFC 5731 §2.3)
	wantCode(t, "delete while pending", Err(e.svc.DeleteDomain(ctx, losing, registry.DomainDelete{Name: names[3]})), registry.CodeStatusProhibits)
	wantCode(t, "authInfo while pending", SetAuthInfo(e.svc, ctx, losing, names[3], "Auth-Info-new1-strong"), registry.CodeStatusProhibits)
	e.clock.Advance(2 * day)
	var wg sync.WaitGroup
	counts := make([]int, 4)
	for w := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := e.svc.ApproveDueTransfers(ctx, 0)
			if err != nil {
				t.Errorf("worker %d: %v", w, err)
			}
			counts[w] = n
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != 4 {
		t.Errorf("the workers approved %v transfers, want 4 in all", counts)
	}
	for _, n := range names {
		d, err := e.svc.Info(ctx, n)
		if err != nil || d.Registrar != "gaining" {
			t.Errorf("%s: %+v, %v", n, d, err)
		}
	}
	// gaining: 4 auto-approved; losing: 4 requested + 4 auto-approved
	kinds := map[string]int{}
	for _, r := range []*registry.Registrar{gaining, losing} {
		for {
			m, _, err := e.svc.PollRequest(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			if m == nil {
				break
			}
			kinds[r.Name+" "+m.Kind]++
			if _, err := e.svc.PollAck(ctx, r, m.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]int{"gaining transfer-auto-approved": 4, "losing transfer-requested": 4, "losing transfer-auto-approved": 4}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("poll messages %v,\nwant %v", kinds, want)
	}
}

// testTransferRace: while the sponsor approves a transfer, registrars
// race to create the name's variants: every create fails (the domain
// keeps its set through the move) and the approval succeeds, each round.
func testTransferRace(t *testing.T, open func(*testing.T) registry.Store) {
	e := newClocked(t, open)
	ctx := e.ctx
	losing, _ := e.registrar("losing")
	gaining, _ := e.registrar("gaining")
	racers := make([]*registry.Registrar, 8)
	for i := range racers {
		racers[i], _ = e.registrar(fmt.Sprintf("racer-%d", i))
	}
	if err := e.svc.SetTransferPolicy(ctx, "भारत", 5*day, 0); err != nil {
		t.Fatal(err)
	}
	d, err := e.svc.CreateDomain(ctx, losing, registry.DomainCreate{Name: kitab, Lang: "hi", AuthInfo: "Auth-Info-0001-strong"})
	if err != nil {
		t.Fatal(err)
	}
	var variants []string
	for _, l := range d.Blocks {
		if l != d.Label {
			variants = append(variants, l+"."+d.Zone)
		}
	}
	if len(variants) == 0 {
		t.Fatal("किताब has no variants")
	}
	from, to := losing, gaining
	for round := 0; round < 6; round++ {
		pw := fmt.Sprintf("Auth-Info-%04d-strong", round+10)
		if err := SetAuthInfo(e.svc, ctx, from, kitab, pw); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.TransferDomain(ctx, to, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: pw, Years: 0}); err != nil {
			t.Fatalf("round %d: request: %v", round, err)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		var won []string
		for i, r := range append(slices.Clone(racers), from, to) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				v := variants[i%len(variants)]
				if _, err := e.svc.CreateDomain(ctx, r, registry.DomainCreate{Name: v}); err == nil {
					mu.Lock()
					won = append(won, r.Name+" "+v)
					mu.Unlock()
				} else if c := registry.CodeOf(err); c != registry.CodeConflict && c != registry.CodeInvalid {
					t.Errorf("round %d: create %s by %s: %v", round, v, r.Name, err)
				}
			}()
		}
		var approveErr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, approveErr = e.svc.TransferDomain(ctx, from, registry.DomainTransfer{Name: kitab, Op: registry.TransferApproveOp})
		}()
		close(start)
		wg.Wait()
		if approveErr != nil || len(won) > 0 {
			t.Fatalf("round %d: approval %v; creates that won: %q; want the approval alone", round, approveErr, won)
		}
		checkSetHeld(t, e.env, to.Name, d)
		from, to = to, from
	}
}

// testPollOrder: a queue is read oldest first, in the order its messages
// were queued (committed), count and id as the protocol says; a message
// is acknowledged once, by its own registrar only.
func testPollOrder(t *testing.T, open func(*testing.T) registry.Store) {
	e := newClocked(t, open)
	ctx := e.ctx
	a, _ := e.registrar("a")
	b, _ := e.registrar("b")
	e.wantEmpty(a)
	var msgs []registry.PollMessage
	for i := range 5 {
		msgs = append(msgs, registry.PollMessage{RegistrarID: a.ID, Kind: registry.PollAutoRenew, Name: fmt.Sprintf("n%d.in", i), ALabel: fmt.Sprintf("n%d.in", i), Text: "renewed", ExDate: T0.AddDate(1, 0, 0)})
		msgs = append(msgs, registry.PollMessage{RegistrarID: b.ID, Kind: registry.PollPurge, Name: fmt.Sprintf("m%d.in", i), ALabel: fmt.Sprintf("m%d.in", i), Text: "purged"})
	}
	if err := e.svc.Enqueue(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
	// concurrent enqueues: each queue keeps every message, no seq twice
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := e.svc.Enqueue(ctx, registry.PollMessage{RegistrarID: b.ID, Kind: registry.PollDeletion, Name: fmt.Sprintf("c%d.in", i), ALabel: "x.in", Text: "deleted"},
				registry.PollMessage{RegistrarID: a.ID, Kind: registry.PollDeletion, Name: fmt.Sprintf("c%d.in", i), ALabel: "x.in", Text: "deleted"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	m, n, err := e.svc.PollRequest(ctx, a)
	if err != nil || m == nil || n != 13 || m.Name != "n0.in" || !m.ExDate.Equal(T0.AddDate(1, 0, 0)) || !m.Queued.Equal(T0) {
		t.Fatalf("head of a: %+v, %d, %v", m, n, err)
	}
	if _, err := e.svc.PollAck(ctx, b, m.ID); registry.CodeOf(err) != registry.CodeNotFound {
		t.Errorf("b acknowledges a's message: %v", err)
	}
	for i := range 5 {
		m, n, _ := e.svc.PollRequest(ctx, a)
		if m.Name != fmt.Sprintf("n%d.in", i) || n != 13-i {
			t.Fatalf("a's message %d: %+v (count %d)", i, m, n)
		}
		if left, err := e.svc.PollAck(ctx, a, m.ID); err != nil || left != 12-i {
			t.Fatalf("ack: %d, %v", left, err)
		}
		if _, err := e.svc.PollAck(ctx, a, m.ID); registry.CodeOf(err) != registry.CodeNotFound {
			t.Fatalf("ack again: %v", err)
		}
	}
	seen := map[string]bool{}
	for {
		m, _, err := e.svc.PollRequest(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			break
		}
		seen[m.Name] = true
		e.svc.PollAck(ctx, a, m.ID)
	}
	if len(seen) != 8 {
		t.Errorf("a's concurrent messages: %v", seen)
	}
	if _, n, _ := e.svc.PollRequest(ctx, b); n != 13 {
		t.Errorf("b's queue: %d, want 13", n)
	}
}

// testTransferDueOnRead: at the end of the transfer period, a registrar's
// list and poll queue agree with the worker before it has run: the
// domain is in the gaining registrar's list, the approval in the queues.
func testTransferDueOnRead(t *testing.T, open func(*testing.T) registry.Store) {
	e := newClocked(t, open)
	ctx := e.ctx
	losing, _ := e.registrar("losing")
	gaining, _ := e.registrar("gaining")
	if err := e.svc.SetTransferPolicy(ctx, "भारत", 5*day, 0); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{kitab, "कमल.भारत"} {
		if _, err := e.svc.CreateDomain(ctx, losing, registry.DomainCreate{Name: n, Lang: "hi", AuthInfo: "Auth-Info-0001-strong"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: n, Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-0001-strong", Years: 0}); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Advance(5 * day)
	ds, err := e.svc.List(ctx, gaining)
	if err != nil || len(ds) != 2 {
		t.Fatalf("the gaining registrar's list at the end of the period: %d domains, %v; want 2", len(ds), err)
	}
	if ds, _ := e.svc.List(ctx, losing); len(ds) != 0 {
		t.Errorf("the losing registrar's list: %d domains, want 0", len(ds))
	}
	m, n, err := e.svc.PollRequest(ctx, gaining)
	if err != nil || n != 2 || m.Kind != registry.PollTransferAuto {
		t.Errorf("the gaining registrar's queue: %+v, %d, %v", m, n, err)
	}
}

// transferEnder is the SQL stores' EndTransfers, for the lifecycle's
// transitions (pendingDelete, purge) in their own transactions.
type transferEnder interface {
	DB() *sql.DB
	EndTransfers(ctx context.Context, tx *sql.Tx, domainID int64, at time.Time) error
}

// testEndTransfers: the server cancels a pending transfer in a
// transaction of the caller's, both parties told, the authInfo removed.
func testEndTransfers(t *testing.T, open func(*testing.T) registry.Store) {
	e := newClocked(t, open)
	ender, ok := e.store.(transferEnder)
	if !ok {
		t.Skip("the store has no EndTransfers")
	}
	ctx := e.ctx
	losing, _ := e.registrar("losing")
	gaining, _ := e.registrar("gaining")
	d, err := e.svc.CreateDomain(ctx, losing, registry.DomainCreate{Name: kitab, Lang: "hi", AuthInfo: "Auth-Info-0001-strong"})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(61 * day)
	if _, err := e.svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-0001-strong", Years: 0}); err != nil {
		t.Fatal(err)
	}
	at := e.clock.Advance(day)
	tx, err := ender.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ender.EndTransfers(ctx, tx, d.ID, at); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := e.svc.DomainTransferState(ctx, losing, d)
	if err != nil || st.Pending != nil || st.Last.Status != registry.TransferServerCancelled || !st.Last.ActDate.Equal(at) || st.AuthInfoSet {
		t.Fatalf("after EndTransfers: %+v %+v, %v", st, st.Last, err)
	}
	e.wantPoll(losing, registry.PollTransferRequested, registry.TransferPending, 2)
	e.wantPoll(losing, registry.PollTransferCancelled, registry.TransferServerCancelled, 1)
	e.wantPoll(gaining, registry.PollTransferCancelled, registry.TransferServerCancelled, 1)
}

// pollEnqueuer is the SQL stores' EnqueuePoll, for the lifecycle's
// transitions in their own transactions.
type pollEnqueuer interface {
	DB() *sql.DB
	EnqueuePoll(ctx context.Context, tx *sql.Tx, msgs []registry.PollMessage) error
}

// testPollCommitOrder: a queue is in commit order. While a transaction
// that queued a message for a registrar is open, another message for the
// same registrar cannot be committed ahead of it (it waits), so a reader
// never sees a later message before an earlier one that commits after.
func testPollCommitOrder(t *testing.T, open func(*testing.T) registry.Store) {
	e := newClocked(t, open)
	pe, ok := e.store.(pollEnqueuer)
	if !ok {
		t.Skip("the store has no EnqueuePoll")
	}
	ctx := e.ctx
	a, _ := e.registrar("a")
	msg := func(name string) registry.PollMessage {
		return registry.PollMessage{RegistrarID: a.ID, Queued: T0, Kind: registry.PollDeletion, Name: name, ALabel: name, Text: "deleted"}
	}
	tx, err := pe.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pe.EnqueuePoll(ctx, tx, []registry.PollMessage{msg("first.in")}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.svc.Enqueue(ctx, msg("second.in")) }()
	select {
	case err := <-done:
		t.Fatalf("a second message was queued (%v) while the first one's transaction was open", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"first.in", "second.in"} {
		m, _, err := e.svc.PollRequest(ctx, a)
		if err != nil || m == nil || m.Name != want {
			t.Fatalf("head: %+v, %v; want %s", m, err, want)
		}
		e.svc.PollAck(ctx, a, m.ID)
	}
}
