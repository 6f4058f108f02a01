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

// BenchmarkStore: as for SQLite, on PostgreSQL (AKSHARA_TEST_POSTGRES_DSN),
// each run in a fresh schema.
func BenchmarkStore(b *testing.B) {
	registrytest.Bench(b, func(b *testing.B) *sqlstore.Store {
		s, err := postgres.Open(context.Background(), pgtest.DSN(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}

// BenchmarkDomainPages: GET /v1/domains of a registrar with 200,000
// domains, page by page (issue 22 item 10; AKSHARA_PAGE_BENCH_N sets n).
func BenchmarkDomainPages(b *testing.B) {
	n := 200_000
	if v, err := strconv.Atoi(os.Getenv("AKSHARA_PAGE_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	registrytest.BenchPages(b, func(b *testing.B) *sqlstore.Store {
		s, err := postgres.Open(context.Background(), pgtest.DSN(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}, n)
}
