package registry

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/akshara-idn/akshara/internal/spool"
)

// Reauditor is implemented by stores that can list a zone's domains with
// their stored conflict sets and rebuild them (package internal/sqlstore).
type Reauditor interface {
	// ScanZone calls each for every domain of a zone, in ID order, from
	// one snapshot, with its whole stored conflict set (Blocks, sorted),
	// Exempted and ExemptWith (each may keep the *Domain). If the scan
	// is retried after a transient fault, restart is called before the
	// domains are given again from the first.
	ScanZone(ctx context.Context, zone string, restart func(), each func(*Domain) error) error
	// ApplyReaudit scans the zone as ScanZone does and rebuilds its
	// conflict sets and exemptions from the rows that rows then gives (to
	// each, in the scan's ID order; rows may be called more than once),
	// all in one transaction that holds every create, delete and import
	// off from before the scan until it commits: a domain created
	// meanwhile is either in the scan or waits. Only the rows of domains
	// whose stored rows differ from the new ones are rewritten. It
	// records version as every domain's data version and each row's
	// Legacy codes, and relation as the conflict relation the sets were
	// computed under. If the transaction is run again after a transient
	// fault, restart is called before the scan starts over.
	ApplyReaudit(ctx context.Context, zone, relation, version string, restart func(), each func(*Domain) error, rows func(each func(*ReauditRow) error) error) error
}

// ReauditRow is what ApplyReaudit records of one domain: the model of
// the store's exemptions (docs/registry.md, "Exemptions") computed over
// the zone in ID order: a label shared by several new conflict sets is
// held by the earliest domain, and domains whose sets meet are exempted
// with each other.
type ReauditRow struct {
	ID int64
	// Held: the labels of its new set it holds (in blocks).
	Held []string
	// Set: its whole new set, if it is exempted (else nil).
	Set []string
	// ExemptWith: the IDs of the domains its new set meets.
	ExemptWith []int64
	// Legacy: the rule codes the policy now refuses it with.
	Legacy []string
	// Notices are the poll messages of its new exemptions, for its
	// sponsor (changepoll.go): ApplyReaudit writes them once, in its
	// transaction.
	Notices []PollMessage
}

// ReauditFinding is a registered domain that the current data judge
// otherwise than the stored record.
type ReauditFinding struct {
	Name      string `json:"name"`
	Zone      string `json:"zone"`
	Lang      string `json:"lang"`
	Registrar string `json:"registrar"`
	// JudgedUnder is the data version the domain was last judged under.
	JudgedUnder string `json:"judged_under"`
	// Invalid: the current policy refuses the name; Codes says why (for a
	// legacy name, only if its codes changed).
	Invalid bool     `json:"invalid"`
	Codes   []string `json:"codes,omitempty"`
	// ConflictsWith lists the domains it conflicts with now and was not
	// exempted with (label.zone).
	ConflictsWith []string `json:"conflicts_with,omitempty"`
	// SetAdded and SetRemoved are the changes of its conflict set.
	SetAdded   []string `json:"set_added,omitempty"`
	SetRemoved []string `json:"set_removed,omitempty"`
}

// ReauditSummary counts what a re-audit found.
type ReauditSummary struct {
	DataVersion string      `json:"data_version"`
	Relation    string      `json:"relation"`
	Domains     int         `json:"domains"`
	Invalid     int         `json:"invalid"`
	Conflicting int         `json:"conflicting"`
	Changed     int         `json:"changed"`
	ByCode      []CodeCount `json:"invalid_by_code"`
	Applied     bool        `json:"applied"`
}

// Reaudit judges every registered domain again under the service's data
// and calls found for each domain that has become invalid, newly
// conflicts or whose conflict set changed. With apply, the new conflict
// sets and exemptions (domains that now conflict are kept, exempted with
// each other), data versions and legacy codes are recorded, in one
// transaction per zone.
//
// Memory: the domains of a zone are streamed from the store and judged
// one by one; what is kept of each until the zone is done is written to
// temporary files once it passes a few tens of MB (zoneAudit), so that
// memory does not grow with the zone but with the domains whose new sets
// meet another's.
//
// An apply is recorded in the audit log, whatever its outcome: action
// reaudit-apply, no registrar, and as its name the data applied ("data
// VERSION relation VERSION", the versions of ReauditSummary).
func (s *Service) Reaudit(ctx context.Context, apply bool, found func(*ReauditFinding) error) (*ReauditSummary, error) {
	sum, err := s.reaudit(ctx, apply, found)
	if apply {
		relation, rerr := s.RelationVersion()
		if rerr != nil {
			relation = "?"
		}
		s.audit(ctx, AuditEntry{Action: "reaudit-apply", Name: "data " + s.version + " relation " + relation, Result: resultOf(err)}) // a failure is logged and counted
	}
	return sum, err
}

