package spool

import (
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSpoolSpills: what is written is read back the same, any number of
// times, whether the spool stays in memory or moves to a file (a limit of
// 0, 100 bytes, 1 MB), and a section reads its part.
func TestSpoolSpills(t *testing.T) {
	for _, limit := range []int{0, 100, 1 << 20} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			s := New(limit)
			defer s.Close()
			var offs []int64
			for i := range 1000 {
				offs = append(offs, s.Size())
				s.PutVarint(int64(i) - 500)
				s.PutUvarint(uint64(i) * 1000)
				s.PutUint64(uint64(i) << 40)
				s.PutString(fmt.Sprint("लेबल", i))
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if want := limit < 1<<20; s.Spilled() != want {
				t.Fatalf("Spilled() = %v, want %v", s.Spilled(), want)
			}
			for range 2 {
				r, err := s.Reader()
				if err != nil {
					t.Fatal(err)
				}
				for i := range 1000 {
					v, err1 := r.Varint()
					u, err2 := r.Uvarint()
					x, err3 := r.Uint64()
					l, err4 := r.String()
					if err := firstErr(err1, err2, err3, err4); err != nil {
						t.Fatalf("record %d: %v", i, err)
					}
					if v != int64(i)-500 || u != uint64(i)*1000 || x != uint64(i)<<40 || l != fmt.Sprint("लेबल", i) {
						t.Fatalf("record %d: %d %d %d %q", i, v, u, x, l)
					}
				}
				if r.More() {
					t.Fatal("More() after the last record")
				}
				if _, err := r.Uvarint(); err != io.EOF {
					t.Fatalf("read past the end: %v, want io.EOF", err)
				}
			}
			r, err := s.Section(offs[500], offs[501]-offs[500])
			if err != nil {
				t.Fatal(err)
			}
			if v, err := r.Varint(); err != nil || v != 0 {
				t.Fatalf("section: %d, %v", v, err)
			}
		})
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestRepeats: the values added more than once are found the same in
// memory and from runs on disk (runs of 2, 7 and 1,000 values), and are
// those a map counts.
func TestRepeats(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var values []uint64
	for range 5000 {
		values = append(values, rng.Uint64N(8000)) // many repeats
	}
	values = append(values, 0, ^uint64(0), ^uint64(0))
	count := map[uint64]int{}
	want := map[uint64]struct{}{}
	for _, v := range values {
		if count[v]++; count[v] == 2 {
			want[v] = struct{}{}
		}
	}
	for _, runLen := range []int{2, 7, 1000, 1 << 20} {
		r := NewRepeats(runLen)
		for _, v := range values {
			if err := r.Add(v); err != nil {
				t.Fatal(err)
			}
		}
		if want := runLen < len(values); r.Spilled() != want {
			t.Errorf("runLen %d: Spilled() = %v, want %v", runLen, r.Spilled(), want)
		}
		got, err := r.Find()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Errorf("runLen %d: the repeats are not sorted and distinct", runLen)
		}
		set := map[uint64]struct{}{}
		for _, v := range got {
			set[v] = struct{}{}
		}
		if !maps.Equal(set, want) {
			t.Errorf("runLen %d: %d repeats, want %d", runLen, len(got), len(want))
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
