package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/akshara-idn/akshara"

	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// The read cache of checks' lookups must never answer from before a
// commit: these tests write through a second store on the same file (a
// second *sql.DB) and through a second process, and check through the
// first right after each write, having filled its cache before.

const (
	kitab  = "किताब.भारत"
	kittab = "कित्ताब.भारत" // a variant of kitab: blocked by it
)

func openService(t *testing.T, path string) (*registry.Service, *sqlstore.Store) {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	// with an add grace period in भारत, so that a delete of a name just
	// created frees it at once (a commit the cache must see); the .IN
	// profile keeps it until its purge (docs/lifecycle.md)
	lc := akshara.DefaultLifecycle()
	svc, err := registry.NewServiceWith(t.Context(), s, registry.ServiceOptions{ContactsExempt: []string{""}, Lifecycle: map[string]akshara.ZoneLifecycle{"भारत": lc}})
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	return svc, s
}

// wantStatus checks name through svc twice (the second from the cache,
// when nothing has changed) and requires status.
func wantStatus(t *testing.T, svc *registry.Service, name string, status registry.Status, blockedBy string) {
	t.Helper()
	for i := 0; i < 2; i++ {
		res, err := svc.Check(t.Context(), name, "hi")
		if err != nil {
			t.Fatalf("Check(%q): %v", name, err)
		}
		if res.Status != status || res.BlockedBy != blockedBy {
			t.Fatalf("Check(%q) #%d = %s blocked by %q, want %s blocked by %q", name, i+1, res.Status, res.BlockedBy, status, blockedBy)
		}
	}
}

// cacheHits requires that the cache answered some lookups since before.
func cacheHits(t *testing.T, s *sqlstore.Store, before int64) int64 {
	t.Helper()
	n := s.CacheHits()
	if n <= before {
		t.Fatalf("the read cache answered no lookup (%d hits, %d before): the test tests nothing", n, before)
	}
	return n
}

func TestReadCacheSeesAnotherConnection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.db")
	a, storeA := openService(t, path)
	b, _ := openService(t, path)
	r, _, err := b.AddRegistrar(t.Context(), "other")
	if err != nil {
		t.Fatal(err)
	}
	var hits int64
	for round := 0; round < 3; round++ {
		wantStatus(t, a, kitab, registry.Available, "")
		wantStatus(t, a, kittab, registry.Available, "")
		hits = cacheHits(t, storeA, hits)
		if _, err := b.CreateDomain(t.Context(), r, registry.DomainCreate{Name: kitab, Lang: "hi"}); err != nil {
			t.Fatalf("round %d: Create: %v", round, err)
		}
		wantStatus(t, a, kitab, registry.Registered, "")
		wantStatus(t, a, kittab, registry.Blocked, kitab)
		hits = cacheHits(t, storeA, hits)
		if err := registrytest.Err(b.DeleteDomain(t.Context(), r, registry.DomainDelete{Name: kitab})); err != nil {
			t.Fatalf("round %d: Delete: %v", round, err)
		}
	}
	// a reservation is a commit like another
	wantStatus(t, a, kitab, registry.Available, "")
	if _, err := b.Reserve(t.Context(), kitab, "test"); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a, kitab, registry.Reserved, "")
	wantStatus(t, a, kittab, registry.Reserved, "")
	if err := b.Unreserve(t.Context(), kitab); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a, kittab, registry.Available, "")

	// many names, each created right after its check
	for i := 0; i < 200; i++ {
		name := registrytest.Label(i) + ".भारत"
		wantStatus(t, a, name, registry.Available, "")
		if _, err := b.CreateDomain(t.Context(), r, registry.DomainCreate{Name: name, Lang: "hi"}); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, a, name, registry.Registered, "")
	}
	cacheHits(t, storeA, hits)
}

// TestReadCacheSeesAnotherProcess writes through this test binary run
// again as a second process (TestReadCacheHelper).
func TestReadCacheSeesAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.db")
	a, storeA := openService(t, path)
	other := func(action, name string) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestReadCacheHelper$")
		cmd.Env = append(os.Environ(), "AKSHARA_CACHE_HELPER="+action, "AKSHARA_CACHE_HELPER_DB="+path, "AKSHARA_CACHE_HELPER_NAME="+name)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("second process (%s %s): %v\n%s", action, name, err, out)
		}
	}
	var hits int64
	for round := 0; round < 2; round++ {
		wantStatus(t, a, kitab, registry.Available, "")
		wantStatus(t, a, kittab, registry.Available, "")
		hits = cacheHits(t, storeA, hits)
		other("create", kitab)
		wantStatus(t, a, kitab, registry.Registered, "")
		wantStatus(t, a, kittab, registry.Blocked, kitab)
		hits = cacheHits(t, storeA, hits)
		other("delete", kitab)
	}
	wantStatus(t, a, kittab, registry.Available, "")
}

