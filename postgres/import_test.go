package postgres_test

import (
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

func TestImport(t *testing.T) {
	pgtest.DSN(t) // skips, saying so, without a test database
	registrytest.RunImport(t, open)
}
