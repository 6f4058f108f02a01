package registry_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/cputime"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// BenchmarkCharge measures the charge in a command's transaction at the
// service (no network): renewals of one domain by a year, in a zone
// without a price list (free) and with one (priced: the price read, the
// account debited, the ledger entry written), on each store; the time
// and the process's CPU per renewal. go test ./registry -run '^$' -bench
// Charge (PostgreSQL with AKSHARA_TEST_POSTGRES_DSN).
func BenchmarkCharge(b *testing.B) {
	for _, st := range registrytest.StoresWith {
		for _, billing := range []string{"free", "priced"} {
			b.Run(st.Name+"/"+billing, func(b *testing.B) {
				clk := registry.NewManualClock(registrytest.T0)
				svc := st.Service(b, registry.ServiceOptions{Clock: clk, Contacts: registrytest.NoContacts()})
				ctx := b.Context()
				r, _, err := svc.AddRegistrar(ctx, "bench")
				if err != nil {
					b.Fatal(err)
				}
				if billing == "priced" {
					if _, err := svc.SetPrice(ctx, registry.Price{Zone: "in", Command: registry.BillRenew, Years: 1, Amount: 45000, From: registrytest.T0.Add(-time.Hour)}); err != nil {
						b.Fatal(err)
					}
					if _, err := svc.Credit(ctx, r.Name, 1_000_000_000_00, registry.EntryCredit, "bench"); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu0, _ := cputime.Process()
				var d *registry.Domain
				for i := range b.N {
					if i%8 == 0 { // a fresh domain every 8 years (the 10-year horizon)
						b.StopTimer()
						if d, err = svc.CreateDomain(ctx, r, registry.DomainCreate{Name: fmt.Sprintf("renew%07d.in", i)}); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					if d, err = svc.RenewDomain(ctx, r, registry.DomainRenew{Name: d.Name, CurExpiry: d.Expires, Period: registry.Period{N: 1, Unit: 'y'}}); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				if cpu1, ok := cputime.Process(); ok {
					b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
				}
			})
		}
	}
}
