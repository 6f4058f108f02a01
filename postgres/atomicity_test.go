package postgres_test

import (
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestAtomicity: registrytest.RunAtomicity on PostgreSQL (issue 33): every
// command with an invalid part is refused with its code and changes
// nothing.
func TestAtomicity(t *testing.T) {
	pgtest.DSN(t) // skips, saying so, without a test database
	registrytest.RunAtomicity(t, open)
}
