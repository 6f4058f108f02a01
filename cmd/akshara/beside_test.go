package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestSQLiteOtherProcessesBesideServer (issue 34): a SQLite server under
// load (creates and checks from 8 clients), and beside it, one after
// another, the processes an operator runs on the same file: the sqlite3
// shell reading it, "akshara registrar list", "akshara lifecycle run"
// and "akshara backup". Not one request may fail (a 5xx or a broken
// connection), not one command may fail, and the database must be whole
// afterwards (PRAGMA integrity_check).
//
// The server's process must never open the database's files outside
// SQLite: a POSIX lock belongs to the (process, file) pair, and closing
// any descriptor of a file drops every lock the process holds on it.
// The read cache's mark, which opened and mapped the "-shm" file itself,
// did so once per poll connection, and dropped SQLite's own locks on the
// shared memory: the next process to open the database took it for
// unused and reset it under the server, whose requests then failed with
// "disk I/O error (8714)" (SQLITE_IOERR_IN_PAGE). With that mark (main
// 072c9e0) this test failed in every run: 72 to 228 requests answered 500
// of 11,260 to 19,502 in the default run (5 runs), 411 of 67,224 and 200
// of 53,112 in the long one, with 3 and 4 sqlite3 runs refused "database
// is locked". (A reader beside a server that holds its locks does not
// meet a locked database in WAL mode: the shell runs without a busy
// timeout, and its failure counts.)
//
// The sqlite3 shell is Debian's sqlite3: without it the test runs the
// akshara commands only and says so; under CI=true it is required.
// AKSHARA_LONG_TESTS=1 runs the commands for 30 s rather than 4.
func TestSQLiteOtherProcessesBesideServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server and other processes; skipped with -short")
	}
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("sqlite3 (Debian package sqlite3) is required under CI=true")
		}
		t.Log("no sqlite3 shell on PATH (Debian package sqlite3): only the akshara commands run beside the server")
		shell = ""
	}
	span := 4 * time.Second
	if os.Getenv("AKSHARA_LONG_TESTS") == "1" {
		span = 30 * time.Second
	}
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "akshara.db")
	store, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	_, token, err := svc.AddRegistrar(ctx, "beside")
	if err != nil {
		t.Fatal(err)
	}
	store.Close()

	server, base := startServer(t, "-db", path)
	stopped := false
	stopServer := func() {
		if !stopped {
			stopped = true
			server.Process.Signal(syscall.SIGTERM)
			server.Wait()
		}
	}
	defer stopServer()

	// the load: 8 clients, each creating a new name and checking one
	var (
		requests, failed atomic.Int64
		mu               sync.Mutex
		failures         []string
	)
	fail := func(what string) {
		failed.Add(1)
		mu.Lock()
		if len(failures) < 10 {
			failures = append(failures, what)
		}
		mu.Unlock()
	}
	do := func(req *http.Request) {
		requests.Add(1)
		resp, err := besideClient.Do(req)
		if err != nil {
			fail(fmt.Sprintf("%s %s: %v", req.Method, req.URL.Path, err))
			return
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			fail(fmt.Sprintf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, bytes.TrimSpace(body)))
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	const clients = 8
	for g := 0; g < clients; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; ; i += clients {
				select {
				case <-stop:
					return
				default:
				}
				name := registrytest.Label(i) + ".भारत"
				body, _ := json.Marshal(map[string]string{"name": name, "lang": "hi"})
				req, _ := http.NewRequest("POST", base+"/v1/domains", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				do(req)
				req, _ = http.NewRequest("GET", base+"/v1/check?name="+url.QueryEscape(registrytest.Label(i/2)+".भारत"), nil)
				do(req)
			}
		}(g)
	}

	// beside it, the operator's processes, one after another
	self := func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1")
		return cmd
	}
	runs, cmdFailed := map[string]int{}, 0
	deadline := time.Now().Add(span)
	for round := 0; round == 0 || time.Now().Before(deadline); round++ {
		cmds := map[string]*exec.Cmd{
			"registrar list": self("registrar", "list", "-db", path),
			"lifecycle run":  self("lifecycle", "run", "-db", path),
			"backup":         self("backup", "-db", path, filepath.Join(dir, fmt.Sprintf("backup-%d.db", round))),
		}
		if shell != "" {
			cmds["sqlite3"] = exec.Command(shell, path, "select count(*) from domains")
		}
		for _, what := range []string{"sqlite3", "registrar list", "lifecycle run", "backup"} {
			cmd := cmds[what]
			if cmd == nil {
				continue
			}
			runs[what]++
			if out, err := cmd.CombinedOutput(); err != nil {
				cmdFailed++
				t.Errorf("%s beside the server: %v\n%s", what, err, out)
			}
		}
		// the backup is the database as it was: keep the directory small
		os.Remove(filepath.Join(dir, fmt.Sprintf("backup-%d.db", round)))
	}
	close(stop)
	wg.Wait()
	stopServer()

	t.Logf("%d requests, %d failed; commands run beside the server: %v, %d failed", requests.Load(), failed.Load(), runs, cmdFailed)
	if n := failed.Load(); n > 0 {
		var logged []string // the server's account of them
		if b, ok := server.Stderr.(*bytes.Buffer); ok {
			for _, l := range strings.Split(b.String(), "\n") {
				if strings.Contains(l, "ERROR") && len(logged) < 3 {
					logged = append(logged, l)
				}
			}
		}
		t.Errorf("%d of %d requests failed while other processes opened the database; the first:\n%s\nthe server's log:\n%s",
			n, requests.Load(), strings.Join(failures, "\n"), strings.Join(logged, "\n"))
	}
	if requests.Load() < 100 {
		t.Errorf("only %d requests: the server was not under load", requests.Load())
	}

	// and the database is whole
	store, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var check string
	if err := store.DB().QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check after the run: %q %v", check, err)
	}
	var domains int
	store.DB().QueryRow("SELECT COUNT(*) FROM domains").Scan(&domains)
	if domains == 0 {
		t.Error("no domain was created: the load did not load")
	}
}

// besideClient is the load's HTTP client: a request that hangs fails.
var besideClient = &http.Client{Timeout: 10 * time.Second}
