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
		id, err := s.registrarID(ctx, tx, registrar)
		if err != nil {
			return err
		}
		now := time.Now().UnixNano()
		res, err := tx.ExecContext(ctx, s.q(`UPDATE epp_credentials SET `+column+` = ?, updated = ? WHERE registrar_id = ?`), value, now, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n > 0 {
			return err
		}
		pw, cert := "", ""
		if column == "pw_hash" {
			pw = value
		} else {
			cert = value
		}
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO epp_credentials (registrar_id, pw_hash, cert_sha256, updated) VALUES (?, ?, ?, ?)`), id, pw, cert, now)
		return err
	}))
}

// SetEPPPassword implements registry.EPPStore.
func (s *Store) SetEPPPassword(ctx context.Context, registrar, hash string) error {
	return s.setEPP(ctx, registrar, "pw_hash", hash)
}

// SetEPPCertificate implements registry.EPPStore.
func (s *Store) SetEPPCertificate(ctx context.Context, registrar, sha256hex string) error {
	return s.setEPP(ctx, registrar, "cert_sha256", sha256hex)
}

// EPPCredentials implements registry.EPPStore.
func (s *Store) EPPCredentials(ctx context.Context, registrar string) (*registry.Registrar, *registry.EPPCredentials, error) {
	r := &registry.Registrar{}
	c := &registry.EPPCredentials{}
	var created int64
	var revoked sql.NullInt64
	err := s.do(ctx, func() error {
		return s.queryRow(ctx, nil, `SELECT r.id, r.name, r.created, r.revoked, e.pw_hash, e.cert_sha256 FROM registrars r JOIN epp_credentials e ON e.registrar_id = r.id WHERE r.name = ?`,
			registrar).Scan(&r.ID, &r.Name, &created, &revoked, &c.PasswordHash, &c.CertSHA256)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, registry.Errorf(registry.CodeNotFound, "registrar %q has no EPP credentials", registrar)
	}
	if err != nil {
		return nil, nil, s.internal("reading EPP credentials", err)
	}
	r.Created = time.Unix(0, created).UTC()
	c.Revoked = revoked.Valid
	return r, c, nil
}

var _ registry.EPPStore = (*Store)(nil)
