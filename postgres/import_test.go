package postgres_test

import (
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

func TestImport(t *testing.T) {
	pgtest.DSN(t) // skips, saying so, without a test database
	registrytest.RunImport(t, open)
}

// BenchmarkImport: names/s of akshara import (100,000 generated names per
// run) into a fresh PostgreSQL schema.
func BenchmarkImport(b *testing.B) {
	registrytest.BenchImport(b, 100_000, func(b *testing.B) registry.Store {
		s, err := postgres.Open(b.Context(), pgtest.DSN(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}

func TestReaudit(t *testing.T) {
	pgtest.DSN(t) // skips, saying so, without a test database
	registrytest.RunReaudit(t, open)
}

func TestReauditRace(t *testing.T) {
	pgtest.DSN(t) // skips, saying so, without a test database
	registrytest.RunReauditRace(t, open)
}
