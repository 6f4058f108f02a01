package sqlite_test

import (
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestReadCacheKeepsUnrelatedHits: a commit that touches none of a
// check's labels leaves its cached answer (the cache drops by the labels
// a commit touched, from the change log). With a cache that empties on
// any commit the second check of each round is a miss.
func TestReadCacheKeepsUnrelatedHits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.db")
	a, storeA := openService(t, path)
	b, _ := openService(t, path)
	r, _, err := b.AddRegistrar(t.Context(), "other")
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a, kitab, registry.Available, "")
	for i := 0; i < 20; i++ {
		// a commit by another connection, of a name unrelated to kitab
		if _, err := b.CreateDomain(t.Context(), r, registry.DomainCreate{Name: registrytest.Label(i) + ".भारत", Lang: "hi"}); err != nil {
			t.Fatal(err)
		}
		before := storeA.CacheHits()
		res, err := a.Check(t.Context(), kitab, "hi")
		if err != nil || res.Status != registry.Available {
			t.Fatalf("Check(%s) = %+v, %v", kitab, res, err)
		}
		if storeA.CacheHits() == before {
			t.Fatalf("round %d: the check of %s after an unrelated commit was not answered from the cache", i, kitab)
		}
	}
	if applied, _ := storeA.CacheStats(); applied == 0 {
		t.Fatalf("the cache applied no change-log row")
	}
	// and a related commit is seen at once
	if _, err := b.CreateDomain(t.Context(), r, registry.DomainCreate{Name: kittab, Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a, kitab, registry.Blocked, kittab)
}

