package escrow

import (
	"fmt"
	"testing"
)

// TestKeySet: every key added is held, and none of as many others is
// (a key set that answered by one 64-bit hash, or always yes, would let a
// missing reference pass).
func TestKeySet(t *testing.T) {
	k := newKeySet()
	const n = 200_000
	for i := range n {
		k.add(fmt.Sprintf("ct-%d", i))
	}
	for i := range n {
		if !k.has(fmt.Sprintf("ct-%d", i)) {
			t.Fatalf("ct-%d added, not held", i)
		}
		if k.has(fmt.Sprintf("ct-%d", n+i)) || k.has(fmt.Sprintf("CT-%d", i)) {
			t.Fatalf("ct-%d or CT-%d held, never added", n+i, i)
		}
	}
	if len(k.m) != n {
		t.Errorf("%d keys held, %d added", len(k.m), n)
	}
}

// BenchmarkKeySet: adding and finding a contact id.
func BenchmarkKeySet(b *testing.B) {
	b.ReportAllocs()
	k := newKeySet()
	ids := make([]string, 1<<16)
	for i := range ids {
		ids[i] = fmt.Sprintf("ct-%d", i)
	}
	for i := 0; b.Loop(); i++ {
		id := ids[i&(len(ids)-1)]
		k.add(id)
		if !k.has(id) {
			b.Fatal(id)
		}
	}
}
