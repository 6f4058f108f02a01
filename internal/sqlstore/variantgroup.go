package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Variant groups (migration 230; docs/variants.md, "Same entity"). The
// members of a group each hold their own name (domains (zone, label) is
// unique); the group holds the union of their conflict sets in blocks,
// every row naming one member, the group's carrier: the oldest live member
// while one is live, else the one purged last. A change of a member's
// lifecycle re-elects it (regroup), in the change's transaction, after
// taking the group's lock (its row's rev), so two commands deciding on one
// group take turns; the purge of the last member deletes the rows and so
// frees the set, as the purge of an ordinary domain does.

// JoinGroup implements registry.GroupStore.
func (s *Store) JoinGroup(ctx context.Context, d, holder *registry.Domain, registrarID int64) (*registry.Domain, error) {
	out := *d
	out.AuthInfoHash = ""
	out.Updated, out.Statuses = out.Created, []string{}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.lockGroupFirst(ctx, tx, holder.Group); err != nil {
			return err
		}
		// the holder, claimed at the revision its registrar's command read
		// (a purge, a transfer or another join since: STALE, decided again)
		res, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET rev = rev + 1 WHERE id = ? AND rev = ? AND registrar_id = ?`), holder.ID, holder.Rev, registrarID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return registry.ErrStale
		}
		group := holder.Group
		key := s.key(d.Zone)
		if group == 0 {
			if err := tx.QueryRowContext(ctx, s.q(`INSERT INTO variant_groups (zone, created) VALUES (?, ?) RETURNING id`), key, nanos(out.Created)).Scan(&group); err != nil {
				return err
			}
			// (statuses = statuses: SQLite's read cache logs the holder as
			// changed, so a check no longer reads it without its group)
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET variant_group = ?, statuses = statuses WHERE id = ?`), group, holder.ID); err != nil {
				return err
			}
		} else if _, err := tx.ExecContext(ctx, s.q(`UPDATE variant_groups SET rev = rev + 1 WHERE id = ?`), group); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, s.q(`INSERT INTO domains (zone, label, alabel, lang, registrar_id, created, data_version, expires, updated, variant_group) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			d.Zone, d.Label, d.ALabel, d.Lang, registrarID, out.Created.UnixNano(), d.DataVersion, nanos(d.Expires), out.Created.UnixNano(), group).Scan(&out.ID); err != nil {
			return err
		}
		out.Group = group
		// the labels of d's set that the group does not hold yet: taken
		// by its carrier; one another holds refuses the join
		var carrier int64
		if err := tx.QueryRowContext(ctx, s.q(`SELECT b.domain_id FROM blocks b JOIN domains d ON d.id = b.domain_id WHERE b.zone = ? AND d.variant_group = ? LIMIT 1`), key, group).Scan(&carrier); err != nil {
			return err
		}
		held := map[string]bool{}
		for i := 0; i < len(d.Blocks); i += chunk {
			part := d.Blocks[i:min(i+chunk, len(d.Blocks))]
			args := []any{key, group}
			for _, l := range part {
				args = append(args, l)
			}
			rows, err := tx.QueryContext(ctx, s.q(`SELECT b.label, COALESCE(d.variant_group, 0) FROM blocks b JOIN domains d ON d.id = b.domain_id WHERE b.zone = ? AND COALESCE(d.variant_group, 0) <> ? AND b.label IN (`+marks(len(part))+`)`), args...)
			if err != nil {
				return err
			}
			other := rows.Next()
			rows.Close()
			if other {
				return registry.Errorf(registry.CodeConflict, "%s conflicts with a registered domain of another holder", d.Name)
			}
			args = append([]any{key, group}, args[2:]...)
			rows, err = tx.QueryContext(ctx, s.q(`SELECT b.label FROM blocks b JOIN domains d ON d.id = b.domain_id WHERE b.zone = ? AND d.variant_group = ? AND b.label IN (`+marks(len(part))+`)`), args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var l string
				if err := rows.Scan(&l); err != nil {
					rows.Close()
					return err
				}
				held[l] = true
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		var free []any
		for _, l := range d.Blocks {
			if !held[l] {
				free = append(free, key, l, carrier)
			}
		}
		for i := 0; i < len(free); i += 3 * chunk {
			part := free[i:min(i+3*chunk, len(free))]
			if err := s.exec(ctx, tx, insertBlocks(len(part)/3), part...); err != nil {
				return err // a label taken meanwhile: the unique index
			}
		}
		if d.AuthInfoHash != "" {
			if err := s.exec(ctx, tx, `INSERT INTO domain_auth (domain_id, pw_hash, updated) VALUES (?, ?, ?)`, out.ID, d.AuthInfoHash, out.Created.UnixNano()); err != nil {
				return err
			}
		}
		ch := registry.ChannelOf(ctx)
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result, channel, cltrid, svtrid) VALUES (?, ?, 'create', ?, ?, ?, ?, ?)`),
			out.Created.UnixNano(), d.Registrar, d.Name, "ok variant group of "+holder.Name, ch.Name, ch.ClTRID, ch.SvTRID)
		return err
	})
	if errors.Is(err, registry.ErrStale) || registry.CodeOf(err) == registry.CodeConflict {
		return nil, err
	}
	if err != nil && s.d.IsUnique(err) {
		return nil, registry.Errorf(registry.CodeConflict, "%s conflicts with a registered domain", d.Name)
	}
	if err != nil {
		return nil, s.internal("joining a variant group", err)
	}
	return &out, nil
}

