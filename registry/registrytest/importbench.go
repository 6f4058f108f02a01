package registrytest

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// BenchImport imports a generated file of records names (GenerateImport)
// into a fresh store per iteration and reports names/s.
func BenchImport(b *testing.B, records int, open func(b *testing.B) registry.Store) {
	var file bytes.Buffer
	want, err := GenerateImport(&file, records, 7)
	if err != nil {
		b.Fatal(err)
	}
	opener := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file.Bytes())), nil }
	b.ReportAllocs()
	b.ResetTimer()
	var total float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		store := open(b)
		svc, err := registry.NewServiceWith(b.Context(), store, Exempt(registry.ServiceOptions{}, ""))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		sum, err := svc.Import(b.Context(), opener, registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true})
		total += time.Since(start).Seconds()
		if err != nil {
			b.Fatal(err)
		}
		if sum.Registered != want.Registered || sum.Exempted != want.Exempted {
			b.Fatalf("registered %d exempted %d, want %d %d", sum.Registered, sum.Exempted, want.Registered, want.Exempted)
		}
	}
	b.ReportMetric(float64(records)*float64(b.N)/total, "names/s")
}
