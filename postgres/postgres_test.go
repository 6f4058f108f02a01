package postgres_test

import (
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// open returns a store in a fresh schema of the test database, dropped
// when the test ends.
func open(t *testing.T) registry.Store {
	t.Helper()
	dsn := pgtest.DSN(t)
	s, err := postgres.Open(t.Context(), dsn)
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	t.Cleanup(func() { s.Close() }) // before the schema is dropped
	return s
}

func TestRegistry(t *testing.T) {
	pgtest.DSN(t) // skips, saying so, without a test database
	registrytest.Run(t, open)
}
