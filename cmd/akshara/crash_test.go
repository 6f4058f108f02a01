package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestMain lets the test binary run as the akshara command, so that tests
// can start (and kill) a real server process.
func TestMain(m *testing.M) {
	if os.Getenv("AKSHARA_TEST_RUN_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// startServer runs "akshara serve" with args in a child process and returns
// it and its base URL; its HTTP API is exempt from the zones' contact
// policy (-contacts-exempt http), as these tests create names without
// contacts.
func startServer(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "-addr", "127.0.0.1:0", "-rate", "1000000", "-contacts-exempt", "http"}, args...)...)
	cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1")
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		cmd.Process.Kill()
		t.Fatalf("server did not start: %q %v\n%s", line, err, stderr.String())
	}
	return cmd, strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
}

// crashLoad registers names from many goroutines against a server process,
// kills it with SIGKILL in the middle, and checks the store afterwards:
// every create acknowledged with 201 is there, and every domain holds
// exactly its conflict set.
func crashLoad(t *testing.T, open func() (*sqlstore.Store, error), storeArgs ...string) {
	store, err := open()
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.NewServiceWith(context.Background(), store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	_, token, err := svc.AddRegistrar(context.Background(), "crash")
	if err != nil {
		t.Fatal(err)
	}
	store.Close()

	data, err := os.ReadFile("../../testdata/bench/hi-words.txt")
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(string(data))
	hi, _ := akshara.Lookup("hi")
	var pool []string // words and their variants: creates conflict too
	for _, w := range words {
		pool = append(pool, w)
		pool = append(pool, hi.Variants(w)...)
	}

	server, base := startServer(t, storeArgs...)
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; ; i += 16 {
				select {
				case <-stop:
					return
				default:
				}
				name := pool[i%len(pool)] + ".भारत"
				body, _ := json.Marshal(map[string]string{"name": name, "lang": "hi"})
				req, _ := http.NewRequest("POST", base+"/v1/domains", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusCreated {
					mu.Lock()
					acked[name] = true
					mu.Unlock()
				}
			}
		}(g)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := server.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	server.Wait()
	close(stop)
	wg.Wait()
	if len(acked) < 10 {
		t.Fatalf("only %d creates acknowledged before the kill", len(acked))
	}

	// After the restart: every acknowledged create is there, whole.
	store, err = open()
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err = registry.NewServiceWith(context.Background(), store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	for name := range acked {
		if _, err := svc.Info(context.Background(), name); err != nil {
			t.Errorf("acknowledged %s is missing after the crash: %v", name, err)
		}
	}
	rows, err := store.DB().Query(`SELECT d.label, d.lang, b.label FROM domains d LEFT JOIN blocks b ON b.domain_id = d.id ORDER BY d.id`)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string][]string{}
	langOf := map[string]string{}
	for rows.Next() {
		var label, lang string
		var block sql.NullString
		if err := rows.Scan(&label, &lang, &block); err != nil {
			t.Fatal(err)
		}
		langOf[label] = lang
		if block.Valid {
			held[label] = append(held[label], block.String)
		}
	}
	rows.Close()
	for label, lang := range langOf {
		l, _ := akshara.Lookup(lang)
		want := l.ConflictSet(label)
		got := held[label]
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s holds %v, its conflict set is %v: partial", label, got, want)
		}
	}
	var orphans int
	store.DB().QueryRow(`SELECT COUNT(*) FROM blocks b LEFT JOIN domains d ON d.id = b.domain_id WHERE d.id IS NULL`).Scan(&orphans)
	if orphans != 0 {
		t.Errorf("%d conflict set rows without their domain", orphans)
	}
	t.Logf("%d creates acknowledged before SIGKILL, %d domains after restart, all whole", len(acked), len(langOf))

	// and the server starts again on the same store
	server, base = startServer(t, storeArgs...)
	defer func() { server.Process.Signal(syscall.SIGTERM); server.Wait() }()
	if resp, err := http.Get(base + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("restart: %v", err)
	}
}

func TestCrashSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped with -short")
	}
	path := t.TempDir() + "/crash.db"
	crashLoad(t, func() (*sqlstore.Store, error) { return sqlite.Open(context.Background(), path) }, "-db", path)
}

func TestCrashPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped with -short")
	}
	dsn := pgtest.DSN(t)
	crashLoad(t, func() (*sqlstore.Store, error) { return postgres.Open(context.Background(), dsn) }, "-dsn", dsn)
}
