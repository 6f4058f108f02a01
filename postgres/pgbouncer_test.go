package postgres_test

import (
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// EnvPgBouncer names the pgbouncer program (Debian's package; .ci/run
// sets it) that TestPgBouncer puts in front of a cluster of its own.
const EnvPgBouncer = "AKSHARA_TEST_PGBOUNCER"

// TestPgBouncer runs the shared store suite through pgbouncer in
// transaction mode, the pooler's mode that shares a server connection
// between clients transaction by transaction: the DSN's
// default_query_exec_mode=exec makes the store prepare no named
// statement (postgres.Open), which such a pooler cannot keep. Each
// subtest gets a database of its own (pgbouncer's "*" entry).
func TestPgBouncer(t *testing.T) {
	bouncer := os.Getenv(EnvPgBouncer)
	if bouncer == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(EnvPgBouncer + " is not set under CI=true: .ci/run sets it to Debian's pgbouncer")
		}
		t.Skip(EnvPgBouncer + " is not set to a pgbouncer program: the pooler test is skipped")
	}
	c := newCluster(t, pgBin(t, false))
	c.initdb()
	c.start("fsync=off", "max_connections=200")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ini := filepath.Join(c.dir, "pgbouncer.ini")
	users := filepath.Join(c.dir, "users.txt")
	conf := fmt.Sprintf(`[databases]
* = host=127.0.0.1 port=%d
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
server_idle_timeout = 2
logfile = %s
`, c.port, port, users, filepath.Join(c.dir, "pgbouncer.log"))
	for name, body := range map[string]string{ini: conf, users: `"postgres" ""` + "\n"} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bouncer, ini)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for end := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(end) {
			log, _ := os.ReadFile(filepath.Join(c.dir, "pgbouncer.log"))
			t.Fatalf("pgbouncer does not listen on %d:\n%s", port, log)
		}
	}
	admin, err := sql.Open("pgx", c.dsn())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var n atomic.Int64
	registrytest.Run(t, func(t *testing.T) registry.Store {
		t.Helper()
		db := fmt.Sprintf("bounced_%d", n.Add(1))
		if _, err := admin.Exec("CREATE DATABASE " + db); err != nil {
			t.Fatal(err)
		}
		dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&default_query_exec_mode=exec", port, db)
		s, err := postgres.Open(t.Context(), dsn)
		if err != nil {
			t.Fatalf("postgres.Open through pgbouncer: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
