package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
)

// countingPrimary is a DNS server that accepts TSIG-signed UPDATEs and
// counts, for each owner, the UPDATEs that added records to it.
type countingPrimary struct {
	mu   sync.Mutex
	adds map[string]int
	addr string
}

func startCountingPrimary(t *testing.T) *countingPrimary {
	t.Helper()
	p := &countingPrimary{adds: map[string]int{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = l.Addr().String()
	srv := &dns.Server{Listener: l, TsigSecret: map[string]string{updateKey.name: updateKey.secret},
		MsgAcceptFunc: func(dns.Header) dns.MsgAcceptAction { return dns.MsgAccept },
		Handler: dns.HandlerFunc(func(w dns.ResponseWriter, m *dns.Msg) {
			r := new(dns.Msg)
			r.SetReply(m)
			if m.Opcode != dns.OpcodeUpdate || m.IsTsig() == nil || w.TsigStatus() != nil {
				r.Rcode = dns.RcodeRefused
				w.WriteMsg(r)
				return
			}
			p.mu.Lock()
			seen := map[string]bool{}
			for _, rr := range m.Ns {
				if rr.Header().Class == dns.ClassINET && !seen[rr.Header().Name] {
					seen[rr.Header().Name] = true
					p.adds[rr.Header().Name]++
				}
			}
			p.mu.Unlock()
			r.SetTsig(updateKey.name, updateKey.alg, 300, time.Now().Unix())
			w.WriteMsg(r)
		})}
	go srv.ActivateAndServe()
	t.Cleanup(func() { srv.Shutdown() })
	return p
}

// TestServeDNSTwoOnPostgres (issue 37): two akshara serve processes on
// one PostgreSQL database, both with -dns-update -dns-tsig -dns-zone:
// each change is sent once (one holds the lease); when that process is
// killed (SIGKILL), the other takes over within seconds and what was
// recorded meanwhile is sent, once; /metrics shows the outbox's depth
// and the lag.
func TestServeDNSTwoOnPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	store, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}}) // names seeded by Go calls, without contacts
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns.example.net"}); err != nil {
		t.Fatal(err)
	}
	p := startCountingPrimary(t)
	args := []string{"-dsn", dsn, "-dns-update", p.addr, "-dns-tsig", updateKey.flag(), "-dns-zone", "in", "-dns-interval", "50ms", "-lifecycle-interval", "0"}
	s1, base1 := startServer(t, args...)
	s2, base2 := startServer(t, args...)
	servers := map[string]interface{ Kill() error }{base1: s1.Process, base2: s2.Process}
	defer func() {
		for _, s := range []interface{ Wait() error }{s1, s2} {
			s.Wait()
		}
	}()
	defer s1.Process.Kill()
	defer s2.Process.Kill()
	create := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: fmt.Sprintf("two%d.in", i), NameServers: []string{"ns.example.net"}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	drained := func(what string) time.Duration {
		t.Helper()
		start := time.Now()
		waitFor(t, what, time.Minute, func() bool { return outboxDepth(t, ctx, svc) == 0 })
		return time.Since(start)
	}
	create(0, 200)
	drained("200 creates published")
	// the publisher: the process whose /metrics says it holds the lease
	leader := ""
	for base := range servers {
		if m := metricsOf(t, base); strings.Contains(m, "\nakshara_dns_publisher_lease 1\n") {
			if leader != "" {
				t.Errorf("both serve processes say they hold the lease")
			}
			leader = base
		}
		if m := metricsOf(t, base); !strings.Contains(m, `akshara_dns_outbox_depth{zone="in."}`) || !strings.Contains(m, `akshara_dns_publish_lag_seconds{zone="in."}`) {
			t.Errorf("%s/metrics lacks the outbox's depth or lag:\n%.2000s", base, m)
		}
	}
	if leader == "" {
		t.Fatal("no serve process holds the lease")
	}
	servers[leader].Kill()
	create(200, 300)
	took := drained("the 100 creates after the publisher was killed")
	t.Logf("the other serve process took over and published within %s", took.Round(10*time.Millisecond))
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.adds) != 300 {
		t.Errorf("%d owners at the primary, want 300", len(p.adds))
	}
	for o, n := range p.adds {
		if n != 1 {
			t.Errorf("%s sent %d times, want once", o, n)
		}
	}
}

func metricsOf(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
