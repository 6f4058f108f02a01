package postgres_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry/registrytest"
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
		s, err := postgres.Open(context.Background(), pgtest.DSN(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}, n)
}