func (s *Service) reaudit(ctx context.Context, apply bool, found func(*ReauditFinding) error) (*ReauditSummary, error) {
	ra, ok := s.store.(Reauditor)
	if !ok {
		return nil, fmt.Errorf("the store cannot re-audit")
	}
	relation, err := s.RelationVersion()
	if err != nil {
		return nil, err
	}
	sum := &ReauditSummary{DataVersion: s.version, Relation: relation}
	codes := map[string]int64{}
	for i := range s.list {
		z := &s.list[i]
		if z.Family != "" && z.Family != z.Name {
			continue // audited with its family, under the family's key zone
		}
		if err := s.reauditZone(ctx, ra, z, apply, relation, sum, codes, found); err != nil {
			return nil, err
		}
	}
	sum.ByCode = countList(codes)
	sum.Applied = apply
	return sum, nil
}

// reauditZone re-audits one zone (or family) and lists its findings.
func (s *Service) reauditZone(ctx context.Context, ra Reauditor, z *Zone, apply bool, relation string, sum *ReauditSummary, codes map[string]int64, found func(*ReauditFinding) error) error {
	a := newZoneAudit(z.Name)
	defer a.close()
	if gs, ok := s.store.(GroupStore); ok {
		var err error
		if a.groups, err = gs.GroupsIn(ctx, z.Name); err != nil {
			return err
		}
	}
	add := func(d *Domain) error { return a.add(s, z, d) }
	// with apply, the scan is the apply's own, under its locks: a
	// domain created after a scan of its own would lose its set
	var err error
	if apply {
		if a.notify, err = s.reauditNotices(ctx, a); err != nil { // changepoll.go
			return err
		}
		err = ra.ApplyReaudit(ctx, z.Name, relation, s.version, a.reset, add, a.rows)
	} else {
		err = ra.ScanZone(ctx, z.Name, a.reset, add)
	}
	if err != nil {
		return err
	}
	return a.walk(func(k int, r *auditRec, others []int) error {
		f := a.finding(r, others)
		sum.Domains++
		if f.Invalid {
			sum.Invalid++
			for _, c := range f.Codes {
				codes[c]++
			}
		}
		if len(f.ConflictsWith) > 0 {
			sum.Conflicting++
		}
		if len(f.SetAdded)+len(f.SetRemoved) > 0 {
			sum.Changed++
		}
		if f.Invalid || len(f.ConflictsWith)+len(f.SetAdded)+len(f.SetRemoved) > 0 {
			return found(f)
		}
		return nil
	})
}

// reauditTuning is how much a re-audit keeps in memory before it writes
// to temporary files (the tests make them small, to run the spilled
// paths on small zones), and the bits of the label fingerprints it keeps
// (the tests keep 4, to make every check of a collision run).
var reauditTuning = struct {
	spoolLimit int    // bytes of domain records
	runLen     int    // label fingerprints (8 bytes each)
	fpMask     uint64 // the bits of a fingerprint kept
}{64 << 20, 4 << 20, ^uint64(0)}

// zoneAudit is what a re-audit keeps of a zone's domains, indexed by
// their position k in ID order, in memory that does not grow with the
// zone:
//
//   - each domain's record (auditRec: its ID, label, new conflict set,
//     rule codes, set changes and stored exemptions) is written, as it
//     is judged, to a spool that moves to a temporary file beyond
//     reauditTuning.spoolLimit bytes, and read back from it for the
//     findings and each pass of the apply over the rows;
//   - a 64-bit fingerprint of each distinct label of each new set is
//     kept to find the labels in the sets of several domains: sorted
//     runs of reauditTuning.runLen fingerprints written to a temporary
//     file and merged (spool.Repeats);
//   - then one read of the records keeps, for the labels whose
//     fingerprint came more than once, the label itself and the domains
//     whose sets have it: the labels in several sets are found exactly
//     (a collision of fingerprints is dropped there), and with them the
//     conflicts and holders.
//
// What stays in memory is therefore the few distinct languages,
// registrars, versions and codes, and the shared labels and the domains
// that have them (the domains concerned).
type zoneAudit struct {
	zone string
	// notify, if set, gives a row the poll messages of its domain's new
	// exemptions (reauditNotices, changepoll.go)
	notify func(rec *auditRec, others []int, r *ReauditRow)
	// groups maps the zone's members of variant groups to their group:
	// one holder's names, which hold one set and never conflict with each
	// other (sameentity.go)
	groups map[int64]int64
	// strings of the few distinct values: zones, languages, registrars,
	// versions, rule codes
	str   []string
	strID map[string]uint32

	n      int   // domains added
	lastID int64 // the ID of the last one
	seed   maphash.Seed
	recs   *spool.Spool
	fps    *spool.Repeats
	fpBuf  []uint64
	err    error

	resolved bool
	shared
}

