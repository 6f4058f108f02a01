package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestLifecycleCrash: "akshara lifecycle run" is killed with SIGKILL in the
// middle of purging 3,000 domains; afterwards every domain left holds its
// whole conflict set (no set half freed), every purge done is recorded in
// the audit log (the record is in the purge's transaction), and a second
// run purges the rest. Both stores.
func TestLifecycleCrash(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		open func() (*sqlstore.Store, error)
		args []string
	}{
		{"sqlite", func() (*sqlstore.Store, error) { return sqlite.Open(context.Background(), filepath.Join(dir, "r.db")) },
			[]string{"-db", filepath.Join(dir, "r.db")}},
		{"postgres", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.open == nil {
				dsn := pgtest.DSN(t)
				tc.open = func() (*sqlstore.Store, error) { return postgres.Open(context.Background(), dsn) }
				tc.args = []string{"-dsn", dsn}
			}
			const n = 3000
			store, err := tc.open()
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			svc, err := registry.NewServiceWith(context.Background(), store, registry.ServiceOptions{ContactsExempt: []string{""}})
			if err != nil {
				t.Fatal(err)
			}
			r, _, err := svc.AddRegistrar(context.Background(), "crash")
			if err != nil {
				t.Fatal(err)
			}
			registrytest.LoadPurgeable(t, n, r.ID, time.Now().Add(-time.Hour), store.DB(), store.Rebind)
			db := store.DB()
			count := func(q string) int {
				t.Helper()
				var c int
				if err := db.QueryRow(q).Scan(&c); err != nil {
					t.Fatal(err)
				}
				return c
			}
			cmd := exec.Command(os.Args[0], append([]string{"lifecycle", "run", "-limit", "200"}, tc.args...)...)
			cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(60 * time.Second)
			for count(`SELECT COUNT(*) FROM domains`) > n-300 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			left := count(`SELECT COUNT(*) FROM domains`)
			t.Logf("killed with %d of %d domains left", left, n)
			if left == 0 {
				t.Log("the run finished before the kill: nothing was interrupted")
			}
			check := func(step string) {
				t.Helper()
				if c := count(`SELECT COUNT(*) FROM domains d WHERE (SELECT COUNT(*) FROM blocks b WHERE b.domain_id = d.id) <> 2`); c != 0 {
					t.Errorf("%s: %d domains without their whole conflict set", step, c)
				}
				if c := count(`SELECT COUNT(*) FROM blocks b WHERE NOT EXISTS (SELECT 1 FROM domains d WHERE d.id = b.domain_id)`); c != 0 {
					t.Errorf("%s: %d labels held by no domain", step, c)
				}
				left := count(`SELECT COUNT(*) FROM domains`)
				if p := count(`SELECT COUNT(*) FROM audit WHERE action = 'purge' AND result = 'ok'`); p != n-left {
					t.Errorf("%s: %d purges recorded, %d domains gone", step, p, n-left)
				}
			}
			check("after the kill")
			if code := run(append([]string{"lifecycle", "run"}, tc.args...), nil, &out, &out); code != 0 {
				t.Fatalf("second run: exit %d\n%s", code, out.String())
			}
			check("after the second run")
			if c := count(`SELECT COUNT(*) FROM domains`) + count(`SELECT COUNT(*) FROM blocks`); c != 0 {
				t.Errorf("after the second run: %d rows left", c)
			}
		})
	}
}
