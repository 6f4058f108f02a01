package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Bulk import (registry.Importer). A batch is one transaction: the labels
// of the batch are looked up in a few IN-list queries (not one query per
// name), the names that conflict with nothing are inserted with multi-row
// INSERTs, the rare ones that conflict go through insertExempt one by one,
// and the checkpoint is written last. Everything is decided inside the
// transaction; on SQLite the transaction holds the write lock from BEGIN,
// on PostgreSQL a concurrent create that takes a label first makes an
// insert violate the unique index, and the batch is rolled back and run
// again. A transient fault (retry.go) runs the batch again too (importTx).

// importChunk is how many labels an IN list holds, and rows an INSERT.
const importChunk = 300

var _ registry.Importer = (*Store)(nil)

// RegistrarIDs implements registry.Importer.
func (s *Store) RegistrarIDs(ctx context.Context, names []string) (map[string]int64, error) {
	out := map[string]int64{}
	for i := 0; i < len(names); i += importChunk {
		part := names[i:min(i+importChunk, len(names))]
		args := make([]any, len(part))
		for k, n := range part {
			args[k] = n
		}
		rows, err := s.db.QueryContext(ctx, s.q(`SELECT name, id FROM registrars WHERE name IN (`+marks(len(part))+`)`), args...)
		if err != nil {
			return nil, internal("finding registrars", err)
		}
		for rows.Next() {
			var n string
			var id int64
			if err := rows.Scan(&n, &id); err != nil {
				rows.Close()
				return nil, internal("finding registrars", err)
			}
			out[n] = id
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, internal("finding registrars", err)
		}
	}
	return out, nil
}

// ImportBatchSize implements registry.Importer.
func (s *Store) ImportBatchSize() int {
	if s.d.ImportBatch > 0 {
		return s.d.ImportBatch
	}
	return 5000
}

// ImportBatchSizeFor is the number of names per batch for a file of
// fileBytes: Dialect.ImportBatchLarge from Dialect.ImportLargeFile on.
func (s *Store) ImportBatchSizeFor(fileBytes int64) int {
	if s.d.ImportBatchLarge > 0 && fileBytes >= s.d.ImportLargeFile {
		return s.d.ImportBatchLarge
	}
	return s.ImportBatchSize()
}

