package sqlite_test

import (
	"context"
	"testing"

	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// BenchmarkStore: creates/s and checks/s (in process and over HTTP on
// loopback) next to the raw single-row INSERT transaction rate, on a
// SQLite file with durable commits.
func BenchmarkStore(b *testing.B) {
	registrytest.Bench(b, func(b *testing.B) *sqlstore.Store {
		s, err := sqlite.Open(context.Background(), b.TempDir()+"/bench.db")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}

// BenchmarkStoreUncached is BenchmarkStore without the read cache of
// checks' lookups (compare check/http in both).
func BenchmarkStoreUncached(b *testing.B) {
	defer sqlite.SetCacheReads(false)()
	BenchmarkStore(b)
}
