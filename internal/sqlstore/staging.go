package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"time"
)

// A staging registry's clock offset (registry/staging.go): a row of the
// settings table, in nanoseconds. Its presence marks the database as a
// staging registry's.
const clockOffsetSetting = "staging-clock-offset"

// ClockOffset implements registry.StagingStore.
func (s *Store) ClockOffset(ctx context.Context) (time.Duration, bool, error) {
	var v string
	err := s.do(ctx, func() error {
		return s.queryRow(ctx, nil, `SELECT value FROM settings WHERE name = ?`, clockOffsetSetting).Scan(&v)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, s.internal("reading the staging clock", err)
	}
	d, err := parseOffset(v)
	return d, err == nil, s.internal("reading the staging clock", err)
}

// LockClockOffset implements registry.StagingStore: the row is created
// (at 0) if missing and locked by a no-op update, as the conflict
// relation's row is (exempt.go), then read.
func (s *Store) LockClockOffset(ctx context.Context) (time.Duration, error) {
	var d time.Duration
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO settings (name, value) VALUES (?, '0') ON CONFLICT (name) DO NOTHING`), clockOffsetSetting); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE settings SET value = value WHERE name = ?`), clockOffsetSetting); err != nil {
			return err
		}
		var v string
		if err := tx.QueryRowContext(ctx, s.q(`SELECT value FROM settings WHERE name = ?`), clockOffsetSetting).Scan(&v); err != nil {
			return err
		}
		var err error
		d, err = parseOffset(v)
		return err
	})
	return d, s.internal("locking the staging clock", err)
}

// PutClockOffset implements registry.StagingStore.
func (s *Store) PutClockOffset(ctx context.Context, d time.Duration) error {
	return s.internal("setting the staging clock", s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`UPDATE settings SET value = ? WHERE name = ?`), strconv.FormatInt(int64(d), 10), clockOffsetSetting)
		return err
	}))
}

func parseOffset(v string) (time.Duration, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("the staging clock's offset in the settings is not a number of nanoseconds: " + strconv.Quote(v))
	}
	return time.Duration(n), nil
}
