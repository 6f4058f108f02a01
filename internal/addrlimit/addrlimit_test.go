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

// TestSlots: an address at its cap is refused and another is not; a
// released slot can be taken again; the map forgets an address with none
// open; a cap below 1 caps nothing.
func TestSlots(t *testing.T) {
	s := NewSlots(2)
	for i, want := range []bool{true, true, false} {
		if got := s.Take("192.0.2.1"); got != want {
			t.Errorf("take %d: %v, want %v", i, got, want)
		}
	}
	if !s.Take("192.0.2.2") {
		t.Error("another address was refused")
	}
	if n := s.Open("192.0.2.1"); n != 2 {
		t.Errorf("192.0.2.1 holds %d slots, want 2", n)
	}
	s.Release("192.0.2.1")
	if !s.Take("192.0.2.1") {
		t.Error("a released slot could not be taken again")
	}
	s.Release("192.0.2.1")
	s.Release("192.0.2.1")
	s.Release("192.0.2.2")
	if len(s.n) != 0 {
		t.Errorf("addresses with no connection kept: %v", s.n)
	}
	var off *Slots = NewSlots(0)
	if off != nil || !off.Take("x") || off.Open("x") != 0 {
		t.Error("a cap of 0 does not turn the cap off")
	}
	off.Release("x")
}