// shared is what a zoneAudit keeps of the labels in the new sets of
// several domains, compact, without pointers (BenchmarkReaudit: about
// 200 bytes a domain concerned, the fixed buffers included): each label's
// bytes once in arena, the domains that have it, and what the findings
// and rows need of those domains.
type shared struct {
	arena []byte // labels, each its length (uvarint) and its bytes
	// occurrences of the shared labels: for each label, one per domain
	// that has it, sorted by fingerprint, label and domain; label g is
	// occ[at[g]:at[g+1]]
	occ []occurrence
	at  []uint32
	// the first label (g) of each fingerprint (while resolve reads the
	// records: where the first label of the fingerprint is in arena)
	byFP map[uint64]uint32
	// the domains in occ, in ID order: position k, ID, label (in
	// arena), zone (str)
	domK    []int32
	domID   []int64
	domAt   []uint32
	domZone []uint32
}

// occurrence is a shared label in the new set of domain k: the label's
// fingerprint and where its bytes are in arena.
type occurrence struct {
	fp uint64
	k  int32
	at uint32
}

// auditRec is the record a zoneAudit keeps of a domain.
type auditRec struct {
	id                   int64
	zone, lang, reg, ver uint32
	label                string
	invalid              bool
	codes                []string // nil: none
	set                  []string // its new conflict set, sorted
	added, removed       []string
	exempt               []string // the labels of the domains it was exempted with
}

const (
	recInvalid = 1 << iota // refused with codes other than its legacy ones
	recOwnSet              // its set is its own label only (not written)
)

func newZoneAudit(zone string) *zoneAudit {
	a := &zoneAudit{zone: zone}
	a.reset()
	return a
}

func (a *zoneAudit) reset() {
	a.close()
	*a = zoneAudit{zone: a.zone, notify: a.notify, groups: a.groups, strID: map[string]uint32{}, seed: maphash.MakeSeed(),
		recs: spool.New(reauditTuning.spoolLimit), fps: spool.NewRepeats(reauditTuning.runLen)}
}

// close removes the temporary files.
func (a *zoneAudit) close() {
	if a.recs != nil {
		a.recs.Close()
	}
	if a.fps != nil {
		a.fps.Close()
	}
}

func (a *zoneAudit) internStr(v string) uint32 {
	id, ok := a.strID[v]
	if !ok {
		id = uint32(len(a.str))
		a.str = append(a.str, v)
		a.strID[v] = id
	}
	return id
}

func (a *zoneAudit) fingerprint(l string) uint64 {
	return maphash.String(a.seed, l) & reauditTuning.fpMask
}

func spillError(err error) error {
	return &Error{Code: CodeInternal, Message: "re-audit: the temporary records of the zone", Err: err}
}

