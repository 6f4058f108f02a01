package sqlite_test

import (
	"database/sql"
	"path/filepath"
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
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	svc, err := registry.NewService(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := svc.Import(ctx, registrytest.GeneratedImport(t, 2000, 3), registry.ImportOptions{Zone: "भारत", CreateRegistrars: true, BatchSize: 100})
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
