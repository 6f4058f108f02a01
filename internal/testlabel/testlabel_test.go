package testlabel

import "testing"

// TestHindiDistinct: labels past the 1,562,500 of three syllables are new
// ones (before, Hindi(i+1,562,500) was Hindi(i): a 10-million-record
// generated import held 1.9 million distinct names), and the first ones
// are as they were.
func TestHindiDistinct(t *testing.T) {
	const three = 25 * 25 * 25 * 10 * 10
	seen := map[string]int{}
	for _, start := range []int{0, three - 5000, three, 2 * three, 6*three - 5000, 6 * three, 40 * three} {
		for i := start; i < start+5000; i++ {
			l := Hindi(i)
			if j, ok := seen[l]; ok && j != i {
				t.Fatalf("Hindi(%d) = Hindi(%d) = %s", i, j, l)
			}
			seen[l] = i
		}
	}
	for i, want := range map[int]string{0: "ककक", 1: "खकक", three - 1: "हौहौह"} {
		if got := Hindi(i); got != want {
			t.Errorf("Hindi(%d) = %s; want %s (the labels below 1,562,500 are unchanged)", i, got, want)
		}
	}
}