// ImportCheckpoint implements registry.Importer.
func (s *Store) ImportCheckpoint(ctx context.Context, source, zone string) (int64, bool, error) {
	var line, done int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT line, done FROM import_checkpoints WHERE source = ? AND zone = ?`), source, zone).Scan(&line, &done)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return line, done != 0, internal("reading import checkpoint", err)
}

// ImportBatch implements registry.Importer.
func (s *Store) ImportBatch(ctx context.Context, b *registry.ImportBatch) error {
	var err error
	var perBatch bool
	for attempt := 0; attempt < 5; attempt++ {
		err = s.importTx(ctx, b, attempt > 0, &perBatch)
		if err == nil || !(s.d.IsUnique(err) || errors.Is(err, errImportRedo)) {
			break
		}
		// lost a race with a concurrent create (or the references could
		// not be checked per batch): decide again
	}
	if err != nil {
		return internal("importing a batch", err)
	}
	s.refs.count(perBatch)
	// after batches 1, 4, 16, 64, ... and after the file's last batch,
	// so that the store is planned for its final size (without it, a
	// 10 M import kept the statistics of batch 256, 2.5 M domains, and
	// none of exemptions: the planner expected 2,002 exemptions per
	// domain and an RDAP lookup took a parallel plan, 32 ms instead of
	// 0.15; autovacuum may be off, and it would come later anyway)
	if n := s.batches.Add(1); len(s.d.ImportAnalyze) > 0 && (b.Done || n&(n-1) == 0 && bits.TrailingZeros64(uint64(n))%2 == 0) {
		err := s.connTx(ctx, func(_ *sql.Conn, tx *sql.Tx) error {
			for _, q := range s.d.ImportAnalyze {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return internal("updating the planner's statistics", err)
		}
	}
	return nil
}

// importTx writes a batch in one transaction, run again on a transient
// fault as Store.tx does (retry.go): the batch is all or nothing, its
// checkpoint with it, so running it again is safe. After a fault at
// COMMIT that may have left it committed, the checkpoint tells: each
// attempt stamps it with a time of its own (updated); if the stamp is
// there the batch committed (and its items' outcomes are this attempt's),
// if not it runs again, and if the checkpoint cannot be read the fault is
// reported.
func (s *Store) importTx(ctx context.Context, b *registry.ImportBatch, all bool, perBatch *bool) error {
	return s.do(ctx, func() error {
		stamp := time.Now().UnixNano()
		*perBatch = s.refsPerBatch(ctx)
		var done *importDone
		// the connection is kept for the next batch (bulkconn.go)
		err := s.connTxMode(ctx, !b.Done, true, func(conn *sql.Conn, tx *sql.Tx) error {
			return s.importBatch(ctx, conn, tx, b, all, stamp, perBatch, &done)
		})
		// the next batch's look-ahead is corrected by this batch's rows,
		// if it committed (and is known to have)
		if err == nil {
			s.ahead.set(done)
		} else {
			s.ahead.set(nil)
		}
		return s.importCommitted(ctx, err, b.Source, b.Zone, stamp)
	})
}

// importCommitted resolves err, the outcome of an import transaction
// that stamped the checkpoint of (source, zone) with stamp: a fault at
// COMMIT, which may have left it committed, is nil if the stamp is there,
// err if the checkpoint cannot be read, and the COMMIT's error (run again
// if transient) if not; any other err is returned as it is.
func (s *Store) importCommitted(ctx context.Context, err error, source, zone string, stamp int64) error {
	var ce *commitError
	if !errors.As(err, &ce) || (s.d.IsRefused != nil && s.d.IsRefused(ce.err)) {
		return err
	}
	s.resolved.Add(1)
	var updated int64
	qerr := s.db.QueryRowContext(ctx, s.q(`SELECT updated FROM import_checkpoints WHERE source = ? AND zone = ?`), source, zone).Scan(&updated)
	switch {
	case qerr == nil && updated == stamp:
		return nil
	case qerr != nil && !errors.Is(qerr, sql.ErrNoRows):
		return err
	}
	return ce.err // not committed: run again if transient
}

// connTx runs f in a transaction on a connection of its own (which
// Dialect.CopyFrom uses), committing if it returns nil; an error of the
// COMMIT is a *commitError.
func (s *Store) connTx(ctx context.Context, f func(*sql.Conn, *sql.Tx) error) error {
	return s.connTxKeep(ctx, false, f)
}

// connTxKeep is connTx on the connection kept by the last bulk
// transaction, if any, keeping it for the next one if keep and the
// transaction committed (bulkconn.go).
func (s *Store) connTxKeep(ctx context.Context, keep bool, f func(*sql.Conn, *sql.Tx) error) (err error) {
	return s.connTxMode(ctx, keep, false, f)
}

// connTxMode is connTxKeep, with the connection's foreign-key checks off
// for an import batch (unchecked, Dialect.ImportUnchecked) and on for any
// other transaction, whatever the last one on the connection left.
func (s *Store) connTxMode(ctx context.Context, keep, unchecked bool, f func(*sql.Conn, *sql.Tx) error) (err error) {
	conn, err := s.takeBulkConn(ctx)
	if err != nil {
		return err
	}
	defer func() { s.endBulkConn(ctx, conn, keep && err == nil) }()
	if u := s.d.ImportUnchecked; u != nil {
		q := u.On
		if unchecked {
			q = u.Off
		}
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(conn, tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := s.execAll(ctx, tx, s.d.BulkEnd); err != nil {
		tx.Rollback()
		return err
	}
	err = tx.Commit()
	s.wrote(ctx)
	if err != nil {
		return &commitError{err}
	}
	return nil
}

// rowSink takes rows for a table.
type rowSink interface {
	add(args ...any) error
	flush() error
	close()
}

// copier sends rows with Dialect.CopyFrom when flushed.
type copier struct {
	s     *Store
	ctx   context.Context
	conn  *sql.Conn
	table string
	cols  []string
	rows  [][]any
}

func (c *copier) add(args ...any) error {
	c.rows = append(c.rows, append([]any(nil), args...))
	return nil
}

func (c *copier) flush() error {
	if len(c.rows) == 0 {
		return nil
	}
	err := c.s.d.CopyFrom(c.ctx, c.conn, c.table, c.cols, c.rows)
	c.rows = c.rows[:0]
	return err
}

func (c *copier) close() {}

// inList runs query (with one IN (%s) for labels) over labels in chunks,
// calling f for each row; args come before the labels.
func (s *Store) inList(ctx context.Context, tx queryer, query string, args []any, labels []string, f func(*sql.Rows) error) error {
	chunk := importChunk
	if s.d.ArrayParams {
		chunk = max(len(labels), 1) // one query: label = ANY(?)
	}
	for i := 0; i < len(labels); i += chunk {
		part := labels[i:min(i+chunk, len(labels))]
		a := append([]any(nil), args...)
		q := query
		if s.d.ArrayParams {
			a = append(a, part)
			q = strings.Replace(q, "IN (%s)", "= ANY(?)", 1)
		} else {
			for _, l := range part {
				a = append(a, l)
			}
			q = fmt.Sprintf(q, marks(len(part)))
		}
		if err := queryEach(ctx, tx, s.q(q), a, f); err != nil {
			return err
		}
	}
	return nil
}

// queryEach runs q and calls f for each row.
func queryEach(ctx context.Context, tx queryer, q string, args []any, f func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// idChunks calls run with query (with one IN (%s)) made for each chunk of
// ids, importChunk ids a chunk (one array on PostgreSQL:
// Dialect.ArrayParams), and its arguments; nothing for no ids.
func (s *Store) idChunks(query string, ids []int64, run func(q string, a []any) error) error {
	chunk := importChunk
	if s.d.ArrayParams {
		chunk = max(len(ids), 1)
	}
	for i := 0; i < len(ids); i += chunk {
		part := ids[i:min(i+chunk, len(ids))]
		var a []any
		q := query
		if s.d.ArrayParams {
			a = []any{part}
			q = strings.Replace(q, "IN (%s)", "= ANY(?)", 1)
		} else {
			for _, id := range part {
				a = append(a, id)
			}
			q = fmt.Sprintf(q, marks(len(part)))
		}
		if err := run(q, a); err != nil {
			return err
		}
	}
	return nil
}

// idList runs query (with one IN (%s) for ids) over ids in chunks (one
// array on PostgreSQL), calling f, if set, for each row.
func (s *Store) idList(ctx context.Context, tx *sql.Tx, query string, ids []int64, f func(*sql.Rows) error) error {
	return s.idChunks(query, ids, func(q string, a []any) error {
		if f == nil {
			_, err := tx.ExecContext(ctx, s.q(q), a...)
			return err
		}
		return queryEach(ctx, tx, s.q(q), a, f)
	})
}

// rowInserter inserts rows of a table with multi-row INSERTs of up to
// importChunk/width rows, the full-size statement prepared once per
// transaction.
type rowInserter struct {
	s      *Store
	ctx    context.Context
	tx     *sql.Tx
	head   string // INSERT INTO t (a, b) VALUES
	tail   string // ON CONFLICT ..., or ""
	width  int
	rows   int // rows per statement
	args   []any
	full   *sql.Stmt
	onRows func(*sql.Rows) error // for a RETURNING tail
}

func (s *Store) inserter(ctx context.Context, tx *sql.Tx, head, tail string, width int, onRows func(*sql.Rows) error) *rowInserter {
	params := importChunk
	if s.d.ImportParams > 0 {
		params = s.d.ImportParams
	}
	return &rowInserter{s: s, ctx: ctx, tx: tx, head: head, tail: tail, width: width, rows: params / width, onRows: onRows}
}

func (w *rowInserter) query(n int) string {
	row := "(" + marks(w.width) + "), "
	return w.s.q(w.head + strings.TrimSuffix(strings.Repeat(row, n), ", ") + " " + w.tail)
}

func (w *rowInserter) add(args ...any) error {
	w.args = append(w.args, args...)
	if len(w.args) >= w.width*w.rows {
		return w.flush()
	}
	return nil
}

func (w *rowInserter) flush() error {
	n := len(w.args) / w.width
	if n == 0 {
		return nil
	}
	defer func() { w.args = w.args[:0] }()
	var st *sql.Stmt
	if n == w.rows {
		if w.full == nil {
			var err error
			if w.full, err = w.tx.PrepareContext(w.ctx, w.query(n)); err != nil {
				return err
			}
		}
		st = w.full
	}
	if w.onRows == nil {
		var err error
		if st != nil {
			_, err = st.ExecContext(w.ctx, w.args...)
		} else {
			_, err = w.tx.ExecContext(w.ctx, w.query(n), w.args...)
		}
		return err
	}
	var rows *sql.Rows
	var err error
	if st != nil {
		rows, err = st.QueryContext(w.ctx, w.args...)
	} else {
		rows, err = w.tx.QueryContext(w.ctx, w.query(n), w.args...)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := w.onRows(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (w *rowInserter) close() {
	if w.full != nil {
		w.full.Close()
	}
}

// importBatch decides and writes a batch. The model is insertExempt's,
// computed in memory for the whole batch: a name whose conflict set meets
// no held label (in blocks, in exempt_sets, or in an earlier name's set)
// is an ordinary domain holding its whole set; any other is exempted with
// every domain whose set meets its own: it holds in blocks the labels of
// its set that were free, its whole set goes to exempt_sets, the pairs to
// exemptions, and each domain it is exempted with has its whole set in
// exempt_sets too.
func (s *Store) importBatch(ctx context.Context, conn *sql.Conn, tx *sql.Tx, b *registry.ImportBatch, all bool, now int64, perBatch *bool, done **importDone) error {
	zone := b.Zone
	key := s.key(zone) // the zone's family: its conflict sets' key
	if err := s.execAll(ctx, tx, s.d.ImportSetup); err != nil {
		return err
	}
	// the marker before anything of this batch (the look-ahead's test)
	var before string
	if s.d.ImportMark != "" {
		q := s.d.ImportMarkLock
		if q == "" {
			q = s.d.ImportMark
		}
		var err error
		if before, err = s.importMark(ctx, tx, q); err != nil {
			return err
		}
	}
	if err := s.execAll(ctx, tx, s.d.BulkBegin); err != nil {
		return err
	}
	// a batch takes its turn with exempted creates (CreateExemptDomain):
	// it must see their whole sets, which an uncommitted one hides
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE settings SET value = value WHERE name = ?`), relationSetting); err != nil {
		return err
	}
	// A batch that lost a race with creates is decided again holding
	// creates off until it commits, so that it cannot lose again (a busy
	// registry creating the very names imported would otherwise starve it).
	if all && s.d.ImportLock != "" {
		if _, err := tx.ExecContext(ctx, s.d.ImportLock); err != nil {
			return err
		}
	}
	if *perBatch {
		ok, err := s.refGuard(ctx, tx)
		if err != nil {
			return err
		}
		*perBatch = ok
	}
	var refs *refChecks
	if *perBatch {
		refs = &refChecks{s: s, ctx: ctx, tx: tx, ids: map[int64]bool{}}
	}
	insert := "INSERT"
	if u := s.d.ImportUnchecked; u != nil {
		on := true
		if err := tx.QueryRowContext(ctx, u.Probe).Scan(&on); err != nil {
			return err
		}
		if *perBatch = !on; *perBatch {
			if err := s.checkParents(ctx, tx, `SELECT name FROM zones WHERE name = ?`, `SELECT id FROM registrars WHERE id IN (%s)`, zone, b.Items); err != nil {
				return err
			}
			insert = u.Insert
		}
	}
	for _, it := range b.Items {
		it.Outcome, it.ExemptWith, it.Domain.ID, it.Domain.Exempted = 0, nil, 0, false
	}
	labels, setLabels, inSets := batchLabels(b)
	// what the database holds of the batch's labels: the look-ahead read
	// before this transaction, if nothing but the last batch changed it
	// since, or read now
	var look *importLook
	if a, ok := b.Ahead.(*importLook); ok && !all && before != "" {
		look = s.ahead.take(a, key, zone, before, labels, inSets)
	}
	b.Ahead = nil
	for tries := 0; ; tries++ {
		if tries > 5 {
			return fmt.Errorf("%w: domains deleted while the batch looked", errImportRedo)
		}
		if look == nil {
			var err error
			if look, err = s.importLookup(ctx, tx, key, zone, labels, setLabels, all); err != nil {
				return err
			}
		}
		ok, err := s.keepLooked(ctx, tx, look)
		if err != nil {
			return err
		}
		if ok {
			break
		}
		// a domain it found was deleted since: look again (those found
		// are locked now, and cannot go)
		s.ahead.gone.Add(1)
		look = nil
	}
	holder, members := look.holder, look.members
	registered := look.registered
	dn := &importDone{key: key, zone: zone, before: before}

	// with RefuseConflicts: the registrar and name of each domain of the
	// database whose set meets the batch's
	type owner struct {
		registrar int64
		name      string
	}
	var dbOwner map[int64]owner
	if b.RefuseConflicts {
		dbOwner = map[int64]owner{}
		var ids []int64
		seen := map[int64]bool{}
		for _, l := range setLabels {
			for _, id := range members[l] {
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		slices.Sort(ids)
		err := s.idList(ctx, tx, `SELECT id, registrar_id, label, zone FROM domains WHERE id IN (%s)`, ids, func(r *sql.Rows) error {
			var id, reg int64
			var label, dzone string
			err := r.Scan(&id, &reg, &label, &dzone)
			dbOwner[id] = owner{reg, label + "." + dzone}
			return err
		})
		if err != nil {
			return err
		}
	}
	batchHeld := map[string][]*registry.ImportItem{} // RefuseConflicts: the labels of the batch's names written so far

	// duplicates out, and with RefuseConflicts the names meeting another
	// registrar's; every other name gets a domain row (and an ID)
	var fresh []*registry.ImportItem
	byLabel := map[string]*registry.ImportItem{}
	for _, it := range b.Items {
		if _, ok := registered[it.Domain.Label]; ok {
			it.Outcome = registry.ImportDuplicate
			continue
		}
		if b.RefuseConflicts {
			var against []string
			for _, l := range it.Domain.Blocks {
				for _, id := range members[l] {
					if o := dbOwner[id]; o.registrar != it.RegistrarID && !slices.Contains(against, o.name) {
						against = append(against, o.name)
					}
				}
				for _, o := range batchHeld[l] {
					if o.RegistrarID != it.RegistrarID && !slices.Contains(against, o.Domain.Name) {
						against = append(against, o.Domain.Name)
					}
				}
			}
			if len(against) > 0 {
				it.Outcome, it.ExemptWith = registry.ImportRefusedConflict, against
				continue
			}
			for _, l := range it.Domain.Blocks {
				batchHeld[l] = append(batchHeld[l], it)
			}
		}
		registered[it.Domain.Label] = 0
		fresh = append(fresh, it)
		byLabel[it.Domain.Label] = it
	}
	if err := s.insertDomains(ctx, conn, tx, insert, zone, fresh, byLabel, refs); err != nil {
		return err
	}

	// decide in file order
	var blocks rowSink = s.inserter(ctx, tx, insert+` INTO blocks (zone, label, domain_id) VALUES `, ``, 3, nil)
	if s.d.CopyFrom != nil {
		blocks = &copier{s: s, ctx: ctx, conn: conn, table: "blocks", cols: []string{"zone", "label", "domain_id"}}
	}
	defer blocks.close()
	sets := s.inserter(ctx, tx, `INSERT INTO exempt_sets (zone, label, domain_id) VALUES `, `ON CONFLICT DO NOTHING`, 3, nil)
	defer sets.close()
	pairs := s.inserter(ctx, tx, `INSERT INTO exemptions (domain_id, other_id) VALUES `, `ON CONFLICT DO NOTHING`, 2, nil)
	defer pairs.close()
	byID := map[int64]*registry.ImportItem{}
	exempted := map[int64]bool{} // domains whose whole set is in exempt_sets (this batch)
	var dbOthers []int64         // domains of the database exempted with a name of the batch
	names := map[int64]string{}
	otherIDs := map[*registry.ImportItem][]int64{} // the exempted names' others, named at the end
	var held []string                              // the labels the batch's domains hold, for blocks
	for _, it := range fresh {
		d := &it.Domain
		if d.ID == 0 {
			return fmt.Errorf("import: no ID returned for %s", d.Name)
		}
		byID[d.ID] = it
		dn.domains = append(dn.domains, labelID{d.Label, d.ID})
		var others []int64
		for _, l := range d.Blocks {
			for _, o := range members[l] {
				if !slices.Contains(others, o) {
					others = append(others, o)
				}
			}
		}
		for _, l := range d.Blocks {
			if _, ok := holder[l]; !ok {
				holder[l] = d.ID
				held = append(held, l)
				dn.blocks = append(dn.blocks, labelID{l, d.ID})
			}
			members[l] = append(members[l], d.ID)
		}
		if len(others) == 0 {
			it.Outcome = registry.ImportRegistered
			continue
		}
		it.Outcome = registry.ImportExempted
		d.Exempted = true
		for _, id := range append([]int64{d.ID}, others...) {
			if exempted[id] {
				continue
			}
			exempted[id] = true
			if o := byID[id]; o != nil {
				for _, l := range o.Domain.Blocks {
					if err := sets.add(key, l, id); err != nil {
						return err
					}
					dn.sets = append(dn.sets, labelID{l, id})
				}
			} else {
				dbOthers = append(dbOthers, id)
			}
		}
		for _, o := range others {
			if err := pairs.add(d.ID, o); err != nil {
				return err
			}
			if err := pairs.add(o, d.ID); err != nil {
				return err
			}
			if oi := byID[o]; oi != nil {
				oi.Domain.Exempted = true
				names[o] = oi.Domain.Name
			}
		}
		otherIDs[it] = others
	}
	slices.Sort(held)
	for _, l := range held {
		if err := blocks.add(key, l, holder[l]); err != nil {
			return err
		}
	}
	if refs != nil {
		// the blocks' references checked here, their COPY unchecked;
		// the exemption rows below are checked by the database
		if err := refs.blocks(blocks.(*copier)); err != nil {
			return err
		}
		if err := blocks.flush(); err != nil {
			return err
		}
		if err := refs.on(); err != nil {
			return err
		}
	}
	for _, w := range []rowSink{blocks, sets, pairs} {
		if err := w.flush(); err != nil {
			return err
		}
	}
	// a domain of the database exempted now: its set is what it holds
	// (or, if it was exempted before, is in exempt_sets already)
	// (a few statements for all of them: one per domain was two round
	// trips each, a hundred or more a batch)
	err := s.idList(ctx, tx, `INSERT INTO exempt_sets (zone, label, domain_id) SELECT zone, label, domain_id FROM blocks WHERE domain_id IN (%s) ON CONFLICT DO NOTHING`, dbOthers, nil)
	if err != nil {
		return err
	}
	// (of any zone of the family)
	err = s.idList(ctx, tx, `SELECT id, label, zone FROM domains WHERE id IN (%s)`, dbOthers, func(r *sql.Rows) error {
		var id int64
		var label, dzone string
		err := r.Scan(&id, &label, &dzone)
		names[id] = label + "." + dzone
		return err
	})
	if err != nil {
		return err
	}
	for _, id := range dbOthers {
		if names[id] == "" {
			return fmt.Errorf("import: domain %d, exempted with a name of the batch, is not there", id)
		}
	}
	// the names' contacts (checked by the registry: each the name's
	// registrar's; the foreign keys check that they are still there)
	links := s.inserter(ctx, tx, `INSERT INTO domain_contacts (domain_id, contact_id, role) VALUES `, ``, 3, nil)
	defer links.close()
	for _, it := range fresh {
		for _, c := range it.Contacts {
			if err := links.add(it.Domain.ID, c.Ref, c.Role); err != nil {
				return err
			}
		}
	}
	if err := links.flush(); err != nil {
		return err
	}
	var n [5]int
	for _, it := range b.Items {
		n[it.Outcome]++
		for _, o := range otherIDs[it] {
			it.ExemptWith = append(it.ExemptWith, names[o])
		}
	}
	result := fmt.Sprintf("ok registered %d, exempted %d, duplicates %d", n[registry.ImportRegistered], n[registry.ImportExempted], n[registry.ImportDuplicate])
	if b.RefuseConflicts {
		result += fmt.Sprintf(", refused as conflicting %d", n[registry.ImportRefusedConflict])
	}
	if err := s.importRecord(ctx, tx, b.Source, zone, b.LastLine, b.Done, now, result, b.Note); err != nil {
		return err
	}
	// the marker after everything of this batch: what the next batch's
	// look-ahead must have seen, or the marker before it
	if before != "" {
		if dn.after, err = s.importMark(ctx, tx, s.d.ImportMark); err != nil {
			return err
		}
		*done = dn
	}
	return nil
}

// importRecord records an import's checkpoint (line, done, the stamp of
// the attempt: importTx) and its audit entry (result; note).
func (s *Store) importRecord(ctx context.Context, tx *sql.Tx, source, zone string, line int64, done bool, stamp int64, result, note string) error {
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO import_checkpoints (source, zone, line, done, updated) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (source, zone) DO UPDATE SET line = CASE WHEN excluded.line > import_checkpoints.line THEN excluded.line ELSE import_checkpoints.line END,
			done = CASE WHEN excluded.done > import_checkpoints.done THEN excluded.done ELSE import_checkpoints.done END, updated = excluded.updated`),
		source, zone, line, boolInt(done), stamp); err != nil {
		return err
	}
	if note != "" {
		result += "; " + note
	}
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result) VALUES (?, '', 'import', ?, ?)`),
		stamp, fmt.Sprintf("%s into %s", shortSource(source), zone), result)
	return err
}

