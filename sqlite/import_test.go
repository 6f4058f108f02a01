package sqlite_test

import (
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
