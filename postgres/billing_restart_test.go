package postgres_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/longtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestBillingRestart: the database restarted (pg_ctl restart -m fast)
// under a load of charged creates by four registrars: each create is
// charged exactly once, whether its COMMIT was lost with the restart and
// resolved by its mark or it ran again; every domain has its debit, every
// debit its domain; the accounts reconcile.
func TestBillingRestart(t *testing.T) {
	longtest.Require(t)
	dsn, restart := privateCluster(t)
	store, svc := openService(t, dsn, postgres.Options{})
	ctx := t.Context()
	const price = registry.Money(69950)
	if _, err := svc.SetPrice(ctx, registry.Price{Zone: "in", Command: registry.BillCreate, Years: 1, Amount: price, From: time.Now().Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	var regs []*registry.Registrar
	for i := 0; i < 4; i++ {
		r, _, err := svc.AddRegistrar(ctx, fmt.Sprintf("payer%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Credit(ctx, r.Name, 1000000*price, registry.EntryCredit, "restart test"); err != nil {
			t.Fatal(err)
		}
		regs = append(regs, r)
	}
	var mu sync.Mutex
	acked := map[string]string{}
	failed := 0
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := regs[g%len(regs)]
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("paid-%d-%d.in", g, i)
				_, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: name})
				mu.Lock()
				if err == nil {
					acked[name] = r.Name
				} else {
					failed++
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(time.Second)
	start := time.Now()
	restart()
	took := time.Since(start)
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	t.Logf("restart took %v; %d creates acknowledged, %d failed, %d retries, %d commits resolved", took.Round(time.Millisecond), len(acked), failed, store.Retries(), store.Resolved())
	if store.Retries() == 0 {
		t.Error("no retry: the restart was not felt")
	}
	registrytest.CheckExactlyOnce(t, ctx, svc, price, acked)
}
