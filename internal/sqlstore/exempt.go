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

// Exemptions. An ordinary domain holds its whole conflict set in blocks.
// An exempted domain holds in blocks the labels of its set that were free
// when it came in; its whole set is in exempt_sets, and exemptions pairs
// it (both ways) with every domain whose conflict set meets its own. Every
// label of an exempted domain's set is held by it or by one of the domains
// it is exempted with, so the unique index on blocks still refuses any new
// create that conflicts with either; when one is deleted the others take
// the labels it frees (in the order they were created).

// marks returns n placeholders separated by commas.
func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// chunk is how many labels go in one statement.
const chunk = 200

// insertExempt inserts the blocks of domain id (zone, set) that are free
// and records its exemptions. It returns the IDs it was exempted with.
func (s *Store) insertExempt(ctx context.Context, tx *sql.Tx, zone string, id int64, set []string) ([]int64, error) {
	for i := 0; i < len(set); i += chunk {
		part := set[i:min(i+chunk, len(set))]
		args := make([]any, 0, 3*len(part))
		for _, l := range part {
			args = append(args, zone, l, id)
		}
		q := `INSERT INTO blocks (zone, label, domain_id) VALUES ` + strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", len(part)), ", ") + ` ON CONFLICT DO NOTHING`
		if _, err := tx.ExecContext(ctx, s.q(q), args...); err != nil {
			return nil, err
		}
	}
	others := map[int64]bool{}
	for i := 0; i < len(set); i += chunk {
		part := set[i:min(i+chunk, len(set))]
		args := []any{zone, id}
		for _, l := range part {
			args = append(args, l)
		}
		args = append(args, zone, id)
		for _, l := range part {
			args = append(args, l)
		}
		q := `SELECT domain_id FROM blocks WHERE zone = ? AND domain_id <> ? AND label IN (` + marks(len(part)) + `)
			UNION SELECT domain_id FROM exempt_sets WHERE zone = ? AND domain_id <> ? AND label IN (` + marks(len(part)) + `)`
		ids, err := s.ids(ctx, tx, q, args...)
		if err != nil {
			return nil, err
		}
		for _, o := range ids {
			others[o] = true
		}
	}
	if len(others) == 0 {
		return nil, nil
	}
	if err := s.recordSet(ctx, tx, zone, id, set); err != nil {
		return nil, err
	}
	var out []int64
	for o := range others {
		out = append(out, o)
		// an ordinary domain becoming exempted: its set is what it holds
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO exempt_sets (zone, label, domain_id) SELECT zone, label, domain_id FROM blocks WHERE domain_id = ? ON CONFLICT DO NOTHING`), o); err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO exemptions (domain_id, other_id) VALUES (?, ?), (?, ?) ON CONFLICT DO NOTHING`), id, o, o, id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// recordSet stores the whole conflict set of an exempted domain.
func (s *Store) recordSet(ctx context.Context, tx *sql.Tx, zone string, id int64, set []string) error {
	for i := 0; i < len(set); i += chunk {
		part := set[i:min(i+chunk, len(set))]
		args := make([]any, 0, 3*len(part))
		for _, l := range part {
			args = append(args, zone, l, id)
		}
		q := `INSERT INTO exempt_sets (zone, label, domain_id) VALUES ` + strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", len(part)), ", ") + ` ON CONFLICT DO NOTHING`
		if _, err := tx.ExecContext(ctx, s.q(q), args...); err != nil {
			return err
		}
	}
	return nil
}

// ids runs a query returning one integer column.
func (s *Store) ids(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// release is called in the transaction that deletes domain id, before its
// row goes: the domains it was exempted with take the labels it freed
// (blocks of id must be deleted already), and those left with no
// exemption become ordinary domains.
func (s *Store) release(ctx context.Context, tx *sql.Tx, id int64) error {
	partners, err := s.ids(ctx, tx, `SELECT other_id FROM exemptions WHERE domain_id = ? ORDER BY other_id`, id)
	if err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM exemptions WHERE domain_id = ? OR other_id = ?`, `DELETE FROM exempt_sets WHERE domain_id = ? OR domain_id = ?`} {
		if _, err := tx.ExecContext(ctx, s.q(q), id, id); err != nil {
			return err
		}
	}
	for _, p := range partners {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO blocks (zone, label, domain_id) SELECT zone, label, domain_id FROM exempt_sets WHERE domain_id = ? ON CONFLICT DO NOTHING`), p); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM exemptions WHERE domain_id = ?`), p).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM exempt_sets WHERE domain_id = ?`), p); err != nil {
				return err
			}
		}
	}
	return nil
}

