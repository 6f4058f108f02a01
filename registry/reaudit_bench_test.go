package registry_test

import (
	"bytes"
	"io"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// BenchmarkReaudit: a report-only re-audit of 20,000 generated names on
// SQLite under the modified Hindi file (some 3,000 domains listed), with
// the re-audit's records in memory (its default below 64 MB) and spilled
// to temporary files from the first kilobyte. held-B/domain is the Go heap
// the re-audit holds when it lists its first finding (after the scan and
// the search for shared labels) and gives back when it returns (each
// after a GC), over the domains: what grows with the zone; B/op and
// allocs/op are what it allocates in all.
//
//	go test ./registry -run '^$' -bench BenchmarkReaudit -benchtime 5x
func BenchmarkReaudit(b *testing.B) {
	const names = 20_000
	s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	var file bytes.Buffer
	if _, err := registrytest.GenerateImport(&file, names, 7); err != nil {
		b.Fatal(err)
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file.Bytes())), nil }
	imp, err := registry.NewService(b.Context(), s)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := imp.Import(b.Context(), open, registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true}); err != nil {
		b.Fatal(err)
	}
	svc, err := registry.NewServiceWith(b.Context(), s, registrytest.ModifiedHindi(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		spill bool
	}{{"memory", false}, {"spilled", true}} {
		b.Run(c.name, func(b *testing.B) {
			if c.spill {
				b.Cleanup(registry.SetReauditSpill(1<<10, 1<<10, 64))
				kept := sqlstore.ReauditKeptInMemory
				sqlstore.ReauditKeptInMemory = 1 << 10
				b.Cleanup(func() { sqlstore.ReauditKeptInMemory = kept })
			}
			var ms runtime.MemStats
			var held, domains float64
			b.ReportAllocs()
			for b.Loop() {
				first := true
				sum, err := svc.Reaudit(b.Context(), false, func(*registry.ReauditFinding) error {
					if first {
						first = false
						b.StopTimer()
						runtime.GC()
						runtime.ReadMemStats(&ms)
						held += float64(ms.HeapAlloc)
						b.StartTimer()
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&ms)
				held -= float64(ms.HeapAlloc) // what the re-audit gave back
				b.StartTimer()
				if sum.Conflicting == 0 {
					b.Fatal("nothing listed: the benchmark wants conflicts to find")
				}
				domains = float64(sum.Domains)
			}
			b.ReportMetric(held/float64(b.N)/domains, "held-B/domain")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/domains, "ns/domain")
		})
	}
}
