// Package pgtest gives PostgreSQL tests and benchmarks a fresh schema of
// the test database named by AKSHARA_TEST_POSTGRES_DSN (.ci/run sets it);
// without it they skip, saying so (and fail under CI=true). When it is set
// but no server answers, every test fails with one line that names the
// DSN and the cause.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

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
		if os.Getenv("CI") == "true" {
			tb.Fatal(EnvDSN + " is not set under CI=true: the PostgreSQL tests cannot run (bash .ci/run sets it)")
		}
		tb.Skip(EnvDSN + " is not set: PostgreSQL tests skipped")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		tb.Fatalf("%s must be a postgres:// URL (%v)", EnvDSN, err)
	}
	if err := reachable(base); err != nil {
		tb.Fatal(err)
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

// probe remembers, per DSN, whether the server answered, so that a
// process whose server is down tries once and every test says the same.
var probe sync.Map // DSN → func() error (sync.OnceValue)

// reachable connects to base once per process and says in one line,
// naming the variable and the DSN (without its password), why nothing
// answers.
func reachable(base string) error {
	f, _ := probe.LoadOrStore(base, sync.OnceValue(func() error {
		db, err := sql.Open("pgx", base)
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			err = db.PingContext(ctx)
			cancel()
			db.Close()
		}
		if err == nil {
			return nil
		}
		shown := base
		if u, perr := url.Parse(base); perr == nil {
			shown = u.Redacted()
		}
		cause := strings.Join(strings.Fields(err.Error()), " ")
		return fmt.Errorf("%s=%s: no PostgreSQL server answers (%s); start one (bash .ci/setup-postgres.sh) or unset %s to skip these tests", EnvDSN, shown, cause, EnvDSN)
	}))
	return f.(func() error)()
}