func shortSource(s string) string {
	if len(s) > 16 {
		return s[:16]
	}
	return s
}

// insertDomains inserts the domain rows of items (expires 0 for an item
// without an expiry: none, as the lifecycle reads it) and sets their IDs: with
// COPY and IDs reserved first where the dialect has it, else with
// multi-row INSERT ... RETURNING.
func (s *Store) insertDomains(ctx context.Context, conn *sql.Conn, tx *sql.Tx, insert, zone string, items []*registry.ImportItem, byLabel map[string]*registry.ImportItem, refs *refChecks) error {
	if len(items) == 0 {
		return nil
	}
	if s.d.CopyFrom != nil && s.d.ReserveIDs != "" {
		rows, err := tx.QueryContext(ctx, s.q(s.d.ReserveIDs), len(items))
		if err != nil {
			return err
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(ids) != len(items) {
			return fmt.Errorf("import: %d IDs reserved for %d domains", len(ids), len(items))
		}
		c := &copier{s: s, ctx: ctx, conn: conn, table: "domains",
			cols: []string{"id", "zone", "label", "alabel", "lang", "registrar_id", "created", "expires", "data_version", "legacy"}}
		for i, it := range items {
			d := &it.Domain
			d.ID = ids[i]
			c.add(d.ID, zone, d.Label, d.ALabel, d.Lang, it.RegistrarID, d.Created.UnixNano(), nanos(d.Expires), d.DataVersion, strings.Join(d.Legacy, " "))
		}
		if refs != nil {
			if err := refs.domains(zone, items); err != nil {
				return err
			}
			if err := c.flush(); err != nil {
				return err
			}
			return refs.on()
		}
		return c.flush()
	}
	ins := s.inserter(ctx, tx, insert+` INTO domains (zone, label, alabel, lang, registrar_id, created, expires, data_version, legacy) VALUES `, `RETURNING id, label`, 9,
		func(r *sql.Rows) error {
			var id int64
			var l string
			if err := r.Scan(&id, &l); err != nil {
				return err
			}
			if it := byLabel[l]; it != nil {
				it.Domain.ID = id
			}
			return nil
		})
	defer ins.close()
	for _, it := range items {
		d := &it.Domain
		if err := ins.add(zone, d.Label, d.ALabel, d.Lang, it.RegistrarID, d.Created.UnixNano(), nanos(d.Expires), d.DataVersion, strings.Join(d.Legacy, " ")); err != nil {
			return err
		}
	}
	return ins.flush()
}

// errImportRedo: the batch is to be decided and written again (the
// references could not be checked per batch after all).
var errImportRedo = errors.New("import: batch to be written again")

// Reference checks per batch (Dialect.ImportRefs). The database checks a
// foreign key once per row inserted: three per name imported (domains to
// zones and to registrars, blocks to domains), most of PostgreSQL's work
// in a COPY. A batch checks them itself, once and set-based: it locks the
// zone's row and its registrars' rows as the per-row checks would (KEY
// SHARE: they cannot be deleted until it commits) and makes sure they
// exist, and it checks in memory that every row it COPYs into blocks
// names a domain it COPYed into domains in the same transaction; then it
// COPYs with the per-row checks off (for these two COPYs only: every
// other statement of the batch is checked by the database). It does so
// only if the role may turn them off (probed once) and if turning them
// off skips nothing else: Guard finds any other trigger on the two
// tables (an operator's, a foreign key added since), and the batch is
// then checked row by row.

// refMode is how a store's import batches checked references.
type refMode struct {
	mu       sync.Mutex
	probed   bool
	allowed  bool
	why      string // why references are checked per row
	perBatch int64  // batches committed checked per batch
	perRow   int64  // and per row
}

func (m *refMode) count(perBatch bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if perBatch {
		m.perBatch++
	} else {
		m.perRow++
	}
}

func (m *refMode) fallBack(why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.why = why
}

// refsPerBatch reports whether the next batch may check its references
// per batch: the dialect can, and the role may turn the per-row checks
// off (probed once, in a transaction of its own that is rolled back).
func (s *Store) refsPerBatch(ctx context.Context) bool {
	rc := s.d.ImportRefs
	if rc == nil || s.d.CopyFrom == nil || s.d.ReserveIDs == "" {
		return false
	}
	m := &s.refs
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.probed {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return false // not probed: the batch meets the fault itself
		}
		_, err = tx.ExecContext(ctx, rc.Off)
		tx.Rollback()
		m.probed, m.allowed = true, err == nil
		if err != nil {
			m.why = fmt.Sprintf("the role may not turn them off (%s: %v)", rc.Off, err)
		}
	}
	return m.allowed
}

