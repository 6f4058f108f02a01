package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/akshara-idn/akshara/registry"
)

// The look-ahead of an import (registry.ImportAheader; docs/import.md,
// "How a batch is decided"). While batch N is written, batch N+1's labels
// are looked up in blocks, exempt_sets and domains on another connection,
// in a read-only transaction of their own (one snapshot), together with
// the dialect's marker (Dialect.ImportMark). Batch N's transaction reads
// the marker before its first write (under the lock that keeps it:
// SQLite's write lock, PostgreSQL's lock on the settings row) and after
// its last, and keeps the rows it wrote. Batch N+1's transaction reads the
// marker again, first thing; the look-ahead is used only if
//
//   - N+1 finds the marker N left (nothing marked committed since N), and
//   - the look-ahead found the marker of before N (it read before N
//     committed: nothing marked committed between it and N) or the one
//     of after N (it read after N committed);
//
// it is then corrected in memory by N's rows (N's labels count as held,
// its names as registered: adding them again to a look-ahead that saw N
// changes nothing). Otherwise N+1 looks up in its own transaction, as
// every batch did before. On SQLite the marker is the read cache's change
// log (every write of blocks, exemptions, reserved names and domains logs
// itself by trigger, a bulk write once), and the single writer makes it
// exact. On PostgreSQL it is the version of the settings row, which
// exempted creates, imports, the re-audit's apply and the recomputation
// lock by updating it; ordinary creates do not take it, and are caught as
// they always were by the unique indexes (a create that took a label the
// look-ahead saw free makes the batch's insert of it fail, and the batch
// is decided again holding creates off); deletes do not take it either,
// and are caught by Dialect.ImportKeep: every domain the look (ahead or
// not) found is locked and must still be there.

// queryer is a *sql.Tx or a *sql.Conn.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// importLook is what the database holds of a batch's labels.
type importLook struct {
	key, zone  string
	mark       string             // the marker when read (a look-ahead)
	holder     map[string]int64   // label -> the domain holding it in blocks
	members    map[string][]int64 // label -> the domains whose set has it
	registered map[string]int64   // label -> the domain with it as its label (of the batch's names)
}

func (l *importLook) add(label string, id int64) {
	if !slices.Contains(l.members[label], id) {
		l.members[label] = append(l.members[label], id)
	}
}

// labelID is a row of blocks, exempt_sets or domains a batch wrote.
type labelID struct {
	label string
	id    int64
}

// importDone is what a committed batch wrote, for the next one's
// look-ahead.
type importDone struct {
	key, zone     string
	before, after string // the marker before its first write and after its last
	blocks        []labelID
	sets          []labelID
	domains       []labelID
}

// aheadState is the store's last committed import batch, and counts.
type aheadState struct {
	mu   sync.Mutex
	last *importDone
	// batches whose look-ahead was used, and thrown away (something else
	// committed: looked up again in the transaction)
	used, missed atomic.Int64
	// looks (ahead or not) that found a domain deleted since
	gone atomic.Int64
}

func (a *aheadState) set(d *importDone) {
	a.mu.Lock()
	a.last = d
	a.mu.Unlock()
}

// take returns the look-ahead corrected by the last batch's rows, or nil
// if it is not known to be exact; mark is the marker read first thing in
// the batch's transaction.
func (a *aheadState) take(l *importLook, key, zone, mark string, labels []string, inSets map[string]bool) *importLook {
	a.mu.Lock()
	last := a.last
	a.last = nil // used once: let its rows go while this batch is written
	a.mu.Unlock()
	if testIgnoreMark && last != nil {
		c := *last
		c.before, c.after = l.mark, mark
		last = &c
	}
	if last == nil || l.key != key || l.zone != zone || last.key != key || mark == "" || mark != last.after ||
		(l.mark != last.before && l.mark != last.after) {
		a.missed.Add(1)
		return nil
	}
	for _, r := range last.blocks {
		if inSets[r.label] {
			if _, ok := l.holder[r.label]; !ok {
				l.holder[r.label] = r.id
			}
			l.add(r.label, r.id)
		}
	}
	for _, r := range last.sets {
		if inSets[r.label] {
			l.add(r.label, r.id)
		}
	}
	if len(last.domains) > 0 {
		own := make(map[string]bool, len(labels))
		for _, x := range labels {
			own[x] = true
		}
		for _, r := range last.domains {
			if own[r.label] {
				l.registered[r.label] = r.id
			}
		}
	}
	a.used.Add(1)
	return l
}

// testIgnoreMark, for tests only: use every look-ahead as if the marker
// said nothing else committed (shows the tests fail without the marker).
var testIgnoreMark = false

// batchLabels returns the labels of a batch's names, the labels of their
// conflict sets (each once), and those as a set.
func batchLabels(b *registry.ImportBatch) (labels, setLabels []string, inSets map[string]bool) {
	inSets = map[string]bool{}
	for _, it := range b.Items {
		labels = append(labels, it.Domain.Label)
		for _, l := range it.Domain.Blocks {
			if !inSets[l] {
				inSets[l] = true
				setLabels = append(setLabels, l)
			}
		}
	}
	return labels, setLabels, inSets
}

