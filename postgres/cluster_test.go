package postgres_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
)

// EnvPGBin names the directory of the PostgreSQL server's programs
// (initdb, pg_ctl, pg_basebackup) that the replica and failover tests run
// clusters of their own with (.ci/run sets it).
const EnvPGBin = "AKSHARA_TEST_PG_BIN"

// pgBin returns the PostgreSQL programs' directory: EnvPGBin, or when
// found is set, pg_config's or Debian's. Without one the test skips,
// saying so, or under CI=true fails.
func pgBin(t testing.TB, find bool) string {
	t.Helper()
	bin := os.Getenv(EnvPGBin)
	if bin == "" && find {
		if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
			bin = strings.TrimSpace(string(out))
		}
		if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); bin == "" && len(m) > 0 {
			bin = filepath.Dir(m[len(m)-1])
		}
	}
	if _, err := os.Stat(filepath.Join(bin, "initdb")); bin == "" || err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set to PostgreSQL's bin directory (initdb, pg_ctl, pg_basebackup) under CI=true: .ci/run sets it", EnvPGBin)
		}
		t.Skipf("%s is not set to PostgreSQL's bin directory (initdb, pg_ctl, pg_basebackup): the test is skipped", EnvPGBin)
	}
	return bin
}

// cluster is a PostgreSQL server of the test's own, in a temporary
// directory, on a free port; as root it runs as the postgres user.
type cluster struct {
	t         testing.TB
	bin, dir  string
	data, log string
	port      int
	cred      *syscall.Credential
}

// newCluster prepares a cluster's directory and port (it does not create
// or start it); the cluster is stopped when the test ends.
func newCluster(t testing.TB, bin string) *cluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "akshara-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, bin: bin, dir: dir, data: filepath.Join(dir, "data"), log: filepath.Join(dir, "log")}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 { // PostgreSQL does not run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root without a postgres user: the test needs a PostgreSQL server of its own and is skipped")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	t.Cleanup(func() { c.try("pg_ctl", "-D", c.data, "-m", "immediate", "-w", "stop") })
	return c
}

// try runs one of the server's programs as the cluster's user.
func (c *cluster) try(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	cmd.Dir = c.dir
	return cmd.CombinedOutput()
}

// run is try that fails the test.
func (c *cluster) run(name string, args ...string) {
	c.t.Helper()
	if out, err := c.try(name, args...); err != nil {
		c.t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// opts are the server's options: the port, the socket directory, the
// loopback address, and settings.
func (c *cluster) opts(settings ...string) string {
	o := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", c.port, c.dir)
	for _, s := range settings {
		o += " -c " + s
	}
	return o
}

// initdb creates the cluster (trust authentication, replication
// connections from loopback included: initdb's pg_hba.conf has them).
func (c *cluster) initdb() {
	c.run("initdb", "-D", c.data, "-A", "trust", "-U", "postgres", "--no-sync")
}

// start starts the server with settings and waits until it answers.
func (c *cluster) start(settings ...string) {
	c.t.Helper()
	c.run("pg_ctl", "-D", c.data, "-o", c.opts(settings...), "-l", c.log, "-w", "start")
}

// dsn is the URL of the cluster's postgres database.
func (c *cluster) dsn() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// standbyOf makes c a hot standby of primary (pg_basebackup -R: streaming
// replication, primary_conninfo written) and starts it.
func (c *cluster) standbyOf(primary *cluster, settings ...string) {
	c.t.Helper()
	c.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(primary.port), "-U", "postgres", "-D", c.data, "-R", "-X", "stream", "--no-sync")
	c.start(settings...)
}

// load is 4 clients that each check a name and create a new one, in a
// loop, until stop: the restart and failover tests' load.
type load struct {
	svc         *registry.Service
	ops, failed atomic.Int64
	acked       sync.Map      // the names whose create was answered ok
	worst       atomic.Int64  // the longest round, ns
	stop        chan struct{} // closed by wait
	wg          sync.WaitGroup
}

// startLoad starts the clients on svc as registrar r; the created names
// start with prefix.
func startLoad(t *testing.T, svc *registry.Service, r *registry.Registrar, prefix string) *load {
	l := &load{svc: svc, stop: make(chan struct{})}
	ctx := t.Context()
	for g := 0; g < 4; g++ {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := 0; ; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				start := time.Now()
				if _, err := svc.Check(ctx, "कमल.भारत", "hi"); err != nil {
					l.failed.Add(1)
					t.Errorf("check: %v", err)
				}
				name := fmt.Sprintf("%s-%d-%d.in", prefix, g, i)
				if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: name}); err != nil {
					l.failed.Add(1)
					t.Errorf("create %s: %v", name, err)
				} else {
					l.acked.Store(name, true)
				}
				l.ops.Add(2)
				if d := int64(time.Since(start)); d > l.worst.Load() {
					l.worst.Store(d)
				}
			}
		}()
	}
	return l
}

// wait stops the clients and waits for them.
func (l *load) wait() {
	close(l.stop)
	l.wg.Wait()
}

// openService opens a store on dsn with o (closed when the test ends)
// and a service on it.
func openService(t testing.TB, dsn string, o postgres.Options) (*sqlstore.Store, *registry.Service) {
	t.Helper()
	s, err := postgres.OpenWith(t.Context(), dsn, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	svc, err := registry.NewServiceWith(t.Context(), s, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	return s, svc
}

// loaded is openService with a registrar "alpha" under the load of
// startLoad (names starting with prefix), started after the registrar.
func loaded(t *testing.T, dsn string, o postgres.Options, prefix string) (*sqlstore.Store, *load) {
	store, svc := openService(t, dsn, o)
	r, _, err := svc.AddRegistrar(t.Context(), "alpha")
	if err != nil {
		t.Fatal(err)
	}
	return store, startLoad(t, svc, r, prefix)
}