// refGuard takes the locks of the COPYs and reports whether the batch may
// check references per batch: no trigger but the foreign-key checks done
// here would be skipped.
func (s *Store) refGuard(ctx context.Context, tx *sql.Tx) (bool, error) {
	rc := s.d.ImportRefs
	if _, err := tx.ExecContext(ctx, rc.Lock); err != nil {
		return false, err
	}
	rows, err := tx.QueryContext(ctx, rc.Guard)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return false, err
		}
		found = append(found, name)
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	if len(found) > 0 {
		s.refs.fallBack("turning them off would skip " + strings.Join(found, ", "))
		return false, nil
	}
	return true, nil
}

// checkParents checks the references a batch's domain rows have that
// the database does not check (the per-row checks off): that the zone
// exists (zoneQ, one row) and every registrar of items (regQ, an ID list
// as idList takes it), each query locking what it finds where the
// dialect must. Every other row of the batch names a domain it writes
// itself, or one of the database it found and checks is there
// (dbOthers).
func (s *Store) checkParents(ctx context.Context, tx *sql.Tx, zoneQ, regQ, zone string, items []*registry.ImportItem) error {
	seen := map[int64]bool{}
	var ids []int64
	for _, it := range items {
		if !seen[it.RegistrarID] {
			seen[it.RegistrarID] = true
			ids = append(ids, it.RegistrarID)
		}
	}
	return s.checkParentIDs(ctx, tx, zoneQ, regQ, zone, ids)
}

