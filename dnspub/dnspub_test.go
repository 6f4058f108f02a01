package dnspub_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/akshara-idn/akshara/dnspub"
	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// fakePrimary is a DNS server that applies RFC 2136 UPDATEs to a map
// (owner -> "TYPE rdata" set), checks their TSIG, counts each owner's
// additions, and answers NS queries from the map (the change guard's).
type fakePrimary struct {
	mu      sync.Mutex
	rrs     map[string]map[string]bool
	adds    map[string]int // owner -> UPDATEs that added to it
	updates int
	addr    string
	fail    bool // answer SERVFAIL
}

const keyName, keySecret = "update-key.", "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ="

func startPrimary(t *testing.T) *fakePrimary {
	t.Helper()
	f := &fakePrimary{rrs: map[string]map[string]bool{}, adds: map[string]int{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = l.Addr().String()
	srv := &dns.Server{Listener: l, TsigSecret: map[string]string{keyName: keySecret}, Handler: dns.HandlerFunc(f.serve),
		MsgAcceptFunc: func(dns.Header) dns.MsgAcceptAction { return dns.MsgAccept }} // UPDATEs too
	go srv.ActivateAndServe()
	t.Cleanup(func() { srv.Shutdown() })
	return f
}

func (f *fakePrimary) serve(w dns.ResponseWriter, m *dns.Msg) {
	r := new(dns.Msg)
	r.SetReply(m)
	f.mu.Lock()
	defer f.mu.Unlock()
	if m.Opcode == dns.OpcodeUpdate {
		if m.IsTsig() == nil || w.TsigStatus() != nil || f.fail {
			r.Rcode = dns.RcodeRefused
			if f.fail {
				r.Rcode = dns.RcodeServerFailure
			}
			w.WriteMsg(r)
			return
		}
		f.updates++
		added := map[string]bool{}
		for _, rr := range m.Ns {
			h := rr.Header()
			owner := strings.ToLower(h.Name)
			if h.Class == dns.ClassANY {
				for k := range f.rrs[owner] {
					if strings.HasPrefix(k, dns.TypeToString[h.Rrtype]+" ") {
						delete(f.rrs[owner], k)
					}
				}
				continue
			}
			if f.rrs[owner] == nil {
				f.rrs[owner] = map[string]bool{}
			}
			f.rrs[owner][dns.TypeToString[h.Rrtype]+" "+strings.TrimPrefix(rr.String(), h.String())] = true
			added[owner] = true
		}
		for o := range added {
			f.adds[o]++
		}
		r.SetTsig(keyName, dns.HmacSHA256, 300, time.Now().Unix())
		w.WriteMsg(r)
		return
	}
	q := m.Question[0]
	for k := range f.rrs[strings.ToLower(q.Name)] {
		if strings.HasPrefix(k, "NS ") {
			rr, _ := dns.NewRR(q.Name + " 3600 IN " + k)
			r.Ns = append(r.Ns, rr)
		}
	}
	w.WriteMsg(r)
}

// zone is the fake primary's records below the apex, one a line, sorted.
func (f *fakePrimary) zone() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var l []string
	for o, set := range f.rrs {
		for k := range set {
			l = append(l, o+" "+k)
		}
	}
	sort.Strings(l)
	return strings.Join(l, "\n")
}

type env struct {
	t     *testing.T
	ctx   context.Context
	store registry.Store
	svc   *registry.Service
	clock *registry.ManualClock
	r     *registry.Registrar
	p     *fakePrimary
}

func newEnv(t *testing.T, store registry.Store) *env {
	t.Helper()
	ctx := context.Background()
	clock := registry.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{Clock: clock, ContactsExempt: []string{""}}) // names seeded by Go calls, without contacts
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ctx: ctx, store: store, svc: svc, clock: clock, r: r, p: startPrimary(t)}
	if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns1.example.net"}); err != nil {
		t.Fatal(err)
	}
	return e
}

