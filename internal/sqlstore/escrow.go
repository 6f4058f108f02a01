package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"math/bits"
	"strings"

	"github.com/akshara-idn/akshara/registry"
)

// Registry data escrow (registry.EscrowStore, docs/escrow.md): a deposit
// reads the registry in one read-only snapshot, by pages of ids, each page
// whole in a few range queries; a restore writes in the restore's
// transaction (registry.Service.RestoreEscrow).

// EscrowSnapshot implements registry.EscrowStore: a read-only transaction
// (SQLite: a deferred one, a WAL snapshot that keeps no writer waiting;
// PostgreSQL: REPEATABLE READ), its snapshot fixed by a first read before
// f runs.
func (s *Store) EscrowSnapshot(ctx context.Context, f func(ctx context.Context) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if s.d.Name != "sqlite" {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		return internal("escrow snapshot", err)
	}
	defer tx.Rollback()
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM zones`).Scan(&n); err != nil {
		return internal("escrow snapshot", err)
	}
	return f(context.WithValue(ctx, atomicKey{}, &atomicTx{s: s, tx: tx}))
}

// EscrowDomains implements registry.EscrowStore.
func (s *Store) EscrowDomains(ctx context.Context, after int64, limit int) ([]*registry.EscrowDomain, error) {
	db := s.conn(ctx)
	rows, err := db.QueryContext(ctx, s.q(`SELECT `+domainColumns+` FROM domains d JOIN registrars r ON r.id = d.registrar_id WHERE d.id > ? ORDER BY d.id LIMIT ?`), after, limit)
	if err != nil {
		return nil, internal("escrow domains", err)
	}
	var out []*registry.EscrowDomain
	byID := map[int64]*registry.EscrowDomain{}
	for rows.Next() {
		d, err := scanDomain(rows)
		if err != nil {
			rows.Close()
			return nil, internal("escrow domains", err)
		}
		e := &registry.EscrowDomain{Domain: *d}
		e.Blocks = []string{}
		out = append(out, e)
		byID[d.ID] = e
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, internal("escrow domains", err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	lo, hi := out[0].ID, out[len(out)-1].ID
	type q struct {
		query string
		scan  func(rows *sql.Rows) error
	}
	var id int64
	var a, b string
	var n1, n2, n3 int64
	var nn sql.NullInt64
	queries := []q{
		// a variant group's members but its original (the oldest member):
		// the original's name (rdeDomain:originalName)
		{`SELECT d.id, o.alabel FROM domains d JOIN domains o ON o.id = (SELECT MIN(m.id) FROM domains m WHERE m.variant_group = d.variant_group) WHERE d.id BETWEEN ? AND ? AND d.variant_group IS NOT NULL AND o.id <> d.id`, func(rows *sql.Rows) error {
			if err := rows.Scan(&id, &a); err != nil {
				return err
			}
			if e := byID[id]; e != nil {
				e.Original = a
			}
			return nil
		}},
		{`SELECT domain_id, label FROM blocks WHERE domain_id BETWEEN ? AND ? ORDER BY domain_id, label`, func(rows *sql.Rows) error {
			if err := rows.Scan(&id, &a); err != nil {
				return err
			}
			if e := byID[id]; e != nil {
				e.Blocks = append(e.Blocks, a)
			}
			return nil
		}},
		{`SELECT e.domain_id, d.label, d.zone FROM exemptions e JOIN domains d ON d.id = e.other_id WHERE e.domain_id BETWEEN ? AND ? ORDER BY e.domain_id, d.id`, func(rows *sql.Rows) error {
			if err := rows.Scan(&id, &a, &b); err != nil {
				return err
			}
			if e := byID[id]; e != nil {
				e.Exempted = true
				e.ExemptWith = append(e.ExemptWith, a+"."+b)
			}
			return nil
		}},
		{`SELECT dh.domain_id, h.name FROM domain_hosts dh JOIN hosts h ON h.id = dh.host_id WHERE dh.domain_id BETWEEN ? AND ? ORDER BY dh.domain_id, h.name` + s.d.ByteOrder, func(rows *sql.Rows) error {
			if err := rows.Scan(&id, &a); err != nil {
				return err
			}
			if e := byID[id]; e != nil {
				e.NameServers = append(e.NameServers, a)
			}
			return nil
		}},
		{`SELECT domain_id, key_tag, alg, digest_type, digest FROM ds_records WHERE domain_id BETWEEN ? AND ? ORDER BY domain_id, key_tag, alg, digest_type, digest`, func(rows *sql.Rows) error {
			if err := rows.Scan(&id, &n1, &n2, &n3, &a); err != nil {
				return err
			}
			if e := byID[id]; e != nil {
				e.DS = append(e.DS, registry.DS{KeyTag: int(n1), Algorithm: int(n2), DigestType: int(n3), Digest: a})
			}
			return nil
		}},
		{`SELECT dc.domain_id, dc.role, c.handle FROM domain_contacts dc JOIN contacts c ON c.id = dc.contact_id WHERE dc.domain_id BETWEEN ? AND ? ORDER BY dc.domain_id, dc.role, c.handle`, func(rows *sql.Rows) error {
			if err := rows.Scan(&id, &a, &b); err != nil {
				return err
			}
			if e := byID[id]; e != nil {
				e.Contacts = append(e.Contacts, registry.DomainContact{Role: a, ID: b})
			}
			return nil
		}},
		{`SELECT domain_id, pw_hash FROM domain_auth WHERE domain_id BETWEEN ? AND ?`, func(rows *sql.Rows) error {
			if err := rows.Scan(&id, &a); err != nil {
				return err
			}
			if e := byID[id]; e != nil {
				e.AuthHash = a
			}
			return nil
		}},
		{`SELECT domain_id, MAX(acted) FROM transfers WHERE domain_id BETWEEN ? AND ? AND status IN ('clientApproved', 'serverApproved') GROUP BY domain_id`, func(rows *sql.Rows) error {
			if err := rows.Scan(&id, &nn); err != nil {
				return err
			}
			if e := byID[id]; e != nil && nn.Valid {
				e.Transferred = fromNanos(nn.Int64)
			}
			return nil
		}},
		{`SELECT t.domain_id, t.id, g.name, l.name, t.requested, t.due, t.period FROM transfers t JOIN registrars g ON g.id = t.gaining_id JOIN registrars l ON l.id = t.losing_id
			WHERE t.domain_id BETWEEN ? AND ? AND t.status = 'pending'`, func(rows *sql.Rows) error {
			t := &registry.Transfer{Status: registry.TransferPending}
			var period int64
			if err := rows.Scan(&id, &t.ID, &t.Gaining, &t.Losing, &n1, &n2, &period); err != nil {
				return err
			}
			t.Requested, t.ActDate, t.Period = fromNanos(n1), fromNanos(n2), int(period)
			if e := byID[id]; e != nil {
				t.Name, t.ALabel = e.Name, e.ALabel
				e.Pending = t
			}
			return nil
		}},
	}
	for _, qq := range queries {
		rows, err := db.QueryContext(ctx, s.q(qq.query), lo, hi)
		if err != nil {
			return nil, internal("escrow domains", err)
		}
		for rows.Next() {
			if err := qq.scan(rows); err != nil {
				rows.Close()
				return nil, internal("escrow domains", err)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, internal("escrow domains", err)
		}
	}
	return out, nil
}

// EscrowHosts implements registry.EscrowStore.
func (s *Store) EscrowHosts(ctx context.Context, after int64, limit int) ([]*registry.Host, error) {
	db := s.conn(ctx)
	rows, err := db.QueryContext(ctx, s.q(`SELECT h.id, h.name, r.name, h.statuses, h.created, h.updated, COALESCE(d.zone, ''), COALESCE(d.label, '')
		FROM hosts h JOIN registrars r ON r.id = h.registrar_id LEFT JOIN domains d ON d.id = h.domain_id WHERE h.id > ? ORDER BY h.id LIMIT ?`), after, limit)
	if err != nil {
		return nil, internal("escrow hosts", err)
	}
	var out []*registry.Host
	byID := map[int64]*registry.Host{}
	for rows.Next() {
		h := &registry.Host{}
		var statuses string
		var created, updated int64
		if err := rows.Scan(&h.ID, &h.Name, &h.Registrar, &statuses, &created, &updated, &h.SuperZone, &h.SuperLabel); err != nil {
			rows.Close()
			return nil, internal("escrow hosts", err)
		}
		h.ULabel = h.Name
		h.Statuses = strings.Fields(statuses)
		h.Created, h.Updated = fromNanos(created), fromNanos(updated)
		h.Addrs = []string{}
		out = append(out, h)
		byID[h.ID] = h
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, internal("escrow hosts", err)
	}
	rows, err = db.QueryContext(ctx, s.q(`SELECT host_id, addr FROM host_addrs WHERE host_id BETWEEN ? AND ? ORDER BY host_id, addr`), out[0].ID, out[len(out)-1].ID)
	if err != nil {
		return nil, internal("escrow hosts", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var a string
		if err := rows.Scan(&id, &a); err != nil {
			return nil, internal("escrow hosts", err)
		}
		if h := byID[id]; h != nil {
			h.Addrs = append(h.Addrs, a)
		}
	}
	return out, internal("escrow hosts", rows.Err())
}

// EscrowContacts implements registry.EscrowStore.
func (s *Store) EscrowContacts(ctx context.Context, after int64, limit int) ([]*registry.Contact, error) {
	rows, err := s.conn(ctx).QueryContext(ctx, s.q(`SELECT c.id, c.handle, r.name, c.data, c.auth_hash, c.statuses, c.created, c.updated
		FROM contacts c JOIN registrars r ON r.id = c.registrar_id WHERE c.id > ? ORDER BY c.id LIMIT ?`), after, limit)
	if err != nil {
		return nil, internal("escrow contacts", err)
	}
	defer rows.Close()
	var out []*registry.Contact
	for rows.Next() {
		c := &registry.Contact{}
		var data, statuses string
		var created, updated int64
		if err := rows.Scan(&c.ROID, &c.ID, &c.Registrar, &data, &c.AuthHash, &statuses, &created, &updated); err != nil {
			return nil, internal("escrow contacts", err)
		}
		c.Statuses = strings.Fields(statuses)
		c.Created, c.Updated = fromNanos(created), fromNanos(updated)
		if err := json.Unmarshal([]byte(data), &c.ContactData); err != nil {
			return nil, internal("escrow contacts", err)
		}
		out = append(out, c)
	}
	return out, internal("escrow contacts", rows.Err())
}

// EscrowLinks implements registry.EscrowStore.
func (s *Store) EscrowLinks(ctx context.Context, kind string, lo, hi int64) (map[int64][]string, error) {
	q := `SELECT DISTINCT dc.contact_id, d.zone FROM domain_contacts dc JOIN domains d ON d.id = dc.domain_id WHERE dc.contact_id BETWEEN ? AND ?`
	if kind == "host" {
		q = `SELECT DISTINCT dh.host_id, d.zone FROM domain_hosts dh JOIN domains d ON d.id = dh.domain_id WHERE dh.host_id BETWEEN ? AND ?`
	}
	rows, err := s.conn(ctx).QueryContext(ctx, s.q(q), lo, hi)
	if err != nil {
		return nil, internal("escrow links", err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var id int64
		var zone string
		if err := rows.Scan(&id, &zone); err != nil {
			return nil, internal("escrow links", err)
		}
		out[id] = append(out[id], zone)
	}
	return out, internal("escrow links", rows.Err())
}

// EscrowRegistrars implements registry.EscrowStore.
func (s *Store) EscrowRegistrars(ctx context.Context) ([]registry.EscrowRegistrar, error) {
	rows, err := s.conn(ctx).QueryContext(ctx, s.q(`SELECT name, created, revoked, abuse_email, abuse_phone FROM registrars ORDER BY id`))
	if err != nil {
		return nil, internal("escrow registrars", err)
	}
	defer rows.Close()
	var out []registry.EscrowRegistrar
	for rows.Next() {
		var r registry.EscrowRegistrar
		var created int64
		var revoked sql.NullInt64
		if err := rows.Scan(&r.Name, &created, &revoked, &r.Abuse.Email, &r.Abuse.Phone); err != nil {
			return nil, internal("escrow registrars", err)
		}
		r.Created, r.Revoked = fromNanos(created), revoked.Valid
		out = append(out, r)
	}
	return out, internal("escrow registrars", rows.Err())
}

// EscrowCursor implements registry.EscrowStore.
func (s *Store) EscrowCursor(ctx context.Context) (registry.EscrowCursor, error) {
	var c registry.EscrowCursor
	var wm int64
	err := s.conn(ctx).QueryRowContext(ctx, s.q(`SELECT kind, watermark, seq, file FROM escrow_deposits ORDER BY id DESC LIMIT 1`)).Scan(&c.Type, &wm, &c.Seq, &c.File)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil
	}
	c.Watermark = fromNanos(wm)
	return c, internal("escrow cursor", err)
}

// EscrowObjects implements registry.EscrowStore.
func (s *Store) EscrowObjects(ctx context.Context, kind string, after int64, limit int) ([]registry.EscrowObject, error) {
	rows, err := s.conn(ctx).QueryContext(ctx, s.q(`SELECT id, hash, name, extra FROM escrow_objects WHERE kind = ? AND id > ? ORDER BY id LIMIT ?`), kind, after, limit)
	if err != nil {
		return nil, internal("escrow objects", err)
	}
	defer rows.Close()
	var out []registry.EscrowObject
	for rows.Next() {
		o := registry.EscrowObject{Kind: kind}
		if err := rows.Scan(&o.ID, &o.Hash, &o.Name, &o.Extra); err != nil {
			return nil, internal("escrow objects", err)
		}
		out = append(out, o)
	}
	return out, internal("escrow objects", rows.Err())
}

// EscrowCommit implements registry.EscrowStore.
func (s *Store) EscrowCommit(ctx context.Context, files []registry.EscrowCursor, full bool, each func(f func(registry.EscrowObject) error) error) error {
	return s.internal("escrow commit", s.tx(ctx, func(tx *sql.Tx) error {
		if full {
			if _, err := tx.ExecContext(ctx, `DELETE FROM escrow_objects`); err != nil {
				return err
			}
		}
		for _, c := range files {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO escrow_deposits (kind, watermark, seq, file) VALUES (?, ?, ?, ?)`), c.Type, c.Watermark.UnixNano(), c.Seq, c.File); err != nil {
				return err
			}
		}
		del, err := tx.PrepareContext(ctx, s.q(`DELETE FROM escrow_objects WHERE kind = ? AND id = ?`))
		if err != nil {
			return err
		}
		defer del.Close()
		ins, err := tx.PrepareContext(ctx, s.q(`INSERT INTO escrow_objects (kind, id, hash, name, extra) VALUES (?, ?, ?, ?, ?)`))
		if err != nil {
			return err
		}
		defer ins.Close()
		return each(func(o registry.EscrowObject) error {
			if !full {
				if _, err := del.ExecContext(ctx, o.Kind, o.ID); err != nil {
					return err
				}
			}
			if o.Deleted {
				return nil
			}
			_, err := ins.ExecContext(ctx, o.Kind, o.ID, o.Hash, o.Name, o.Extra)
			return err
		})
	}))
}

