package spool

import (
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Sorter sorts byte records in bytes.Compare order: in memory up to a
// limit of bytes, beyond that in sorted runs written to a temporary file
// and merged when read, so that its memory does not grow with the number
// of records. It is read (Each) any number of times once written. A
// record is at most 65,535 bytes. Not for concurrent use.
type Sorter struct {
	limit int
	arena []byte   // the records in memory, one after another
	recs  []uint64 // each record in arena: offset<<16 | length
	runs  *Spool
	at    []int64 // each run's offset in runs, then runs' size
	n     int64
	err   error
}

// NewSorter returns an empty Sorter that keeps at most limit bytes of
// records in memory (and 8 bytes more per record).
func NewSorter(limit int) *Sorter {
	return &Sorter{limit: max(limit, 1<<10)}
}

// Len is the number of records added.
func (s *Sorter) Len() int64 { return s.n }

// Spilled says whether runs have been written to a file.
func (s *Sorter) Spilled() bool { return s.runs != nil }

// Add adds a copy of rec.
func (s *Sorter) Add(rec []byte) error {
	if s.err != nil {
		return s.err
	}
	if len(rec) > 0xffff {
		return fmt.Errorf("spool: a record of %d bytes (at most 65,535)", len(rec))
	}
	if len(s.arena)+len(rec) > s.limit && len(s.recs) > 0 {
		s.flush()
		if s.err != nil {
			return s.err
		}
	}
	if need := len(s.arena) + len(rec); need > cap(s.arena) {
		// grow as append would, but never past the limit
		s.arena = slices.Grow(s.arena, max(min(2*cap(s.arena), s.limit), need, 4096)-len(s.arena))
	}
	s.recs = append(s.recs, uint64(len(s.arena))<<16|uint64(len(rec)))
	s.arena = append(s.arena, rec...)
	s.n++
	return nil
}

func (s *Sorter) rec(r uint64) []byte {
	off := r >> 16
	return s.arena[off : off+r&0xffff]
}

func (s *Sorter) sortMem() {
	slices.SortFunc(s.recs, func(a, b uint64) int { return bytes.Compare(s.rec(a), s.rec(b)) })
}

// flush writes the records in memory as a sorted run.
func (s *Sorter) flush() {
	if s.runs == nil {
		s.runs = New(0) // a file from the first byte
	}
	s.sortMem()
	s.at = append(s.at, s.runs.Size())
	for _, r := range s.recs {
		b := s.rec(r)
		s.runs.PutUvarint(uint64(len(b)))
		s.runs.Write(b)
	}
	s.arena, s.recs = s.arena[:0], s.recs[:0]
	s.err = s.runs.Err()
}

// Each calls f with every record in order (equal records in any order);
// rec is valid only during the call. The records in memory are sorted
// there the first time; a run of them is not written.
func (s *Sorter) Each(f func(rec []byte) error) error {
	if s.err != nil {
		return s.err
	}
	s.sortMem()
	if s.runs == nil {
		for _, r := range s.recs {
			if err := f(s.rec(r)); err != nil {
				return err
			}
		}
		return nil
	}
	h := &mergeHeap{}
	ends := append(append([]int64(nil), s.at...), s.runs.Size())
	for i := 0; i+1 < len(ends); i++ {
		r, err := s.runs.Section(ends[i], ends[i+1]-ends[i])
		if err != nil {
			return err
		}
		c := &cursor{r: r}
		if err := c.next(); err != nil {
			return err
		}
		if !c.done {
			h.c = append(h.c, c)
		}
	}
	if len(s.recs) > 0 {
		m := &cursor{mem: s}
		m.nextMem()
		h.c = append(h.c, m) // not done: it holds a record
	}
	heap.Init(h)
	for len(h.c) > 0 {
		c := h.c[0]
		if err := f(c.cur); err != nil {
			return err
		}
		var err error
		if c.mem != nil {
			c.nextMem()
		} else {
			err = c.next()
		}
		if err != nil {
			return err
		}
		if c.done {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	return nil
}

// Close frees the records and removes the runs' file.
func (s *Sorter) Close() error {
	s.arena, s.recs = nil, nil
	if s.runs == nil {
		return nil
	}
	return s.runs.Close()
}

// cursor is a run being merged: of the file, or the records in memory.
type cursor struct {
	r    *Reader
	mem  *Sorter
	i    int
	cur  []byte
	done bool // no record left (cur may be an empty record, nil)
}

func (c *cursor) next() error {
	if !c.r.More() {
		c.cur, c.done = nil, true
		return nil
	}
	b, err := c.r.Bytes()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("spool: reading a sorted run: %w", err)
	}
	c.cur = b
	return nil
}

func (c *cursor) nextMem() {
	if c.i >= len(c.mem.recs) {
		c.cur, c.done = nil, true
		return
	}
	c.cur = c.mem.rec(c.mem.recs[c.i])
	c.i++
}

type mergeHeap struct{ c []*cursor }

func (h *mergeHeap) Len() int           { return len(h.c) }
func (h *mergeHeap) Less(i, j int) bool { return bytes.Compare(h.c[i].cur, h.c[j].cur) < 0 }
func (h *mergeHeap) Swap(i, j int)      { h.c[i], h.c[j] = h.c[j], h.c[i] }
func (h *mergeHeap) Push(x any)         { h.c = append(h.c, x.(*cursor)) }
func (h *mergeHeap) Pop() any {
	x := h.c[len(h.c)-1]
	h.c = h.c[:len(h.c)-1]
	return x
}
