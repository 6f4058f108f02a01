package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

var _ registry.Reauditor = (*Store)(nil)

// ZoneDomains implements registry.Reauditor.
func (s *Store) ZoneDomains(ctx context.Context, zone string) ([]*registry.Domain, error) {
	var ds []*registry.Domain
	byID := map[int64]*registry.Domain{}
	err := s.tx(ctx, func(tx *sql.Tx) error { // one snapshot
		ds, byID = nil, map[int64]*registry.Domain{}
		rows, err := tx.QueryContext(ctx, s.q(`SELECT `+domainColumns+` FROM domains d JOIN registrars r ON r.id = d.registrar_id WHERE d.zone = ? ORDER BY d.id`), zone)
		if err != nil {
			return err
		}
		for rows.Next() {
			d, err := scanDomain(rows)
			if err != nil {
				rows.Close()
				return err
			}
			d.Blocks = []string{}
			ds = append(ds, d)
			byID[d.ID] = d
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		held := map[int64][]string{}
		whole := map[int64][]string{}
		for q, m := range map[string]map[int64][]string{
			`SELECT domain_id, label FROM blocks WHERE zone = ?`:      held,
			`SELECT domain_id, label FROM exempt_sets WHERE zone = ?`: whole,
		} {
			if err := labelsByDomain(ctx, tx, m, s.q(q), zone); err != nil {
				return err
			}
		}
		rows, err = tx.QueryContext(ctx, s.q(`SELECT e.domain_id, e.other_id FROM exemptions e JOIN domains d ON d.id = e.domain_id WHERE d.zone = ? ORDER BY e.domain_id, e.other_id`), zone)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, other int64
			if err := rows.Scan(&id, &other); err != nil {
				rows.Close()
				return err
			}
			if d, o := byID[id], byID[other]; d != nil && o != nil {
				d.Exempted = true
				d.ExemptWith = append(d.ExemptWith, o.Name)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, d := range ds {
			// an exempted domain's whole set is in exempt_sets; an
			// ordinary one holds its whole set
			set := held[d.ID]
			if d.Exempted {
				set = whole[d.ID]
			}
			d.Blocks = append(d.Blocks, set...)
			sort.Strings(d.Blocks)
		}
		return nil
	})
	return ds, internal("listing the domains of "+zone, err)
}

// ApplyReaudit implements registry.Reauditor: in one transaction, the
// zone's conflict sets and exemptions are rebuilt from domains (in ID
// order: a domain keeps the labels it held first), and their data
// versions and legacy codes recorded.
func (s *Store) ApplyReaudit(ctx context.Context, zone, relation string, domains []*registry.Domain) error {
	ds := append([]*registry.Domain(nil), domains...)
	sort.Slice(ds, func(i, j int) bool { return ds[i].ID < ds[j].ID })
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
		} {
			if _, err := tx.ExecContext(ctx, s.q(q), zone); err != nil {
				return err
			}
		}
		// insertExempt's model, computed in memory over the whole zone, in
		// ID order, and written in bulk
		var blocks rowSink = s.inserter(ctx, tx, `INSERT INTO blocks (zone, label, domain_id) VALUES `, ``, 3, nil)
		if s.d.CopyFrom != nil {
			blocks = &copier{s: s, ctx: ctx, conn: conn, table: "blocks", cols: []string{"zone", "label", "domain_id"}}
		}
		defer blocks.close()
		sets := s.inserter(ctx, tx, `INSERT INTO exempt_sets (zone, label, domain_id) VALUES `, `ON CONFLICT DO NOTHING`, 3, nil)
		defer sets.close()
		pairs := s.inserter(ctx, tx, `INSERT INTO exemptions (domain_id, other_id) VALUES `, `ON CONFLICT DO NOTHING`, 2, nil)
		defer pairs.close()
		held := map[string]bool{}
		members := map[string][]int64{}
		setOf := map[int64][]string{}
		isExempt := map[int64]bool{}
		for _, d := range ds {
			var others []int64
			for _, l := range d.Blocks {
				for _, o := range members[l] {
					if !slices.Contains(others, o) {
						others = append(others, o)
					}
				}
			}
			for _, l := range d.Blocks {
				if !held[l] {
					held[l] = true
					if err := blocks.add(zone, l, d.ID); err != nil {
						return err
					}
				}
				members[l] = append(members[l], d.ID)
			}
			setOf[d.ID] = d.Blocks
			if len(others) == 0 {
				continue
			}
			for _, id := range append([]int64{d.ID}, others...) {
				if isExempt[id] {
					continue
				}
				isExempt[id] = true
				for _, l := range setOf[id] {
					if err := sets.add(zone, l, id); err != nil {
						return err
					}
				}
			}
			for _, o := range others {
				if err := pairs.add(d.ID, o); err != nil {
					return err
				}
				if err := pairs.add(o, d.ID); err != nil {
					return err
				}
			}
		}
		for _, w := range []rowSink{blocks, sets, pairs} {
			if err := w.flush(); err != nil {
				return err
			}
		}
		exempted := len(isExempt)
		// versions and legacy codes: one statement for the zone, then the
		// domains that differ from it
		if len(ds) > 0 {
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET data_version = ?, legacy = '' WHERE zone = ?`), ds[0].DataVersion, zone); err != nil {
				return err
			}
		}
		for _, d := range ds {
			if len(d.Legacy) == 0 && d.DataVersion == ds[0].DataVersion {
				continue
			}
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET data_version = ?, legacy = ? WHERE id = ?`), d.DataVersion, strings.Join(d.Legacy, " "), d.ID); err != nil {
				return err
			}
		}
		if relation != "" {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`), relationSetting, relation); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result) VALUES (?, '', 'reaudit', ?, ?)`),
			time.Now().UnixNano(), zone, fmt.Sprintf("ok %d domains, %d exempted", len(ds), exempted))
		return err
	}))
}
