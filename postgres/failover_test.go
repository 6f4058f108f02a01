package postgres_test

import (
	"database/sql"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/postgres"
)

// TestFailover: the primary stops dead (pg_ctl stop -m immediate) under a
// load of creates and checks, and its standby is promoted (pg_ctl
// promote) after AKSHARA_TEST_FAILOVER_DELAY (10 s unless set, beyond
// the library's 8 s default budget; 30 s for
// the figures of docs/replicas.md). The store's DSN names both servers
// with target_session_attrs=read-write, so that its new connections find
// the promoted one; its retry budget (30 s) covers the wait. No request
// fails, every acknowledged create is on the new primary, none twice.
// The replication is synchronous (synchronous_standby_names = '*'): an
// acknowledged commit is on the standby. Both servers are the test's
// own, never the shared one.
func TestFailover(t *testing.T) {
	primary, standby := replicaPair(t)
	sqlOn(t, primary, "ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()")
	delay := 10 * time.Second
	if v := os.Getenv("AKSHARA_TEST_FAILOVER_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("AKSHARA_TEST_FAILOVER_DELAY: %v", err)
		}
		delay = d
	}
	budget := max(30*time.Second, delay+10*time.Second)
	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?sslmode=disable&target_session_attrs=read-write", primary.port, standby.port)
	ctx := t.Context()
	store, l := loaded(t, dsn, postgres.Options{RetryBudget: budget}, "failover")
	time.Sleep(time.Second)
	start := time.Now()
	primary.run("pg_ctl", "-D", primary.data, "-m", "immediate", "-w", "stop")
	time.Sleep(delay)
	standby.run("pg_ctl", "-D", standby.data, "-w", "promote")
	promoted := time.Since(start)
	time.Sleep(2 * time.Second)
	l.wait()

	// every acknowledged create is on the new primary, once
	db, err := sql.Open("pgx", standby.dsn())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT label || '.' || zone, COUNT(*) FROM domains GROUP BY zone, label`)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]int{}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		stored[name] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	lost, creates := 0, 0
	l.acked.Range(func(k, _ any) bool {
		creates++
		switch stored[k.(string)] {
		case 1:
		case 0:
			lost++
			t.Errorf("acknowledged create %s is not on the new primary", k)
		default:
			t.Errorf("%s is stored %d times", k, stored[k.(string)])
		}
		return true
	})
	t.Logf("failover: primary stopped, standby promoted %v later (budget %v); %d operations, %d failed, %d creates acknowledged, %d lost, %d stored, %d retries, %d commits resolved, longest request %v",
		promoted.Round(time.Millisecond), budget, l.ops.Load(), l.failed.Load(), creates, lost, len(stored), store.Retries(), store.Resolved(), time.Duration(l.worst.Load()).Round(time.Millisecond))
	if store.Retries() == 0 {
		t.Error("no retry: the failover was not felt")
	}
}
