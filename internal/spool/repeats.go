package spool

import (
	"io"
	"slices"
)

// Repeats finds the 64-bit values added more than once: in memory up to
// runLen values (8 bytes each), beyond that by sorting each runLen
// values into a run written to a temporary file and merging the runs, so
// that its memory does not grow with the number of values.
type Repeats struct {
	runLen int
	buf    []uint64
	runs   *Spool
	at     []int64 // each run's offset in runs
	err    error
}

// NewRepeats returns an empty Repeats that keeps at most runLen values in
// memory (at least 2).
func NewRepeats(runLen int) *Repeats {
	return &Repeats{runLen: max(runLen, 2)}
}

// Spilled says whether runs have been written to a file.
func (r *Repeats) Spilled() bool { return r.runs != nil }

// Add adds x.
func (r *Repeats) Add(x uint64) error {
	if r.err != nil {
		return r.err
	}
	if len(r.buf) == cap(r.buf) {
		if len(r.buf) >= r.runLen {
			r.flush()
			if r.err != nil {
				return r.err
			}
		} else {
			r.buf = slices.Grow(r.buf, min(max(2*len(r.buf), 1024), r.runLen)-len(r.buf))
		}
	}
	r.buf = append(r.buf, x)
	return nil
}

// flush writes the values in memory as a sorted run.
func (r *Repeats) flush() {
	if r.runs == nil {
		r.runs = New(0) // a file from the first byte
	}
	slices.Sort(r.buf)
	r.at = append(r.at, r.runs.Size())
	for _, x := range r.buf {
		r.runs.PutUint64(x)
	}
	r.buf = r.buf[:0]
	r.err = r.runs.Err()
}

// Find returns the values added more than once, sorted, each once.
func (r *Repeats) Find() ([]uint64, error) {
	if r.err != nil {
		return nil, r.err
	}
	var rep []uint64
	add := func(x uint64) {
		if len(rep) == 0 || rep[len(rep)-1] != x {
			rep = append(rep, x)
		}
	}
	if r.runs == nil {
		slices.Sort(r.buf)
		for i := 1; i < len(r.buf); i++ {
			if r.buf[i] == r.buf[i-1] {
				add(r.buf[i])
			}
		}
		return rep, nil
	}
	if len(r.buf) > 0 {
		r.flush()
		if r.err != nil {
			return nil, r.err
		}
	}
	r.buf = nil
	// merge the runs: the smallest head of all runs each time (few runs:
	// one per runLen values)
	type run struct {
		r    *Reader
		left int64
		head uint64
	}
	var runs []*run
	for i, at := range r.at {
		end := r.runs.Size()
		if i+1 < len(r.at) {
			end = r.at[i+1]
		}
		rd, err := r.runs.Section(at, end-at)
		if err != nil {
			return nil, err
		}
		runs = append(runs, &run{r: rd, left: (end - at) / 8})
	}
	next := func(u *run) (bool, error) {
		if u.left == 0 {
			return false, nil
		}
		u.left--
		x, err := u.r.Uint64()
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		u.head = x
		return err == nil, err
	}
	live := runs[:0]
	for _, u := range runs {
		ok, err := next(u)
		if err != nil {
			return nil, err
		}
		if ok {
			live = append(live, u)
		}
	}
	var last uint64
	seen := false
	for len(live) > 0 {
		m := 0
		for i := 1; i < len(live); i++ {
			if live[i].head < live[m].head {
				m = i
			}
		}
		x := live[m].head
		if seen && x == last {
			add(x)
		}
		last, seen = x, true
		ok, err := next(live[m])
		if err != nil {
			return nil, err
		}
		if !ok {
			live = append(live[:m], live[m+1:]...)
		}
	}
	return rep, nil
}

// Close frees the values and removes the runs' file.
func (r *Repeats) Close() error {
	r.buf = nil
	if r.runs == nil {
		return nil
	}
	err := r.runs.Close()
	r.runs = nil
	return err
}
