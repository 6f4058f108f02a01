package postgres_test

import (
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestZoneExportLarge: registrytest.RunZoneExportLarge on PostgreSQL.
func TestZoneExportLarge(t *testing.T) {
	pgtest.DSN(t) // skips, saying so, without a test database
	registrytest.RunZoneExportLarge(t, func(t *testing.T) registrytest.SQLStore {
		return open(t).(registrytest.SQLStore)
	})
}
