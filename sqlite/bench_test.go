package sqlite_test

import (
	"context"
	"os"
	"strconv"
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

// BenchmarkDomainPages: GET /v1/domains of a registrar with 200,000
// domains, page by page (issue 22 item 10; AKSHARA_PAGE_BENCH_N sets n).
func BenchmarkDomainPages(b *testing.B) {
	n := 200_000
	if v, err := strconv.Atoi(os.Getenv("AKSHARA_PAGE_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	registrytest.BenchPages(b, func(b *testing.B) *sqlstore.Store {
		s, err := sqlite.Open(context.Background(), b.TempDir()+"/pages.db")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}, n)
}