// TestReadCacheEveryWritePath: every write path, taken by a second store
// on the same file (another connection; the triggers log it as they
// would another process's), is seen by the first store's cached checks:
// after each step every name of the test is checked through the cached
// store and through a store without the cache, and the answers must be
// the same. The cached store checks each name before the step, so that
// its answer is in the cache; a path the change log misses makes the
// cached answer the one from before the step.
func TestReadCacheEveryWritePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.db")
	// the zones' own lifecycle (.IN profile): a delete puts the name in
	// redemption, from which it can be restored
	open := func() (*registry.Service, *sqlstore.Store) {
		s, err := sqlite.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		svc, err := registry.NewServiceWith(t.Context(), s, registry.ServiceOptions{ContactsExempt: []string{""}})
		if err != nil {
			t.Fatal(err)
		}
		return svc, s
	}
	a, storeA := open()
	b, _ := open()
	restore := sqlite.SetCacheReads(false)
	plain, _ := open()
	restore()

	r1, _, err := b.AddRegistrar(t.Context(), "one")
	if err != nil {
		t.Fatal(err)
	}
	r2, tok2, err := b.AddRegistrar(t.Context(), "two")
	if err != nil {
		t.Fatal(err)
	}
	_ = tok2
	in := func(l string) string { return l + ".भारत" }
	names := []string{kitab, kittab}
	for i := 0; i < 6; i++ {
		l := registrytest.Label(100 + i)
		names = append(names, in(l), in("त"+l), in("त्त"+l))
	}
	same := func(step string) {
		t.Helper()
		for _, n := range names {
			got, err := a.Check(t.Context(), n, "hi")
			if err != nil {
				t.Fatalf("%s: Check(%s): %v", step, n, err)
			}
			want, err := plain.Check(t.Context(), n, "hi")
			if err != nil {
				t.Fatalf("%s: Check(%s) without the cache: %v", step, n, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: Check(%s) from the cache = %+v\nwithout the cache = %+v", step, n, got, want)
			}
		}
	}
	label := func(i int) string { return registrytest.Label(100 + i) }
	steps := []struct {
		name string
		do   func() error
	}{
		{"create", func() error {
			_, err := b.CreateDomain(t.Context(), r1, registry.DomainCreate{Name: kitab, Lang: "hi"})
			return err
		}},
		{"status change", func() error {
			_, err := b.UpdateDomain(t.Context(), r1, registry.DomainUpdate{Name: kitab, AddStatuses: []string{"clientHold"}})
			return err
		}},
		{"status change back", func() error {
			_, err := b.UpdateDomain(t.Context(), r1, registry.DomainUpdate{Name: kitab, RemStatuses: []string{"clientHold"}})
			return err
		}},
		{"transfer", func() error {
			if err := b.SetTransferPolicy(t.Context(), "भारत", 5*24*time.Hour, 0); err != nil {
				return err
			}
			if err := registrytest.SetAuthInfo(b, t.Context(), r1, kitab, "secret-Pw-1-strong"); err != nil {
				return err
			}
			if _, err := b.TransferDomain(t.Context(), r2, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: "secret-Pw-1-strong", Years: 1}); err != nil {
				return err
			}
			_, err := b.TransferDomain(t.Context(), r1, registry.DomainTransfer{Name: kitab, Op: registry.TransferApproveOp})
			return err
		}},
		{"delete (redemption)", func() error {
			_, err := b.DeleteDomain(t.Context(), r2, registry.DomainDelete{Name: kitab})
			return err
		}},
		{"restore", func() error {
			_, err := b.RestoreDomain(t.Context(), r2, registry.DomainRestore{Name: kitab, Op: "request"})
			return err
		}},
		{"create 2", func() error {
			_, err := b.CreateDomain(t.Context(), r1, registry.DomainCreate{Name: in(label(0)), Lang: "hi"})
			return err
		}},
		{"exempt create", func() error {
			_, err := b.CreateDomain(t.Context(), r2, registry.DomainCreate{Name: in("त" + label(0)), Lang: "hi", Exempt: true})
			return err
		}},
		{"delete of an exempted one", func() error {
			return registrytest.Err(b.DeleteDomain(t.Context(), r2, registry.DomainDelete{Name: in("त" + label(0))}))
		}},
		{"reserve", func() error { _, err := b.Reserve(t.Context(), in(label(1)), "test"); return err }},
		{"unreserve", func() error { return b.Unreserve(t.Context(), in(label(1))) }},
		{"import", func() error {
			file := fmt.Sprintf("name,registrar\n%s,one\n%s,two\n%s,two\n", in(label(2)), in("त"+label(3)), in("त्त"+label(3)))
			_, err := b.Import(t.Context(), func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil },
				registry.ImportOptions{ContactsExempt: true, Zone: "भारत"})
			return err
		}},
		{"re-audit apply", func() error { _, err := b.Reaudit(t.Context(), true, nil); return err }},
		{"delete", func() error {
			return registrytest.Err(b.DeleteDomain(t.Context(), r1, registry.DomainDelete{Name: in(label(0))}))
		}},
	}
	same("start")
	for _, st := range steps {
		hits := storeA.CacheHits()
		same(st.name + " (before)")
		if storeA.CacheHits() == hits {
			t.Fatalf("%s: the cache answered none of the checks before the step: the test tests nothing", st.name)
		}
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		same(st.name)
	}
}

// TestReadCacheBulkRowLeftCommitted: a cache_bulk row left committed (a
// bulk writer's BulkEnd not run) quiets the triggers for every later
// write; the cache must then drop everything at every change rather than
// answer from before a create.
func TestReadCacheBulkRowLeftCommitted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.db")
	a, _ := openService(t, path)
	b, storeB := openService(t, path)
	r, _, err := b.AddRegistrar(t.Context(), "other")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storeB.DB().Exec(`INSERT INTO cache_bulk (zone) VALUES ('stuck')`); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		name := registrytest.Label(i) + ".भारत"
		wantStatus(t, a, name, registry.Available, "")
		if _, err := b.CreateDomain(t.Context(), r, registry.DomainCreate{Name: name, Lang: "hi"}); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, a, name, registry.Registered, "")
	}
}
