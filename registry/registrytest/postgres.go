package registrytest

import (
	"context"
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
)

// PostgresService returns a registry service on a fresh schema of the
// PostgreSQL test database (pgtest), or skips, saying so, without one.
func PostgresService(tb testing.TB) *registry.Service {
	tb.Helper()
	ctx := context.Background()
	store, err := postgres.Open(ctx, pgtest.DSN(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() }) // before the schema is dropped
	svc, err := registry.NewServiceWith(ctx, store, Exempt(registry.ServiceOptions{}, ""))
	if err != nil {
		tb.Fatal(err)
	}
	return svc
}

// Stores are the stores a front end's tests run on: SQLite always,
// PostgreSQL when AKSHARA_TEST_POSTGRES_DSN is set.
var Stores = []struct {
	Name    string
	Service func(testing.TB) *registry.Service
}{
	{"sqlite", SQLiteService},
	{"postgres", PostgresService},
}

// StoresWith are Stores with the service made with options (a
// ManualClock, say).
var StoresWith = []struct {
	Name    string
	Service func(testing.TB, registry.ServiceOptions) *registry.Service
}{
	{"sqlite", SQLiteServiceWith},
	{"postgres", PostgresServiceWith},
}

// PostgresServiceWith is PostgresService with options.
func PostgresServiceWith(tb testing.TB, o registry.ServiceOptions) *registry.Service {
	tb.Helper()
	ctx := context.Background()
	store, err := postgres.Open(ctx, pgtest.DSN(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() }) // before the schema is dropped
	svc, err := registry.NewServiceWith(ctx, store, o)
	if err != nil {
		tb.Fatal(err)
	}
	return svc
}