// txStmt returns query prepared on tx, once a transaction when tx is a
// command's (a restore runs its statements once a domain: parsing each
// every time took a quarter of a SQLite restore's time).
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	a, _ := ctx.Value(atomicKey{}).(*atomicTx)
	if a == nil || a.s != s || a.tx != tx {
		return tx.PrepareContext(ctx, s.q(query))
	}
	if st, ok := a.prepared[query]; ok {
		return st, nil
	}
	st, err := tx.PrepareContext(ctx, s.q(query))
	if err != nil {
		return nil, err
	}
	if a.prepared == nil {
		a.prepared = map[string]*sql.Stmt{}
	}
	a.prepared[query] = st
	return st, nil
}

// txExec and txRow run a prepared statement of the transaction.
func (s *Store) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	st, err := s.txStmt(ctx, tx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

func (s *Store) txRow(ctx context.Context, tx *sql.Tx, query string, args ...any) interface{ Scan(...any) error } {
	st, err := s.txStmt(ctx, tx, query)
	if err != nil {
		return errRow{err}
	}
	return st.QueryRowContext(ctx, args...)
}

// EscrowBulk implements registry.EscrowStore: the dialect's bulk import
// setup on the restore's transaction (SQLite: a larger page cache for a
// transaction that writes a whole registry).
func (s *Store) EscrowBulk(ctx context.Context) (func(), error) {
	tx := s.inTx(ctx)
	if tx == nil {
		return func() {}, nil
	}
	if err := s.execAll(ctx, tx, s.d.ImportSetup); err != nil {
		return nil, internal("escrow restore setup", err)
	}
	s.restored.Store(0)
	return func() {
		for _, q := range s.d.ImportTeardown {
			tx.ExecContext(context.WithoutCancel(ctx), q) // memory, not data: errors ignored
		}
	}, nil
}

// RestoreRegistrar implements registry.EscrowStore.
func (s *Store) RestoreRegistrar(ctx context.Context, r registry.EscrowRegistrar) (int64, error) {
	var id int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		token := make([]byte, 32) // no token hashes to it: the operator rotates one
		rand.Read(token)
		var revoked any
		if r.Revoked {
			revoked = r.Created.UnixNano()
		}
		return s.txRow(ctx, tx, `INSERT INTO registrars (name, token_hash, created, revoked, abuse_email, abuse_phone) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			r.Name, token, r.Created.UnixNano(), revoked, r.Abuse.Email, r.Abuse.Phone).Scan(&id)
	})
	if err != nil && s.d.IsUnique(err) {
		return 0, registry.Errorf(registry.CodeExists, "registrar %s exists", r.Name)
	}
	return id, s.internal("restoring registrar", err)
}

// RestoreContact implements registry.EscrowStore.
func (s *Store) RestoreContact(ctx context.Context, c *registry.Contact, registrarID int64) (bool, error) {
	data, err := json.Marshal(c.ContactData)
	if err != nil {
		return false, internal("encoding contact", err)
	}
	var n int64
	err = s.tx(ctx, func(tx *sql.Tx) error {
		res, err := s.txExec(ctx, tx, `INSERT INTO contacts (handle, registrar_id, data, auth_hash, statuses, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (handle) DO NOTHING`,
			c.ID, registrarID, string(data), c.AuthHash, strings.Join(c.Statuses, " "), c.Created.UnixNano(), c.Updated.UnixNano())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, s.internal("restoring contact", err)
}

// RestoreDomainState implements registry.EscrowStore.
func (s *Store) RestoreDomainState(ctx context.Context, id int64, d *registry.EscrowDomain) error {
	return s.internal("restoring domain", s.tx(ctx, func(tx *sql.Tx) error {
		_, err := s.txExec(ctx, tx, `UPDATE domains SET created = ?, expires = ?, statuses = ?, redemption_end = ?, purge_at = ?, renewed = ?, autorenewed = ?, updated = ?,
			rev = ?, legacy = ?, data_version = ? WHERE id = ?`,
			d.Created.UnixNano(), nanos(d.Expires), strings.Join(d.Statuses, " "), nanos(d.RedemptionEnds), nanos(d.PurgeAt), nanos(d.Renewed), nanos(d.AutoRenewed),
			nanos(d.Updated), d.Rev, strings.Join(d.Legacy, " "), d.DataVersion, id)
		if err != nil {
			return err
		}
		if d.AuthHash != "" {
			if _, err := s.txExec(ctx, tx, `INSERT INTO domain_auth (domain_id, pw_hash, updated) VALUES (?, ?, ?)`, id, d.AuthHash, nanos(d.Updated)); err != nil {
				return err
			}
		}
		for _, c := range d.Contacts {
			var cid int64
			if err := s.txRow(ctx, tx, `SELECT id FROM contacts WHERE handle = ?`, c.ID).Scan(&cid); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return registry.Errorf(registry.CodeNotFound, "%s names contact %s, which the deposit does not hold", d.Name, c.ID)
				}
				return err
			}
			if _, err := s.txExec(ctx, tx, `INSERT INTO domain_contacts (domain_id, contact_id, role) VALUES (?, ?, ?)`, id, cid, c.Role); err != nil {
				return err
			}
		}
		for _, ds := range d.DS {
			if _, err := s.txExec(ctx, tx, `INSERT INTO ds_records (domain_id, key_tag, alg, digest_type, digest) VALUES (?, ?, ?, ?, ?)`, id, ds.KeyTag, ds.Algorithm, ds.DigestType, ds.Digest); err != nil {
				return err
			}
		}
		regID := func(name string) (int64, error) {
			var rid int64
			err := s.txRow(ctx, tx, `SELECT id FROM registrars WHERE name = ?`, name).Scan(&rid)
			if errors.Is(err, sql.ErrNoRows) {
				return 0, registry.Errorf(registry.CodeNotFound, "%s names registrar %s, which the deposit does not hold", d.Name, name)
			}
			return rid, err
		}
		if !d.Transferred.IsZero() {
			// the last change of sponsor (trDate), as a transfer approved then
			rid, err := regID(d.Registrar)
			if err != nil {
				return err
			}
			if _, err := s.txExec(ctx, tx, `INSERT INTO transfers (domain_id, gaining_id, losing_id, status, requested, due, acted, period) VALUES (?, ?, ?, 'serverApproved', ?, ?, ?, 0)`,
				id, rid, rid, d.Transferred.UnixNano(), d.Transferred.UnixNano(), d.Transferred.UnixNano()); err != nil {
				return err
			}
		}
		if t := d.Pending; t != nil {
			g, err := regID(t.Gaining)
			if err != nil {
				return err
			}
			l, err := regID(t.Losing)
			if err != nil {
				return err
			}
			if _, err := s.txExec(ctx, tx, `INSERT INTO transfers (domain_id, gaining_id, losing_id, status, requested, due, period) VALUES (?, ?, ?, 'pending', ?, ?, ?)`,
				id, g, l, t.Requested.UnixNano(), t.ActDate.UnixNano(), t.Period); err != nil {
				return err
			}
		}
		return s.restoreAnalyze(ctx, tx)
	}))
}

// restoreAnalyze runs the dialect's ImportAnalyze in the restore's
// transaction after its 1,000th, 4,000th, 16,000th … domain, as a bulk
// import does after its batches: the planner's statistics must follow
// tables that grow from nothing in one transaction. Without it
// PostgreSQL kept the plans of the first domains, a whole scan of the
// domains for each lookup by name, and a restore of 9,337 domains took
// 45 s, 2.6 ms a lookup, growing with the registry.
func (s *Store) restoreAnalyze(ctx context.Context, tx *sql.Tx) error {
	n := s.restored.Add(1)
	if len(s.d.ImportAnalyze) == 0 || n%1000 != 0 || n/1000&(n/1000-1) != 0 || bits.TrailingZeros64(uint64(n/1000))%2 != 0 {
		return nil
	}
	for _, q := range s.d.ImportAnalyze {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// RestoreHost implements registry.EscrowStore.
func (s *Store) RestoreHost(ctx context.Context, h *registry.Host, registrarID int64) (bool, error) {
	inserted := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		inserted = false
		var dom any
		if h.SuperZone != "" {
			var id int64
			if err := s.txRow(ctx, tx, `SELECT id FROM domains WHERE zone = ? AND label = ?`, h.SuperZone, h.SuperLabel).Scan(&id); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return registry.Errorf(registry.CodeEscrowRestore, "host %s: its domain %s.%s is not in the deposit", h.Name, h.SuperLabel, h.SuperZone)
				}
				return err
			}
			dom = id
		}
		var id int64
		err := s.txRow(ctx, tx, `INSERT INTO hosts (name, registrar_id, domain_id, statuses, created, updated) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING RETURNING id`,
			h.Name, registrarID, dom, strings.Join(h.Statuses, " "), h.Created.UnixNano(), h.Updated.UnixNano()).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // restored from another family's deposit
		}
		if err != nil {
			return err
		}
		inserted = true
		return s.insertAddrs(ctx, tx, id, h.Addrs)
	})
	return inserted, s.internal("restoring host", err)
}

// RestoreNameServers implements registry.EscrowStore.
func (s *Store) RestoreNameServers(ctx context.Context, id int64, ns []string) error {
	return s.internal("restoring name servers", s.tx(ctx, func(tx *sql.Tx) error {
		for _, n := range ns {
			var hid int64
			if err := s.txRow(ctx, tx, `SELECT id FROM hosts WHERE name = ?`, n).Scan(&hid); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return registry.Errorf(registry.CodeNotFound, "name server %s is not a host of the deposit", n)
				}
				return err
			}
			if _, err := s.txExec(ctx, tx, `INSERT INTO domain_hosts (domain_id, host_id) VALUES (?, ?)`, id, hid); err != nil {
				return err
			}
		}
		return nil
	}))
}

var _ registry.EscrowStore = (*Store)(nil)
