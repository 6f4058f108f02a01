package registrytest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/internal/testlabel"
	"github.com/akshara-idn/akshara/registry"
)

// Label returns the i-th of 1,562,500 distinct valid Hindi labels (three
// aksharas of consonants and matras, none with a variant).
func Label(i int) string { return testlabel.Hindi(i) }

// Bench measures, on one store, the raw single-row INSERT transaction
// rate and creates and checks in process and over HTTP on loopback, and
// reports creates per raw insert as a ratio (the target is at least 0.5).
func Bench(b *testing.B, open func(b *testing.B) *sqlstore.Store) {
	ctx := context.Background()
	var raw float64
	b.Run("raw-insert-tx", func(b *testing.B) {
		s := open(b)
		db := s.DB()
		if _, err := db.Exec(`CREATE TABLE bench_raw (id BIGINT PRIMARY KEY, v TEXT NOT NULL)`); err != nil {
			b.Fatal(err)
		}
		ins := s.Rebind(`INSERT INTO bench_raw (id, v) VALUES (?, ?)`)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			tx, err := db.Begin()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tx.Exec(ins, i, Label(i)); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		raw = float64(b.N) / b.Elapsed().Seconds()
		b.ReportMetric(raw, "tx/s")
	})
	report := func(b *testing.B, unit string) {
		rate := float64(b.N) / b.Elapsed().Seconds()
		b.ReportMetric(rate, unit)
		if unit == "creates/s" && raw > 0 {
			b.ReportMetric(rate/raw, "creates/raw-tx")
		}
	}
	setup := func(b *testing.B) (*registry.Service, *registry.Registrar, string) {
		s := open(b)
		svc, err := registry.NewServiceWith(ctx, s, Exempt(registry.ServiceOptions{}, ""))
		if err != nil {
			b.Fatal(err)
		}
		r, token, err := svc.AddRegistrar(ctx, "bench")
		if err != nil {
			b.Fatal(err)
		}
		return svc, r, token
	}
	b.Run("create/in-process", func(b *testing.B) {
		svc, r, _ := setup(b)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: Label(i) + ".भारत", Lang: "hi"}); err != nil {
				b.Fatal(err)
			}
		}
		report(b, "creates/s")
	})
	b.Run("create/http", func(b *testing.B) {
		svc, _, token := setup(b)
		ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{RateLimit: 1e9, RateBurst: 1 << 30}))
		defer ts.Close()
		client := ts.Client()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			body, _ := json.Marshal(httpapi.CreateRequest{Name: Label(i) + ".भारत", Lang: "hi"})
			req, _ := http.NewRequest("POST", ts.URL+"/v1/domains", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body) // read to the end, so the connection is reused
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				b.Fatalf("create: %d", resp.StatusCode)
			}
		}
		report(b, "creates/s")
	})
	checkSetup := func(b *testing.B) *registry.Service {
		svc, r, _ := setup(b)
		for i := 0; i < 1000; i++ { // half the checked labels are registered
			if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: Label(2*i) + ".भारत", Lang: "hi"}); err != nil {
				b.Fatal(err)
			}
		}
		return svc
	}
	b.Run("check/in-process", func(b *testing.B) {
		svc := checkSetup(b)
		var n atomic.Int64
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				i := int(n.Add(1))
				if _, err := svc.Check(ctx, Label(i%2000)+".भारत", "hi"); err != nil {
					b.Fatal(err)
				}
			}
		})
		report(b, "checks/s")
	})
	// check/http and healthz/http run the same client loop against the same
	// server: the check path's cost over the bare HTTP round trip. The
	// requests cycle through paths, each requested once before the timer
	// starts: the loop measures the steady state, the read cache warm and
	// the connections open, whatever b.N (the first request of each of the
	// 2000 checked names misses the cache and runs its SQL queries; timed,
	// those misses were a share of the figure that fell as b.N grew). The
	// URLs are built beforehand too: the client's work is the same for
	// both paths.
	httpLoop := func(b *testing.B, parallelism int, paths []string) {
		svc := checkSetup(b)
		ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{PublicRate: -1})) // the load is one address
		defer ts.Close()
		tr := &http.Transport{MaxIdleConnsPerHost: 64}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr}
		urls := make([]string, len(paths))
		for i, p := range paths {
			urls[i] = ts.URL + p
		}
		get := func(i int) {
			u := urls[i%len(urls)]
			resp, err := client.Get(u)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body) // read to the end, so the connection is reused
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("%s: %d", u, resp.StatusCode)
			}
		}
		for i := range urls {
			get(i)
		}
		var n atomic.Int64
		if parallelism > 0 {
			b.SetParallelism(parallelism)
		}
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := cpuTime()
		// the process's CPU time (user and system, server and clients) per
		// request: less disturbed than the elapsed time by other load on
		// the machine
		defer func() {
			if cpu0 > 0 {
				b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
			}
		}()
		if parallelism == 0 {
			for i := 0; i < b.N; i++ {
				get(i)
			}
			report(b, "requests/s")
			return
		}
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				get(int(n.Add(1)))
			}
		})
		report(b, "requests/s")
	}
	checkPaths := make([]string, 2000) // half of them registered (checkSetup)
	for i := range checkPaths {
		checkPaths[i] = "/v1/check?lang=hi&name=" + url.QueryEscape(Label(i)+".भारत")
	}
	healthz := []string{"/healthz"}
	// 8 clients per core, and one client alone (latency)
	b.Run("check/http", func(b *testing.B) { httpLoop(b, 8, checkPaths) })
	b.Run("healthz/http", func(b *testing.B) { httpLoop(b, 8, healthz) })
	b.Run("check/http-1client", func(b *testing.B) { httpLoop(b, 0, checkPaths) })
	b.Run("healthz/http-1client", func(b *testing.B) { httpLoop(b, 0, healthz) })
}
