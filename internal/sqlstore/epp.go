package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// registrarID finds a registrar by name in a transaction.
func (s *Store) registrarID(ctx context.Context, tx *sql.Tx, name string) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, s.q(`SELECT id FROM registrars WHERE name = ?`), name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, registry.Errorf(registry.CodeNotFound, "there is no registrar %q", name)
	}
	return id, err
}

// setEPP updates one column of a registrar's EPP credentials, creating the
// row (with empty other columns) if there is none.
func (s *Store) setEPP(ctx context.Context, registrar, column, value string) error {
	return internal("setting EPP credentials", s.tx(ctx, func(tx *sql.Tx) error {
		id, err := s.eppRow(ctx, tx, registrar)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q(`UPDATE epp_credentials SET `+column+` = ?, updated = ? WHERE registrar_id = ?`), value, time.Now().UnixNano(), id)
		return err
	}))
}

// eppRow returns the id of a registrar, creating its EPP credentials row
// (with empty columns) if it has none.
func (s *Store) eppRow(ctx context.Context, tx *sql.Tx, registrar string) (int64, error) {
	id, err := s.registrarID(ctx, tx, registrar)
	if err != nil {
		return 0, err
	}
	var one int
	err = tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM epp_credentials WHERE registrar_id = ?`), id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO epp_credentials (registrar_id, pw_hash, cert_sha256, updated) VALUES (?, '', '', ?)`), id, time.Now().UnixNano())
	}
	return id, err
}

// SetEPPPassword implements registry.EPPStore.
func (s *Store) SetEPPPassword(ctx context.Context, registrar, hash string, changed, expires time.Time) error {
	return internal("setting EPP credentials", s.tx(ctx, func(tx *sql.Tx) error {
		id, err := s.eppRow(ctx, tx, registrar)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q(`UPDATE epp_credentials SET pw_hash = ?, pw_changed = ?, pw_expires = ?, updated = ? WHERE registrar_id = ?`),
			hash, changed.UnixNano(), nullTime(expires), time.Now().UnixNano(), id)
		return err
	}))
}

// nullTime is t in Unix ns, NULL for the zero time.
func nullTime(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

// SetEPPCertificate implements registry.EPPStore.
func (s *Store) SetEPPCertificate(ctx context.Context, registrar, sha256hex string) error {
	return s.setEPP(ctx, registrar, "cert_sha256", sha256hex)
}

// EPPCredentials implements registry.EPPStore.
func (s *Store) EPPCredentials(ctx context.Context, registrar string) (*registry.Registrar, *registry.EPPCredentials, error) {
	r := &registry.Registrar{}
	c := &registry.EPPCredentials{}
	var created, changed int64
	var revoked, expires, lifetime sql.NullInt64
	var allow string
	err := s.do(ctx, func() error {
		return s.queryRow(ctx, nil, `SELECT r.id, r.name, r.created, r.revoked, r.allow_from, e.pw_hash, e.cert_sha256, e.pw_changed, e.pw_expires, e.pw_lifetime FROM registrars r JOIN epp_credentials e ON e.registrar_id = r.id WHERE r.name = ?`,
			registrar).Scan(&r.ID, &r.Name, &created, &revoked, &allow, &c.PasswordHash, &c.CertSHA256, &changed, &expires, &lifetime)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, registry.Errorf(registry.CodeNotFound, "registrar %q has no EPP credentials", registrar)
	}
	if err != nil {
		return nil, nil, s.internal("reading EPP credentials", err)
	}
	r.Created = time.Unix(0, created).UTC()
	r.AllowFrom = registry.ReadAllowList(allow)
	c.Revoked = revoked.Valid
	if changed != 0 {
		c.PasswordChanged = time.Unix(0, changed).UTC()
	}
	if expires.Valid {
		c.PasswordExpires = time.Unix(0, expires.Int64).UTC()
	}
	if lifetime.Valid {
		d := time.Duration(lifetime.Int64) * time.Second
		c.PasswordLifetime = &d
	}
	return r, c, nil
}

var _ registry.EPPStore = (*Store)(nil)