// checkParentIDs is checkParents of the registrars ids (each once).
func (s *Store) checkParentIDs(ctx context.Context, tx *sql.Tx, zoneQ, regQ, zone string, ids []int64) error {
	var z string
	if err := tx.QueryRowContext(ctx, s.q(zoneQ), zone).Scan(&z); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("import: the zone %s does not exist", zone)
		}
		return err
	}
	want := map[int64]bool{}
	for _, id := range ids {
		want[id] = true
	}
	err := s.idList(ctx, tx, regQ, ids, func(r *sql.Rows) error {
		var id int64
		err := r.Scan(&id)
		delete(want, id)
		return err
	})
	if err != nil {
		return err
	}
	for id := range want {
		return fmt.Errorf("import: there is no registrar with ID %d", id)
	}
	return nil
}

// refChecks checks one batch's references.
type refChecks struct {
	s   *Store
	ctx context.Context
	tx  *sql.Tx
	ids map[int64]bool // the domains COPYed
}

// exec runs q; a failure to turn the checks off (the role may no longer)
// makes the batch run again checked per row.
func (r *refChecks) exec(q string) error {
	if _, err := r.tx.ExecContext(r.ctx, q); err != nil {
		if q == r.s.d.ImportRefs.Off {
			m := &r.s.refs
			m.mu.Lock()
			m.allowed, m.why = false, fmt.Sprintf("the role may not turn them off (%s: %v)", q, err)
			m.mu.Unlock()
			return fmt.Errorf("%w: %v", errImportRedo, err)
		}
		return err
	}
	return nil
}