// add judges d and writes what the findings and the new rows need.
func (a *zoneAudit) add(s *Service, z *Zone, d *Domain) error {
	if a.err != nil {
		return a.err
	}
	if a.resolved {
		return spillError(fmt.Errorf("a domain after the scan"))
	}
	dzone := a.internStr(d.Zone)
	if dz := s.zones[d.Zone]; dz != nil {
		z = dz // a domain of another zone of the family
	}
	set := []string{d.Label}
	var codes []string
	c, err := s.judge(&name{input: d.Name, label: d.Label, zone: z}, d.Lang)
	switch {
	case err != nil:
		codes = []string{CodeOf(err)}
	case len(c.errs) > 0:
		for _, e := range c.errs {
			codes = append(codes, e.Code.String())
		}
		set = s.legacySet(z, d.Label, d.Lang)
	default:
		set = append([]string(nil), c.blocks...)
	}
	sort.Strings(set)
	// the fingerprints of its distinct labels, once each
	fps := a.fpBuf[:0]
	for i, l := range set {
		if i == 0 || set[i-1] != l {
			fps = append(fps, a.fingerprint(l))
		}
	}
	slices.Sort(fps)
	fps = slices.Compact(fps)
	for _, fp := range fps {
		if err := a.fps.Add(fp); err != nil {
			a.err = spillError(err)
			return a.err
		}
	}
	a.fpBuf = fps
	flags := uint64(0)
	if len(codes) > 0 && !slices.Equal(codes, d.Legacy) {
		flags |= recInvalid
	}
	if len(set) == 1 && set[0] == d.Label {
		flags |= recOwnSet
	}
	w := a.recs
	w.PutVarint(d.ID - a.lastID)
	a.lastID = d.ID
	for _, v := range []uint32{dzone, a.internStr(d.Lang), a.internStr(d.Registrar), a.internStr(d.DataVersion)} {
		w.PutUvarint(uint64(v))
	}
	w.PutString(d.Label)
	w.PutUvarint(flags)
	w.PutUvarint(uint64(len(codes)))
	for _, c := range codes {
		w.PutUvarint(uint64(a.internStr(c)))
	}
	if flags&recOwnSet == 0 {
		putStrings(w, set)
	}
	if a.groups[d.ID] != 0 && len(d.Blocks) == 0 {
		d.Blocks = set // a group's member: another member holds the group's set
	}
	added, removed := setDiff(set, d.Blocks)
	putStrings(w, added)
	putStrings(w, removed)
	w.PutUvarint(uint64(len(d.ExemptWith)))
	for _, n := range d.ExemptWith {
		l, _, _ := strings.Cut(n, ".") // of any zone of the family
		w.PutString(l)
	}
	if err := w.Err(); err != nil {
		a.err = spillError(err)
		return a.err
	}
	a.n++
	return nil
}

func putStrings(w *spool.Spool, ls []string) {
	w.PutUvarint(uint64(len(ls)))
	for _, l := range ls {
		w.PutString(l)
	}
}

// recReader reads the records back.
type recReader struct {
	a      *zoneAudit
	r      *spool.Reader
	lastID int64
}

func (a *zoneAudit) records() (*recReader, error) {
	r, err := a.recs.Reader()
	if err != nil {
		return nil, spillError(err)
	}
	return &recReader{a: a, r: r}, nil
}

func (rr *recReader) uvarint() uint64 {
	x, err := rr.r.Uvarint()
	if err != nil && rr.a.err == nil {
		rr.a.err = spillError(err)
	}
	return x
}

func (rr *recReader) str() string {
	l, err := rr.r.String()
	if err != nil && rr.a.err == nil {
		rr.a.err = spillError(err)
	}
	return l
}

func (rr *recReader) strings() []string {
	n := rr.uvarint()
	if n == 0 || rr.a.err != nil {
		return nil
	}
	ls := make([]string, 0, min(n, 1<<16))
	for range n {
		ls = append(ls, rr.str())
	}
	return ls
}

func (rr *recReader) ref() uint32 {
	x := rr.uvarint()
	if x >= uint64(len(rr.a.str)) && rr.a.err == nil {
		rr.a.err = spillError(fmt.Errorf("a string number %d of %d", x, len(rr.a.str)))
		return 0
	}
	return uint32(x)
}

// next reads the next record into r.
func (rr *recReader) next(r *auditRec) error {
	a := rr.a
	delta, err := rr.r.Varint()
	if err != nil {
		return spillError(err)
	}
	rr.lastID += delta
	r.id = rr.lastID
	r.zone, r.lang, r.reg, r.ver = rr.ref(), rr.ref(), rr.ref(), rr.ref()
	r.label = rr.str()
	flags := rr.uvarint()
	r.invalid = flags&recInvalid != 0
	r.codes = nil
	if n := rr.uvarint(); n > 0 && a.err == nil {
		r.codes = make([]string, 0, min(n, 64))
		for range n {
			r.codes = append(r.codes, a.str[rr.ref()])
		}
	}
	if flags&recOwnSet != 0 {
		r.set = []string{r.label}
	} else {
		r.set = rr.strings()
	}
	r.added, r.removed, r.exempt = rr.strings(), rr.strings(), rr.strings()
	return a.err
}

