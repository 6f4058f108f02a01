package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestZoneExportLarge: registrytest.RunZoneExportLarge on SQLite.
func TestZoneExportLarge(t *testing.T) {
	registrytest.RunZoneExportLarge(t, func(t *testing.T) registrytest.SQLStore {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "r.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