// TestReadCacheHelper is the second process of
// TestReadCacheSeesAnotherProcess; run alone, it does nothing.
func TestReadCacheHelper(t *testing.T) {
	action := os.Getenv("AKSHARA_CACHE_HELPER")
	if action == "" {
		return
	}
	svc, _ := openService(t, os.Getenv("AKSHARA_CACHE_HELPER_DB"))
	ctx := context.Background()
	name := os.Getenv("AKSHARA_CACHE_HELPER_NAME")
	var r *registry.Registrar
	if _, token, err := svc.AddRegistrar(ctx, "second-process"); err == nil {
		r, err = svc.Authenticate(ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(os.Getenv("AKSHARA_CACHE_HELPER_DB")+".token", []byte(token), 0o600)
	} else {
		token, rerr := os.ReadFile(os.Getenv("AKSHARA_CACHE_HELPER_DB") + ".token")
		if rerr != nil {
			t.Fatalf("AddRegistrar: %v; reading the token: %v", err, rerr)
		}
		if r, err = svc.Authenticate(ctx, string(token)); err != nil {
			t.Fatal(err)
		}
	}
	switch action {
	case "create":
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: name, Lang: "hi"}); err != nil {
			t.Fatal(err)
		}
	case "delete":
		if err := registrytest.Err(svc.DeleteDomain(ctx, r, registry.DomainDelete{Name: name})); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("unknown action %q", action)
	}
}

// BenchmarkFindForCheck: the store's lookups of a check, with and without
// the read cache (one goroutine; half the labels are held).
func BenchmarkFindForCheck(b *testing.B) {
	for _, cache := range []bool{false, true} {
		b.Run(fmt.Sprintf("cache=%v", cache), func(b *testing.B) {
			defer sqlite.SetCacheReads(cache)()
			s, err := sqlite.Open(context.Background(), b.TempDir()+"/bench.db")
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			svc, err := registry.NewServiceWith(context.Background(), s, registry.ServiceOptions{ContactsExempt: []string{""}})
			if err != nil {
				b.Fatal(err)
			}
			r, _, err := svc.AddRegistrar(context.Background(), "bench")
			if err != nil {
				b.Fatal(err)
			}
			var labels [][]string
			for i := 0; i < 200; i++ {
				if i%2 == 0 {
					if _, err := svc.CreateDomain(context.Background(), r, registry.DomainCreate{Name: registrytest.Label(i) + ".भारत", Lang: "hi"}); err != nil {
						b.Fatal(err)
					}
				}
				labels = append(labels, []string{registrytest.Label(i)})
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d, r, err := s.FindForCheck(ctx, "भारत", labels[i%len(labels)])
				if (d != nil) != (i%2 == 0) || r != nil || err != nil {
					b.Fatalf("FindForCheck(%s) = %v, %v, %v", labels[i%len(labels)], d, r, err)
				}
			}
		})
	}
}

// TestReadCacheConcurrent: checkers share the cache's polls while a second
// store on the same file creates names one after another; a name whose
// create was acknowledged before a check began must be answered taken.
func TestReadCacheConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.db")
	a, storeA := openService(t, path)
	b, _ := openService(t, path)
	r, _, err := b.AddRegistrar(t.Context(), "other")
	if err != nil {
		t.Fatal(err)
	}
	const names = 300
	var created atomic.Int64 // names 0 .. created-1 are acknowledged
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				n := created.Load() // before the check begins
				if n == 0 {
					continue
				}
				k := int(int64(i) % n) // a name acknowledged before the check
				name := registrytest.Label(k) + ".भारत"
				res, err := a.Check(context.Background(), name, "hi")
				if err == nil && res.Status != registry.Registered {
					err = fmt.Errorf("Check(%q) after its create = %s", name, res.Status)
				}
				if err != nil {
					errs <- err
					return
				}
				// a name not yet created (it may be by now: either answer)
				if _, err := a.Check(context.Background(), registrytest.Label(int(n)+w)+".भारत", "hi"); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	for i := 0; i < names; i++ {
		if _, err := b.CreateDomain(t.Context(), r, registry.DomainCreate{Name: registrytest.Label(i) + ".भारत", Lang: "hi"}); err != nil {
			t.Fatal(err)
		}
		created.Store(int64(i + 1))
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	cacheHits(t, storeA, 0)
}