// resolve finds the labels in the new sets of several domains, once,
// after the scan.
func (a *zoneAudit) resolve() error {
	if a.err != nil || a.resolved {
		return a.err
	}
	a.resolved = true
	rep, err := a.fps.Find()
	a.fps.Close()
	a.fps = nil
	if err != nil {
		a.err = spillError(err)
		return a.err
	}
	if len(rep) == 0 {
		return nil
	}
	// the fingerprints that came more than once, each with where its
	// first label is in the arena (each label's bytes kept once; a
	// second label of the same fingerprint has bytes of its own)
	a.byFP = make(map[uint64]uint32, len(rep))
	for _, fp := range rep {
		a.byFP[fp] = noLabel
	}
	rep = nil
	rr, err := a.records()
	if err != nil {
		a.err = err
		return err
	}
	// every label whose fingerprint came more than once, and its domain
	var r auditRec
	for k := range a.n {
		if err := rr.next(&r); err != nil {
			a.err = err
			return err
		}
		for i, l := range r.set {
			if i > 0 && r.set[i-1] == l {
				continue
			}
			fp := a.fingerprint(l)
			at, ok := a.byFP[fp]
			if !ok {
				continue
			}
			if at == noLabel {
				at = a.keepLabel(l)
				a.byFP[fp] = at
			} else if string(a.label(at)) != l {
				at = a.keepLabel(l) // a collision
			}
			if len(a.domK) == 0 || a.domK[len(a.domK)-1] != int32(k) {
				a.domK = append(a.domK, int32(k))
				a.domID = append(a.domID, r.id)
				a.domAt = append(a.domAt, a.labelAt(r.label))
				a.domZone = append(a.domZone, r.zone)
			}
			a.occ = append(a.occ, occurrence{fp: fp, k: int32(k), at: at})
		}
		if len(a.arena) > math.MaxUint32-1024 {
			a.err = spillError(fmt.Errorf("more than 4 GB of shared labels"))
			return a.err
		}
	}
	slices.SortFunc(a.occ, func(x, y occurrence) int {
		if c := cmp.Compare(x.fp, y.fp); c != 0 {
			return c
		}
		if x.at != y.at {
			if c := bytes.Compare(a.label(x.at), a.label(y.at)); c != 0 {
				return c
			}
		}
		return cmp.Compare(x.k, y.k)
	})
	// a label of one domain only is there by a collision of fingerprints
	kept := a.occ[:0]
	for i := 0; i < len(a.occ); {
		j := i + 1
		for j < len(a.occ) && a.occ[j].fp == a.occ[i].fp && (a.occ[j].at == a.occ[i].at || bytes.Equal(a.label(a.occ[j].at), a.label(a.occ[i].at))) {
			j++
		}
		if j-i > 1 {
			a.at = append(a.at, uint32(len(kept)))
			kept = append(kept, a.occ[i:j]...)
		}
		i = j
	}
	a.occ = slices.Clone(kept) // the slack given back
	a.at = append(a.at, uint32(len(a.occ)))
	// from now on, the first label (g) of each fingerprint
	clear(a.byFP)
	for g := len(a.at) - 2; g >= 0; g-- {
		a.byFP[a.occ[a.at[g]].fp] = uint32(g)
	}
	// and the domains that have no label of another
	in := make([]bool, len(a.domK))
	for _, o := range a.occ {
		in[a.domIndex(int(o.k))] = true
	}
	n := 0
	for i, ok := range in {
		if ok {
			a.domK[n], a.domID[n], a.domAt[n], a.domZone[n] = a.domK[i], a.domID[i], a.domAt[i], a.domZone[i]
			n++
		}
	}
	a.domK, a.domID, a.domAt, a.domZone = slices.Clone(a.domK[:n]), slices.Clone(a.domID[:n]), slices.Clone(a.domAt[:n]), slices.Clone(a.domZone[:n])
	return nil
}

// noLabel: a fingerprint whose label is not in the arena yet.
const noLabel = math.MaxUint32

// labelAt returns where label l is in the arena, adding it if it is not.
func (a *zoneAudit) labelAt(l string) uint32 {
	fp := a.fingerprint(l)
	at, ok := a.byFP[fp]
	switch {
	case ok && at == noLabel:
		at = a.keepLabel(l)
		a.byFP[fp] = at
		return at
	case ok && string(a.label(at)) == l:
		return at
	}
	return a.keepLabel(l)
}

