package main

import (
	"context"
	"fmt"
	"net/http"
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

// crashTransfers approves pending transfers through a server process
// from many clients, while others try to create the names' variants, and
// kills the process with SIGKILL in the middle. After it: every approval
// acknowledged with 200 is there; every domain is with one registrar and
// holds exactly its conflict set; a domain moved if and only if its
// transfer is approved, and then the gaining registrar has its poll
// message; no variant was created by anyone.
func crashTransfers(t *testing.T, open func() (*sqlstore.Store, error), storeArgs ...string) {
	ctx := context.Background()
	store, err := open()
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	losing, losingToken, err := svc.AddRegistrar(ctx, "losing")
	if err != nil {
		t.Fatal(err)
	}
	gaining, gainingToken, err := svc.AddRegistrar(ctx, "gaining")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.SetTransferPolicy(ctx, "भारत", 5*24*time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	// names with variants: every approval races creates of its set
	hi, _ := akshara.Lookup("hi")
	var names []string
	var variants []string
	seen := map[string]bool{}
	cons := []rune("कखगचजटडतदनपबमयलवसह")
	for i := 0; len(names) < 300 && i < 20000; i++ {
		label := string([]rune{cons[i%len(cons)], cons[(i/len(cons))%len(cons)]}) + "ा" + string(cons[(i/(len(cons)*len(cons)))%len(cons)]) + "त"
		set := hi.ConflictSet(label)
		if len(set) < 2 || !hi.Valid(label) {
			continue
		}
		clash := false
		for _, l := range set {
			clash = clash || seen[l]
		}
		if clash {
			continue
		}
		if _, err := svc.CreateDomain(ctx, losing, registry.DomainCreate{Name: label + ".भारत", Lang: "hi", AuthInfo: "crash-Auth-1-strong"}); err != nil {
			continue
		}
		if _, err := svc.TransferDomain(ctx, gaining, registry.DomainTransfer{Name: label + ".भारत", Op: registry.TransferRequestOp, AuthInfo: "crash-Auth-1-strong", Years: 0}); err != nil {
			t.Fatal(err)
		}
		for _, l := range set {
			seen[l] = true
			if l != label {
				variants = append(variants, l+".भारत")
			}
		}
		names = append(names, label+".भारत")
	}
	if len(names) < 50 {
		t.Fatalf("only %d names with variants", len(names))
	}
	store.Close()

	server, base := startServer(t, storeArgs...)
	var mu sync.Mutex
	acked := map[string]bool{}
	created := []string{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	post := func(path, token, body string) int {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for g := 0; g < 8; g++ {
		wg.Add(2)
		go func(g int) { // approvals
			defer wg.Done()
			for i := g; i < len(names); i += 8 {
				select {
				case <-stop:
					return
				default:
				}
				code := post("/v1/domains/"+names[i]+"/transfer/approve", losingToken, "")
				if code == 0 {
					return // the server is gone
				}
				if code == http.StatusOK {
					mu.Lock()
					acked[names[i]] = true
					mu.Unlock()
				}
			}
		}(g)
		go func(g int) { // creates of the variants, by both registrars
			defer wg.Done()
			for i := g; ; i += 8 {
				select {
				case <-stop:
					return
				default:
				}
				token := losingToken
				if i%2 == 1 {
					token = gainingToken
				}
				v := variants[i%len(variants)]
				code := post("/v1/domains", token, fmt.Sprintf(`{"name":%q,"lang":"hi"}`, v))
				if code == 0 {
					return
				}
				if code == http.StatusCreated {
					mu.Lock()
					created = append(created, v)
					mu.Unlock()
				}
			}
		}(g)
	}
	// killed when a third of the approvals are acknowledged: mid-run
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= len(names)/3 {
			break
		}
	}
	if err := server.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	server.Wait()
	close(stop)
	wg.Wait()
	if len(acked) == 0 || len(acked) == len(names) {
		t.Errorf("%d of %d approvals acknowledged before the kill: the kill did not land mid-run", len(acked), len(names))
	}
	if len(created) > 0 {
		t.Errorf("variants created while their domains were held: %q", created)
	}

	store, err = open()
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err = registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, n := range names {
		d, err := svc.Info(ctx, n) // the transfers are not due: a read approves nothing
		if err != nil {
			t.Fatalf("%s after the crash: %v", n, err)
		}
		st, err := svc.DomainTransferState(ctx, nil, d)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case d.Registrar == "gaining":
			moved++
			if st.Pending != nil || st.Last == nil || st.Last.Status != registry.TransferClientApproved {
				t.Errorf("%s moved, its transfer %+v", n, st.Last)
			}
		case d.Registrar == "losing":
			if acked[n] {
				t.Errorf("the approval of %s was acknowledged and is lost", n)
			}
			if st.Pending == nil {
				t.Errorf("%s did not move and its transfer is %+v, not pending", n, st.Last)
			}
		default:
			t.Errorf("%s is with %s", n, d.Registrar)
		}
		want := hi.ConflictSet(strings.TrimSuffix(n, ".भारत"))
		got := append([]string(nil), d.Blocks...)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s holds %q, its conflict set is %q", n, got, want)
		}
	}
	// the gaining registrar has one approval message per domain moved
	msgs := 0
	for {
		m, _, err := svc.PollRequest(ctx, gaining)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			break
		}
		if m.Kind != registry.PollTransferApproved {
			t.Errorf("gaining's message %+v", m)
		}
		msgs++
		if _, err := svc.PollAck(ctx, gaining, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	if msgs != moved {
		t.Errorf("%d domains moved, %d approval messages", moved, msgs)
	}
	var orphans int
	store.DB().QueryRow(`SELECT COUNT(*) FROM blocks b LEFT JOIN domains d ON d.id = b.domain_id WHERE d.id IS NULL`).Scan(&orphans)
	if orphans != 0 {
		t.Errorf("%d conflict set rows without their domain", orphans)
	}
	t.Logf("%d of %d approvals acknowledged before SIGKILL, %d moved after restart, all whole", len(acked), len(names), moved)
}

func TestTransferCrashSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped with -short")
	}
	path := t.TempDir() + "/crash.db"
	crashTransfers(t, func() (*sqlstore.Store, error) { return sqlite.Open(context.Background(), path) }, "-db", path)
}

func TestTransferCrashPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped with -short")
	}
	dsn := pgtest.DSN(t)
	crashTransfers(t, func() (*sqlstore.Store, error) { return postgres.Open(context.Background(), dsn) }, "-dsn", dsn)
}
