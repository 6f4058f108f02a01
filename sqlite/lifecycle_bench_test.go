package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// BenchmarkPurge: the lifecycle worker purges 100,000 expired domains
// (go test ./sqlite -run ^$ -bench Purge -benchtime 1x).
func BenchmarkPurge(b *testing.B) {
	for range b.N {
		s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "registry.db"))
		if err != nil {
			b.Fatal(err)
		}
		registrytest.BenchPurge(b, 100000, s, s.DB(), s.Rebind)
		s.Close()
	}
}
