package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"net/netip"
	"strconv"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Login security and address allow-lists (issue 38; registry/loginsec.go,
// registry/allowlist.go; migration 240).

// SetEPPPasswordLifetime implements registry.EPPStore.
func (s *Store) SetEPPPasswordLifetime(ctx context.Context, registrar string, lifetime *time.Duration, expires time.Time) error {
	var life sql.NullInt64
	if lifetime != nil {
		life = sql.NullInt64{Int64: int64(*lifetime / time.Second), Valid: true}
	}
	return internal("setting the EPP password lifetime", s.tx(ctx, func(tx *sql.Tx) error {
		id, err := s.eppRow(ctx, tx, registrar)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q(`UPDATE epp_credentials SET pw_lifetime = ?, pw_expires = ?, updated = ? WHERE registrar_id = ?`),
			life, nullTime(expires), time.Now().UnixNano(), id)
		return err
	}))
}

// SetEPPPasswordExpires implements registry.EPPStore.
func (s *Store) SetEPPPasswordExpires(ctx context.Context, registrar string, expires time.Time) error {
	return internal("setting the EPP password expiry", s.tx(ctx, func(tx *sql.Tx) error {
		id, err := s.registrarID(ctx, tx, registrar)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE epp_credentials SET pw_expires = ?, updated = ? WHERE registrar_id = ? AND pw_hash <> ''`),
			nullTime(expires), time.Now().UnixNano(), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = registry.Errorf(registry.CodeNotFound, "registrar %q has no EPP password", registrar)
			}
			return err
		}
		return nil
	}))
}

// EPPDefaultPasswordLifetime implements registry.EPPStore.
func (s *Store) EPPDefaultPasswordLifetime(ctx context.Context) (time.Duration, error) {
	var v string
	err := s.do(ctx, func() error {
		return s.queryRow(ctx, nil, `SELECT value FROM epp_settings WHERE name = 'pw_lifetime'`).Scan(&v)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, s.internal("reading the EPP password lifetime", err)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, registry.Errorf(registry.CodeInternal, "the stored EPP password lifetime %q is not a number of seconds", v)
	}
	return time.Duration(n) * time.Second, nil
}

// SetEPPDefaultPasswordLifetime implements registry.EPPStore: the setting
// and, for the registrars without a lifetime of their own, their
// passwords' expiry (the time each was set plus d; none for 0), in one
// transaction.
func (s *Store) SetEPPDefaultPasswordLifetime(ctx context.Context, d time.Duration) error {
	secs := int64(d / time.Second)
	return internal("setting the EPP password lifetime", s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM epp_settings WHERE name = 'pw_lifetime'`)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO epp_settings (name, value) VALUES ('pw_lifetime', ?)`), strconv.FormatInt(secs, 10)); err != nil {
			return err
		}
		var err error
		if secs == 0 {
			_, err = tx.ExecContext(ctx, s.q(`UPDATE epp_credentials SET pw_expires = NULL WHERE pw_lifetime IS NULL`))
		} else {
			_, err = tx.ExecContext(ctx, s.q(`UPDATE epp_credentials SET pw_expires = pw_changed + ? WHERE pw_lifetime IS NULL AND pw_hash <> ''`), secs*int64(time.Second))
		}
		return err
	}))
}

// SetAllowList implements registry.AllowListStore.
func (s *Store) SetAllowList(ctx context.Context, registrar string, prefixes []netip.Prefix) error {
	return internal("setting the allow-list", s.tx(ctx, func(tx *sql.Tx) error {
		id, err := s.registrarID(ctx, tx, registrar)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q(`UPDATE registrars SET allow_from = ? WHERE id = ?`), registry.FormatAllowList(prefixes), id)
		return err
	}))
}

// AllowLists implements registry.AllowListStore.
func (s *Store) AllowLists(ctx context.Context) (map[string][]netip.Prefix, error) {
	out := map[string][]netip.Prefix{}
	err := s.do(ctx, func() error {
		clear(out)
		rows, err := s.conn(ctx).QueryContext(ctx, s.q(`SELECT name, allow_from FROM registrars WHERE allow_from <> ''`))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name, allow string
			if err := rows.Scan(&name, &allow); err != nil {
				return err
			}
			out[name] = registry.ReadAllowList(allow)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.internal("reading allow-lists", err)
	}
	return out, nil
}

var _ registry.AllowListStore = (*Store)(nil)
