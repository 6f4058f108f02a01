package postgres_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// BenchmarkStore: as for SQLite, on PostgreSQL (AKSHARA_TEST_POSTGRES_DSN),
// each run in a fresh schema.
func BenchmarkStore(b *testing.B) {
	base := os.Getenv("AKSHARA_TEST_POSTGRES_DSN")
	if base == "" {
		b.Skip("AKSHARA_TEST_POSTGRES_DSN is not set: PostgreSQL benchmarks skipped")
	}
	registrytest.Bench(b, func(b *testing.B) *sqlstore.Store {
		var r [6]byte
		rand.Read(r[:])
		schema := "akshara_bench_" + hex.EncodeToString(r[:])
		admin, err := sql.Open("pgx", base)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
			b.Fatal(err)
		}
		sep := "?"
		if strings.Contains(base, "?") {
			sep = "&"
		}
		s, err := postgres.Open(context.Background(), base+sep+"search_path="+schema)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			s.Close()
			admin.Exec("DROP SCHEMA " + schema + " CASCADE")
			admin.Close()
		})
		return s
	})
}
