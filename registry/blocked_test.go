package registry

import (
	"slices"
	"testing"
)

// TestBlockedVariants: the conflict set but the domain itself and the
// domains it is exempted with (registered, not blocked).
func TestBlockedVariants(t *testing.T) {
	d := &Domain{Label: "a", Zone: "z", Blocks: []string{"a", "b", "c", "d"}, ExemptWith: []string{"b.z", "c.other"}}
	if got, want := d.BlockedVariants(), []string{"c.z", "d.z"}; !slices.Equal(got, want) {
		t.Errorf("BlockedVariants = %v, want %v", got, want)
	}
	if got := (&Domain{Label: "a", Zone: "z", Blocks: []string{"a"}}).BlockedVariants(); len(got) != 0 {
		t.Errorf("a set of one: %v", got)
	}
}
