package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// The outbox of DNS changes (migration 280; registry/dnsoutbox.go).

var _ registry.DNSOutboxStore = (*Store)(nil)

// the owners depending on a domain: itself, the hosts under it, the
// domains naming those, the hosts under a domain of the registry it names
const dnsOwnersOfDomain = `WITH d AS (SELECT id, zone, alabel FROM domains WHERE zone = ? AND label = ?)
SELECT d.zone, d.alabel FROM d
UNION ALL SELECT d.zone, h.name FROM d JOIN hosts h ON h.domain_id = d.id
UNION ALL SELECT n.zone, n.alabel FROM d JOIN hosts h ON h.domain_id = d.id JOIN domain_hosts dh ON dh.host_id = h.id JOIN domains n ON n.id = dh.domain_id
UNION ALL SELECT p.zone, h.name FROM d JOIN domain_hosts dh ON dh.domain_id = d.id JOIN hosts h ON h.id = dh.host_id JOIN domains p ON p.id = h.domain_id`

// the owners depending on a host: itself (under a domain of the
// registry) and the domains naming it
const dnsOwnersOfHost = `WITH h AS (SELECT id, name, domain_id FROM hosts WHERE name = ?)
SELECT p.zone, h.name FROM h JOIN domains p ON p.id = h.domain_id
UNION ALL SELECT n.zone, n.alabel FROM h JOIN domain_hosts dh ON dh.host_id = h.id JOIN domains n ON n.id = dh.domain_id`

// DNSOwners implements registry.DNSOutboxStore.
func (s *Store) DNSOwners(ctx context.Context, domains []registry.DNSDomain, hosts []string) (out []registry.DNSOwner, err error) {
	scan := func(rows *sql.Rows) error {
		var o registry.DNSOwner
		if err := rows.Scan(&o.Zone, &o.Name); err != nil {
			return err
		}
		out = append(out, o)
		return nil
	}
	err = s.do(ctx, func() error {
		out = out[:0]
		for _, d := range domains {
			if err := s.eachRow(ctx, dnsOwnersOfDomain, []any{d.Zone, d.Label}, scan); err != nil {
				return err
			}
		}
		for _, h := range hosts {
			if err := s.eachRow(ctx, dnsOwnersOfHost, []any{h}, scan); err != nil {
				return err
			}
		}
		return nil
	})
	return out, internal("reading DNS owners", err)
}

// RecordDNSChanges implements registry.DNSOutboxStore.
func (s *Store) RecordDNSChanges(ctx context.Context, owners []registry.DNSOwner, at time.Time) error {
	return internal("recording DNS changes", s.tx(ctx, func(tx *sql.Tx) error {
		return s.insertOwners(ctx, tx, owners, at)
	}))
}

func (s *Store) insertOwners(ctx context.Context, tx *sql.Tx, owners []registry.DNSOwner, at time.Time) error {
	const chunk = 100
	for i := 0; i < len(owners); i += chunk {
		part := owners[i:min(i+chunk, len(owners))]
		q := `INSERT INTO dns_outbox (zone, owner, at) VALUES `
		args := make([]any, 0, 3*len(part))
		for j, o := range part {
			if j > 0 {
				q += ", "
			}
			q += "(?, ?, ?)"
			args = append(args, o.Zone, o.Name, nanos(at))
		}
		if _, err := tx.ExecContext(ctx, s.q(q), args...); err != nil {
			return err
		}
	}
	return nil
}

// DNSChanges implements registry.DNSOutboxStore.
func (s *Store) DNSChanges(ctx context.Context, zones []string, limit int) (out []registry.DNSChange, err error) {
	if len(zones) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(zones)+1)
	for _, z := range zones {
		args = append(args, z)
	}
	args = append(args, limit)
	err = s.do(ctx, func() error {
		out = out[:0]
		return s.eachRow(ctx, `SELECT id, zone, owner, at, state FROM dns_outbox WHERE zone IN (`+marks(len(zones))+`) AND state <> 1 ORDER BY id LIMIT ?`, args, func(rows *sql.Rows) error {
			var c registry.DNSChange
			var at int64
			if err := rows.Scan(&c.ID, &c.Owner.Zone, &c.Owner.Name, &at, &c.State); err != nil {
				return err
			}
			c.At = fromNanos(at)
			out = append(out, c)
			return nil
		})
	})
	return out, internal("reading the DNS outbox", err)
}

