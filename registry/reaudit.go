package registry

import (
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"strings"
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
// one by one; what is kept of each until the zone is done is compact
// (its ID, its label and new conflict set as numbers of interned labels,
// numbers of its language, registrar and version), plus, only for the
// domains concerned, rule codes, set changes and stored exemptions.
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
		a := newZoneAudit(z.Name)
		add := func(d *Domain) error { return a.add(s, z, d) }
		// with apply, the scan is the apply's own, under its locks: a
		// domain created after a scan of its own would lose its set
		var err error
		if apply {
			err = ra.ApplyReaudit(ctx, z.Name, relation, s.version, a.reset, add, a.rows)
		} else {
			err = ra.ScanZone(ctx, z.Name, a.reset, add)
		}
		if err != nil {
			return nil, err
		}
		for k := range a.ids {
			f := a.finding(k)
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
				if err := found(f); err != nil {
					return nil, err
				}
			}
		}
	}
	sum.ByCode = countList(codes)
	sum.Applied = apply
	return sum, nil
}

// zoneAudit is what a re-audit keeps of a zone's domains, indexed by
// their position k in ID order.
type zoneAudit struct {
	zone string
	// labels interned: every label of a new conflict set, each domain's
	// own label, and the labels of changes and stored exemptions
	labels labelTable
	// strings of the few distinct values: languages, registrars, versions
	str   []string
	strID map[string]uint32

	ids   []int64
	own   []uint32    // label
	zone1 []uint32    // zone (str): a family's domains are of several
	meta  [][3]uint32 // language, registrar, version (str)
	setAt []uint32    // domain k's new set is sets[setAt[k]:setAt[k+1]]
	sets  []uint32    // labels, each set sorted by label

	holder []int32            // by label: the first domain whose new set has it
	shared map[uint32][]int32 // labels in the new sets of several domains

	// only for the domains concerned
	codes   map[int32][]string // refused now: the rule codes
	invalid map[int32]bool     // ... and with codes other than its legacy ones
	// labels (in more): the changes of its set (added, then removed) and
	// the domains it was exempted with
	changed map[int32]span
	exempt  map[int32]span
	more    []uint32
}

// span is labels in zoneAudit.more: n of them from at, the first k of
// which are the labels added to a set.
type span struct{ at, n, k uint32 }

func newZoneAudit(zone string) *zoneAudit {
	a := &zoneAudit{zone: zone}
	a.reset()
	return a
}

func (a *zoneAudit) reset() {
	*a = zoneAudit{zone: a.zone, labels: newLabelTable(), strID: map[string]uint32{}, shared: map[uint32][]int32{},
		codes: map[int32][]string{}, invalid: map[int32]bool{}, changed: map[int32]span{}, exempt: map[int32]span{}, setAt: []uint32{0}}
}

