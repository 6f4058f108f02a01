package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestServersOneWinnerAcrossRelationUpgrade (issue 26): two "akshara
// serve" processes on one PostgreSQL database, the second built from
// different data (registrytest.ModifiedHindiFile: ब = व, a relation
// upgrade that makes बX and वX variants). The second recomputes the
// conflict sets at its start while the first, under the old data, takes
// creates; then the two take creates of the two names of many new pairs
// at once (बX through the old server, वX through the new one): exactly one
// of each pair must win, and no domain may be left without its set.
//
// The new binary is built with "go build -overlay" (the language file is
// embedded, so the overlay changes the data it carries).
func TestServersOneWinnerAcrossRelationUpgrade(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()

	// the new binary
	dir := t.TempDir()
	lang, err := filepath.Abs("../../languages/hi.lang")
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(dir, "hi.lang")
	if err := os.WriteFile(mod, registrytest.ModifiedHindiFile(t), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {lang: mod}})
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	newBin := filepath.Join(dir, "akshara-new")
	if out, err := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", newBin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -overlay: %v\n%s", err, out)
	}

	// the registrars, under the old data
	store, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{}
	for _, n := range []string{"old", "new"} {
		_, tok, err := svc.AddRegistrar(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		tokens[n] = tok
	}
	store.Close()

	create := func(base, token, name string) int {
		body := fmt.Sprintf(`{"name":%q,"lang":"hi"}`, name)
		req, _ := http.NewRequest("POST", base+"/v1/domains", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("create %s: %v", name, err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// labels without ब or व: each pair is a conflict set of its own
	var labels []string
	for i := 0; len(labels) < 2000; i++ {
		if l := registrytest.Label(i); !strings.ContainsAny(l, "बव") {
			labels = append(labels, l)
		}
	}
	b := func(i int) string { return "ब" + labels[i] + ".भारत" }
	v := func(i int) string { return "व" + labels[i] + ".भारत" }

	oldSrv, oldBase := startServer(t, "-dsn", dsn)
	defer oldSrv.Process.Kill()

	// pairs registered under the old data, before and while the new
	// server starts (its recomputation exempts them with each other)
	const before = 40
	for i := 0; i < before/2; i++ {
		for _, n := range []string{b(i), v(i)} {
			if c := create(oldBase, tokens["old"], n); c != http.StatusCreated {
				t.Fatalf("create %s under the old data: %d", n, c)
			}
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := before / 2; i < before; i++ {
			select {
			case <-stop:
				return
			default:
			}
			create(oldBase, tokens["old"], b(i))
			create(oldBase, tokens["old"], v(i))
		}
	}()
	newSrv := exec.Command(newBin, "serve", "-addr", "127.0.0.1:0", "-rate", "1000000", "-dsn", dsn, "-contacts-exempt", "http")
	stdout, _ := newSrv.StdoutPipe()
	var stderr bytes.Buffer
	newSrv.Stderr = &stderr
	if err := newSrv.Start(); err != nil {
		t.Fatal(err)
	}
	defer newSrv.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		t.Fatalf("the new server did not start: %q %v\n%s", line, err, stderr.String())
	}
	newBase := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	close(stop)
	wg.Wait()

	// the race: बX through the old server, वX through the new, at once
	const pairs = 150
	won := make([][2]int, pairs)
	for i := 0; i < pairs; i++ {
		wg.Add(2)
		go func(i int) { defer wg.Done(); won[i][0] = create(oldBase, tokens["old"], b(1000+i)) }(i)
		go func(i int) { defer wg.Done(); won[i][1] = create(newBase, tokens["new"], v(1000+i)) }(i)
		if i%8 == 7 {
			wg.Wait()
		}
	}
	wg.Wait()
	oldWins, newWins := 0, 0
	for i, w := range won {
		ok := 0
		for _, c := range w {
			if c == http.StatusCreated {
				ok++
			} else if c != http.StatusConflict {
				t.Errorf("pair %d: answer %d, want 201 or 409", i, c)
			}
		}
		if ok != 1 {
			t.Errorf("%s (old server) and %s (new server): %d winners (%v), want exactly one", b(1000+i), v(1000+i), ok, w)
		}
		if w[0] == http.StatusCreated {
			oldWins++
		} else if w[1] == http.StatusCreated {
			newWins++
		}
	}
	t.Logf("%d pairs: the old server won %d, the new one %d", pairs, oldWins, newWins)

	// the database: every domain holds its own label, and one not
	// exempted holds at least that
	store, err = postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var recomputes int
	if err := store.DB().QueryRow(`SELECT COUNT(*) FROM audit WHERE action = 'recompute'`).Scan(&recomputes); err != nil || recomputes == 0 {
		t.Errorf("the new server did not recompute the conflict sets at its start (%d, %v): the test tests no upgrade", recomputes, err)
	}
	var without int
	err = store.DB().QueryRow(`SELECT COUNT(*) FROM domains d WHERE NOT EXISTS (SELECT 1 FROM blocks b WHERE b.zone = d.zone AND b.label = d.label)
		AND NOT EXISTS (SELECT 1 FROM exemptions e WHERE e.domain_id = d.id)`).Scan(&without)
	if err != nil || without != 0 {
		t.Errorf("%d domains neither holding their label nor exempted (%v)", without, err)
	}
}
