package registry

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"time"

	"github.com/akshara-idn/akshara/internal/spool"
)

// Building an import (docs/import.md, "An import into an empty zone").
// An import into a zone whose family holds nothing yet (a registry
// taking over a TLD) need not look anything up in the database: every
// name it meets is in the file. The whole file is judged first, each
// name spooled to disk with its conflict keys in sorted runs; merging the
// runs decides, in the file's order exactly as the batches would, which
// names are duplicates, which are exempted with which, and which name
// holds each label; then the store writes it all in one transaction, in
// the order its B-trees append (domains in the file's order, conflict
// sets in label order) and builds its indexes after the rows. Batches
// write each page of three label-ordered B-trees many times; a build
// writes it about twice.

// ImportBuilder is implemented by stores that can write a whole import
// into a zone family that holds nothing (no domain, conflict set or
// exemption) in one transaction.
type ImportBuilder interface {
	// ImportBuildable reports whether zone's family holds nothing.
	ImportBuildable(ctx context.Context, zone string) (bool, error)
	// ImportBuild writes b in one transaction if zone's family still
	// holds nothing, and returns ErrImportNotEmpty, having written
	// nothing, if not. The domains are numbered 1..b.Domains in the
	// file's order; the store gives number n the ID first+n-1, first
	// the ID its next domain would have had, and sets each item's
	// Domain.ID to it as it writes it. It records the checkpoint (the
	// import done) and one audit entry.
	ImportBuild(ctx context.Context, b *ImportBuild) error
}

// ErrImportNotEmpty is returned by ImportBuilder.ImportBuild when a domain
// was created in the zone's family after the import was judged: the
// import is then written in batches.
var ErrImportNotEmpty = errors.New("import: the zone's family is no longer empty")

// ImportBuild is a whole import, decided, for ImportBuilder.ImportBuild.
// Its Each functions may be called more than once (a transaction run
// again after a transient fault).
type ImportBuild struct {
	Source                           string
	Zone                             string
	FileBytes                        int64 // the size of the file
	LastLine                         int64
	Note                             string  // for the audit log, as ImportBatch.Note
	Registrars                       []int64 // the registrars the domains name
	Domains                          int64   // the domains to write: numbered 1..Domains
	Registered, Exempted, Duplicates int64
	// EachDomain calls f with each domain in the file's order, its
	// Domain.ID set to its number, Outcome and Domain.Exempted (its
	// whole conflict set goes to the exempted sets) set.
	EachDomain func(f func(*ImportItem) error) error
	// EachBlock calls f with each label the domains hold, in byte order,
	// and the number of the domain that holds it.
	EachBlock func(f func(label string, n int64) error) error
	// Pairs are the domains exempted with each other, by number: (a, b)
	// with a > b, each once, in order; written in both directions.
	Pairs [][2]int64
	// Stage, if set, is called by the store when it starts a stage of
	// its own (building the indexes).
	Stage func(string)
}

// bitset is a set of sequence numbers.
type bitset []uint64

func (b *bitset) set(i int64) {
	w := int(i >> 6)
	if w >= len(*b) {
		*b = slices.Grow(*b, w+1-len(*b))[:w+1]
	}
	(*b)[w] |= 1 << (i & 63)
}

func (b bitset) has(i int64) bool {
	w := int(i >> 6)
	return w < len(b) && b[w]&(1<<(i&63)) != 0
}

func (b bitset) count() int64 {
	var n int
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return int64(n)
}

// buildState is what a build keeps of the file between its passes: the
// judged names (items, in the file's order), the refusals, and two
// sorters of (label, sequence number) keys: each name's own label (its
// duplicates) and each label of its conflict set.
type buildState struct {
	items, refused *spool.Spool
	own, set       *spool.Sorter
	n              int64  // names judged (sequence numbers 0..n-1)
	noExpiry       bitset // names without an expiry
	dup            bitset // duplicates (of an earlier name of the file)
	exempted       bitset // names exempted (a name of their set is earlier)
	inSets         bitset // names whose whole set goes to the exempted sets
	rank           []int64
	pairs          [][2]int64
	key            []byte
	regs           map[int64]bool
}