// FinishDNSChanges implements registry.DNSOutboxStore.
func (s *Store) FinishDNSChanges(ctx context.Context, lease, holder string, now time.Time, ids []int64, owners []registry.DNSOwner) (held bool, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		var h string
		var exp int64
		err := tx.QueryRowContext(ctx, s.q(`SELECT holder, expires FROM dns_lease WHERE name = ?`), lease).Scan(&h, &exp)
		if err != nil && err != sql.ErrNoRows {
			return err
		}
		held = err == nil && h == holder && exp > nanos(now)
		if !held {
			return s.insertOwners(ctx, tx, owners, now)
		}
		return s.idList(ctx, tx, `DELETE FROM dns_outbox WHERE id IN (%s)`, ids, nil)
	})
	return held, internal("marking DNS changes published", err)
}

// HoldDNSChanges implements registry.DNSOutboxStore.
func (s *Store) HoldDNSChanges(ctx context.Context, ids []int64) error {
	return internal("holding DNS changes", s.tx(ctx, func(tx *sql.Tx) error {
		return s.idList(ctx, tx, `UPDATE dns_outbox SET state = 1 WHERE id IN (%s)`, ids, nil)
	}))
}

// ReleaseDNSChanges implements registry.DNSOutboxStore.
func (s *Store) ReleaseDNSChanges(ctx context.Context, zone string) (n int64, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, s.q(`UPDATE dns_outbox SET state = 2 WHERE zone = ? AND state = 1`), zone)
		if err != nil {
			return err
		}
		n, err = r.RowsAffected()
		return err
	})
	return n, internal("releasing DNS changes", err)
}

// TakeDNSLease implements registry.DNSOutboxStore.
func (s *Store) TakeDNSLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (ok bool, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO dns_lease (name, holder, expires) VALUES (?, ?, ?)
ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires = excluded.expires
WHERE dns_lease.holder = excluded.holder OR dns_lease.expires <= ?`), name, holder, nanos(now.Add(ttl)), nanos(now)); err != nil {
			return err
		}
		var h string
		if err := tx.QueryRowContext(ctx, s.q(`SELECT holder FROM dns_lease WHERE name = ?`), name).Scan(&h); err != nil {
			return err
		}
		ok = h == holder
		return nil
	})
	return ok, internal("taking the DNS publisher's lease", err)
}

// DNSOutboxStats implements registry.DNSOutboxStore.
func (s *Store) DNSOutboxStats(ctx context.Context, zone string) (st registry.DNSOutboxStats, err error) {
	err = s.do(ctx, func() error {
		var pending, held, oldest sql.NullInt64
		if err := s.conn(ctx).QueryRowContext(ctx, s.q(`SELECT SUM(CASE WHEN state <> 1 THEN 1 ELSE 0 END), SUM(CASE WHEN state = 1 THEN 1 ELSE 0 END), MIN(CASE WHEN state <> 1 THEN at END) FROM dns_outbox WHERE zone = ?`), zone).Scan(&pending, &held, &oldest); err != nil {
			return err
		}
		st = registry.DNSOutboxStats{Pending: pending.Int64, Held: held.Int64}
		if oldest.Valid {
			st.Oldest = fromNanos(oldest.Int64)
		}
		return nil
	})
	return st, internal("counting the DNS outbox", err)
}

// ZoneDelegationCount implements registry.DNSOutboxStore.
func (s *Store) ZoneDelegationCount(ctx context.Context, zone string) (n int64, err error) {
	err = s.do(ctx, func() error {
		return s.conn(ctx).QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM domains d WHERE d.zone = ? AND EXISTS (SELECT 1 FROM domain_hosts dh WHERE dh.domain_id = d.id)`), zone).Scan(&n)
	})
	return n, internal("counting the zone's delegations", err)
}

// LastDNSChange implements registry.DNSOutboxStore.
func (s *Store) LastDNSChange(ctx context.Context, zone string) (id int64, err error) {
	err = s.do(ctx, func() error {
		return s.conn(ctx).QueryRowContext(ctx, s.q(`SELECT COALESCE(MAX(id), 0) FROM dns_outbox WHERE zone = ?`), zone).Scan(&id)
	})
	return id, internal("reading the DNS outbox", err)
}

// PruneDNSChanges implements registry.DNSOutboxStore.
func (s *Store) PruneDNSChanges(ctx context.Context, zone string, through int64, before time.Time) (n int64, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, s.q(`DELETE FROM dns_outbox WHERE zone = ? AND id <= ? AND at < ?`), zone, through, nanos(before))
		if err != nil {
			return err
		}
		n, err = r.RowsAffected()
		return err
	})
	return n, internal("pruning the DNS outbox", err)
}
