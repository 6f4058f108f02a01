package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

func TestImport(t *testing.T) {
	registrytest.RunImport(t, func(t *testing.T) registry.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "registry.db"))
		if err != nil {
			t.Fatalf("sqlite.Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// BenchmarkImport: names/s of akshara import (100,000 generated names per
// run) into a fresh SQLite file.
func BenchmarkImport(b *testing.B) {
	registrytest.BenchImport(b, 100_000, func(b *testing.B) registry.Store {
		s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}

func TestReaudit(t *testing.T) {
	registrytest.RunReaudit(t, func(t *testing.T) registry.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "registry.db"))
		if err != nil {
			t.Fatalf("sqlite.Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestReauditRace(t *testing.T) {
	registrytest.RunReauditRace(t, func(t *testing.T) registry.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "registry.db"))
		if err != nil {
			t.Fatalf("sqlite.Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestImportGivesCacheBack: after an import every connection of the
// store's pool has the default page cache again. A batch sets a 256 MiB
// cache on the connection it gets; without ImportTeardown each connection
// a batch used kept its cache, and the import's memory grew with the file
// (issue 26: 757 MB peak at a million names).
func TestImportGivesCacheBack(t *testing.T) {
	ctx := t.Context()
	s, svc := newService(t)
	sum, err := svc.Import(ctx, registrytest.GeneratedImport(t, 2000, 3), registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, Batched: true, BatchSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Batches < 10 {
		t.Fatalf("%d batches; the test wants several", sum.Batches)
	}
	// take every connection the pool holds (16 at most) and ask each
	var conns []*sql.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < 16; i++ {
		c, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var size int64
		if err := c.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&size); err != nil {
			t.Fatal(err)
		}
		if size != -2000 {
			t.Errorf("connection %d of the pool has cache_size %d after the import; want the default -2000", i, size)
		}
	}
}

// TestImportKeepsConnection: between two batches of an import the
// connection of the last batch is kept out of the pool, its page cache
// warm for the next batch (bulkconn.go), and given back (torn down)
// after the last batch and when an import stops. Without it every batch
// began with an empty cache and read again the pages it touched.
func TestImportKeepsConnection(t *testing.T) {
	ctx := t.Context()
	s, svc := newService(t)
	// Refused is called by the import's writer after each batch, before
	// the next: the kept connection is then out of the pool (in use)
	inUse := map[int]int{}
	opts := registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, Batched: true, BatchSize: 100,
		Refused: func(registry.ImportRefusal) { inUse[s.DB().Stats().InUse]++ }}
	sum, err := svc.Import(ctx, registrytest.GeneratedImport(t, 2000, 3), opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Batches < 10 {
		t.Fatalf("%d batches; the test wants several", sum.Batches)
	}
	if inUse[1] == 0 || len(inUse) != 1 {
		t.Errorf("connections in use between batches: %v (count by number); want 1 each time (the kept one)", inUse)
	}
	if n := s.DB().Stats().InUse; n != 0 {
		t.Errorf("%d connections in use after the import; want 0 (the kept one given back after the last batch)", n)
	}

	// an import that stops (here: interrupted after its second batch)
	// gives it back when the store closes
	s2, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "registry2.db"))
	if err != nil {
		t.Fatal(err)
	}
	svc2, err := registry.NewServiceWith(ctx, s2, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := 0
	last := int64(0)
	opts.Refused = func(r registry.ImportRefusal) {
		if r.Line/100 != last/100 {
			if batches++; batches == 2 {
				cancel()
			}
		}
		last = r.Line
	}
	if _, err := svc2.Import(cctx, registrytest.GeneratedImport(t, 2000, 3), opts); err == nil {
		t.Fatal("the interrupted import returned no error")
	}
	// the kept one, or none if the batch in flight when the import was
	// interrupted had taken it (its look-ahead runs while the batch
	// before is written) and failed: a failed batch gives it back
	if n := s2.DB().Stats().InUse; n > 1 {
		t.Errorf("%d connections in use after an interrupted import; want at most the kept one", n)
	}
	s2.Close()
	if n := s2.DB().Stats().OpenConnections; n != 0 {
		t.Errorf("%d connections open after Close; want 0", n)
	}
}

// TestImportBatchSizeFor: a small file is written in smaller batches
// than a large one (less memory for the judged names where the database
// stays small; fewer writes of each page where it outgrows the cache),
// and an import without -batch takes the size for its file.
func TestImportBatchSizeFor(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	small, large := s.ImportBatchSizeFor(5<<20), s.ImportBatchSizeFor(300<<20)
	if small <= 0 || small != s.ImportBatchSize() || large <= small {
		t.Errorf("batch sizes: %d for 5 MiB, %d for 300 MiB, default %d; want the default for the small file and more for the large one", small, large, s.ImportBatchSize())
	}
	svc, err := registry.NewServiceWith(ctx, s, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	n := small + small/2 // names: two batches of the small size
	sum, err := svc.Import(ctx, registrytest.GeneratedImport(t, n, 3), registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, Batched: true})
	if err != nil && sum == nil {
		t.Fatal(err)
	}
	if sum.Batches != 2 {
		t.Errorf("%d records in %d batches; want 2 of %d", sum.Records, sum.Batches, small)
	}
}

// TestImportForeignKeys: an import batch writes with its connection's
// foreign-key checks off, checking the references itself
// (sqlstore.Unchecked), and no connection goes back to the pool with them
// off; a batch naming a registrar that does not exist writes nothing.
func TestImportForeignKeys(t *testing.T) {
	ctx := t.Context()
	s, svc := newService(t)
	opts := registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, Batched: true, BatchSize: 100}
	sum, err := svc.Import(ctx, registrytest.GeneratedImport(t, 1000, 3), opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Batches < 5 {
		t.Fatalf("%d batches; the test wants several", sum.Batches)
	}
	if got := s.ImportChecks(); got != "per batch" {
		t.Errorf("ImportChecks() = %q; want per batch", got)
	}
	// every connection of the pool at once: the import's among them
	conns := make([]*sql.Conn, 0, 16)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 16 {
		c, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var on int
		if err := c.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&on); err != nil {
			t.Fatal(err)
		}
		if on != 1 {
			t.Errorf("connection %d of the pool has foreign_keys = %d after an import; want 1", len(conns), on)
		}
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil

	var before int
	if err := s.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM domains").Scan(&before); err != nil {
		t.Fatal(err)
	}
	b := &registry.ImportBatch{Source: "test", Zone: "भारत", LastLine: 1, Items: []*registry.ImportItem{{Line: 1, RegistrarID: 999,
		Domain: registry.ImportDomain{Name: "ठठठ.भारत", ALabel: "xn--e1bbb.xn--h2brj9c", Label: "ठठठ", Lang: "hi", Blocks: []string{"ठठठ"}}}}}
	err = s.ImportBatch(ctx, b)
	if err == nil || !strings.Contains(err.Error(), "no registrar with ID 999") {
		t.Errorf("a batch naming registrar 999: %v; want no registrar with ID 999", err)
	}
	var after int
	if err := s.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM domains").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("%d domains after the refused batch; want %d", after, before)
	}
}
