// Package pgtest gives PostgreSQL tests and benchmarks a fresh schema of
// the test database named by AKSHARA_TEST_POSTGRES_DSN (.ci/run sets it);
// without it they skip, saying so.
package pgtest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// EnvDSN is the environment variable with the test database's URL, such
// as postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const EnvDSN = "AKSHARA_TEST_POSTGRES_DSN"

// DSN creates a schema of its own in the test database and returns a DSN
// whose search_path is that schema; the schema is dropped when the test
// ends (register the store's Close after calling DSN, so that it runs
// first). It skips the test when EnvDSN is not set.
func DSN(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(EnvDSN)
	if base == "" {
		tb.Skip(EnvDSN + " is not set: PostgreSQL tests skipped")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		tb.Fatalf("%s must be a postgres:// URL (%v)", EnvDSN, err)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatalf("connecting: %v", err)
	}
	var b [8]byte
	rand.Read(b[:])
	schema := "akshara_test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		admin.Close()
		tb.Fatalf("creating schema %s: %v", schema, err)
	}
	tb.Cleanup(func() {
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			tb.Errorf("dropping schema %s: %v", schema, err)
		}
		admin.Close()
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
