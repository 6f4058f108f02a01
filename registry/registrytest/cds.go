package registrytest

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// testCDS: the child DS automation's decisions (registry/domain_cds.go),
// given scans' reports (package cds makes them from DNS): a request is
// applied only after it stood for the acceptance period (scans and age),
// in one change with the sponsor's change poll message; a problem, a
// different request or DS changed since the scan start the acceptance
// again; CDS delete removes the DS; a bootstrap waits its longer age; the
// update prohibitions and deprecated DS are refused; the state is the
// store's (migration 290).
func testCDS(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := e.ctx
	a, _ := e.registrar("cds-a")
	mustCreate(t, e, a, kitab)
	_, err := e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1." + kitab, Addrs: []registry.Addr{v4("8.8.8.8")}})
	must(t, "CreateHost", err)
	dsA := registry.DS{KeyTag: 1, Algorithm: 13, DigestType: 2, Digest: strings.Repeat("A1", 32)}
	dsB := registry.DS{KeyTag: 2, Algorithm: 13, DigestType: 2, Digest: strings.Repeat("B2", 32)}
	dsC := registry.DS{KeyTag: 3, Algorithm: 15, DigestType: 4, Digest: strings.Repeat("C3", 48)}
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddNS: []string{"ns1." + kitab}, AddDS: []registry.DS{dsA}})
	must(t, "UpdateDomain", err)
	acc := registry.CDSAcceptance{Scans: 3, Age: 2 * time.Hour, BootstrapAge: 72 * time.Hour}
	dsOf := func() []registry.DS {
		t.Helper()
		d, err := e.svc.Info(ctx, kitab)
		must(t, "Info", err)
		return d.DS
	}
	observe := func(what string, rep registry.CDSReport, outcome string, seen int) *registry.CDSResult {
		t.Helper()
		rep.Name = kitab
		res, err := e.svc.ObserveCDS(ctx, rep, acc)
		must(t, "ObserveCDS "+what, err)
		if res.Outcome != outcome || (seen > 0 && res.Seen != seen) {
			t.Fatalf("%s: %+v, want %s seen %d", what, res, outcome, seen)
		}
		e.clock.Advance(time.Hour)
		return res
	}
	drain := func() []registry.PollMessage {
		t.Helper()
		var out []registry.PollMessage
		for {
			m, _, err := e.svc.PollRequest(ctx, a)
			must(t, "PollRequest", err)
			if m == nil {
				return out
			}
			out = append(out, *m)
			_, err = e.svc.PollAck(ctx, a, m.ID)
			must(t, "PollAck", err)
		}
	}
	drain()

	observe("no CDS", registry.CDSReport{Current: []registry.DS{dsA}, None: true}, registry.CDSNone, 0)
	observe("the DS asked are the DS", registry.CDSReport{Current: []registry.DS{dsA}, DS: []registry.DS{dsA}}, registry.CDSInSync, 0)
	// a rollover: A -> B, three scans over two hours
	roll := registry.CDSReport{Current: []registry.DS{dsA}, DS: []registry.DS{dsB}}
	observe("rollover 1", roll, registry.CDSPending, 1)
	observe("rollover 2", roll, registry.CDSPending, 2)
	// a scan that found the servers disagreeing starts again
	observe("a problem", registry.CDSReport{Current: []registry.DS{dsA}, Problem: "the name servers disagree"}, registry.CDSRejected, 0)
	observe("rollover 1 again", roll, registry.CDSPending, 1)
	// another request starts again too
	observe("another request", registry.CDSReport{Current: []registry.DS{dsA}, DS: []registry.DS{dsC}}, registry.CDSPending, 1)
	observe("rollover 1 once more", roll, registry.CDSPending, 1)
	observe("rollover 2", roll, registry.CDSPending, 2)
	if got := dsOf(); !slices.Equal(got, []registry.DS{dsA}) || len(drain()) != 0 {
		t.Fatalf("DS within the acceptance period: %v, want A, and no poll message", got)
	}
	pending := func() int {
		t.Helper()
		cs, err := e.svc.PendingDNS(ctx, []string{"भारत"}, 1000)
		must(t, "PendingDNS", err)
		return len(cs)
	}
	before := pending()
	res := observe("rollover 3", roll, registry.CDSApplied, 3)
	// the DS change is recorded for continuous publication (the DNS
	// outbox) in the same transaction
	if after := pending(); after <= before {
		t.Fatalf("the DNS outbox after the CDS's DS change: %d changes pending, %d before; want one more", after, before)
	}
	if got := dsOf(); !slices.Equal(got, []registry.DS{dsB}) || !slices.Equal(res.DS, got) {
		t.Fatalf("DS after the acceptance: %v (%v), want B", got, res.DS)
	}
	msgs := drain()
	if len(msgs) != 1 || msgs[0].Change == nil || msgs[0].Change.Op != "cds" || msgs[0].Change.Who != "registry" || msgs[0].Change.Operation != registry.ChangeUpdate ||
		!strings.Contains(msgs[0].Text, "2 13 2 "+dsB.Digest) {
		t.Fatalf("the sponsor's poll messages: %+v, want one change message of the CDS", msgs)
	}
	observe("after", roll, registry.CDSStale, 0)
	observe("in sync", registry.CDSReport{Current: []registry.DS{dsB}, DS: []registry.DS{dsB}}, registry.CDSInSync, 0)

	// refused: deprecated DS (SHA-1), an update prohibition
	observe("SHA-1", registry.CDSReport{Current: []registry.DS{dsB}, DS: []registry.DS{{KeyTag: 4, Algorithm: 13, DigestType: 1, Digest: strings.Repeat("D4", 20)}}}, registry.CDSRejected, 0)
	_, err = e.svc.UpdateDomain(ctx, nil, registry.DomainUpdate{Name: kitab, AddStatuses: []string{registry.StatusServerUpdateProhibited}})
	must(t, "serverUpdateProhibited", err)
	del := registry.CDSReport{Current: []registry.DS{dsB}, Delete: true}
	observe("prohibited", del, registry.CDSProhibited, 0)
	_, err = e.svc.UpdateDomain(ctx, nil, registry.DomainUpdate{Name: kitab, RemStatuses: []string{registry.StatusServerUpdateProhibited}})
	must(t, "no serverUpdateProhibited", err)
	drain()

	// CDS delete: the DS removed
	observe("delete 1", del, registry.CDSPending, 1)
	observe("delete 2", del, registry.CDSPending, 2)
	observe("delete 3", del, registry.CDSDeleted, 3)
	if got := dsOf(); len(got) != 0 {
		t.Fatalf("DS after the delete: %v, want none", got)
	}
	if msgs := drain(); len(msgs) != 1 || msgs[0].Change == nil || !strings.Contains(msgs[0].Change.Reason, "delete") {
		t.Fatalf("the delete's poll messages: %+v", msgs)
	}
	observe("deleted, delete still published", registry.CDSReport{Delete: true}, registry.CDSInSync, 0)

	// bootstrap: the scans are not enough, the age is
	boot := registry.CDSReport{DS: []registry.DS{dsA, dsC}, Bootstrap: true}
	for i := 1; i <= 4; i++ {
		observe("bootstrap", boot, registry.CDSPending, i)
	}
	e.clock.Advance(acc.BootstrapAge)
	observe("bootstrap after its age", boot, registry.CDSApplied, 5)
	if got := dsOf(); !slices.Equal(got, []registry.DS{dsA, dsC}) {
		t.Fatalf("DS after the bootstrap: %v", got)
	}
	if _, err := e.svc.ObserveCDS(ctx, registry.CDSReport{Name: "nosuch.भारत", None: true}, acc); registry.CodeOf(err) != registry.CodeNotFound {
		t.Fatalf("a domain that is not: %v", err)
	}
	drain()

	// several scanners (serve processes) report the accepted request at
	// once: it is applied once, the others find it stale, one message
	race := registry.CDSReport{Name: kitab, Current: []registry.DS{dsA, dsC}, DS: []registry.DS{dsB}}
	outcomes := make([]string, 8)
	var wg sync.WaitGroup
	for i := range outcomes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := e.svc.ObserveCDS(ctx, race, registry.CDSAcceptance{Scans: 1})
			if err != nil {
				outcomes[i] = err.Error()
				return
			}
			outcomes[i] = res.Outcome
		}()
	}
	wg.Wait()
	slices.Sort(outcomes)
	want := append([]string{registry.CDSApplied}, slices.Repeat([]string{registry.CDSStale}, 7)...)
	if !slices.Equal(outcomes, want) {
		t.Errorf("8 scanners at once: %v, want one applied, the others stale", outcomes)
	}
	if got := dsOf(); !slices.Equal(got, []registry.DS{dsB}) {
		t.Errorf("DS after the race: %v", got)
	}
	if msgs := drain(); len(msgs) != 1 {
		t.Errorf("%d poll messages after the race, want 1", len(msgs))
	}
}