// names returns label.zone of the domains with the IDs.
func (s *Store) names(ctx context.Context, tx *sql.Tx, ids []int64) ([]string, error) {
	var out []string
	for _, id := range ids {
		var label, zone string
		if err := tx.QueryRowContext(ctx, s.q(`SELECT label, zone FROM domains WHERE id = ?`), id).Scan(&label, &zone); err != nil {
			return nil, err
		}
		out = append(out, label+"."+zone)
	}
	return out, nil
}

// CreateExemptDomain implements registry.Store.
func (s *Store) CreateExemptDomain(ctx context.Context, d *registry.Domain, registrarID int64) (*registry.Domain, error) {
	out := *d
	if out.Created.IsZero() { // the service gives its clock's time
		out.Created = time.Now().UTC()
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		// Exempted creates take turns: one must see the other's whole set
		// (exempt_sets) to pair with it, which an uncommitted one hides. The
		// settings row is the lock (SQLite's writers take turns anyway).
		a, _ := ctx.Value(atomicKey{}).(*atomicTx)
		if a == nil || a.s != s || a.tx != tx || !a.exemptLocked {
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE settings SET value = value WHERE name = ?`), relationSetting); err != nil {
				return err
			}
			if a != nil && a.s == s && a.tx == tx {
				a.exemptLocked = true
			}
		}
		err := tx.QueryRowContext(ctx, s.q(insertDomain), d.Zone, d.Label, d.ALabel, d.Lang, registrarID, out.Created.UnixNano(), d.DataVersion, nanos(d.Expires), out.Created.UnixNano()).Scan(&out.ID)
		if err != nil {
			return err
		}
		others, err := s.insertExempt(ctx, tx, s.key(d.Zone), out.ID, d.Blocks)
		if err != nil {
			return err
		}
		if out.ExemptWith, err = s.names(ctx, tx, sortIDs(others)); err != nil {
			return err
		}
		out.Exempted = len(others) > 0
		result := "ok"
		if out.Exempted {
			result = "ok exempted with " + strings.Join(out.ExemptWith, " ")
		}
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result) VALUES (?, ?, 'create-exempt', ?, ?)`),
			out.Created.UnixNano(), d.Registrar, d.Name, result)
		return err
	})
	if err != nil && s.d.IsUnique(err) {
		return nil, registry.Errorf(registry.CodeConflict, "%s is already registered", d.Name)
	}
	if err != nil {
		return nil, internal("creating exempted domain", err)
	}
	return &out, nil
}

func sortIDs(ids []int64) []int64 {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}

