package postgres_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// dsn returns the test database, or skips.
func dsn(t *testing.T) string {
	dsn := os.Getenv("AKSHARA_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("AKSHARA_TEST_POSTGRES_DSN is not set: PostgreSQL tests skipped")
	}
	return dsn
}

// open returns a store in a fresh schema of the test database, dropped
// when the test ends.
func open(t *testing.T, base string) registry.Store {
	t.Helper()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	var b [8]byte
	rand.Read(b[:])
	schema := "akshara_test_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(t.Context(), `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("creating schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
	})

	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("AKSHARA_TEST_POSTGRES_DSN must be a postgres:// URL (%v)", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	s, err := postgres.Open(t.Context(), u.String())
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	t.Cleanup(func() { s.Close() }) // before the schema is dropped
	return s
}

func TestRegistry(t *testing.T) {
	base := dsn(t)
	registrytest.Run(t, func(t *testing.T) registry.Store { return open(t, base) })
}
