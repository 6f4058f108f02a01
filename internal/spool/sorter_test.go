package spool

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSorter(t *testing.T) {
	for _, tc := range []struct {
		n, limit int
		spilled  bool
	}{
		{0, 1 << 20, false},
		{1, 1 << 20, false},
		{5000, 1 << 20, false},
		{5000, 1 << 10, true},  // many runs
		{20000, 8 << 10, true}, // runs and records left in memory
	} {
		t.Run(fmt.Sprintf("%d/%d", tc.n, tc.limit), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.limit)))
			s := NewSorter(tc.limit)
			defer s.Close()
			var want [][]byte
			for i := 0; i < tc.n; i++ {
				// short records sharing prefixes, some equal, some empty
				b := make([]byte, r.IntN(6))
				for k := range b {
					b[k] = "ab\x00\xff"[r.IntN(4)]
				}
				want = append(want, append([]byte(nil), b...))
				if err := s.Add(b); err != nil {
					t.Fatal(err)
				}
				if len(b) > 0 {
					b[0] = 'z' // the sorter keeps a copy
				}
			}
			if s.Len() != int64(tc.n) || s.Spilled() != tc.spilled {
				t.Fatalf("Len %d, Spilled %v; want %d, %v", s.Len(), s.Spilled(), tc.n, tc.spilled)
			}
			slices.SortFunc(want, bytes.Compare)
			for pass := 0; pass < 2; pass++ { // read twice
				var got [][]byte
				if err := s.Each(func(rec []byte) error {
					got = append(got, append([]byte(nil), rec...))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("pass %d: %d records, want %d", pass, len(got), len(want))
				}
				for i := range got {
					if !bytes.Equal(got[i], want[i]) {
						t.Fatalf("pass %d: record %d is %q, want %q", pass, i, got[i], want[i])
					}
				}
			}
		})
	}
}

func TestSorterErrors(t *testing.T) {
	s := NewSorter(1 << 10)
	defer s.Close()
	if err := s.Add(make([]byte, 1<<16)); err == nil {
		t.Fatal("a record of 65,536 bytes was taken")
	}
	for i := 0; i < 1000; i++ {
		s.Add([]byte(fmt.Sprint(i)))
	}
	stop := errors.New("stop")
	n := 0
	if err := s.Each(func([]byte) error {
		if n++; n == 10 {
			return stop
		}
		return nil
	}); err != stop || n != 10 {
		t.Fatalf("Each returned %v after %d records; want stop after 10", err, n)
	}
}

func BenchmarkSorter(b *testing.B) {
	b.ReportAllocs()
	r := rand.New(rand.NewPCG(1, 2))
	recs := make([][]byte, 100000)
	for i := range recs {
		recs[i] = fmt.Appendf(nil, "label%08d\x00%08d", r.IntN(1<<30), i)
	}
	for b.Loop() {
		s := NewSorter(256 << 10)
		for _, rec := range recs {
			s.Add(rec)
		}
		s.Each(func([]byte) error { return nil })
		s.Close()
	}
}