// The memory a build holds of the file: its sorters sort up to this many
// bytes of keys in memory, its spools keep this many before moving to a
// file.
const (
	buildSortMem  = 32 << 20
	buildSpoolMem = 16 << 20
)

func newBuildState() *buildState {
	return &buildState{items: spool.New(buildSpoolMem), refused: spool.New(buildSpoolMem),
		own: spool.NewSorter(buildSortMem), set: spool.NewSorter(buildSortMem), regs: map[int64]bool{}}
}

func (b *buildState) close() {
	b.items.Close()
	b.refused.Close()
	b.own.Close()
	b.set.Close()
}

// addKey adds (label, seq) to s: the label's bytes, a 0 byte (below any
// byte of a label, so that a label sorts before its extensions), seq in 8
// bytes big-endian: byte order is the order of (label, seq).
func (b *buildState) addKey(s *spool.Sorter, label string, seq int64) error {
	b.key = append(append(b.key[:0], label...), 0)
	b.key = binary.BigEndian.AppendUint64(b.key, uint64(seq))
	return s.Add(b.key)
}

func splitKey(rec []byte) ([]byte, int64) {
	n := len(rec) - 9
	return rec[:n], int64(binary.BigEndian.Uint64(rec[n+1:]))
}

// add spools a judged chunk.
func (b *buildState) add(j *judgedChunk) error {
	for _, r := range j.refusals {
		b.refused.PutVarint(r.Line)
		b.refused.PutString(r.Name)
		b.refused.PutString(r.Code)
		b.refused.PutString(r.Reason)
	}
	for _, it := range j.items {
		seq := b.n
		b.n++
		d := &it.Domain
		b.items.PutVarint(it.Line)
		b.items.PutVarint(it.RegistrarID)
		b.items.PutString(d.Label)
		b.items.PutString(d.ALabel)
		b.items.PutString(d.Lang)
		b.items.PutVarint(d.Created.UnixNano())
		var exp int64
		if !d.Expires.IsZero() {
			exp = d.Expires.UnixNano()
		} else {
			b.noExpiry.set(seq)
		}
		b.items.PutVarint(exp)
		b.items.PutUvarint(uint64(len(d.Blocks)))
		for _, l := range d.Blocks {
			b.items.PutString(l)
		}
		b.items.PutUvarint(uint64(len(d.Legacy)))
		for _, c := range d.Legacy {
			b.items.PutString(c)
		}
		b.regs[it.RegistrarID] = true
		if err := b.addKey(b.own, d.Label, seq); err != nil {
			return err
		}
		for _, l := range d.Blocks {
			if err := b.addKey(b.set, l, seq); err != nil {
				return err
			}
		}
	}
	if err := b.items.Err(); err != nil {
		return err
	}
	return b.refused.Err()
}

// eachLabel calls f with each label of s (keys of addKey) in byte order
// and the sequence numbers of the names that have it, each once, in the
// file's order, leaving out those in skip; label and seqs are valid only
// during the call.
func eachLabel(s *spool.Sorter, skip bitset, f func(label []byte, seqs []int64) error) error {
	var label []byte
	var seqs []int64
	err := s.Each(func(rec []byte) error {
		l, seq := splitKey(rec)
		if skip.has(seq) {
			return nil
		}
		if len(seqs) > 0 && !bytes.Equal(l, label) {
			if err := f(label, seqs); err != nil {
				return err
			}
			seqs = seqs[:0]
		}
		if len(seqs) == 0 {
			label = append(label[:0], l...)
		}
		if len(seqs) == 0 || seqs[len(seqs)-1] != seq {
			seqs = append(seqs, seq)
		}
		return nil
	})
	if err != nil || len(seqs) == 0 {
		return err
	}
	return f(label, seqs)
}

