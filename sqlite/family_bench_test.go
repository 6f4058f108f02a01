package sqlite_test

import (
	"context"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// familyLabel is the i-th of 15,625 Bangla labels with র (C া C র C), each
// of which has an Assamese twin with ৰ under ভাৰত, ভারত's variant TLD.
func familyLabel(i int) string {
	cons := []string{"ক", "খ", "গ", "চ", "জ", "ট", "ড", "ত", "দ", "ন", "প", "ব", "ভ", "ম", "ল", "স", "হ", "শ", "ফ", "থ", "ধ", "ঘ", "ছ", "ঠ", "ঢ"}
	n := len(cons)
	return cons[i%n] + "া" + cons[(i/n)%n] + "র" + cons[(i/n/n)%n]
}

// BenchmarkFamilyCheck is BenchmarkCheckPath's "service" case for the
// Bangla zone ভারত, a member of a variant TLD family (docs/variants.md,
// "Zone families"): each check's set is generated under the family's
// relation (bn ∪ as with the র/ৰ row) and looked up under the family's
// key. Half the labels checked are registered.
func BenchmarkFamilyCheck(b *testing.B) {
	ctx := context.Background()
	svc, r := benchService(b)
	for i := 0; i < 1000; i++ {
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: familyLabel(2*i) + ".ভারত"}); err != nil {
			b.Fatal(err)
		}
	}
	names := make([]string, 2000)
	for i := range names {
		names[i] = familyLabel(i) + ".ভারত"
		if _, err := svc.Check(ctx, names[i], ""); err != nil { // warm the cache
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := svc.Check(ctx, names[i%len(names)], ""); err != nil {
			b.Fatal(err)
		}
	}
}