// lockGroupFirst takes the lock of a domain's group (0: none) before a
// change claims the domain's row: every command that locks both takes
// the group's first, so none waits for the other's in the reverse order.
// A group formed since the domain was read moved its revision on: the
// change is refused as stale and decided again, with the group.
func (s *Store) lockGroupFirst(ctx context.Context, tx *sql.Tx, group int64) error {
	if group == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, s.q(`UPDATE variant_groups SET rev = rev + 1 WHERE id = ?`), group)
	return err
}

// groupMembersQuery reads a group's members, oldest first.
var groupMembersQuery = `SELECT ` + domainColumns + ` FROM domains d JOIN registrars r ON r.id = d.registrar_id WHERE d.variant_group = ? ORDER BY d.id`

// GroupMembers implements registry.GroupStore.
func (s *Store) GroupMembers(ctx context.Context, id int64) (ds []*registry.Domain, err error) {
	err = s.read(ctx, func(ctx context.Context) error {
		ds, err = s.groupMembers(ctx, s.conn(ctx), id)
		return err
	})
	return ds, internal("reading a variant group", err)
}

func (s *Store) groupMembers(ctx context.Context, db dbtx, id int64) ([]*registry.Domain, error) {
	rows, err := db.QueryContext(ctx, s.q(groupMembersQuery), id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ds []*registry.Domain
	for rows.Next() {
		d, err := scanDomain(rows)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, rows.Err()
}

// LockGroup implements registry.GroupStore.
func (s *Store) LockGroup(ctx context.Context, id int64) ([]*registry.Domain, error) {
	var ds []*registry.Domain
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE variant_groups SET rev = rev + 1 WHERE id = ?`), id); err != nil {
			return err
		}
		var err error
		ds, err = s.groupMembers(ctx, tx, id)
		return err
	})
	return ds, s.internal("locking a variant group", err)
}

// regroup is run in the transaction of a change of domain id (its row
// already written): if it is of a variant group, the group is locked and
// its carrier elected again among its members, those in gone (purged by
// this transaction) left out; a group left with one member is dissolved,
// one left with none too (its last member's blocks are then deleted by
// the purge, freeing the set).
func (s *Store) regroup(ctx context.Context, tx *sql.Tx, id int64, gone map[int64]bool) error {
	var group sql.NullInt64
	if err := tx.QueryRowContext(ctx, s.q(`SELECT variant_group FROM domains WHERE id = ?`), id).Scan(&group); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	}
	if !group.Valid {
		return nil
	}
	return s.regroupGroup(ctx, tx, group.Int64, gone)
}

func (s *Store) regroupGroup(ctx context.Context, tx *sql.Tx, group int64, gone map[int64]bool) error {
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE variant_groups SET rev = rev + 1 WHERE id = ?`), group); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, s.q(`SELECT id, purge_at FROM domains WHERE variant_group = ? ORDER BY id`), group)
	if err != nil {
		return err
	}
	type member struct{ id, purge int64 }
	var all, left []member
	for rows.Next() {
		var m member
		if err := rows.Scan(&m.id, &m.purge); err != nil {
			rows.Close()
			return err
		}
		all = append(all, m)
		if !gone[m.id] {
			left = append(left, m)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(left) > 0 {
		// the carrier: the oldest live member, or the one purged last
		sort.SliceStable(left, func(i, j int) bool {
			a, b := left[i], left[j]
			if (a.purge == 0) != (b.purge == 0) {
				return a.purge == 0
			}
			return a.purge > b.purge
		})
		args := []any{left[0].id}
		for _, m := range all {
			if m.id != left[0].id {
				args = append(args, m.id)
			}
		}
		if len(args) > 1 {
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE blocks SET domain_id = ? WHERE domain_id IN (`+marks(len(args)-1)+`)`), args...); err != nil {
				return err
			}
		}
	}
	if len(left) <= 1 { // no group of one
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET variant_group = NULL WHERE variant_group = ?`), group); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`DELETE FROM variant_groups WHERE id = ?`), group)
		return err
	}
	return nil
}

