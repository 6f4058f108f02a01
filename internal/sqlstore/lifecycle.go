package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// The lifecycle's columns of domains (migration 040), as domainColumns
// reads them.
const lifeColumns = `d.expires, d.statuses, d.redemption_end, d.purge_at, d.renewed, d.autorenewed, d.updated, d.rev, d.registrar_id, COALESCE(d.variant_group, 0) AS variant_group`

// lifeScan receives lifeColumns.
type lifeScan struct {
	expires, rend, purge, renewed, autorenewed, updated, rev, registrar int64
	group                                                               int64 // the variant group (migration 230), 0 for none
	statuses                                                            string
}

func (l *lifeScan) dest() []any {
	return []any{&l.expires, &l.statuses, &l.rend, &l.purge, &l.renewed, &l.autorenewed, &l.updated, &l.rev, &l.registrar, &l.group}
}

func (l *lifeScan) set(d *registry.Domain) {
	d.Expires, d.RedemptionEnds, d.PurgeAt = fromNanos(l.expires), fromNanos(l.rend), fromNanos(l.purge)
	d.Renewed, d.AutoRenewed, d.Updated = fromNanos(l.renewed), fromNanos(l.autorenewed), fromNanos(l.updated)
	d.Statuses = strings.Fields(l.statuses)
	d.Rev, d.RegistrarID, d.Group = l.rev, l.registrar, l.group
}

