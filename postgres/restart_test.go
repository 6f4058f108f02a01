package postgres_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/longtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
)

// privateCluster starts a PostgreSQL server of the test's own (initdb in a
// temporary directory, a free port), so that it can be restarted without
// touching the shared one; as root it runs as the postgres user. It
// returns the DSN and a function that restarts the server.
func privateCluster(t *testing.T) (string, func()) {
	c := newCluster(t, pgBin(t, true))
	c.initdb()
	c.start("fsync=off")
	restart := func() {
		c.run("pg_ctl", "-D", c.data, "-o", c.opts("fsync=off"), "-l", c.log, "-m", "fast", "-w", "restart")
	}
	return c.dsn(), restart
}

// TestPostgresRestart: the database restarted (pg_ctl restart -m fast)
// under a load of checks and creates costs latency, not errors: the store
// retries within its budget, and every create answered is there.
func TestPostgresRestart(t *testing.T) {
	longtest.Require(t)
	dsn, restart := privateCluster(t)
	ctx := t.Context()
	store, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := registry.NewService(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	var ops, failed atomic.Int64
	var created sync.Map
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := svc.Check(ctx, "कमल.भारत", "hi"); err != nil {
					failed.Add(1)
					t.Errorf("check: %v", err)
				}
				name := fmt.Sprintf("restart-%d-%d.in", g, i)
				if _, err := svc.Create(ctx, r, name, ""); err != nil {
					failed.Add(1)
					t.Errorf("create %s: %v", name, err)
				} else {
					created.Store(name, true)
				}
				ops.Add(2)
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
	n := 0
	created.Range(func(k, _ any) bool {
		n++
		if _, err := svc.Info(ctx, k.(string)); err != nil {
			t.Errorf("created %s is missing: %v", k, err)
		}
		return true
	})
	t.Logf("restart took %v; %d operations, %d failed, %d creates, %d retries", took.Round(time.Millisecond), ops.Load(), failed.Load(), n, store.Retries())
	if store.Retries() == 0 {
		t.Error("no retry: the restart was not felt")
	}
}