// regroupPurged is regroup for a batch of purges: each group of the
// purged domains once, in the order of the groups' IDs.
func (s *Store) regroupPurged(ctx context.Context, tx *sql.Tx, purged []int64) error {
	gone := map[int64]bool{}
	groups := map[int64]bool{}
	for i := 0; i < len(purged); i += chunk {
		part := purged[i:min(i+chunk, len(purged))]
		args := make([]any, len(part))
		for j, id := range part {
			args[j] = id
			gone[id] = true
		}
		ids, err := s.ids(ctx, tx, `SELECT variant_group FROM domains WHERE id IN (`+marks(len(part))+`) AND variant_group IS NOT NULL`, args...)
		if err != nil {
			return err
		}
		for _, g := range ids {
			groups[g] = true
		}
	}
	var order []int64
	for g := range groups {
		order = append(order, g)
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	for _, g := range order {
		if err := s.regroupGroup(ctx, tx, g, gone); err != nil {
			return err
		}
	}
	return nil
}

// moveGroup is run in the transaction that moves domain id to the gaining
// registrar: its group's other members move too, their authInfo removed
// (the losing registrar knows it), their revision moved on; msg gives the
// poll messages to queue for each member moved.
func (s *Store) moveGroup(ctx context.Context, tx *sql.Tx, id, gaining, losing int64, at time.Time, msg func(id int64, name, alabel string) []registry.PollMessage) error {
	var group sql.NullInt64
	if err := tx.QueryRowContext(ctx, s.q(`SELECT variant_group FROM domains WHERE id = ?`), id).Scan(&group); err != nil || !group.Valid {
		return err
	}
	rows, err := tx.QueryContext(ctx, s.q(`SELECT id, label, zone, alabel FROM domains WHERE variant_group = ? AND id <> ? AND registrar_id = ? ORDER BY id`), group.Int64, id, losing)
	if err != nil {
		return err
	}
	type moved struct {
		id                  int64
		label, zone, alabel string
	}
	var ms []moved
	for rows.Next() {
		var m moved
		if err := rows.Scan(&m.id, &m.label, &m.zone, &m.alabel); err != nil {
			rows.Close()
			return err
		}
		ms = append(ms, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var notices []registry.PollMessage
	for _, m := range ms {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE domains SET registrar_id = ?, updated = ?, rev = rev + 1 WHERE id = ?`), gaining, nanos(at), m.id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM domain_auth WHERE domain_id = ?`), m.id); err != nil {
			return err
		}
		if msg != nil {
			notices = append(notices, msg(m.id, m.label+"."+m.zone, m.alabel)...)
		}
	}
	return s.enqueueTx(ctx, tx, notices)
}

var _ registry.GroupStore = (*Store)(nil)

// GroupsIn implements registry.GroupStore.
func (s *Store) GroupsIn(ctx context.Context, zone string) (map[int64]int64, error) {
	zones := s.members(zone)
	args := make([]any, len(zones))
	for i, z := range zones {
		args[i] = z
	}
	type pair struct{ id, group int64 }
	ps, err := queryRows(ctx, s, `SELECT id, variant_group FROM domains WHERE variant_group IS NOT NULL AND zone IN (`+marks(len(zones))+`)`, func(rows *sql.Rows) (p pair, err error) {
		err = rows.Scan(&p.id, &p.group)
		return p, err
	}, args...)
	if err != nil {
		return nil, internal("reading variant groups", err)
	}
	out := map[int64]int64{}
	for _, p := range ps {
		out[p.id] = p.group
	}
	return out, nil
}

// DomainRow implements registry.GroupStore: one statement, by the unique
// index on (zone, label).
func (s *Store) DomainRow(ctx context.Context, zone, label string) (d *registry.Domain, err error) {
	err = s.read(ctx, func(ctx context.Context) error {
		d, err = scanDomain(s.queryRow(ctx, nil, domainByLabelQuery, zone, label))
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, registry.Errorf(registry.CodeNotFound, "%s.%s is not registered", label, zone)
	}
	return d, internal("finding domain", err)
}
