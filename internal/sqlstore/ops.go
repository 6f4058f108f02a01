package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// queryRows runs a read query (retried on transient faults, as every
// store call) and reads each row with scan.
func queryRows[T any](ctx context.Context, s *Store, query string, scan func(*sql.Rows) (T, error), args ...any) (out []T, err error) {
	err = s.do(ctx, func() error {
		out = nil
		rows, err := s.conn(ctx).QueryContext(ctx, s.q(query), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return rows.Err()
	})
	return out, err
}

// registrarsQuery lists the registrars with the count of their domains
// (each count by the index on (registrar_id, id): TestIndexedQueryPlans).
const registrarsQuery = `SELECT r.id, r.name, r.created, r.revoked, (SELECT COUNT(*) FROM domains d WHERE d.registrar_id = r.id), r.abuse_email, r.abuse_phone FROM registrars r ORDER BY r.id`

// Registrars implements registry.OperatorStore.
func (s *Store) Registrars(ctx context.Context) ([]registry.RegistrarInfo, error) {
	out, err := queryRows(ctx, s, registrarsQuery,
		func(rows *sql.Rows) (ri registry.RegistrarInfo, err error) {
			var created int64
			var revoked sql.NullInt64
			if err := rows.Scan(&ri.ID, &ri.Name, &created, &revoked, &ri.Domains, &ri.Abuse.Email, &ri.Abuse.Phone); err != nil {
				return ri, err
			}
			ri.Created = time.Unix(0, created).UTC()
			if revoked.Valid {
				ri.Revoked = time.Unix(0, revoked.Int64).UTC()
			}
			return ri, nil
		})
	return out, internal("listing registrars", err)
}

// updateRegistrar runs an UPDATE of one registrar by name: ErrNotFound if
// there is none.
func (s *Store) updateRegistrar(ctx context.Context, what, name, query string, args ...any) error {
	return s.internal(what, s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(query), args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return registry.Errorf(registry.CodeNotFound, "there is no registrar %q", name)
		}
		return nil
	}))
}

// RevokeRegistrar implements registry.OperatorStore.
func (s *Store) RevokeRegistrar(ctx context.Context, name string) error {
	return s.updateRegistrar(ctx, "revoking registrar", name, `UPDATE registrars SET revoked = COALESCE(revoked, ?) WHERE name = ?`, time.Now().UnixNano(), name)
}

// RotateToken implements registry.OperatorStore: the registrar is read
// and updated in one transaction, so that a revocation that commits first
// is never lifted.
func (s *Store) RotateToken(ctx context.Context, name string, tokenHash []byte) error {
	return s.internal("rotating token", s.tx(ctx, func(tx *sql.Tx) error {
		var revoked sql.NullInt64
		err := tx.QueryRowContext(ctx, s.q(`SELECT revoked FROM registrars WHERE name = ?`), name).Scan(&revoked)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return registry.Errorf(registry.CodeNotFound, "there is no registrar %q", name)
		case err != nil:
			return err
		case revoked.Valid:
			return registry.Errorf(registry.CodeRevoked, "registrar %q is revoked: its token is not rotated (akshara registrar reinstate lifts the revocation and gives a new token)", name)
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE registrars SET token_hash = ? WHERE name = ? AND revoked IS NULL`), tokenHash, name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return registry.Errorf(registry.CodeRevoked, "registrar %q was revoked meanwhile", name)
		}
		return nil
	}))
}

// ReinstateRegistrar implements registry.OperatorStore.
func (s *Store) ReinstateRegistrar(ctx context.Context, name string, tokenHash []byte) error {
	err := s.updateRegistrar(ctx, "reinstating registrar", name, `UPDATE registrars SET token_hash = ?, revoked = NULL WHERE name = ? AND revoked IS NOT NULL`, tokenHash, name)
	if registry.CodeOf(err) == registry.CodeNotFound {
		return registry.Errorf(registry.CodeNotFound, "there is no revoked registrar %q", name)
	}
	return err
}

// RegistrarRevoked implements registry.OperatorStore: one row by primary
// key, through a statement prepared once.
func (s *Store) RegistrarRevoked(ctx context.Context, id int64) (bool, error) {
	var revoked sql.NullInt64
	err := s.do(ctx, func() error {
		return s.queryRow(ctx, nil, `SELECT revoked FROM registrars WHERE id = ?`, id).Scan(&revoked)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return false, registry.Errorf(registry.CodeNotFound, "there is no registrar %d", id)
	}
	if err != nil {
		return false, internal("reading a registrar's state", err)
	}
	return revoked.Valid, nil
}

// AuditQuery implements registry.OperatorStore.
func (s *Store) AuditQuery(ctx context.Context, f registry.AuditFilter) ([]registry.AuditEntry, error) {
	var where []string
	var args []any
	add := func(cond string, arg any) {
		where = append(where, cond)
		args = append(args, arg)
	}
	if f.Registrar != "" {
		add("registrar = ?", f.Registrar)
	}
	if f.Name != "" {
		add("name = ?", f.Name)
	}
	if f.Action != "" {
		add("action = ?", f.Action)
	}
	if !f.Since.IsZero() {
		add("at >= ?", f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		add("at < ?", f.Until.UnixNano())
	}
	if f.AfterID > 0 {
		add("id > ?", f.AfterID)
	}
	q := `SELECT id, at, registrar, action, name, result, channel, cltrid, svtrid FROM audit`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY id`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	return s.auditRows(ctx, q, args...)
}

// auditRows reads audit records.
func (s *Store) auditRows(ctx context.Context, query string, args ...any) ([]registry.AuditEntry, error) {
	out, err := queryRows(ctx, s, query, func(rows *sql.Rows) (e registry.AuditEntry, err error) {
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Registrar, &e.Action, &e.Name, &e.Result, &e.Channel, &e.ClTRID, &e.SvTRID); err != nil {
			return e, err
		}
		e.At = time.Unix(0, at).UTC()
		return e, nil
	}, args...)
	return out, internal("reading audit log", err)
}

// Reserve implements registry.OperatorStore.
func (s *Store) Reserve(ctx context.Context, r registry.ReservedName) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO reserved (zone, label, reason, created) VALUES (?, ?, ?, ?)`),
			r.Zone, r.Label, r.Reason, r.Created.UnixNano())
		return err
	})
	if err != nil && s.d.IsUnique(err) {
		return registry.Errorf(registry.CodeExists, "%s.%s is reserved already", r.Label, r.Zone)
	}
	return s.internal("reserving", err)
}

// Unreserve implements registry.OperatorStore.
func (s *Store) Unreserve(ctx context.Context, zone, label string) error {
	return s.internal("releasing a reserved name", s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM reserved WHERE zone = ? AND label = ?`), zone, label)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return registry.Errorf(registry.CodeNotFound, "%s.%s is not reserved", label, zone)
		}
		return nil
	}))
}

