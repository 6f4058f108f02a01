package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
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
// again.

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
	for attempt := 0; attempt < 5; attempt++ {
		err = s.tx(ctx, func(tx *sql.Tx) error { return s.importBatch(ctx, tx, b) })
		if err == nil || !s.d.IsUnique(err) {
			break
		}
		// lost a race with a concurrent create: decide again
	}
	return internal("importing a batch", err)
}

// inList runs query (with one IN (%s) for labels) over labels in chunks,
// calling f for each row; args come before the labels.
func (s *Store) inList(ctx context.Context, tx *sql.Tx, query string, args []any, labels []string, f func(*sql.Rows) error) error {
	for i := 0; i < len(labels); i += importChunk {
		part := labels[i:min(i+importChunk, len(labels))]
		a := append([]any(nil), args...)
		for _, l := range part {
			a = append(a, l)
		}
		rows, err := tx.QueryContext(ctx, s.q(fmt.Sprintf(query, marks(len(part)))), a...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := f(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) importBatch(ctx context.Context, tx *sql.Tx, b *registry.ImportBatch) error {
	zone := b.Zone
	var labels, blockLabels []string
	seenBlock := map[string]bool{}
	for _, it := range b.Items {
		it.Outcome, it.ExemptWith = 0, nil
		labels = append(labels, it.Domain.Label)
		for _, l := range it.Domain.Blocks {
			if !seenBlock[l] {
				seenBlock[l] = true
				blockLabels = append(blockLabels, l)
			}
		}
	}
	// what the database holds of the batch's labels
	registered := map[string]bool{}
	err := s.inList(ctx, tx, `SELECT label FROM domains WHERE zone = ? AND label IN (%s)`, []any{zone}, labels, func(r *sql.Rows) error {
		var l string
		err := r.Scan(&l)
		registered[l] = true
		return err
	})
	if err != nil {
		return err
	}
	held := map[string]bool{}
	scanHeld := func(r *sql.Rows) error {
		var l string
		err := r.Scan(&l)
		held[l] = true
		return err
	}
	for _, q := range []string{`SELECT label FROM blocks WHERE zone = ? AND label IN (%s)`, `SELECT label FROM exempt_sets WHERE zone = ? AND label IN (%s)`} {
		if err := s.inList(ctx, tx, q, []any{zone}, blockLabels, scanHeld); err != nil {
			return err
		}
	}
	// decide in file order: the batch's earlier names hold their sets too
	var clean, exempt []*registry.ImportItem
	for _, it := range b.Items {
		d := &it.Domain
		if registered[d.Label] {
			it.Outcome = registry.ImportDuplicate
			continue
		}
		registered[d.Label] = true
		conflict := false
		for _, l := range d.Blocks {
			if held[l] {
				conflict = true
			}
		}
		for _, l := range d.Blocks {
			held[l] = true
		}
		if conflict {
			it.Outcome = registry.ImportExempted
			exempt = append(exempt, it)
		} else {
			it.Outcome = registry.ImportRegistered
			clean = append(clean, it)
		}
	}
	// the names that conflict with nothing: their sets are disjoint from
	// everything held and from each other, so they go in first, in bulk
	ids := map[string]int64{}
	for i := 0; i < len(clean); i += importChunk / 3 {
		part := clean[i:min(i+importChunk/3, len(clean))]
		args := make([]any, 0, 8*len(part))
		for _, it := range part {
			d := &it.Domain
			args = append(args, zone, d.Label, d.ALabel, d.Lang, it.RegistrarID, d.Created.UnixNano(), d.DataVersion, strings.Join(d.Legacy, " "))
		}
		q := `INSERT INTO domains (zone, label, alabel, lang, registrar_id, created, data_version, legacy) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?), ", len(part)), ", ") + ` RETURNING id, label`
		rows, err := tx.QueryContext(ctx, s.q(q), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var l string
			if err := rows.Scan(&id, &l); err != nil {
				rows.Close()
				return err
			}
			ids[l] = id
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	var brows []any
	flush := func() error {
		if len(brows) == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, s.q(insertBlocks(len(brows)/3)), brows...)
		brows = brows[:0]
		return err
	}
	for _, it := range clean {
		id, ok := ids[it.Domain.Label]
		if !ok {
			return fmt.Errorf("import: no ID returned for %s", it.Domain.Name)
		}
		it.Domain.ID = id
		for _, l := range it.Domain.Blocks {
			brows = append(brows, zone, l, id)
			if len(brows) >= 3*importChunk {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	// the names that conflict: one by one, in file order, exempted with
	// every domain whose set meets theirs
	for _, it := range exempt {
		d := &it.Domain
		if err := tx.QueryRowContext(ctx, s.q(`INSERT INTO domains (zone, label, alabel, lang, registrar_id, created, data_version, legacy) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			zone, d.Label, d.ALabel, d.Lang, it.RegistrarID, d.Created.UnixNano(), d.DataVersion, strings.Join(d.Legacy, " ")).Scan(&d.ID); err != nil {
			return err
		}
		others, err := s.insertExempt(ctx, tx, zone, d.ID, d.Blocks)
		if err != nil {
			return err
		}
		if it.ExemptWith, err = s.names(ctx, tx, sortIDs(others)); err != nil {
			return err
		}
		d.Exempted = len(others) > 0
	}
	var n [4]int
	for _, it := range b.Items {
		n[it.Outcome]++
	}
	now := time.Now().UnixNano()
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO import_checkpoints (source, zone, line, done, updated) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (source, zone) DO UPDATE SET line = excluded.line, done = excluded.done, updated = excluded.updated`),
		b.Source, zone, b.LastLine, boolInt(b.Done), now); err != nil {
		return err
	}
	result := fmt.Sprintf("ok registered %d, exempted %d, duplicates %d", n[registry.ImportRegistered], n[registry.ImportExempted], n[registry.ImportDuplicate])
	if b.Note != "" {
		result += "; " + b.Note
	}
	_, err = tx.ExecContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result) VALUES (?, '', 'import', ?, ?)`),
		now, fmt.Sprintf("%s into %s", shortSource(b.Source), zone), result)
	return err
}

func shortSource(s string) string {
	if len(s) > 16 {
		return s[:16]
	}
	return s
}
