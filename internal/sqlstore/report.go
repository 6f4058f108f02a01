package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// The monthly reports' counts (registry.ReportStore): each a grouped
// query, so that a month of a million domains is counted by the database,
// not carried into memory.

// graceResult is the audit result of a delete purged in its add grace
// period (registry/domain_delete.go).
const graceResult = "ok purged in add grace"

// ZoneActivity implements registry.ReportStore.
func (s *Store) ZoneActivity(ctx context.Context, zone, zoneALabel string, since, until time.Time) (*registry.Activity, error) {
	a := &registry.Activity{Domains: map[string]int{}, Hosts: map[string]int{}}
	from, to := since.UnixNano(), until.UnixNano()
	inZone := `(name LIKE ? OR name LIKE ?)`
	zl, za := "%."+zone, "%."+zoneALabel
	err := s.do(ctx, func() error {
		*a = registry.Activity{Domains: map[string]int{}, Hosts: map[string]int{}}
		var err error
		a.Audit, err = queryRows(ctx, s, `SELECT registrar, action,
			CASE WHEN action = 'delete' AND result = '`+graceResult+`' THEN 'ok-grace'
				WHEN action = 'expire' AND result LIKE 'ok%`+registry.CodeBillingFailure+`%' THEN 'ok-unpaid'
				WHEN result LIKE 'ok%' THEN 'ok' ELSE result END AS class, COUNT(*)
			FROM audit WHERE at >= ? AND at < ? AND `+inZone+` GROUP BY registrar, action, class`,
			func(rows *sql.Rows) (c registry.AuditCount, err error) {
				err = rows.Scan(&c.Registrar, &c.Action, &c.Result, &c.Count)
				return c, err
			}, from, to, zl, za)
		if err != nil {
			return err
		}
		a.Ledger, err = queryRows(ctx, s, `SELECT r.name, l.kind, l.command, l.months, COUNT(*), CAST(SUM(l.amount) AS BIGINT) FROM ledger l JOIN registrars r ON r.id = l.registrar_id
			WHERE l.zone = ? AND l.at >= ? AND l.at < ? GROUP BY r.name, l.kind, l.command, l.months`,
			func(rows *sql.Rows) (c registry.LedgerCount, err error) {
				err = rows.Scan(&c.Registrar, &c.Kind, &c.Command, &c.Months, &c.Count, &c.Amount)
				return c, err
			}, zone, from, to)
		if err != nil {
			return err
		}
		a.Transfers, err = queryRows(ctx, s, `SELECT g.name, l.name, t.status, COUNT(*) FROM transfers t JOIN domains d ON d.id = t.domain_id
			JOIN registrars g ON g.id = t.gaining_id JOIN registrars l ON l.id = t.losing_id
			WHERE d.zone = ? AND t.acted >= ? AND t.acted < ? GROUP BY g.name, l.name, t.status`,
			func(rows *sql.Rows) (c registry.TransferCount, err error) {
				err = rows.Scan(&c.Gaining, &c.Losing, &c.Status, &c.Count)
				return c, err
			}, zone, from, to)
		if err != nil {
			return err
		}
		a.CreatedByLang, err = queryRows(ctx, s, `SELECT r.name, d.lang, COUNT(*) FROM domains d JOIN registrars r ON r.id = d.registrar_id
			WHERE d.zone = ? AND d.created >= ? AND d.created < ? GROUP BY r.name, d.lang`,
			func(rows *sql.Rows) (c registry.LangCount, err error) {
				err = rows.Scan(&c.Registrar, &c.Lang, &c.Count)
				return c, err
			}, zone, from, to)
		if err != nil {
			return err
		}
		type kv struct {
			k string
			v int
		}
		scanKV := func(rows *sql.Rows) (x kv, err error) {
			err = rows.Scan(&x.k, &x.v)
			return x, err
		}
		ds, err := queryRows(ctx, s, `SELECT r.name, COUNT(*) FROM domains d JOIN registrars r ON r.id = d.registrar_id
			WHERE d.zone = ? AND d.created < ? GROUP BY r.name`, scanKV, zone, to)
		if err != nil {
			return err
		}
		for _, x := range ds {
			a.Domains[x.k] = x.v
		}
		hs, err := queryRows(ctx, s, `SELECT r.name, COUNT(*) FROM hosts h JOIN registrars r ON r.id = h.registrar_id
			WHERE h.name LIKE ? AND h.created < ? GROUP BY r.name`, scanKV, "%."+strings.ToLower(zoneALabel), to)
		if err != nil {
			return err
		}
		for _, x := range hs {
			a.Hosts[x.k] = x.v
		}
		purged := `((action = 'purge' AND result LIKE 'ok%') OR (action = 'delete' AND result = '` + graceResult + `'))`
		a.Purged, err = queryRows(ctx, s, `SELECT name FROM audit WHERE at >= ? AND at < ? AND `+inZone+` AND `+purged+` ORDER BY id`,
			func(rows *sql.Rows) (n string, err error) {
				err = rows.Scan(&n)
				if i := strings.LastIndexByte(n, '.'); i > 0 {
					n = n[:i]
				}
				return n, err
			}, from, to, zl, za)
		if err != nil {
			return err
		}
		// registered at until and purged since: a purge after until of a
		// name not created again between until and it
		return s.queryRow(ctx, nil, `SELECT COUNT(*) FROM audit p WHERE p.at >= ? AND (p.name LIKE ? OR p.name LIKE ?)
			AND ((p.action = 'purge' AND p.result LIKE 'ok%') OR (p.action = 'delete' AND p.result = '`+graceResult+`'))
			AND NOT EXISTS (SELECT 1 FROM audit c WHERE c.name = p.name AND c.action IN ('create', 'create-exempt') AND c.result = 'ok' AND c.at >= ? AND c.id < p.id)`,
			to, zl, za, to).Scan(&a.PurgedAfter)
	})
	if err != nil {
		return nil, internal("counting a zone's activity", err)
	}
	return a, nil
}

var _ registry.ReportStore = (*Store)(nil)