// keepLabel adds l to the arena and returns where it is.
func (a *zoneAudit) keepLabel(l string) uint32 {
	at := uint32(len(a.arena))
	a.arena = binary.AppendUvarint(a.arena, uint64(len(l)))
	a.arena = append(a.arena, l...)
	return at
}

// label returns the bytes of the label at in the arena.
func (a *zoneAudit) label(at uint32) []byte {
	n, w := binary.Uvarint(a.arena[at:])
	return a.arena[at+uint32(w) : at+uint32(w)+uint32(n)]
}

// holders returns the domains whose new sets have l, if it is in the
// sets of several domains (in ID order; else nil).
func (a *zoneAudit) holders(l string) []occurrence {
	if len(a.byFP) == 0 {
		return nil
	}
	fp := a.fingerprint(l)
	g, ok := a.byFP[fp]
	if !ok {
		return nil
	}
	for ; int(g) < len(a.at)-1 && a.occ[a.at[g]].fp == fp; g++ {
		if string(a.label(a.occ[a.at[g]].at)) == l {
			return a.occ[a.at[g]:a.at[g+1]]
		}
	}
	return nil
}

// domIndex returns the index in domK of domain k (one that shares a
// label).
func (a *zoneAudit) domIndex(k int) int {
	i, _ := slices.BinarySearch(a.domK, int32(k))
	return i
}

// walk calls fn with each domain's record, in ID order, and the domains
// whose new sets meet its new set, in ID order.
func (a *zoneAudit) walk(fn func(k int, r *auditRec, others []int) error) error {
	if err := a.resolve(); err != nil {
		return err
	}
	if a.n == 0 {
		return nil
	}
	rr, err := a.records()
	if err != nil {
		return err
	}
	var others []int
	for k := range a.n {
		var r auditRec
		if err := rr.next(&r); err != nil {
			return err
		}
		others = others[:0]
		if len(a.byFP) > 0 {
			for _, l := range r.set {
				for _, o := range a.holders(l) {
					if int(o.k) != k && !slices.Contains(others, int(o.k)) {
						others = append(others, int(o.k))
					}
				}
			}
			sort.Ints(others)
		}
		if g := a.groups[r.id]; g != 0 { // its variant group's members are no conflict
			others = slices.DeleteFunc(others, func(o int) bool { return a.groups[a.domID[a.domIndex(o)]] == g })
		}
		if err := fn(k, &r, others); err != nil {
			return err
		}
	}
	return nil
}

// ownLabel is the label of domain o (one that shares a label).
func (a *zoneAudit) ownLabel(o int) string { return string(a.label(a.domAt[a.domIndex(o)])) }

func (a *zoneAudit) name(o int) string {
	return a.ownLabel(o) + "." + a.str[a.domZone[a.domIndex(o)]]
}

func (a *zoneAudit) finding(r *auditRec, others []int) *ReauditFinding {
	f := &ReauditFinding{Name: r.label + "." + a.str[r.zone], Zone: a.str[r.zone], Lang: a.str[r.lang], Registrar: a.str[r.reg], JudgedUnder: a.str[r.ver],
		Invalid: r.invalid, Codes: r.codes}
	for _, o := range others {
		if !slices.Contains(r.exempt, a.ownLabel(o)) {
			f.ConflictsWith = append(f.ConflictsWith, a.name(o))
		}
	}
	f.SetAdded, f.SetRemoved = r.added, r.removed
	return f
}

// rows gives each domain's ReauditRow in ID order.
func (a *zoneAudit) rows(each func(*ReauditRow) error) error {
	return a.walk(func(k int, rec *auditRec, others []int) error {
		r := &ReauditRow{ID: rec.id, Legacy: rec.codes}
		set := rec.set
		for i, l := range set {
			if i > 0 && set[i-1] == l {
				continue
			}
			if hs := a.holders(l); hs == nil || hs[0].k == int32(k) {
				r.Held = append(r.Held, l)
			}
		}
		if len(others) > 0 {
			r.Set = set
			for _, o := range others {
				r.ExemptWith = append(r.ExemptWith, a.domID[a.domIndex(o)])
			}
		}
		if a.notify != nil {
			a.notify(rec, others, r)
		}
		return each(r)
	})
}

// setDiff returns the labels of a not in b and of b not in a (both sorted).
func setDiff(a, b []string) (added, removed []string) {
	for _, l := range a {
		if !slices.Contains(b, l) {
			added = append(added, l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			removed = append(removed, l)
		}
	}
	return added, removed
}
