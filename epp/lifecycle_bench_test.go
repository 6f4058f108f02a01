package epp_test

import (
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

var exDateRE = regexp.MustCompile(`<domain:exDate>(\d{4}-\d\d-\d\d)`)

// BenchmarkRenew measures EPP renews per second on both stores, with 1
// and 16 sessions, each renewing its own domains by a year at a time,
// each 8 times (then the next: the 10-year horizon). go test ./epp -run '^$' -bench Renew (PostgreSQL
// with AKSHARA_TEST_POSTGRES_DSN).
func BenchmarkRenew(b *testing.B) {
	for _, st := range registrytest.StoresWith {
		b.Run(st.Name, func(b *testing.B) {
			clock := registry.NewManualClock(registrytest.T0)
			svc := st.Service(b, registry.ServiceOptions{Clock: clock, Contacts: registrytest.NoContacts()})
			e := newEnvOn(b, svc, epp.Options{MaxSessions: 64})
			e.mu.Lock()
			e.norecord = true
			e.mu.Unlock()
			for _, sessions := range []int{1, 16} {
				b.Run(fmt.Sprintf("sessions=%d", sessions), func(b *testing.B) {
					type domain struct{ name, cur string }
					type worker struct {
						c       *client
						domains []domain
						n       int // renews done
					}
					quota := (b.N + sessions - 1) / sessions // renews per session
					per := quota/8 + 1
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
							ws[i].domains = append(ws[i].domains, domain{name, m[1]})
						}
					}
					var failed atomic.Int64
					var firstFail atomic.Value
					var wg sync.WaitGroup
					b.ResetTimer()
					start := time.Now()
					for _, w := range ws {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for range quota {
								d := &w.domains[w.n/8]
								w.n++
								r := w.c.do(renewFrame(d.name, d.cur, "1y"))
								m := exDateRE.FindStringSubmatch(r)
								if code(r) != 1000 || m == nil {
									failed.Add(1)
									firstFail.CompareAndSwap(nil, r)
									continue
								}
								d.cur = m[1]
							}
						}()
					}
					wg.Wait()
					el := time.Since(start)
					b.StopTimer()
					if f := failed.Load(); f > 0 {
						b.Fatalf("%d renews failed, the first: %v", f, firstFail.Load())
					}
					b.ReportMetric(float64(quota*sessions)/el.Seconds(), "renews/s")
					for _, w := range ws {
						w.c.conn.Close()
					}
				})
			}
		})
	}
}
