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

// BenchmarkSearch: RDAP's domain search (domains?name=PREFIX*.ZONE) at
// 100,000 domains (AKSHARA_SEARCH_BENCH_N sets how many; issue 34 item
// 13 measured 1,000,000): latency percentiles per request.
func BenchmarkSearch(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("AKSHARA_SEARCH_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	registrytest.BenchSearch(b, func(b *testing.B) *sqlstore.Store {
		s, err := sqlite.Open(context.Background(), b.TempDir()+"/search.db")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}, n)
}