func (a *zoneAudit) intern(l string) uint32 {
	id := a.labels.id(l)
	if int(id) == len(a.holder) {
		a.holder = append(a.holder, -1)
	}
	return id
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

// keep appends labels to more and returns their span.
func (a *zoneAudit) keep(k int, labels ...[]string) span {
	sp := span{at: uint32(len(a.more)), k: uint32(k)}
	for _, ls := range labels {
		for _, l := range ls {
			a.more = append(a.more, a.intern(l))
		}
	}
	sp.n = uint32(len(a.more)) - sp.at
	return sp
}

func (a *zoneAudit) spanLabels(sp span) []string {
	var out []string
	for _, l := range a.more[sp.at : sp.at+sp.n] {
		out = append(out, a.labels.get(l))
	}
	return out
}

// add judges d and keeps what the findings and the new rows need.
func (a *zoneAudit) add(s *Service, z *Zone, d *Domain) error {
	k := int32(len(a.ids))
	a.ids = append(a.ids, d.ID)
	a.own = append(a.own, a.intern(d.Label))
	a.zone1 = append(a.zone1, a.internStr(d.Zone))
	if dz := s.zones[d.Zone]; dz != nil {
		z = dz // a domain of another zone of the family
	}
	a.meta = append(a.meta, [3]uint32{a.internStr(d.Lang), a.internStr(d.Registrar), a.internStr(d.DataVersion)})
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
	for _, l := range set {
		id := a.intern(l)
		a.sets = append(a.sets, id)
		switch h := a.holder[id]; {
		case h < 0:
			a.holder[id] = k
		case a.shared[id] == nil:
			a.shared[id] = []int32{h, k}
		default:
			a.shared[id] = append(a.shared[id], k)
		}
	}
	a.setAt = append(a.setAt, uint32(len(a.sets)))
	if len(codes) > 0 {
		a.codes[k] = codes
		if !slices.Equal(codes, d.Legacy) {
			a.invalid[k] = true
		}
	}
	if added, removed := setDiff(set, d.Blocks); len(added)+len(removed) > 0 {
		a.changed[k] = a.keep(len(added), added, removed)
	}
	if len(d.ExemptWith) > 0 {
		labels := make([]string, len(d.ExemptWith))
		for i, n := range d.ExemptWith {
			labels[i], _, _ = strings.Cut(n, ".") // of any zone of the family
		}
		a.exempt[k] = a.keep(0, labels)
	}
	return nil
}

func (a *zoneAudit) set(k int) []uint32 { return a.sets[a.setAt[k]:a.setAt[k+1]] }

func (a *zoneAudit) name(k int) string { return a.labels.get(a.own[k]) + "." + a.str[a.zone1[k]] }

// others returns, in ID order, the domains whose new sets meet the new
// set of domain k.
func (a *zoneAudit) others(k int) []int {
	var others []int
	for _, l := range a.set(k) {
		for _, o := range a.shared[l] {
			if int(o) != k && !slices.Contains(others, int(o)) {
				others = append(others, int(o))
			}
		}
	}
	sort.Ints(others)
	return others
}

func (a *zoneAudit) finding(k int) *ReauditFinding {
	m := a.meta[k]
	f := &ReauditFinding{Name: a.name(k), Zone: a.str[a.zone1[k]], Lang: a.str[m[0]], Registrar: a.str[m[1]], JudgedUnder: a.str[m[2]],
		Invalid: a.invalid[int32(k)], Codes: a.codes[int32(k)]}
	var exempt []uint32
	if sp, ok := a.exempt[int32(k)]; ok {
		exempt = a.more[sp.at : sp.at+sp.n]
	}
	for _, o := range a.others(k) {
		if !slices.Contains(exempt, a.own[o]) {
			f.ConflictsWith = append(f.ConflictsWith, a.name(o))
		}
	}
	if sp, ok := a.changed[int32(k)]; ok {
		labels := a.spanLabels(sp)
		if sp.k > 0 {
			f.SetAdded = labels[:sp.k]
		}
		if sp.k < sp.n {
			f.SetRemoved = labels[sp.k:]
		}
	}
	return f
}

// rows gives each domain's ReauditRow in ID order.
func (a *zoneAudit) rows(each func(*ReauditRow) error) error {
	for k := range a.ids {
		r := &ReauditRow{ID: a.ids[k], Legacy: a.codes[int32(k)]}
		set := a.set(k)
		for i, l := range set {
			if a.holder[l] == int32(k) && (i == 0 || set[i-1] != l) {
				r.Held = append(r.Held, a.labels.get(l))
			}
		}
		if others := a.others(k); len(others) > 0 {
			r.Set = make([]string, len(set))
			for i, l := range set {
				r.Set[i] = a.labels.get(l)
			}
			for _, o := range others {
				r.ExemptWith = append(r.ExemptWith, a.ids[o])
			}
		}
		if err := each(r); err != nil {
			return err
		}
	}
	return nil
}

// labelTable interns labels: their bytes one after the other, and an
// open-addressing hash table of their numbers (about 30 bytes a label,
// against about 80 for a map of strings and the strings).
type labelTable struct {
	bytes []byte
	end   []uint32 // label i is bytes[end[i-1]:end[i]]
	slots []uint32 // label number + 1; 0: empty
	seed  maphash.Seed
}

func newLabelTable() labelTable {
	return labelTable{slots: make([]uint32, 1024), seed: maphash.MakeSeed()}
}

func (t *labelTable) bytesOf(id uint32) []byte {
	start := uint32(0)
	if id > 0 {
		start = t.end[id-1]
	}
	return t.bytes[start:t.end[id]]
}

// get returns label id (a new string).
func (t *labelTable) get(id uint32) string { return string(t.bytesOf(id)) }

// id returns the number of label l, adding it if it is new.
func (t *labelTable) id(l string) uint32 {
	if 2*(len(t.end)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, l) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			t.bytes = append(t.bytes, l...)
			t.end = append(t.end, uint32(len(t.bytes)))
			t.slots[i] = uint32(len(t.end))
			return uint32(len(t.end) - 1)
		}
		if string(t.bytesOf(s-1)) == l {
			return s - 1
		}
	}
}

func (t *labelTable) grow() {
	t.slots = make([]uint32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for id := range t.end {
		i := maphash.Bytes(t.seed, t.bytesOf(uint32(id))) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(id) + 1
	}
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