// decide finds the duplicates, the exempted names and their pairs, as
// the batches would in the file's order (importBatch in
// internal/sqlstore): a name whose label an earlier name has is a
// duplicate and takes no part; of the names whose conflict sets share a
// label, the first holds it and each later one is exempted with every
// earlier one, all of them keeping their whole sets in the exempted sets.
func (b *buildState) decide() error {
	err := eachLabel(b.own, nil, func(_ []byte, seqs []int64) error {
		for _, seq := range seqs[1:] {
			b.dup.set(seq)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// the number of each name that is not a duplicate: its sequence
	// number less the duplicates before it, plus one
	words := int((b.n + 63) >> 6)
	b.rank = make([]int64, words)
	var dups int64
	for w := 0; w < words; w++ {
		b.rank[w] = dups
		if w < len(b.dup) {
			dups += int64(bits.OnesCount64(b.dup[w]))
		}
	}
	err = eachLabel(b.set, b.dup, func(_ []byte, members []int64) error {
		for i := 1; i < len(members); i++ {
			b.exempted.set(members[i])
			b.inSets.set(members[i])
			for _, o := range members[:i] {
				b.inSets.set(o)
				b.pairs = append(b.pairs, [2]int64{b.num(members[i]), b.num(o)})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(b.pairs, func(x, y [2]int64) int {
		if c := cmp.Compare(x[0], y[0]); c != 0 {
			return c
		}
		return cmp.Compare(x[1], y[1])
	})
	b.pairs = slices.Compact(b.pairs)
	return nil
}

// num is the number of the name of sequence number seq (not a duplicate):
// seq less the duplicates before it, plus one.
func (b *buildState) num(seq int64) int64 {
	w := seq >> 6
	before := b.rank[w]
	if int(w) < len(b.dup) {
		before += int64(bits.OnesCount64(b.dup[w] & (1<<(seq&63) - 1)))
	}
	return seq - before + 1
}

// eachItem calls f with each name judged, in the file's order, with its
// sequence number.
func (b *buildState) eachItem(zone *Zone, version string, f func(seq int64, it *ImportItem) error) error {
	r, err := b.items.Reader()
	if err != nil {
		return err
	}
	var errRead error
	str := func() string {
		s, err := r.String()
		if err != nil && errRead == nil {
			errRead = err
		}
		return s
	}
	vint := func() int64 {
		x, err := r.Varint()
		if err != nil && errRead == nil {
			errRead = err
		}
		return x
	}
	uvint := func() uint64 {
		x, err := r.Uvarint()
		if err != nil && errRead == nil {
			errRead = err
		}
		return x
	}
	for seq := int64(0); seq < b.n; seq++ {
		it := &ImportItem{Line: vint(), RegistrarID: vint()}
		d := &it.Domain
		d.Label, d.ALabel, d.Lang = str(), str(), str()
		d.Created = time.Unix(0, vint()).UTC()
		if exp := vint(); exp != 0 {
			d.Expires = time.Unix(0, exp).UTC()
		}
		d.Blocks = make([]string, min(uvint(), 1<<16))
		for i := range d.Blocks {
			d.Blocks[i] = str()
		}
		if n := uvint(); n > 0 {
			d.Legacy = make([]string, min(n, 1<<16))
			for i := range d.Legacy {
				d.Legacy[i] = str()
			}
		}
		if errRead != nil {
			return fmt.Errorf("import: reading the spooled names back: %w", errRead)
		}
		d.Name, d.DataVersion = d.Label+"."+zone.Name, version
		if err := f(seq, it); err != nil {
			return err
		}
	}
	return nil
}

// eachRefusal calls f with each record refused by the judge and each
// duplicate, in the file's order.
func (b *buildState) eachRefusal(zone *Zone, version string, f func(ImportRefusal)) error {
	r, err := b.refused.Reader()
	if err != nil {
		return err
	}
	var next *ImportRefusal
	read := func() error {
		next = nil
		if !r.More() {
			return nil
		}
		var x ImportRefusal
		var err error
		if x.Line, err = r.Varint(); err == nil {
			if x.Name, err = r.String(); err == nil {
				if x.Code, err = r.String(); err == nil {
					x.Reason, err = r.String()
				}
			}
		}
		if err != nil {
			return fmt.Errorf("import: reading the spooled refusals back: %w", err)
		}
		next = &x
		return nil
	}
	if err := read(); err != nil {
		return err
	}
	err = b.eachItem(zone, version, func(seq int64, it *ImportItem) error {
		if !b.dup.has(seq) {
			return nil
		}
		for next != nil && next.Line < it.Line {
			f(*next)
			if err := read(); err != nil {
				return err
			}
		}
		f(ImportRefusal{Line: it.Line, Name: it.Domain.Name, Code: CodeDuplicate, Reason: it.Domain.Name + " is registered already"})
		return nil
	})
	if err != nil {
		return err
	}
	for next != nil {
		f(*next)
		if err := read(); err != nil {
			return err
		}
	}
	return nil
}

func (p *ImportProgress) stage(s string) { p.Stage.Store(&s) }

// importBuild builds an import into zone, whose family held nothing when
// asked: it reads and judges the file (after line from) into a
// buildState, decides, and has the store write it. built is false (and
// nothing written, sum to be reset by the caller) if the family held a
// domain by then.
func (s *Service) importBuild(ctx context.Context, bld ImportBuilder, open func() (io.ReadCloser, error), from int64, zone *Zone, ids map[string]int64, reserved map[string]bool, opts ImportOptions, sum *ImportSummary) (built bool, err error) {
	rc, err := open()
	if err != nil {
		return false, err
	}
	defer rc.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st := newBuildState()
	defer st.close()
	sum.Built = true // (even if it stops before it writes: it writes nothing)
	stage := func(x string) {
		opts.Progress.stage(x)
		if opts.StageHook != nil {
			opts.StageHook(x)
		}
	}
	codes, legacyCodes := map[string]int64{}, map[string]int64{}
	order, slots, judged := s.startJudging(ctx, rc, from, false, zone, ids, reserved, opts, sum)
	var werr error
	var last int64
	for c := range order {
		if werr == nil {
			select {
			case j := <-c.out:
				sum.addJudged(j, codes, legacyCodes)
				if werr = st.add(j); werr != nil {
					cancel()
				}
				last = c.last
				opts.Progress.Lines.Add(int64(c.n))
				opts.Progress.Bytes.Store(c.bytes)
			case <-ctx.Done():
				werr = ctx.Err()
			}
		}
		<-slots
	}
	if err := judged(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = ctx.Err()
	}
	sum.RefusedByCode, sum.LegacyByCode = countList(codes), countList(legacyCodes)
	if werr != nil {
		return true, werr
	}

	stage("deciding")
	if err := st.decide(); err != nil {
		return true, err
	}
	fresh := st.n - st.dup.count()
	b := &ImportBuild{Source: sum.Source, Zone: zone.Name, LastLine: last, FileBytes: opts.Progress.Total.Load(),
		Note:    fmt.Sprintf("lines to %d: %d refused; built", last, sum.Refused),
		Domains: fresh, Exempted: st.exempted.count(), Duplicates: st.n - fresh, Pairs: st.pairs,
		Stage: stage}
	b.Registered = fresh - b.Exempted
	for id := range st.regs {
		b.Registrars = append(b.Registrars, id)
	}
	slices.Sort(b.Registrars)
	b.EachDomain = func(f func(*ImportItem) error) error {
		stage("writing the domains")
		opts.Progress.Written.Store(0)
		return st.eachItem(zone, s.version, func(seq int64, it *ImportItem) error {
			if st.dup.has(seq) {
				return nil
			}
			it.Domain.ID = st.num(seq)
			it.Outcome = ImportRegistered
			if st.exempted.has(seq) {
				it.Outcome = ImportExempted
			}
			it.Domain.Exempted = st.inSets.has(seq)
			opts.Progress.Written.Add(1)
			return f(it)
		})
	}
	b.EachBlock = func(f func(string, int64) error) error {
		stage("writing the conflict sets")
		// the first name whose set holds a label holds it
		return eachLabel(st.set, st.dup, func(label []byte, seqs []int64) error {
			return f(string(label), st.num(seqs[0]))
		})
	}
	opts.Progress.ToWrite.Store(fresh)
	if err := bld.ImportBuild(ctx, b); err != nil {
		if errors.Is(err, ErrImportNotEmpty) {
			return false, nil
		}
		return true, err
	}
	sum.Batches = 1
	sum.Registered, sum.Exempted, sum.Duplicates = b.Registered, b.Exempted, b.Duplicates
	for w, x := range st.noExpiry {
		if w < len(st.dup) {
			x &^= st.dup[w]
		}
		sum.WithoutExpiry += int64(bits.OnesCount64(x))
	}
	stage("done")
	if opts.Refused != nil {
		if err := st.eachRefusal(zone, s.version, opts.Refused); err != nil {
			return true, err
		}
	}
	return true, nil
}