func sqliteStore(t *testing.T) registry.Store {
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func pgStore(t *testing.T) registry.Store {
	dsn := pgtest.DSN(t)
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func (e *env) publisher(o dnspub.Options) *dnspub.Publisher {
	e.t.Helper()
	o.Server, o.Zones = e.p.addr, []string{"in"}
	o.Key = &dnspub.Key{Name: keyName, Alg: dns.HmacSHA256, Secret: keySecret}
	p, err := dnspub.New(e.svc, o)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) create(name string) {
	e.t.Helper()
	if _, err := e.svc.CreateDomain(e.ctx, e.r, registry.DomainCreate{Name: name, NameServers: []string{"ns1.example.net"}}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) round(p *dnspub.Publisher) dnspub.RoundReport {
	e.t.Helper()
	rep, err := p.Round(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return rep
}

func (e *env) depth() int64 {
	st, err := e.svc.DNSOutbox(e.ctx, "in")
	if err != nil {
		e.t.Fatal(err)
	}
	return st.Pending
}

func TestPublish(t *testing.T) {
	for _, s := range []struct {
		name string
		open func(*testing.T) registry.Store
	}{{"sqlite", sqliteStore}, {"postgres", pgStore}} {
		t.Run(s.name, func(t *testing.T) { testPublish(t, s.open(t)) })
	}
}

// testPublish: creates, a DS, a hold and a delete reach the primary by
// UPDATE, each owner's RRsets replaced; the outbox is empty after; a
// primary answering SERVFAIL leaves the rows (counted as a failure); a
// publisher stopped between an UPDATE and its mark loses nothing (the
// next publisher sends the rows again, once its lease expired).
func testPublish(t *testing.T, store registry.Store) {
	e := newEnv(t, store)
	p := e.publisher(dnspub.Options{})
	e.create("alpha.in")
	e.create("bravo.in")
	if rep := e.round(p); !rep.Leader || rep.Owners != 2 || rep.Updates != 1 {
		t.Errorf("round: %+v, want 2 owners in 1 UPDATE", rep)
	}
	want := "alpha.in. NS ns1.example.net.\nbravo.in. NS ns1.example.net."
	if got := e.p.zone(); got != want {
		t.Errorf("primary:\n%s\nwant:\n%s", got, want)
	}
	if d := e.depth(); d != 0 {
		t.Errorf("outbox depth %d after a round, want 0", d)
	}
	_, err := e.svc.UpdateDomain(e.ctx, e.r, registry.DomainUpdate{Name: "alpha.in", AddStatuses: []string{registry.StatusClientHold}})
	must(t, err)
	_, err = e.svc.UpdateDomain(e.ctx, e.r, registry.DomainUpdate{Name: "bravo.in", AddDS: []registry.DS{{KeyTag: 1, Algorithm: 13, DigestType: 2, Digest: strings.Repeat("AB", 32)}}})
	must(t, err)
	e.round(p)
	want = "bravo.in. DS 1 13 2 " + strings.Repeat("AB", 32) + "\nbravo.in. NS ns1.example.net."
	if got := e.p.zone(); got != want {
		t.Errorf("primary after a hold and a DS:\n%s\nwant:\n%s", got, want)
	}
	// the primary fails: the rows stay, a failure counted
	e.p.fail = true
	_, err = e.svc.UpdateDomain(e.ctx, e.r, registry.DomainUpdate{Name: "alpha.in", RemStatuses: []string{registry.StatusClientHold}})
	must(t, err)
	if _, err := p.Round(e.ctx); err == nil {
		t.Errorf("round against a failing primary: no error")
	}
	if d := e.depth(); d != 1 {
		t.Errorf("outbox depth %d after a failed UPDATE, want 1", d)
	}
	if n := testutil.ToFloat64(p.Collectors()[3]); n != 1 {
		t.Errorf("akshara_dns_update_failures_total %v, want 1", n)
	}
	e.p.fail = false
	// a publisher stopped after the UPDATE, before the mark: a kill
	e.create("charlie.in")
	dead := e.publisher(dnspub.Options{Holder: "dead", AfterUpdate: func() { runtime.Goexit() }})
	e.clock.Advance(time.Minute) // p's lease expired: dead takes it
	done := make(chan struct{})
	go func() { defer close(done); dead.Round(e.ctx) }()
	<-done
	if d := e.depth(); d != 2 {
		t.Errorf("outbox depth %d after a publisher died between UPDATE and mark, want 2", d)
	}
	if rep := e.round(p); rep.Leader {
		t.Errorf("the lease of the dead publisher was taken before it expired")
	}
	e.clock.Advance(10 * time.Second)
	if rep := e.round(p); !rep.Leader || rep.Owners != 2 {
		t.Errorf("round after the takeover: %+v, want the 2 owners sent again", rep)
	}
	want = "alpha.in. NS ns1.example.net.\nbravo.in. DS 1 13 2 " + strings.Repeat("AB", 32) + "\nbravo.in. NS ns1.example.net.\ncharlie.in. NS ns1.example.net."
	if got := e.p.zone(); got != want {
		t.Errorf("primary after the takeover:\n%s\nwant:\n%s", got, want)
	}
	// a delete in the add grace period purges it at once
	_, err = e.svc.DeleteDomain(e.ctx, e.r, registry.DomainDelete{Name: "charlie.in"})
	must(t, err)
	e.round(p)
	if got := e.p.zone(); strings.Contains(got, "charlie") {
		t.Errorf("deleted domain still at the primary:\n%s", got)
	}
}

func TestTwoPublishers(t *testing.T) {
	for _, s := range []struct {
		name string
		open func(*testing.T) registry.Store
	}{{"sqlite", sqliteStore}, {"postgres", pgStore}} {
		t.Run(s.name, func(t *testing.T) { testTwoPublishers(t, s.open(t)) })
	}
}

// testTwoPublishers: two publishers on one store, rounds running at once
// while names are created: every owner is added at the primary exactly
// once (one holds the lease, the other stands by).
func testTwoPublishers(t *testing.T, store registry.Store) {
	e := newEnv(t, store)
	svc2, err := registry.NewServiceWith(e.ctx, store, registry.ServiceOptions{Clock: e.clock, ContactsExempt: []string{""}})
	must(t, err)
	p1 := e.publisher(dnspub.Options{Holder: "one"})
	e2 := *e
	e2.svc = svc2
	p2 := e2.publisher(dnspub.Options{Holder: "two"})
	const n = 60
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var leaders [2]int
	for i, p := range []*dnspub.Publisher{p1, p2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				rep, err := p.Round(e.ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if rep.Owners > 0 {
					leaders[i]++
				}
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
			}
		}()
	}
	for i := range n {
		e.create(fmt.Sprintf("name%d.in", i))
	}
	for i := 0; e.depth() > 0; i++ {
		if i == 2000 {
			t.Fatalf("the outbox was not drained: %d rows", e.depth())
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	e.p.mu.Lock()
	defer e.p.mu.Unlock()
	if len(e.p.adds) != n {
		t.Errorf("%d owners at the primary, want %d", len(e.p.adds), n)
	}
	for o, k := range e.p.adds {
		if k != 1 {
			t.Errorf("%s added %d times, want once", o, k)
		}
	}
	if leaders[0] > 0 && leaders[1] > 0 {
		t.Errorf("both publishers published (%v): the lease did not hold", leaders)
	}
}

// TestGuard: the five-name zone — one hold and one delete are
// published (below the floor), and the next create with them; with the
// floor at 1, a batch dropping 3 of 5 delegations is held back, logged
// and counted, while a create in the same batch is published; released,
// the drops go.
func TestGuard(t *testing.T) {
	e := newEnv(t, sqliteStore(t))
	p := e.publisher(dnspub.Options{}) // the defaults: floor 100, 10%
	for _, n := range []string{"one.in", "two.in", "three.in", "four.in", "five.in"} {
		e.create(n)
	}
	e.round(p)
	e.clock.Advance(6 * 24 * time.Hour) // past the add grace: a delete is kept
	_, err := e.svc.UpdateDomain(e.ctx, e.r, registry.DomainUpdate{Name: "one.in", AddStatuses: []string{registry.StatusClientHold}})
	must(t, err)
	_, err = e.svc.DeleteDomain(e.ctx, e.r, registry.DomainDelete{Name: "two.in"})
	must(t, err)
	e.create("six.in")
	if rep := e.round(p); rep.Held != 0 || rep.Owners != 3 {
		t.Errorf("five-name zone, a hold, a delete and a create: %+v, want 3 owners published, none held", rep)
	}
	want := "five.in. NS ns1.example.net.\nfour.in. NS ns1.example.net.\nsix.in. NS ns1.example.net.\nthree.in. NS ns1.example.net."
	if got := e.p.zone(); got != want {
		t.Errorf("primary:\n%s\nwant:\n%s", got, want)
	}
	// floor 1: three drops of four delegations are held, the create goes
	strict := e.publisher(dnspub.Options{GuardFloor: 1, GuardMaxDrop: 0.10})
	e.clock.Advance(time.Minute) // p's lease expired
	for _, n := range []string{"three.in", "four.in", "five.in"} {
		_, err := e.svc.UpdateDomain(e.ctx, nil, registry.DomainUpdate{Name: n, AddStatuses: []string{registry.StatusServerHold}}) // the operator's
		must(t, err)
	}
	e.create("seven.in")
	rep := e.round(strict)
	if rep.Held != 3 || rep.Owners != 1 {
		t.Errorf("a batch dropping 3: %+v, want 3 held and the create published", rep)
	}
	if n := testutil.ToFloat64(strict.Collectors()[4]); n != 1 {
		t.Errorf("akshara_dns_guard_refusals_total %v, want 1", n)
	}
	if got := e.p.zone(); !strings.Contains(got, "seven.in.") || !strings.Contains(got, "three.in.") {
		t.Errorf("primary after the refused batch (drops kept, the create published):\n%s", got)
	}
	st, _ := e.svc.DNSOutbox(e.ctx, "in")
	if st.Held != 3 || st.Pending != 0 {
		t.Errorf("outbox after the refusal: %+v, want 3 held", st)
	}
	// later batches flow; the held ones wait
	e.create("eight.in")
	if rep := e.round(strict); rep.Owners != 1 || rep.Held != 0 {
		t.Errorf("the next batch: %+v, want the create published", rep)
	}
	n, err := e.svc.ReleaseDNS(e.ctx, "in")
	if err != nil || n != 3 {
		t.Fatalf("ReleaseDNS: %d %v", n, err)
	}
	if rep := e.round(strict); rep.Owners != 3 || rep.Held != 0 {
		t.Errorf("released: %+v, want the 3 drops published", rep)
	}
	want = "eight.in. NS ns1.example.net.\nseven.in. NS ns1.example.net.\nsix.in. NS ns1.example.net."
	if got := e.p.zone(); got != want {
		t.Errorf("primary after the release:\n%s\nwant:\n%s", got, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