// nanos is a time as the lifecycle's columns keep it (0: none).
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// ApplyChange implements registry.LifecycleStore: in one transaction, the
// domain's row is claimed at the revision d was read at (a conditional
// update: no other change can have come between, on any server), the
// change written, and the audit record; a purge then deletes the domain
// and frees its conflict set (the domains it was exempted with take the
// labels, as DeleteDomain does) in the same transaction, so a create of a
// variant sees either the whole set held or the whole set free.
func (s *Store) ApplyChange(ctx context.Context, d *registry.Domain, ch *registry.Change) (*registry.Domain, error) {
	result := ch.Result
	if result == "" {
		result = "ok"
	}
	// a fault at COMMIT: the revision moved on (or the domain gone for a
	// purge) means this change took effect (the claim is on the revision)
	committed := func() (bool, error) {
		got, err := s.Domain(ctx, d.Zone, d.Label)
		if errors.Is(err, registry.ErrNotFound) {
			return ch.Purge, nil
		}
		if err != nil {
			return false, err
		}
		return got.ID == d.ID && got.Rev == d.Rev+1 && !ch.Purge, nil
	}
	err := s.txResolved(ctx, committed, func(tx *sql.Tx) error {
		if err := s.lockGroupFirst(ctx, tx, d.Group); err != nil { // variantgroup.go
			return err
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET expires = ?, statuses = ?, redemption_end = ?, purge_at = ?, renewed = ?, autorenewed = ?, updated = ?, rev = rev + 1 WHERE id = ? AND rev = ?`),
			nanos(ch.Expires), strings.Join(ch.Statuses, " "), nanos(ch.RedemptionEnds), nanos(ch.PurgeAt), nanos(ch.Renewed), nanos(ch.AutoRenewed), nanos(ch.At), d.ID, d.Rev)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return registry.ErrStale
		}
		if ch.RefusePendingTransfer {
			if err := s.noPendingTransfer(ctx, tx, d.ID, d.Name); err != nil {
				return err
			}
		}
		if ch.RefuseHosts {
			if err := s.noHostsUnder(ctx, tx, d.ID, d.Name); err != nil { // hosts.go
				return err
			}
		}
		if ch.EndTransfers {
			if err := s.EndTransfers(ctx, tx, d.ID, ch.At); err != nil {
				return err
			}
		}
		var gone map[int64]bool
		if ch.Purge {
			gone = map[int64]bool{d.ID: true}
		}
		if err := s.regroup(ctx, tx, d.ID, gone); err != nil { // its variant group's carrier (variantgroup.go)
			return err
		}
		if ch.Purge {
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM blocks WHERE domain_id = ?`), d.ID); err != nil {
				return err
			}
			if err := s.release(ctx, tx, d.ID); err != nil {
				return err
			}
			if err := s.purgeDelegation(ctx, tx, []any{d.ID}); err != nil { // hosts.go
				return err
			}
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM domains WHERE id = ?`), d.ID); err != nil {
				return err
			}
		}
		if err := s.enqueueTx(ctx, tx, ch.Notices); err != nil {
			return err
		}
		return s.noteAudit(ctx, tx.QueryRowContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result, channel, cltrid, svtrid) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			ch.At.UnixNano(), ch.Actor, ch.Action, d.Name, result, ch.Channel, ch.ClTRID, ch.SvTRID))
	})
	if errors.Is(err, registry.ErrStale) {
		return nil, registry.ErrStale
	}
	if err != nil {
		return nil, s.internal("changing domain", err)
	}
	if ch.Purge {
		return nil, nil
	}
	// the domain as the change left it (its conflict set and exemptions
	// are not the lifecycle's to change)
	out := *d
	out.Expires, out.Statuses, out.RedemptionEnds, out.PurgeAt = ch.Expires, slices.Clone(ch.Statuses), ch.RedemptionEnds, ch.PurgeAt
	out.Renewed, out.AutoRenewed, out.Updated, out.Rev = ch.Renewed, ch.AutoRenewed, ch.At, d.Rev+1
	if out.Statuses == nil {
		out.Statuses = []string{}
	}
	return &out, nil
}

// lifecycleDueQueries find the domains whose purge, end of redemption
// or expiry is due. Each condition "> 0" is that of the partial index it
// reads (migration 170: a time of 0, none, has no entry), so it must stay
// in the query (TestIndexedQueryPlans).
var lifecycleDueQueries = []string{
	`SELECT d.zone, d.label, d.id, d.rev, d.purge_at, r.name, r.id FROM domains d JOIN registrars r ON r.id = d.registrar_id WHERE d.purge_at > 0 AND d.purge_at <= ? ORDER BY d.purge_at LIMIT ?`,
	`SELECT zone, label FROM domains WHERE redemption_end > 0 AND redemption_end <= ? ORDER BY redemption_end LIMIT ?`,
	`SELECT zone, label FROM domains WHERE expires > 0 AND expires <= ? AND purge_at = 0 ORDER BY expires LIMIT ?`,
}

// LifecycleDue implements registry.LifecycleStore.
func (s *Store) LifecycleDue(ctx context.Context, now time.Time, limit int) (due []registry.DueDomain, err error) {
	t := now.UnixNano()
	err = s.do(ctx, func() error {
		due = due[:0]
		// purges first (they free names), then redemptions ended, then
		// expiries; each a range scan of its index
		for i, q := range lifecycleDueQueries {
			if len(due) >= limit {
				break
			}
			rows, err := s.conn(ctx).QueryContext(ctx, s.q(q), t, limit-len(due))
			if err != nil {
				return err
			}
			for rows.Next() {
				var dd registry.DueDomain
				var purge int64
				dest := []any{&dd.Zone, &dd.Label}
				if i == 0 {
					dest = append(dest, &dd.ID, &dd.Rev, &purge, &dd.Registrar, &dd.RegistrarID)
				}
				if err := rows.Scan(dest...); err != nil {
					rows.Close()
					return err
				}
				dd.PurgeAt = fromNanos(purge)
				due = append(due, dd)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	return due, internal("finding lifecycle work", err)
}

// ApplyChanges implements registry.LifecycleStore: the changes of a batch
// (the worker's purges) in one transaction. Each domain is claimed at its
// revision as ApplyChange claims it; the purged ones' conflict sets are
// deleted set-wise (an exempted one's labels passed on to the domains it
// was exempted with), their rows and audit records too.
func (s *Store) ApplyChanges(ctx context.Context, ds []*registry.Domain, chs []*registry.Change) ([]bool, error) {
	applied := make([]bool, len(ds))
	// a fault at COMMIT: what is gone was purged (only purges are batched)
	committed := func() (bool, error) {
		for i, d := range ds {
			if !chs[i].Purge {
				return false, nil
			}
			_, err := s.Domain(ctx, d.Zone, d.Label)
			if err == nil {
				applied[i] = false
				continue
			}
			if !errors.Is(err, registry.ErrNotFound) {
				return false, err
			}
		}
		return true, nil
	}
	err := s.txResolved(ctx, committed, func(tx *sql.Tx) error {
		var purged []int64
		var audit []any
		record := func(i int) {
			ch := chs[i]
			applied[i] = true
			if ch.Purge {
				purged = append(purged, ds[i].ID)
			}
			result := ch.Result
			if result == "" {
				result = "ok"
			}
			audit = append(audit, ch.At.UnixNano(), ch.Actor, ch.Action, ds[i].Name, result, ch.Channel, ch.ClTRID, ch.SvTRID)
		}
		allPurges := true
		for i := range ds {
			applied[i] = false
			allPurges = allPurges && chs[i].Purge
		}
		if allPurges {
			// the rows go: claim them set-wise, chunk by chunk, at the
			// revisions read (the other columns need no update)
			at := map[int64]int{}
			for i, d := range ds {
				at[d.ID] = i
			}
			for i := 0; i < len(ds); i += chunk {
				part := ds[i:min(i+chunk, len(ds))]
				args := make([]any, 0, 3*len(part))
				for _, d := range part {
					args = append(args, d.ID)
				}
				for _, d := range part {
					args = append(args, d.ID, d.Rev)
				}
				// (id IN (...) too: the planner then reads the rows by
				// their key, not the whole table for each chunk)
				ids, err := s.ids(ctx, tx, `UPDATE domains SET rev = rev + 1 WHERE id IN (`+marks(len(part))+`) AND (id, rev) IN (VALUES `+
					strings.TrimSuffix(strings.Repeat("(CAST(? AS BIGINT), CAST(? AS BIGINT)), ", len(part)), ", ")+`) RETURNING id`, args...)
				if err != nil {
					return err
				}
				slices.Sort(ids) // the audit records in the order of the IDs
				for _, id := range ids {
					record(at[id])
				}
			}
		} else {
			for i, d := range ds {
				ch := chs[i]
				res, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET expires = ?, statuses = ?, redemption_end = ?, purge_at = ?, renewed = ?, autorenewed = ?, updated = ?, rev = rev + 1 WHERE id = ? AND rev = ?`),
					nanos(ch.Expires), strings.Join(ch.Statuses, " "), nanos(ch.RedemptionEnds), nanos(ch.PurgeAt), nanos(ch.Renewed), nanos(ch.AutoRenewed), nanos(ch.At), d.ID, d.Rev)
				if err != nil {
					return err
				}
				if n, err := res.RowsAffected(); err != nil {
					return err
				} else if n > 0 {
					record(i)
				} // else changed since: left for the next round
			}
		}
		if err := s.regroupPurged(ctx, tx, purged); err != nil { // their variant groups' carriers (variantgroup.go)
			return err
		}
		for i := 0; i < len(purged); i += chunk {
			part := purged[i:min(i+chunk, len(purged))]
			args := make([]any, len(part))
			for j, id := range part {
				args[j] = id
			}
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM blocks WHERE domain_id IN (`+marks(len(part))+`)`), args...); err != nil {
				return err
			}
			// their transfer state ends (EndTransfers): a pending one is
			// cancelled by the server, the authInfo removed
			pending, err := s.ids(ctx, tx, `SELECT domain_id FROM transfers WHERE status = 'pending' AND domain_id IN (`+marks(len(part))+`)`, args...)
			if err != nil {
				return err
			}
			for _, id := range pending {
				if err := s.EndTransfers(ctx, tx, id, chs[0].At); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM domain_auth WHERE domain_id IN (`+marks(len(part))+`)`), args...); err != nil {
				return err
			}
			exempted, err := s.ids(ctx, tx, `SELECT DISTINCT domain_id FROM exemptions WHERE domain_id IN (`+marks(len(part))+`)`, args...)
			if err != nil {
				return err
			}
			for _, id := range exempted {
				if err := s.release(ctx, tx, id); err != nil {
					return err
				}
			}
			if len(exempted) > 0 {
				// a domain of the batch exempted with another of it took
				// labels the other freed: it is purged too
				if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM blocks WHERE domain_id IN (`+marks(len(part))+`)`), args...); err != nil {
					return err
				}
			}
			if err := s.purgeDelegation(ctx, tx, args); err != nil { // hosts.go
				return err
			}
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM domains WHERE id IN (`+marks(len(part))+`)`), args...); err != nil {
				return err
			}
		}
		var notices []registry.PollMessage
		for i, ok := range applied {
			if ok {
				notices = append(notices, chs[i].Notices...)
			}
		}
		if err := s.enqueueTx(ctx, tx, notices); err != nil {
			return err
		}
		const cols = 8
		for i := 0; i < len(audit); i += cols * 100 {
			part := audit[i:min(i+cols*100, len(audit))]
			q := `INSERT INTO audit (at, registrar, action, name, result, channel, cltrid, svtrid) VALUES ` +
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?), ", len(part)/cols), ", ")
			if _, err := tx.ExecContext(ctx, s.q(q), part...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, s.internal("changing domains", err)
	}
	return applied, nil
}
