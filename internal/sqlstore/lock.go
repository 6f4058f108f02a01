package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Registry lock (migration 231; registry/lock.go): the registrants' TOTP
// secrets, the domains' locks, and the server statuses of the hosts under
// a locked domain.

// EnrolLock implements registry.LockStore.
func (s *Store) EnrolLock(ctx context.Context, contactID, secret string, at time.Time) error {
	return s.internal("enrolling a lock secret", s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO lock_secrets (contact_id, secret, verified, last_step, created) VALUES (?, ?, 0, 0, ?)
			ON CONFLICT (contact_id) DO UPDATE SET secret = excluded.secret, verified = 0, last_step = 0, created = excluded.created`), contactID, secret, nanos(at))
		return err
	}))
}

// LockSecret implements registry.LockStore.
func (s *Store) LockSecret(ctx context.Context, contactID string) (secret string, verified bool, err error) {
	var v int64
	err = s.conn(ctx).QueryRowContext(ctx, s.q(`SELECT secret, verified FROM lock_secrets WHERE contact_id = ?`), contactID).Scan(&secret, &v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, registry.Errorf(registry.CodeNotFound, "contact %s has no lock secret enrolled", contactID)
	}
	return secret, v > 0, internal("reading a lock secret", err)
}

// UseLockCode implements registry.LockStore.
func (s *Store) UseLockCode(ctx context.Context, contactID string, step int64, at time.Time) error {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE lock_secrets SET last_step = ?, verified = CASE WHEN verified = 0 THEN ? ELSE verified END WHERE contact_id = ? AND last_step < ?`),
			step, nanos(at), contactID, step)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return s.internal("using a lock code", err)
	}
	if n == 0 {
		return registry.Errorf(registry.CodeBadLockCode, "that code of contact %s was used already: wait for the next one", contactID)
	}
	return nil
}

// DomainLock implements registry.LockStore.
func (s *Store) DomainLock(ctx context.Context, domainID int64) (registry.DomainLock, error) {
	var l registry.DomainLock
	var locked, relock int64
	var added string
	err := s.conn(ctx).QueryRowContext(ctx, s.q(`SELECT locked, relock_at, added FROM domain_locks WHERE domain_id = ?`), domainID).Scan(&locked, &relock, &added)
	if errors.Is(err, sql.ErrNoRows) {
		return l, nil
	}
	l.Locked, l.RelockAt, l.Added = locked > 0, fromNanos(relock), strings.Fields(added)
	return l, internal("reading a domain's lock", err)
}

// SetDomainLock implements registry.LockStore.
func (s *Store) SetDomainLock(ctx context.Context, domainID int64, l registry.DomainLock) error {
	locked := int64(0)
	if l.Locked {
		locked = 1
	}
	return s.internal("setting a domain's lock", s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO domain_locks (domain_id, locked, relock_at, added) VALUES (?, ?, ?, ?)
			ON CONFLICT (domain_id) DO UPDATE SET locked = excluded.locked, relock_at = excluded.relock_at, added = excluded.added`),
			domainID, locked, nanos(l.RelockAt), strings.Join(l.Added, " "))
		return err
	}))
}

// SubordinateHostStatuses implements registry.LockStore.
func (s *Store) SubordinateHostStatuses(ctx context.Context, domainID int64, add, rem []string, at time.Time) ([]*registry.Host, error) {
	var out []*registry.Host
	err := s.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, s.q(`SELECT id, name, statuses FROM hosts WHERE domain_id = ? ORDER BY name`), domainID)
		if err != nil {
			return err
		}
		type host struct {
			id       int64
			name     string
			statuses []string
		}
		var hs []host
		for rows.Next() {
			var h host
			var st string
			if err := rows.Scan(&h.id, &h.name, &st); err != nil {
				rows.Close()
				return err
			}
			h.statuses = strings.Fields(st)
			hs = append(hs, h)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, h := range hs {
			set := map[string]bool{}
			for _, st := range h.statuses {
				set[st] = true
			}
			for _, st := range rem {
				delete(set, st)
			}
			for _, st := range add {
				set[st] = true
			}
			next := make([]string, 0, len(set))
			for st := range set {
				next = append(next, st)
			}
			sort.Strings(next)
			if strings.Join(next, " ") == strings.Join(h.statuses, " ") {
				continue
			}
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE hosts SET statuses = ?, updated = ?, version = version + 1 WHERE id = ?`), strings.Join(next, " "), nanos(at), h.id); err != nil {
				return err
			}
			out = append(out, &registry.Host{ID: h.id, Name: h.name, Statuses: next})
		}
		return nil
	})
	return out, s.internal("setting hosts' statuses", err)
}

// RelockDue implements registry.LockStore.
func (s *Store) RelockDue(ctx context.Context, now time.Time, limit int) ([]registry.DueDomain, error) {
	due, err := queryRows(ctx, s, `SELECT d.zone, d.label FROM domain_locks l JOIN domains d ON d.id = l.domain_id WHERE l.relock_at > 0 AND l.relock_at <= ? ORDER BY l.relock_at LIMIT ?`,
		func(rows *sql.Rows) (dd registry.DueDomain, err error) {
			err = rows.Scan(&dd.Zone, &dd.Label)
			return dd, err
		}, nanos(now), limit)
	return due, internal("finding relocks due", err)
}

var _ registry.LockStore = (*Store)(nil)