func (s *Store) reservedRows(ctx context.Context, query string, args ...any) ([]registry.ReservedName, error) {
	out, err := queryRows(ctx, s, query, func(rows *sql.Rows) (r registry.ReservedName, err error) {
		var created int64
		if err := rows.Scan(&r.Zone, &r.Label, &r.Reason, &created); err != nil {
			return r, err
		}
		r.Created = time.Unix(0, created).UTC()
		return r, nil
	}, args...)
	return out, internal("reading reserved names", err)
}

// ReservedNames implements registry.OperatorStore.
func (s *Store) ReservedNames(ctx context.Context, zone string) ([]registry.ReservedName, error) {
	if zone == "" {
		return s.reservedRows(ctx, `SELECT zone, label, reason, created FROM reserved ORDER BY zone, label`)
	}
	return s.reservedRows(ctx, `SELECT zone, label, reason, created FROM reserved WHERE zone = ? ORDER BY label`, zone)
}

// FindReserved implements registry.OperatorStore.
func (s *Store) FindReserved(ctx context.Context, zone string, labels []string) (*registry.ReservedName, error) {
	if len(labels) == 0 {
		return nil, registry.Errorf(registry.CodeNotFound, "nothing to look for")
	}
	e, err := s.cached(ctx, 'r', zone, labels, func() (cacheEntry, error) {
		r, err := s.findReserved(ctx, zone, labels)
		return cacheEntry{reserved: r}, err
	})
	if err != nil {
		return nil, internal("finding reserved names", err)
	}
	if e.reserved == nil {
		return nil, registry.Errorf(registry.CodeNotFound, "none of these labels is reserved in %s", zone)
	}
	return copyReserved(e.reserved), nil
}

// findReserved is FindReserved's query; nil if none of labels is reserved.
func (s *Store) findReserved(ctx context.Context, zone string, labels []string) (*registry.ReservedName, error) {
	zones := s.members(zone) // a reserved name holds its set in its family
	args := make([]any, 0, len(zones)+len(labels))
	for _, z := range zones {
		args = append(args, z)
	}
	for _, l := range labels {
		args = append(args, l)
	}
	// every check runs this: one row, through a statement prepared once
	query := `SELECT zone, label, reason, created FROM reserved WHERE zone IN (` + marks(len(zones)) + `) AND label IN (` +
		strings.TrimSuffix(strings.Repeat("?, ", len(labels)), ", ") + `) ORDER BY label LIMIT 1`
	var r registry.ReservedName
	var created int64
	err := s.read(ctx, func(ctx context.Context) error {
		return s.queryRow(ctx, nil, query, args...).Scan(&r.Zone, &r.Label, &r.Reason, &created)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r.Created = time.Unix(0, created).UTC()
	return &r, nil
}

// Ready implements registry.OperatorStore: a durable write to the
// heartbeat table. The row is new each time (and the old ones deleted in
// the same transaction), so the write needs fresh space: it fails on a
// full disk (or a full SQLite database) as a create would.
func (s *Store) Ready(ctx context.Context) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var id int64
		if err := tx.QueryRowContext(ctx, s.q(`INSERT INTO heartbeat (at, pad) VALUES (?, ?) RETURNING id`), time.Now().UnixNano(), heartbeatPad).Scan(&id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`DELETE FROM heartbeat WHERE id < ?`), id)
		return err
	})
	var ce *commitError
	if errors.As(err, &ce) {
		err = ce.err
	}
	return s.internal("readiness write", err)
}

// heartbeatPad makes a readiness write take a page of its own.
var heartbeatPad = strings.Repeat("r", 4096)
