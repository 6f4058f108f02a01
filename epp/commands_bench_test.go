package epp_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/internal/cputime"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// updateFrame is a domain <update> that adds (or removes) clientHold and
// sets an authInfo: two parts of one command.
func updateFrame(name string, add bool) string {
	op := "rem"
	if add {
		op = "add"
	}
	return cmd(`<update><domain:update xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>` + name + `</domain:name>` +
		`<domain:` + op + `><domain:status s="clientHold"/></domain:` + op + `>` +
		`<domain:chg><domain:authInfo><domain:pw>2fooBAR!xQ7wK4pLz</domain:pw></domain:authInfo></domain:chg></domain:update></update>`)
}

// BenchmarkCommands measures EPP creates, updates (a status and the
// authInfo in one command) and renews per second on both stores, with 1
// and 16 sessions: the figures of issue 33 (every command one
// transaction). go test ./epp -run '^$' -bench Commands (PostgreSQL with
// AKSHARA_TEST_POSTGRES_DSN).
//
// Each runs free (no price list: today's registry) and priced (a price
// list for create and renew, each command charged in its transaction:
// issue 36's figure).
func BenchmarkCommands(b *testing.B) {
	for _, st := range registrytest.StoresWith {
		for _, billing := range []string{"free", "priced"} {
			b.Run(st.Name+"/"+billing, func(b *testing.B) {
				clock := registry.NewManualClock(registrytest.T0)
				svc := st.Service(b, registry.ServiceOptions{Clock: clock, Contacts: registrytest.NoContacts()})
				e := newEnvOn(b, svc, epp.Options{MaxSessions: 64})
				e.mu.Lock()
				e.norecord = true
				e.mu.Unlock()
				if billing == "priced" {
					priceForBench(b, svc, "acme")
				}
				for _, kind := range []string{"create", "update", "renew"} {
					for _, sessions := range []int{1, 16} {
						b.Run(fmt.Sprintf("%s/sessions=%d", kind, sessions), func(b *testing.B) {
							benchCommand(b, e, kind, sessions)
						})
					}
				}
			})
		}
	}
}

// priceForBench prices भारत's creates and renewals and gives the
// registrar a balance no benchmark exhausts.
func priceForBench(b *testing.B, svc *registry.Service, registrar string) {
	ctx := b.Context()
	for _, c := range []string{registry.BillCreate, registry.BillRenew} {
		if _, err := svc.SetPrice(ctx, registry.Price{Zone: "भारत", Command: c, Years: 1, Amount: 45000, From: registrytest.T0.Add(-time.Hour)}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := svc.Credit(ctx, registrar, 1_000_000_000_00, registry.EntryCredit, "benchmark"); err != nil {
		b.Fatal(err)
	}
}

func benchCommand(b *testing.B, e *env, kind string, sessions int) {
	type domain struct {
		name, cur string
		held      bool
	}
	type worker struct {
		c       *client
		domains []domain
		n       int
	}
	quota := (b.N + sessions - 1) / sessions
	per := 0 // domains each session creates before the clock starts
	switch kind {
	case "update":
		per = min(quota, 64)
	case "renew":
		per = quota/8 + 1 // eight renews of a year each (the 10-year horizon)
	}
	ws := make([]*worker, sessions)
	for i := range ws {
		c := e.dial()
		c.login("acme", "secret12")
		ws[i] = &worker{c: c}
		for range per {
			name := freshName()
			r := c.do(createFrame(name, "hi", ""))
			m := exDateRE.FindStringSubmatch(r)
			if code(r) != 1000 || m == nil {
				b.Fatalf("create: %s", r)
			}
			ws[i].domains = append(ws[i].domains, domain{name: name, cur: m[1]})
		}
	}
	var failed atomic.Int64
	var firstFail atomic.Value
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	cpu0, _ := cputime.Process()
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range quota {
				var r string
				ok := false
				switch kind {
				case "create":
					r = w.c.do(createFrame(freshName(), "hi", ""))
					ok = code(r) == 1000
				case "update":
					d := &w.domains[w.n%len(w.domains)]
					r = w.c.do(updateFrame(d.name, !d.held))
					if ok = code(r) == 1000; ok {
						d.held = !d.held
					}
				case "renew":
					d := &w.domains[w.n/8]
					r = w.c.do(renewFrame(d.name, d.cur, "1y"))
					m := exDateRE.FindStringSubmatch(r)
					if ok = code(r) == 1000 && m != nil; ok {
						d.cur = m[1]
					}
				}
				w.n++
				if !ok {
					failed.Add(1)
					firstFail.CompareAndSwap(nil, r)
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	b.StopTimer()
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d %ss failed, the first: %v", f, kind, firstFail.Load())
	}
	b.ReportMetric(float64(quota*sessions)/el.Seconds(), "cmds/s")
	if cpu1, ok := cputime.Process(); ok && cpu0 > 0 {
		// the process's CPU (server and clients) a command: steadier than
		// cmds/s on a machine shared with other work
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(quota*sessions), "cpu-µs/cmd")
	}
	for _, w := range ws {
		w.c.conn.Close()
	}
}
