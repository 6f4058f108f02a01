package postgres_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestTransferWorkersServers: four servers (each its own store and
// service on one PostgreSQL schema) approve the same due transfers at
// once, with readers of the domains among them: each transfer is
// approved once, every domain moves once, and each party gets exactly
// one message per transfer.
func TestTransferWorkersServers(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := t.Context()
	clk := registry.NewManualClock(registrytest.T0)
	var svcs []*registry.Service
	for range 4 {
		s, err := postgres.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		svc, err := registry.NewServiceWith(ctx, s, registry.ServiceOptions{ContactsExempt: []string{""}, Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		svcs = append(svcs, svc)
	}
	svc := svcs[0]
	losing, _, _ := svc.AddRegistrar(ctx, "losing")
	gaining, _, _ := svc.AddRegistrar(ctx, "gaining")
	if err := svc.SetTransferPolicy(ctx, "in", 5*24*time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range 60 {
		n := fmt.Sprintf("transfer-%03d.in", i)
		if _, err := svc.CreateDomain(ctx, losing, registry.DomainCreate{Name: n, AuthInfo: "Auth-Info-" + n}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: n, Op: registry.TransferRequestOp, AuthInfo: "Auth-Info-" + n, Years: 0}); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	clk.Advance(5 * 24 * time.Hour)
	var wg sync.WaitGroup
	var mu sync.Mutex
	approved := 0
	for i, s := range svcs {
		wg.Add(2)
		go func() {
			defer wg.Done()
			n, err := s.ApproveDueTransfers(ctx, 0)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			approved += n
			mu.Unlock()
		}()
		go func() { // readers approve on read too
			defer wg.Done()
			for j := i; j < len(names); j += len(svcs) {
				if _, err := s.Info(ctx, names[j]); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if approved > len(names) {
		t.Errorf("the workers approved %d transfers of %d", approved, len(names))
	}
	for _, n := range names {
		d, err := svc.Info(ctx, n)
		if err != nil || d.Registrar != "gaining" {
			t.Errorf("%s: %+v, %v", n, d, err)
		}
	}
	for r, want := range map[*registry.Registrar]int{gaining: len(names), losing: 2 * len(names)} {
		_, count, err := svc.PollRequest(ctx, r)
		if err != nil || count != want {
			t.Errorf("%s's queue: %d messages, %v; want %d", r.Name, count, err, want)
		}
	}
	log, err := svc.Audit(ctx, registry.AuditFilter{Action: "transfer-auto-approve"})
	if err != nil || len(log) != len(names) {
		t.Errorf("auto-approvals in the audit log: %d, %v; want %d", len(log), err, len(names))
	}
}