// importMark reads the dialect's marker ("" if there is none to read).
func (s *Store) importMark(ctx context.Context, q queryer, query string) (string, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var mark sql.NullString
	if rows.Next() {
		if err := rows.Scan(&mark); err != nil {
			return "", err
		}
	}
	return mark.String, rows.Err()
}

// registeredLabelsQuery finds which labels of a list (%s: placeholders)
// are domains of a zone: a search of the unique index on (zone, label)
// per label (TestLabelLookupPlans).
const registeredLabelsQuery = `SELECT label, id FROM domains WHERE zone = ? AND label IN (%s)`

// importLookup looks the batch's labels up: in blocks and exempt_sets,
// then, in domains, the names whose own label was found (a registered
// domain's label is always in its own set), or all of them.
func (s *Store) importLookup(ctx context.Context, q queryer, key, zone string, labels, setLabels []string, all bool) (*importLook, error) {
	l := &importLook{key: key, zone: zone, holder: map[string]int64{}, members: map[string][]int64{}, registered: map[string]int64{}}
	// in order: SQLite looks an IN list up in order, and consecutive
	// lists then read neighbouring pages of the index (PostgreSQL sorts
	// an array itself)
	if !s.d.ArrayParams && !slices.IsSorted(setLabels) {
		setLabels = slices.Clone(setLabels)
		slices.Sort(setLabels)
	}
	err := s.inList(ctx, q, `SELECT label, domain_id FROM blocks WHERE zone = ? AND label IN (%s)`, []any{key}, setLabels, func(r *sql.Rows) error {
		var x string
		var id int64
		err := r.Scan(&x, &id)
		l.holder[x] = id
		l.members[x] = append(l.members[x], id)
		return err
	})
	if err != nil {
		return nil, err
	}
	err = s.inList(ctx, q, `SELECT label, domain_id FROM exempt_sets WHERE zone = ? AND label IN (%s)`, []any{key}, setLabels, func(r *sql.Rows) error {
		var x string
		var id int64
		err := r.Scan(&x, &id)
		l.add(x, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	ask := labels
	if !all {
		ask = nil
		for _, x := range labels {
			if len(l.members[x]) > 0 {
				ask = append(ask, x)
			}
		}
	}
	if !s.d.ArrayParams {
		ask = slices.Clone(ask)
		slices.Sort(ask)
	}
	err = s.inList(ctx, q, registeredLabelsQuery, []any{zone}, ask, func(r *sql.Rows) error {
		var x string
		var id int64
		err := r.Scan(&x, &id)
		l.registered[x] = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// keepLooked locks the domains a look found (Dialect.ImportKeep) and
// reports whether they are all still there.
func (s *Store) keepLooked(ctx context.Context, tx *sql.Tx, l *importLook) (bool, error) {
	if s.d.ImportKeep == "" || testIgnoreMark {
		return true, nil
	}
	seen := map[int64]bool{}
	var ids []int64
	note := func(id int64) {
		if id != 0 && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, ms := range l.members {
		for _, id := range ms {
			note(id)
		}
	}
	for _, id := range l.registered {
		note(id)
	}
	if len(ids) == 0 {
		return true, nil
	}
	slices.Sort(ids) // lock in one order
	rows, err := tx.QueryContext(ctx, s.q(s.d.ImportKeep), ids)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n == len(ids), rows.Err()
}

// ImportAhead implements registry.ImportAheader: b's labels looked up
// now, in a read-only transaction of their own, with the marker.
func (s *Store) ImportAhead(ctx context.Context, b *registry.ImportBatch) error {
	b.Ahead = nil
	if s.d.ImportMark == "" || len(b.Items) == 0 {
		return nil
	}
	// the labels each once, by sorting (no map: this runs while the batch
	// before is written, and its garbage adds to that batch's peak)
	var labels, setLabels []string
	for _, it := range b.Items {
		labels = append(labels, it.Domain.Label)
		setLabels = append(setLabels, it.Domain.Blocks...)
	}
	slices.Sort(setLabels)
	setLabels = slices.Compact(setLabels)
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return internal("looking a batch up ahead", err)
	}
	defer tx.Rollback()
	mark, err := s.importMark(ctx, tx, s.d.ImportMark)
	if err != nil || mark == "" {
		return internal("looking a batch up ahead", err)
	}
	l, err := s.importLookup(ctx, tx, s.key(b.Zone), b.Zone, labels, setLabels, false)
	if err != nil {
		return internal("looking a batch up ahead", err)
	}
	l.mark = mark
	b.Ahead = l
	return nil
}

// ImportAheadCounts returns how many import batches this store committed
// used their look-ahead, how many looked up again in their transaction
// because something else had committed, and how many looks found a
// domain deleted since (docs/import.md).
func (s *Store) ImportAheadCounts() (used, missed, gone int64) {
	return s.ahead.used.Load(), s.ahead.missed.Load(), s.ahead.gone.Load()
}

var _ registry.ImportAheader = (*Store)(nil)
