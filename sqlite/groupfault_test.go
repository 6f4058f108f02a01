package sqlite_test

import (
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/faultdriver"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestGroupCommitLost: two commands committed together by the group
// writer (internal/sqlstore group.go), whose COMMIT took effect though
// the client was told it failed (FailAfter), are each applied once and
// answered with success: the writer runs them again alone, and each finds
// its mark (tx_marks) committed. Before, each ran again on the state it
// had already changed: a renew answered WRONG_EXPIRY though it had renewed
// the domain.
func TestGroupCommitLost(t *testing.T) {
	registerFaults.Do(func() { sql.Register("sqlite-faults", faults) })
	store, _ := openFaulted(t)
	clock := registry.NewManualClock(registrytest.T0)
	svc, err := registry.NewServiceWith(t.Context(), store, registry.ServiceOptions{Clock: clock, Contacts: registrytest.NoContacts()})
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{registrytest.WorldDomain(0), registrytest.WorldDomain(1), registrytest.WorldDomain(2)}
	for _, n := range names {
		if _, err := svc.CreateDomain(t.Context(), r, registry.DomainCreate{Name: n, Lang: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	expiry := registrytest.T0.AddDate(1, 0, 0)
	renew := func(name string) error {
		_, err := svc.RenewDomain(t.Context(), r, registry.DomainRenew{Name: name, CurExpiry: expiry, Period: registry.Period{N: 1, Unit: 'y'}})
		return err
	}

	// the first renew holds the writer in its first statement until the
	// other two are queued behind it: they are then run as one group,
	// whose COMMIT takes effect and fails
	release := make(chan struct{})
	var once sync.Once
	commits := 0
	faults.SetPlan(faultdriver.Plan{
		Mark: func(string) bool { return true },
		Statement: func(_ string, inTx bool) error {
			if inTx {
				once.Do(func() { <-release })
			}
			return nil
		},
		Commit: func(bool) (faultdriver.Commit, error) {
			if commits++; commits == 2 {
				return faultdriver.FailAfter, driverBadConn{}
			}
			return faultdriver.Pass, nil
		},
	})
	defer faults.SetPlan(faultdriver.Plan{})
	before := store.GroupedWrites()
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = renew(n) }()
		for store.GroupedWrites() < before+int64(i)+1 {
			time.Sleep(time.Millisecond)
		}
	}
	close(release)
	wg.Wait()
	faults.SetPlan(faultdriver.Plan{})
	if commits < 2 {
		t.Fatalf("%d commits: the group's was not faulted", commits)
	}
	for i, n := range names {
		if errs[i] != nil {
			t.Errorf("renew %s: %v, want it applied", n, errs[i])
		}
		d, err := svc.Info(t.Context(), n)
		if err != nil {
			t.Fatal(err)
		}
		if want := expiry.AddDate(1, 0, 0); !d.Expires.Equal(want) {
			t.Errorf("%s expires %s, want %s: renewed once", n, d.Expires, want)
		}
		audit, err := svc.Audit(t.Context(), registry.AuditFilter{Name: n, Action: "renew"})
		if err != nil {
			t.Fatal(err)
		}
		if len(audit) != 1 || audit[0].Result == "" || audit[0].Result[:2] != "ok" {
			t.Errorf("%s: renew audit records %+v, want one, ok", n, audit)
		}
	}
}
