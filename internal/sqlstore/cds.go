package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/akshara-idn/akshara/registry"
)

// Child DS automation (migration 290; registry/domain_cds.go): the CDS
// requests being accepted.

// CDSState implements registry.CDSStore.
func (s *Store) CDSState(ctx context.Context, domainID int64) (registry.CDSState, bool, error) {
	var st registry.CDSState
	var first, last, seen int64
	err := s.conn(ctx).QueryRowContext(ctx, s.q(`SELECT name, fingerprint, first_seen, last_seen, seen FROM cds_state WHERE domain_id = ?`), domainID).
		Scan(&st.Name, &st.Fingerprint, &first, &last, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return st, false, nil
	}
	st.First, st.Last, st.Seen = fromNanos(first), fromNanos(last), int(seen)
	return st, err == nil, internal("reading a CDS state", err)
}

// SetCDSState implements registry.CDSStore.
func (s *Store) SetCDSState(ctx context.Context, domainID int64, st registry.CDSState) error {
	return s.internal("writing a CDS state", s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO cds_state (domain_id, name, fingerprint, first_seen, last_seen, seen) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (domain_id) DO UPDATE SET name = excluded.name, fingerprint = excluded.fingerprint, first_seen = excluded.first_seen,
			last_seen = excluded.last_seen, seen = excluded.seen`),
			domainID, st.Name, st.Fingerprint, nanos(st.First), nanos(st.Last), int64(st.Seen))
		return err
	}))
}

// ClearCDSState implements registry.CDSStore.
func (s *Store) ClearCDSState(ctx context.Context, domainID int64) error {
	return s.internal("clearing a CDS state", s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`DELETE FROM cds_state WHERE domain_id = ?`), domainID)
		return err
	}))
}

var _ registry.CDSStore = (*Store)(nil)