// exemptionsOf fills d.Exempted, d.ExemptWith and, for an exempted
// domain, d.Blocks with its whole conflict set.
func (s *Store) exemptionsOf(ctx context.Context, d *registry.Domain) error {
	rows, err := s.rdb(ctx).QueryContext(ctx, s.q(`SELECT d.label, d.zone FROM exemptions e JOIN domains d ON d.id = e.other_id WHERE e.domain_id = ? ORDER BY d.id`), d.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	d.Exempted, d.ExemptWith = false, nil
	for rows.Next() {
		var label, zone string
		if err := rows.Scan(&label, &zone); err != nil {
			return err
		}
		d.Exempted = true
		d.ExemptWith = append(d.ExemptWith, label+"."+zone)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if !d.Exempted {
		return nil
	}
	set, err := s.rdb(ctx).QueryContext(ctx, s.q(`SELECT label FROM exempt_sets WHERE domain_id = ? ORDER BY label`), d.ID)
	if err != nil {
		return err
	}
	defer set.Close()
	d.Blocks = []string{}
	for set.Next() {
		var l string
		if err := set.Scan(&l); err != nil {
			return err
		}
		d.Blocks = append(d.Blocks, l)
	}
	return set.Err()
}

const relationSetting = "conflict-relation"

// Recompute implements registry.Store.
func (s *Store) Recompute(ctx context.Context, version string, sets func(*registry.Domain) ([]string, error)) (*registry.RecomputeReport, error) {
	rep := &registry.RecomputeReport{To: version}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		rep.Domains, rep.Changed, rep.Exempted = 0, 0, nil
		err := tx.QueryRowContext(ctx, s.q(`SELECT value FROM settings WHERE name = ?`), relationSetting).Scan(&rep.From)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			rep.From = ""
		case err != nil:
			return err
		case rep.From == version:
			return nil
		}
		// no create or delete between the scan and the writes: under
		// READ COMMITTED a domain created by another server (one still on
		// the old data) after the scan would lose its blocks to the DELETE
		// below and get none back (TestServersOneWinnerAcrossRelationUpgrade:
		// 1 domain in 150 held nothing). SQLite's writers take turns anyway.
		if s.d.ImportLock != "" {
			if _, err := tx.ExecContext(ctx, s.d.ImportLock); err != nil {
				return err
			}
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+domainColumns+` FROM domains d JOIN registrars r ON r.id = d.registrar_id ORDER BY d.id`)
		if err != nil {
			return err
		}
		var ds []*registry.Domain
		for rows.Next() {
			d, err := scanDomain(rows)
			if err != nil {
				rows.Close()
				return err
			}
			ds = append(ds, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// the old sets, to count the changes
		old := map[int64][]string{}
		for _, q := range []string{`SELECT domain_id, label FROM blocks`, `SELECT domain_id, label FROM exempt_sets`} {
			if err := labelsByDomain(ctx, tx, old, q); err != nil {
				return err
			}
		}
		for _, q := range []string{`DELETE FROM exemptions`, `DELETE FROM exempt_sets`, `DELETE FROM blocks`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		byID := map[int64]*registry.Domain{}
		carrier := map[int64]int64{} // a variant group's: its members' sets are one (variantgroup.go)
		for _, d := range ds {
			byID[d.ID] = d
			set, err := sets(d)
			if err != nil {
				return fmt.Errorf("%s: %w", d.Name, err)
			}
			holder := d.ID
			if d.Group != 0 {
				if c, ok := carrier[d.Group]; ok {
					holder = c
				} else {
					carrier[d.Group] = d.ID
				}
			}
			if holder == d.ID && !sameSet(set, old[d.ID]) {
				rep.Changed++
			}
			others, err := s.insertExempt(ctx, tx, s.key(d.Zone), holder, set)
			if err != nil {
				return err
			}
			for _, o := range sortIDs(others) {
				other, ok := byID[o]
				if !ok { // created meanwhile by another process
					names, err := s.names(ctx, tx, []int64{o})
					if err != nil {
						return err
					}
					other = &registry.Domain{Name: names[0]}
				}
				rep.Exempted = append(rep.Exempted, [2]string{other.Name, d.Name})
			}
			rep.Domains++
		}
		for g := range carrier {
			if err := s.regroupGroup(ctx, tx, g, nil); err != nil {
				return err
			}
		}
		if rep.From == "" {
			_, err = tx.ExecContext(ctx, s.q(`INSERT INTO settings (name, value) VALUES (?, ?)`), relationSetting, version)
		} else {
			_, err = tx.ExecContext(ctx, s.q(`UPDATE settings SET value = ? WHERE name = ?`), version, relationSetting)
		}
		if err != nil {
			return err
		}
		if rep.From == "" && rep.Domains == 0 {
			return nil // a new database: nothing to record
		}
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result) VALUES (?, '', 'recompute', ?, ?)`),
			time.Now().UnixNano(), version, fmt.Sprintf("ok %d domains, %d sets changed, %d pairs exempted", rep.Domains, rep.Changed, len(rep.Exempted)))
		return err
	})
	if err != nil {
		return nil, internal("recomputing conflict sets", err)
	}
	return rep, nil
}

// sameSet reports whether a and b hold the same labels.
func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, l := range a {
		m[l] |= 1
	}
	for _, l := range b {
		m[l] |= 2
	}
	for _, v := range m {
		if v != 3 {
			return false
		}
	}
	return true
}

// labelsByDomain reads rows of (domain_id, label) from query and appends
// each label to its domain's list in m.
func labelsByDomain(ctx context.Context, tx *sql.Tx, m map[int64][]string, query string, args ...any) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var l string
		if err := rows.Scan(&id, &l); err != nil {
			return err
		}
		m[id] = append(m[id], l)
	}
	return rows.Err()
}
