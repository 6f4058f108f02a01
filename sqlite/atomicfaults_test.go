package sqlite_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestCommandFaults: registrytest.RunCommandFaults on SQLite (issue 33): a
// fault at every statement of each command's transaction and at its
// COMMIT (SQLITE_BUSY, retried: applied once; another error: refused,
// nothing written; an error after the COMMIT took effect: read back from
// the command's mark, applied once; before: read back, refused).
func TestCommandFaults(t *testing.T) {
	registerFaults.Do(func() { sql.Register("sqlite-faults", faults) })
	registrytest.RunCommandFaults(t, registrytest.FaultKit{
		Driver: faults,
		Open: func(t *testing.T) *sqlstore.Store {
			store, err := sqlite.OpenDriver(t.Context(), "sqlite-faults", filepath.Join(t.TempDir(), "registry.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
			store.SetRetry(sqlstore.Retry{Attempts: 5, Base: time.Millisecond, Max: 10 * time.Millisecond})
			return store
		},
		Transient: busyError(t),
		Fatal:     errors.New("injected fault"),
		Lost:      driverBadConn{},
	})
}
