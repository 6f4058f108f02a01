package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

var _ registry.Reauditor = (*Store)(nil)

// scanZone lists a zone's domains and, after each, the rows of its
// stored conflict set and exemptions (kind 1: blocks, 2: exempt_sets, 3:
// the label of a domain it is exempted with), in one query ordered by
// domain: the database merges four scans in domain order (the zone
// compared as an expression, so that no index on the zone is used: it
// would make the database sort the whole zone) and the client holds one
// domain at a time. Each scan reads the rows of every zone: a zone with no
// domain is not scanned.
const scanZone = `SELECT d.id, 0, d.label, d.lang, r.name, d.data_version, d.legacy FROM domains d JOIN registrars r ON r.id = d.registrar_id WHERE d.zone || '' = ?
	UNION ALL SELECT domain_id, 1, label, '', '', '', '' FROM blocks WHERE zone || '' = ?
	UNION ALL SELECT domain_id, 2, label, '', '', '', '' FROM exempt_sets WHERE zone || '' = ?
	UNION ALL SELECT e.domain_id, 3, o.label, '', '', '', '' FROM exemptions e JOIN domains d ON d.id = e.domain_id JOIN domains o ON o.id = e.other_id WHERE d.zone || '' = ? AND o.zone || '' = ?
	ORDER BY 1, 2`

// ScanZone implements registry.Reauditor.
func (s *Store) ScanZone(ctx context.Context, zone string, restart func(), each func(*registry.Domain) error) error {
	first := true
	err := s.tx(ctx, func(tx *sql.Tx) error { // one snapshot
		if !first {
			restart()
		}
		first = false
		// the scan reads every zone's rows: not for a zone with none
		var n int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM (SELECT 1 FROM domains WHERE zone = ? LIMIT 1) x`), zone).Scan(&n); err != nil || n == 0 {
			return err
		}
		rows, err := tx.QueryContext(ctx, s.q(scanZone), zone, zone, zone, zone, zone)
		if err != nil {
			return err
		}
		defer rows.Close()
		var d *registry.Domain
		var held, whole []string
		flush := func() error {
			if d == nil {
				return nil
			}
			// an exempted domain's whole set is in exempt_sets; an
			// ordinary one holds its whole set
			d.Blocks = held
			if d.Exempted {
				d.Blocks = whole
			}
			slices.Sort(d.Blocks)
			err := each(d)
			d, held, whole = nil, []string{}, nil
			return err
		}
		for rows.Next() {
			var id int64
			var kind int
			var label, lang, registrar, version, legacy string
			if err := rows.Scan(&id, &kind, &label, &lang, &registrar, &version, &legacy); err != nil {
				return err
			}
			if kind == 0 {
				if err := flush(); err != nil {
					return err
				}
				d = &registry.Domain{ID: id, Zone: zone, Label: label, Name: label + "." + zone, Lang: lang, Registrar: registrar,
					DataVersion: version, Legacy: strings.Fields(legacy)}
				held = []string{}
				continue
			}
			if d == nil || d.ID != id {
				continue // not a domain of the zone
			}
			switch kind {
			case 1:
				held = append(held, label)
			case 2:
				whole = append(whole, label)
			case 3:
				d.Exempted = true
				d.ExemptWith = append(d.ExemptWith, label+"."+zone)
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return flush()
	})
	return internal("listing the domains of "+zone, err)
}

// copyEvery is how many rows ApplyReaudit sends in one COPY.
const copyEvery = 10000

// ApplyReaudit implements registry.Reauditor: in one transaction, the
// zone's conflict sets and exemptions are replaced by the rows, written
// as they come, and the data versions and legacy codes recorded.
func (s *Store) ApplyReaudit(ctx context.Context, zone, relation, version string, rows func(func(*registry.ReauditRow) error) error) error {
	return internal("applying the re-audit of "+zone, s.connTx(ctx, func(conn *sql.Conn, tx *sql.Tx) error {
		for _, q := range s.d.ImportSetup {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE settings SET value = value WHERE name = ?`), relationSetting); err != nil {
			return err // takes its turn with exempted creates and imports
		}
		for _, q := range []string{
			`DELETE FROM exemptions WHERE domain_id IN (SELECT id FROM domains WHERE zone = ?)`,
			`DELETE FROM exempt_sets WHERE zone = ?`,
			`DELETE FROM blocks WHERE zone = ?`,
			`UPDATE domains SET data_version = ?, legacy = '' WHERE zone = ?`,
		} {
			args := []any{zone}
			if strings.HasPrefix(q, "UPDATE") {
				args = []any{version, zone}
			}
			if _, err := tx.ExecContext(ctx, s.q(q), args...); err != nil {
				return err
			}
		}
		var blocks rowSink = s.inserter(ctx, tx, `INSERT INTO blocks (zone, label, domain_id) VALUES `, ``, 3, nil)
		var copied *copier
		if s.d.CopyFrom != nil {
			copied = &copier{s: s, ctx: ctx, conn: conn, table: "blocks", cols: []string{"zone", "label", "domain_id"}}
			blocks = copied
		}
		defer blocks.close()
		sets := s.inserter(ctx, tx, `INSERT INTO exempt_sets (zone, label, domain_id) VALUES `, `ON CONFLICT DO NOTHING`, 3, nil)
		defer sets.close()
		pairs := s.inserter(ctx, tx, `INSERT INTO exemptions (domain_id, other_id) VALUES `, `ON CONFLICT DO NOTHING`, 2, nil)
		defer pairs.close()
		domains, exempted := 0, 0
		err := rows(func(r *registry.ReauditRow) error {
			domains++
			for _, l := range r.Held {
				if err := blocks.add(zone, l, r.ID); err != nil {
					return err
				}
			}
			if copied != nil && len(copied.rows) >= copyEvery {
				if err := copied.flush(); err != nil {
					return err
				}
			}
			if len(r.ExemptWith) > 0 {
				exempted++
				for _, l := range r.Set {
					if err := sets.add(zone, l, r.ID); err != nil {
						return err
					}
				}
				for _, o := range r.ExemptWith {
					if err := pairs.add(r.ID, o); err != nil {
						return err
					}
				}
			}
			if len(r.Legacy) > 0 {
				if _, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET legacy = ? WHERE id = ?`), strings.Join(r.Legacy, " "), r.ID); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, w := range []rowSink{blocks, sets, pairs} {
			if err := w.flush(); err != nil {
				return err
			}
		}
		if relation != "" {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`), relationSetting, relation); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result) VALUES (?, '', 'reaudit', ?, ?)`),
			time.Now().UnixNano(), zone, fmt.Sprintf("ok %d domains, %d exempted", domains, exempted))
		return err
	}))
}
