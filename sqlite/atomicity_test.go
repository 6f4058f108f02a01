package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestAtomicity: registrytest.RunAtomicity on SQLite (issue 33): every
// command with an invalid part is refused with its code and changes
// nothing.
func TestAtomicity(t *testing.T) {
	registrytest.RunAtomicity(t, func(t *testing.T) registry.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "registry.db"))
		if err != nil {
			t.Fatalf("sqlite.Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
