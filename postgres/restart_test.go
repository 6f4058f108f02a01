package postgres_test

import (
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/longtest"
	"github.com/akshara-idn/akshara/postgres"
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
	store, l := loaded(t, dsn, postgres.Options{}, "restart")
	time.Sleep(time.Second)
	start := time.Now()
	restart()
	took := time.Since(start)
	time.Sleep(time.Second)
	l.wait()
	n := 0
	l.acked.Range(func(k, _ any) bool {
		n++
		if _, err := l.svc.Info(t.Context(), k.(string)); err != nil {
			t.Errorf("created %s is missing: %v", k, err)
		}
		return true
	})
	t.Logf("restart took %v; %d operations, %d failed, %d creates, %d retries", took.Round(time.Millisecond), l.ops.Load(), l.failed.Load(), n, store.Retries())
	if store.Retries() == 0 {
		t.Error("no retry: the restart was not felt")
	}
}
