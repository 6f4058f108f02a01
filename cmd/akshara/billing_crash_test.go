package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
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
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// billingCrashLoad is crashLoad with money: 8 registrars, each with a
// balance for 20 creates at ₹450, create names from 16 goroutines
// against a server process (so balances run out under the load: 402s),
// which is killed with SIGKILL in the middle. After it: every create
// acknowledged 201 has exactly one debit at the price, every domain has
// its debit and every debit its domain and audit record (creates
// committed but never acknowledged included), and akshara account
// reconcile passes.
func billingCrashLoad(t *testing.T, open func() (*sqlstore.Store, error), storeArgs ...string) {
	const price = registry.Money(45000)
	store, err := open()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetPrice(ctx, registry.Price{Zone: "भारत", Command: registry.BillCreate, Years: 1, Amount: price, From: time.Now().Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	var names, tokens []string
	for i := 0; i < 8; i++ {
		name := fmt.Sprintf("payer%d", i)
		_, token, err := svc.AddRegistrar(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Credit(ctx, name, 20*price, registry.EntryCredit, "crash test"); err != nil {
			t.Fatal(err)
		}
		names, tokens = append(names, name), append(tokens, token)
	}
	store.Close()

	data, err := os.ReadFile("../../testdata/bench/hi-words.txt")
	if err != nil {
		t.Fatal(err)
	}
	hi, _ := akshara.Lookup("hi")
	var pool []string
	for _, w := range strings.Fields(string(data)) {
		pool = append(pool, w)
		pool = append(pool, hi.Variants(w)...)
	}
	server, base := startServer(t, storeArgs...)
	var mu sync.Mutex
	acked := map[string]string{}
	refused := 0
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
				r := (i / 16) % len(names)
				name := pool[i%len(pool)] + ".भारत"
				body, _ := json.Marshal(map[string]string{"name": name, "lang": "hi"})
				req, _ := http.NewRequest("POST", base+"/v1/domains", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+tokens[r])
				resp, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				mu.Lock()
				switch resp.StatusCode {
				case http.StatusCreated:
					acked[name] = names[r]
				case http.StatusPaymentRequired:
					refused++
					if !strings.Contains(string(b), `"price":"450.00"`) || !strings.Contains(string(b), `"balance":`) {
						t.Errorf("402 without the price and the balance: %s", b)
					}
				}
				mu.Unlock()
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
	t.Logf("%d creates acknowledged, %d refused for their balance, before SIGKILL", len(acked), refused)

	store, err = open()
	if err != nil {
		t.Fatal(err)
	}
	svc, err = registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	registrytest.CheckExactlyOnce(t, ctx, svc, price, acked)
	store.Close()
	var out, errb bytes.Buffer
	if code := run(append([]string{"account", "reconcile"}, storeArgs...), nil, &out, &errb); code != exitOK {
		t.Errorf("akshara account reconcile: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

func TestBillingCrashSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped with -short")
	}
	path := t.TempDir() + "/crash.db"
	billingCrashLoad(t, func() (*sqlstore.Store, error) { return sqlite.Open(context.Background(), path) }, "-db", path)
}

func TestBillingCrashPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped with -short")
	}
	dsn := pgtest.DSN(t)
	billingCrashLoad(t, func() (*sqlstore.Store, error) { return postgres.Open(context.Background(), dsn) }, "-dsn", dsn)
}
