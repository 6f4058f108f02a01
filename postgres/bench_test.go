package postgres_test

import (
	"context"
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
