package addrlimit

import "testing"

func TestLimiters(t *testing.T) {
	a := New(0, 2) // no refill: a burst of two, then nothing
	for i, want := range []bool{true, true, false} {
		if got := a.Allow("192.0.2.1"); got != want {
			t.Errorf("take %d: %v, want %v", i, got, want)
		}
	}
	if !a.Exhausted("192.0.2.1") || a.Exhausted("192.0.2.2") {
		t.Error("the buckets of two addresses are not apart")
	}
	if !a.Allow("192.0.2.2") {
		t.Error("another address was limited")
	}
	var off *Limiters = New(-1, 0)
	if off != nil || !off.Allow("x") || off.Exhausted("x") {
		t.Error("a negative rate does not turn the limit off")
	}
}
