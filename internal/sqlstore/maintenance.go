package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/akshara-idn/akshara/registry"
)

// Maintenance windows (migration 232; registry/maintenance.go).

// SaveMaintenance implements registry.MaintenanceStore.
func (s *Store) SaveMaintenance(ctx context.Context, m *registry.Maintenance) error {
	data, err := json.Marshal(m)
	if err != nil {
		return internal("saving a maintenance window", err)
	}
	return s.internal("saving a maintenance window", s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO maintenance (id, data, created, cancelled) VALUES (?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET data = excluded.data, cancelled = excluded.cancelled`), m.ID, string(data), nanos(m.Created), nanos(m.Cancelled))
		return err
	}))
}

// Maintenance implements registry.MaintenanceStore.
func (s *Store) Maintenance(ctx context.Context, id string) (*registry.Maintenance, error) {
	var data string
	err := s.conn(ctx).QueryRowContext(ctx, s.q(`SELECT data FROM maintenance WHERE id = ?`), id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, registry.Errorf(registry.CodeNotFound, "there is no maintenance %s", id)
	}
	if err != nil {
		return nil, internal("reading a maintenance window", err)
	}
	m := &registry.Maintenance{}
	return m, internal("reading a maintenance window", json.Unmarshal([]byte(data), m))
}

// Maintenances implements registry.MaintenanceStore.
func (s *Store) Maintenances(ctx context.Context) ([]*registry.Maintenance, error) {
	out, err := queryRows(ctx, s, `SELECT data FROM maintenance WHERE cancelled = 0 ORDER BY created, id`, func(rows *sql.Rows) (*registry.Maintenance, error) {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		m := &registry.Maintenance{}
		return m, json.Unmarshal([]byte(data), m)
	})
	return out, internal("listing maintenance windows", err)
}

var _ registry.MaintenanceStore = (*Store)(nil)
