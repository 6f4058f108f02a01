package postgres_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
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
	bin := ""
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		bin = string(out[:len(out)-1])
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); bin == "" && len(m) > 0 {
		bin = filepath.Dir(m[len(m)-1])
	}
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		t.Skip("initdb not found: the PostgreSQL restart test is skipped")
	}
	dir, err := os.MkdirTemp("", "akshara-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 { // PostgreSQL does not run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root without a postgres user: the PostgreSQL restart test is skipped")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	data := filepath.Join(dir, "data")
	pg := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	pg("initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync")
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", port, dir)
	pg("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "start")
	t.Cleanup(func() {
		cmd := exec.Command(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Run()
	})
	restart := func() {
		pg("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-m", "fast", "-w", "restart")
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), restart
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