func (r *refChecks) on() error { return r.exec(r.s.d.ImportRefs.On) }

// domains checks the references of the domain rows of items (the zone,
// the registrars), locking them, and turns the per-row checks off.
func (r *refChecks) domains(zone string, items []*registry.ImportItem) error {
	rc := r.s.d.ImportRefs
	for _, it := range items {
		r.ids[it.Domain.ID] = true
	}
	if err := r.s.checkParents(r.ctx, r.tx, rc.Zone, rc.Registrars, zone, items); err != nil {
		return err
	}
	return r.exec(rc.Off)
}

// blocks checks that every row of c names a domain COPYed in this
// transaction, and turns the per-row checks off.
func (r *refChecks) blocks(c *copier) error {
	for _, row := range c.rows {
		if id, _ := row[2].(int64); !r.ids[id] {
			return fmt.Errorf("import: a conflict set row of %v names domain %v, which the batch did not write", row[1], row[2])
		}
	}
	return r.exec(r.s.d.ImportRefs.Off)
}

// ImportChecks says how the import batches this store committed since it
// opened checked the references of the rows they wrote ("" if the store
// has one way only).
func (s *Store) ImportChecks() string {
	if s.d.ImportRefs == nil && s.d.ImportUnchecked == nil {
		return ""
	}
	m := &s.refs
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.perRow == 0:
		return "per batch"
	case m.perBatch == 0:
		return "per row: " + m.why
	}
	return fmt.Sprintf("per batch in %d batches, per row in %d: %s", m.perBatch, m.perRow, m.why)
}

// execAll runs the statements of each list in tx, in order.
func (s *Store) execAll(ctx context.Context, tx *sql.Tx, lists ...[]string) error {
	for _, l := range lists {
		for _, q := range l {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
	}
	return nil
}
