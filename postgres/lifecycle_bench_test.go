package postgres_test

import (
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// BenchmarkPurge: the lifecycle worker purges 100,000 expired domains
// (go test ./postgres -run ^$ -bench Purge -benchtime 1x, with
// AKSHARA_TEST_POSTGRES_DSN).
func BenchmarkPurge(b *testing.B) {
	for range b.N {
		s, err := postgres.Open(b.Context(), pgtest.DSN(b))
		if err != nil {
			b.Fatal(err)
		}
		registrytest.BenchPurge(b, 100000, s, s.DB(), s.Rebind)
		s.Close()
	}
}
