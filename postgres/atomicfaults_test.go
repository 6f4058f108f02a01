package postgres_test

import (
	"database/sql"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/akshara-idn/akshara/internal/faultdriver"
	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// faults is pgx's database/sql driver wrapped to inject faults, registered
// once as "pgx-faults".
var (
	faults         = &faultdriver.Driver{Base: stdlib.GetDefaultDriver()}
	registerFaults sync.Once
)

// TestCommandFaults: registrytest.RunCommandFaults on PostgreSQL (issue
// 33): a fault at every statement of each command's transaction and at
// its COMMIT (a serialization failure, retried: applied once; another
// error: refused, nothing written; a connection lost at the COMMIT: read
// back from the command's mark, applied once).
func TestCommandFaults(t *testing.T) {
	pgtest.DSN(t) // skips, saying so, without a test database
	registerFaults.Do(func() { sql.Register("pgx-faults", faults) })
	registrytest.RunCommandFaults(t, registrytest.FaultKit{
		Driver: faults,
		Open: func(t *testing.T) *sqlstore.Store {
			dsn := pgtest.DSN(t)
			store, err := postgres.OpenDriver(t.Context(), "pgx-faults", dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() }) // before the schema is dropped
			store.SetRetry(sqlstore.Retry{Attempts: 5, Base: time.Millisecond, Max: 10 * time.Millisecond})
			return store
		},
		Transient: &pgconn.PgError{Code: "40001", Message: "injected serialization failure"},
		Fatal:     errors.New("injected fault"),
		// a connection lost at a COMMIT (pgx's error of a read cut short):
		// transient, so the command runs again unless its mark is there
		Lost:        io.ErrUnexpectedEOF,
		LostRetried: true,
	})
}
