package sqlite_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// BenchmarkCheckPath is one check at a time on a warm read cache, without
// the network: Service.Check (and, for comparison, of names it has not
// seen), and the HTTP handler (ServeHTTP) for
// /v1/check next to /healthz. It shows what the check path adds to a
// request, the figure BenchmarkStore's http-1client pair measures with
// the loopback round trip around it.
func BenchmarkCheckPath(b *testing.B) {
	ctx := context.Background()
	svc, r := benchService(b)
	for i := 0; i < 1000; i++ { // half the checked labels are registered
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: registrytest.Label(2*i) + ".भारत", Lang: "hi"}); err != nil {
			b.Fatal(err)
		}
	}
	names := make([]string, 2000)
	paths := make([]string, 2000)
	for i := range names {
		names[i] = registrytest.Label(i) + ".भारत"
		paths[i] = "/v1/check?lang=hi&name=" + url.QueryEscape(names[i])
		if _, err := svc.Check(ctx, names[i], "hi"); err != nil { // warm the cache
			b.Fatal(err)
		}
	}
	b.Run("service", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := svc.Check(ctx, names[i%len(names)], "hi"); err != nil {
				b.Fatal(err)
			}
		}
	})
	// a name checked for the first time: the cache misses, and the lookups
	// run (the name is available: no domain holds it, none reserves it)
	fresh := 2000 // the next label not checked yet
	b.Run("service-miss", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			fresh++
			if _, err := svc.Check(ctx, registrytest.Label(fresh)+".भारत", "hi"); err != nil {
				b.Fatal(err)
			}
		}
	})
	h := httpapi.New(svc, httpapi.Options{PublicRate: -1})
	serve := func(b *testing.B, path func(i int) string) {
		reqs := make([]*http.Request, len(names))
		for i := range reqs {
			reqs[i] = httptest.NewRequest("GET", path(i), nil)
			reqs[i].RemoteAddr = "127.0.0.1:1234"
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, reqs[i%len(reqs)])
			if w.Code != http.StatusOK {
				b.Fatalf("%s: %d", path(i), w.Code)
			}
		}
	}
	b.Run("handler/check", func(b *testing.B) { serve(b, func(i int) string { return paths[i%len(paths)] }) })
	b.Run("handler/healthz", func(b *testing.B) { serve(b, func(int) string { return "/healthz" }) })
}

// benchService is a service on a fresh SQLite store in the benchmark's
// temporary folder, with a registrar "bench".
func benchService(b *testing.B) (*registry.Service, *registry.Registrar) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, b.TempDir()+"/bench.db")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	svc, err := registry.NewServiceWith(ctx, s, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		b.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	return svc, r
}
