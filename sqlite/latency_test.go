package sqlite

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/testlabel"
	"github.com/akshara-idn/akshara/registry"
)

// label is the i-th of many distinct valid Hindi labels.
func label(i int) string { return testlabel.Hindi(i) }

// BenchmarkCreateLatency: creates by 8 and 64 concurrent clients on one
// SQLite file (durable commits), with and without the group commit of
// write transactions; reports creates/s and the latency percentiles.
func BenchmarkCreateLatency(b *testing.B) {
	for _, grouped := range []bool{false, true} {
		for _, conns := range []int{8, 64} {
			b.Run(fmt.Sprintf("grouped=%v/clients=%d", grouped, conns), func(b *testing.B) {
				old := groupWrites
				groupWrites = grouped
				defer func() { groupWrites = old }()
				ctx := context.Background()
				store, err := Open(ctx, b.TempDir()+"/lat.db")
				if err != nil {
					b.Fatal(err)
				}
				defer store.Close()
				svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
				if err != nil {
					b.Fatal(err)
				}
				r, _, err := svc.AddRegistrar(ctx, "bench")
				if err != nil {
					b.Fatal(err)
				}
				lat := make([]time.Duration, b.N)
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				for c := 0; c < conns; c++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							i := int(next.Add(1)) - 1
							if i >= b.N {
								return
							}
							start := time.Now()
							if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: label(i) + ".भारत", Lang: "hi"}); err != nil {
								b.Error(err)
								return
							}
							lat[i] = time.Since(start)
						}
					}()
				}
				wg.Wait()
				b.StopTimer()
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
				b.ReportMetric(q(0.50), "p50-ms")
				b.ReportMetric(q(0.99), "p99-ms")
				b.ReportMetric(q(1), "max-ms")
			})
		}
	}
}
