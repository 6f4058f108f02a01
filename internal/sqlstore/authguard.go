package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// The failures of authInfo and the counts of the registry's limits
// (registry.AuthGuardStore, registry/authguard.go): the tables of
// migration 250. The store counts and records; the registry decides what
// the counts mean.

// AuthFailures implements registry.AuthGuardStore: two index range reads.
func (s *Store) AuthFailures(ctx context.Context, kind string, objectID, registrarID int64, since time.Time, limit int) (registry.AuthFailureTimes, error) {
	var ft registry.AuthFailureTimes
	scan := func(rows *sql.Rows) (time.Time, error) {
		var at int64
		err := rows.Scan(&at)
		return fromNanos(at), err
	}
	var err error
	ft.Object, err = queryRows(ctx, s, `SELECT at FROM auth_failures WHERE kind = ? AND object_id = ? AND registrar_id = ? AND at > ? ORDER BY at DESC LIMIT ?`,
		scan, kind, objectID, registrarID, nanos(since), limit)
	if err != nil {
		return ft, internal("reading the failures of authInfo", err)
	}
	ft.Registrar, err = queryRows(ctx, s, `SELECT at FROM auth_failures WHERE registrar_id = ? AND at > ? ORDER BY at DESC LIMIT ?`,
		scan, registrarID, nanos(since), limit)
	return ft, internal("reading the failures of authInfo", err)
}

// RecordAuthFailure implements registry.AuthGuardStore.
func (s *Store) RecordAuthFailure(ctx context.Context, f registry.AuthFailure, since, prune time.Time) (int, error) {
	var n int
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM auth_failures WHERE at <= ?`), nanos(prune)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM auth_alerts WHERE at <= ?`), nanos(prune)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO auth_failures (kind, object_id, registrar_id, at) VALUES (?, ?, ?, ?)`),
			f.Kind, f.ObjectID, f.RegistrarID, nanos(f.At)); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM auth_failures WHERE kind = ? AND object_id = ? AND at > ?`),
			f.Kind, f.ObjectID, nanos(since)).Scan(&n)
	})
	return n, s.internal("recording a wrong authInfo", err)
}

// AlertAuthFailures implements registry.AuthGuardStore: the alert's row is
// claimed with an upsert that only an absent or older alert passes (it
// holds the row locked until the transaction ends: a concurrent claim
// waits, then finds it taken), then m is queued to the object's sponsor.
func (s *Store) AlertAuthFailures(ctx context.Context, kind string, objectID int64, since time.Time, m registry.PollMessage) (bool, error) {
	queued := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		queued = false
		var sponsor int64
		q := `SELECT registrar_id FROM domains WHERE id = ?`
		if kind == registry.AuthObjectContact {
			q = `SELECT registrar_id FROM contacts WHERE id = ?`
		}
		err := tx.QueryRowContext(ctx, s.q(q), objectID).Scan(&sponsor)
		if err == sql.ErrNoRows {
			return nil // gone: no one to tell
		}
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, s.q(`INSERT INTO auth_alerts (kind, object_id, at) VALUES (?, ?, ?)
			ON CONFLICT (kind, object_id) DO UPDATE SET at = excluded.at WHERE auth_alerts.at <= ? RETURNING at`),
			kind, objectID, nanos(m.Queued), nanos(since))
		if err != nil {
			return err
		}
		claimed := rows.Next()
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if !claimed {
			return nil
		}
		m.RegistrarID = sponsor
		queued = true
		return s.enqueueTx(ctx, tx, []registry.PollMessage{m})
	})
	return queued, s.internal("queueing the alert of wrong authInfo", err)
}

// TransferRequests implements registry.AuthGuardStore.
func (s *Store) TransferRequests(ctx context.Context, domainID, gainingID int64, since time.Time) (int, time.Time, error) {
	var n int
	var first sql.NullInt64
	err := s.do(ctx, func() error {
		return s.queryRow(ctx, nil, `SELECT COUNT(*), MIN(requested) FROM transfers WHERE domain_id = ? AND gaining_id = ? AND requested > ?`,
			domainID, gainingID, nanos(since)).Scan(&n, &first)
	})
	if err != nil {
		return 0, time.Time{}, internal("counting transfer requests", err)
	}
	var t time.Time
	if first.Valid {
		t = fromNanos(first.Int64)
	}
	return n, t, nil
}

var _ registry.AuthGuardStore = (*Store)(nil)
