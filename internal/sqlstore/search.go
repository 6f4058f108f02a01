package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// RDAP's reads (registry/search.go, registry/registrars.go): the domain
// search by the start of a label, and the registrars' public data.

var (
	_ registry.DomainSearcher     = (*Store)(nil)
	_ registry.RegistrarDirectory = (*Store)(nil)
)

// maxRune follows a prefix to make the end of its range: every string
// that starts with the prefix and then a character below U+10FFFF (every
// label: U+10FFFF is a noncharacter, which IDNA disallows) sorts before
// prefix+maxRune in byte order, and it is valid UTF-8, which PostgreSQL
// needs of a text parameter.
const maxRune = "\U0010FFFF"

// searchQuery is the domain search's query on column (label or alabel)
// from a bound that is inclusive (first: >=, the first page) or not (>,
// after a cursor), in byte order (Dialect.ByteOrder): a range of the index
// on (zone, column) in that order (on SQLite domains_zone_label and
// domains_zone_alabel; on PostgreSQL domains_zone_label_c, migration 190,
// and domains_zone_alabel_c, migration 140; TestSearchQueryPlans).
func (s *Store) searchQuery(column string, first bool) string {
	bo := s.d.ByteOrder
	from := ` > ?`
	if first {
		from = ` >= ?`
	}
	return `SELECT ` + domainColumns + `, EXISTS (SELECT 1 FROM transfers t WHERE t.domain_id = d.id AND t.status = 'pending')
		FROM domains d JOIN registrars r ON r.id = d.registrar_id
		WHERE d.zone = ? AND d.` + column + bo + from + ` AND d.` + column + bo + ` < ? ORDER BY d.` + column + bo + ` LIMIT ?`
}

// SearchDomains implements registry.DomainSearcher: the page and whether a
// transfer of each is pending (by the partial index transfers_pending),
// in one query.
func (s *Store) SearchDomains(ctx context.Context, q registry.DomainQuery) (ds []registry.FoundDomain, err error) {
	column := "label"
	if q.ALabel {
		column = "alabel"
	}
	// the first page from the prefix itself (a label equal to it
	// matches), a later one from after its cursor
	first, from := q.After == "" || q.After < q.Prefix, q.After
	if first {
		from = q.Prefix
	}
	query := s.searchQuery(column, first)
	err = s.read(ctx, func(ctx context.Context) error {
		ds = ds[:0]
		db, m := s.db, &s.stmts
		if on, ok := ctx.Value(onKey{}).(*sql.DB); ok && on != s.db {
			db, m = on, &s.replicaStmts // a read on the replica (replica.go)
		}
		var rows *sql.Rows
		var err error
		args := []any{q.Zone, from, q.Prefix + maxRune, q.Limit}
		if tx := s.inTx(ctx); tx != nil {
			rows, err = tx.QueryContext(ctx, s.q(query), args...) // in a command's transaction (atomic.go)
		} else if st, serr := s.stmtOn(ctx, db, m, query); serr == nil {
			rows, err = st.QueryContext(ctx, args...)
		} else {
			rows, err = db.QueryContext(ctx, s.q(query), args...)
		}
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var pending bool
			d, err := scanDomain(scanWith{rows, &pending})
			if err != nil {
				return err
			}
			ds = append(ds, registry.FoundDomain{Domain: d, TransferPending: pending})
		}
		return rows.Err()
	})
	return ds, internal("searching domains", err)
}

// scanWith scans a row into scanDomain's columns and then extra.
type scanWith struct {
	rows  *sql.Rows
	extra any
}

func (w scanWith) Scan(dest ...any) error { return w.rows.Scan(append(dest, w.extra)...) }

// SetRegistrarAbuse implements registry.RegistrarDirectory.
func (s *Store) SetRegistrarAbuse(ctx context.Context, name string, a registry.AbuseContact) error {
	return s.updateRegistrar(ctx, "recording the abuse contact", name, `UPDATE registrars SET abuse_email = ?, abuse_phone = ? WHERE name = ?`, a.Email, a.Phone, name)
}

const publicRegistrarColumns = `SELECT id, name, created, revoked, abuse_email, abuse_phone FROM registrars WHERE `

// RegistrarByName implements registry.RegistrarDirectory.
func (s *Store) RegistrarByName(ctx context.Context, name string) (*registry.PublicRegistrar, error) {
	return s.publicRegistrar(ctx, publicRegistrarColumns+`name = ?`, name)
}

// RegistrarByID implements registry.RegistrarDirectory.
func (s *Store) RegistrarByID(ctx context.Context, id int64) (*registry.PublicRegistrar, error) {
	return s.publicRegistrar(ctx, publicRegistrarColumns+`id = ?`, id)
}

func (s *Store) publicRegistrar(ctx context.Context, query string, key any) (*registry.PublicRegistrar, error) {
	var r registry.PublicRegistrar
	err := s.read(ctx, func(ctx context.Context) error {
		var created int64
		var revoked sql.NullInt64
		if err := s.queryRow(ctx, nil, query, key).Scan(&r.ID, &r.Name, &created, &revoked, &r.Abuse.Email, &r.Abuse.Phone); err != nil {
			return err
		}
		r.Created = time.Unix(0, created).UTC()
		r.Revoked = time.Time{}
		if revoked.Valid {
			r.Revoked = time.Unix(0, revoked.Int64).UTC()
		}
		return nil
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, registry.Errorf(registry.CodeNotFound, "there is no registrar %v", key)
	}
	if err != nil {
		return nil, internal("reading a registrar", err)
	}
	return &r, nil
}
