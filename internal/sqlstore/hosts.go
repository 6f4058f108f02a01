package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Hosts, the name servers of domains and their DS records
// (registry.DelegationStore; migration 090).

// superordinate finds the domain a host inside a zone is under and checks
// that the registrar sponsors it.
func (s *Store) superordinate(ctx context.Context, tx *sql.Tx, h *registry.Host, registrarID int64) (sql.NullInt64, error) {
	if h.SuperZone == "" {
		return sql.NullInt64{}, nil
	}
	var id, owner int64
	err := tx.QueryRowContext(ctx, s.q(`SELECT id, registrar_id FROM domains WHERE zone = ? AND label = ?`), h.SuperZone, h.SuperLabel).Scan(&id, &owner)
	if errors.Is(err, sql.ErrNoRows) {
		return sql.NullInt64{}, registry.Errorf(registry.CodeHostPolicy, "host %s is under %s.%s, which is not registered: a host inside a zone of this registry is created under a domain its registrar sponsors", h.Name, h.SuperLabel, h.SuperZone)
	}
	if err != nil {
		return sql.NullInt64{}, err
	}
	if owner != registrarID {
		return sql.NullInt64{}, registry.Errorf(registry.CodeHostPolicy, "host %s is under %s.%s, which another registrar sponsors: hosts (and their glue) go under the registrar's own domains", h.Name, h.SuperLabel, h.SuperZone)
	}
	return sql.NullInt64{Int64: id, Valid: true}, nil
}

func (s *Store) insertAddrs(ctx context.Context, tx *sql.Tx, hostID int64, addrs []string) error {
	for _, a := range addrs {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO host_addrs (host_id, addr) VALUES (?, ?)`), hostID, a); err != nil {
			return err
		}
	}
	return nil
}

// CreateHost implements registry.DelegationStore.
func (s *Store) CreateHost(ctx context.Context, h *registry.Host, registrarID int64) (*registry.Host, error) {
	out := *h
	err := s.tx(ctx, func(tx *sql.Tx) error {
		dom, err := s.superordinate(ctx, tx, h, registrarID)
		if err != nil {
			return err
		}
		err = tx.QueryRowContext(ctx, s.q(`INSERT INTO hosts (name, registrar_id, domain_id, statuses, created, updated) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`),
			h.Name, registrarID, dom, strings.Join(h.Statuses, " "), h.Created.UnixNano(), h.Updated.UnixNano()).Scan(&out.ID)
		if err != nil {
			return err
		}
		if err := s.insertAddrs(ctx, tx, out.ID, h.Addrs); err != nil {
			return err
		}
		return nil // the command writes its audit record (registry/flow.go)
	})
	if err != nil && s.d.IsUnique(err) {
		return nil, registry.Errorf(registry.CodeExists, "host %s exists", h.Name)
	}
	if err != nil {
		return nil, s.internal("creating host", err)
	}
	return &out, nil
}

// Host implements registry.DelegationStore.
func (s *Store) Host(ctx context.Context, name string) (h *registry.Host, err error) {
	err = s.read(ctx, func(ctx context.Context) error {
		h = &registry.Host{Name: name, ULabel: name}
		var statuses string
		var created, updated int64
		var dom sql.NullInt64
		err := s.rdb(ctx).QueryRowContext(ctx, s.q(`SELECT h.id, r.name, h.domain_id, h.statuses, h.created, h.updated, h.version FROM hosts h JOIN registrars r ON r.id = h.registrar_id WHERE h.name = ?`), name).
			Scan(&h.ID, &h.Registrar, &dom, &statuses, &created, &updated, &h.Version)
		if err != nil {
			return err
		}
		h.Statuses = strings.Fields(statuses)
		h.Created, h.Updated = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
		if dom.Valid {
			if err := s.rdb(ctx).QueryRowContext(ctx, s.q(`SELECT zone, label FROM domains WHERE id = ?`), dom.Int64).Scan(&h.SuperZone, &h.SuperLabel); err != nil {
				return err
			}
		}
		var n int
		if err := s.rdb(ctx).QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM domain_hosts WHERE host_id = ?`), h.ID).Scan(&n); err != nil {
			return err
		}
		h.Linked = n > 0
		rows, err := s.rdb(ctx).QueryContext(ctx, s.q(`SELECT addr FROM host_addrs WHERE host_id = ?`), h.ID)
		if err != nil {
			return err
		}
		defer rows.Close()
		h.Addrs = []string{}
		for rows.Next() {
			var a string
			if err := rows.Scan(&a); err != nil {
				return err
			}
			h.Addrs = append(h.Addrs, a)
		}
		sort.Strings(h.Addrs)
		return rows.Err()
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, registry.Errorf(registry.CodeNotFound, "there is no host %s", name)
	}
	if err != nil {
		return nil, internal("finding host", err)
	}
	return h, nil
}

// hostOf finds a host's id and sponsor in a transaction.
func (s *Store) hostOf(ctx context.Context, tx *sql.Tx, name string, registrarID int64) (int64, error) {
	var id, owner int64
	err := tx.QueryRowContext(ctx, s.q(`SELECT id, registrar_id FROM hosts WHERE name = ?`), name).Scan(&id, &owner)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, registry.Errorf(registry.CodeNotFound, "there is no host %s", name)
	}
	if err != nil {
		return 0, err
	}
	if owner != registrarID {
		return 0, registry.Errorf(registry.CodeForbidden, "host %s is sponsored by another registrar", name)
	}
	return id, nil
}

// UpdateHost implements registry.DelegationStore.
func (s *Store) UpdateHost(ctx context.Context, name string, h *registry.Host, registrarID int64) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		id, err := s.hostOf(ctx, tx, name, registrarID)
		if err != nil {
			return err
		}
		dom, err := s.superordinate(ctx, tx, h, registrarID)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE hosts SET name = ?, domain_id = ?, statuses = ?, updated = ?, version = version + 1 WHERE id = ? AND version = ?`),
			h.Name, dom, strings.Join(h.Statuses, " "), h.Updated.UnixNano(), id, h.Version)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = registry.Errorf(registry.CodeStale, "host %s changed while it was being updated", name)
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM host_addrs WHERE host_id = ?`), id); err != nil {
			return err
		}
		if err := s.insertAddrs(ctx, tx, id, h.Addrs); err != nil {
			return err
		}
		return nil // the command writes its audit record (registry/flow.go)
	})
	if err != nil && s.d.IsUnique(err) {
		return registry.Errorf(registry.CodeExists, "host %s exists", h.Name)
	}
	return s.internal("updating host", err)
}

// DeleteHost implements registry.DelegationStore.
func (s *Store) DeleteHost(ctx context.Context, name string, registrarID int64) error {
	return s.internal("deleting host", s.tx(ctx, func(tx *sql.Tx) error {
		id, err := s.hostOf(ctx, tx, name, registrarID)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM domain_hosts WHERE host_id = ?`), id).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return registry.Errorf(registry.CodeAssociated, "host %s is a name server of %d domain(s): remove it from them first", name, n)
		}
		for _, q := range []string{`DELETE FROM host_addrs WHERE host_id = ?`, `DELETE FROM hosts WHERE id = ?`} {
			if _, err := tx.ExecContext(ctx, s.q(q), id); err != nil {
				return err
			}
		}
		return nil // the command writes its audit record (registry/flow.go)
	}))
}

// ownedDomain finds the id of the domain label.zone in a transaction, if
// registrarID sponsors it (CodeNotFound, CodeForbidden).
func (s *Store) ownedDomain(ctx context.Context, tx *sql.Tx, zone, label string, registrarID int64) (int64, error) {
	var id, owner int64
	err := tx.QueryRowContext(ctx, s.q(`SELECT id, registrar_id FROM domains WHERE zone = ? AND label = ?`), zone, label).Scan(&id, &owner)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, registry.Errorf(registry.CodeNotFound, "%s.%s is not registered", label, zone)
	}
	if err != nil {
		return 0, err
	}
	if owner != registrarID {
		return 0, registry.Errorf(registry.CodeForbidden, "%s.%s belongs to another registrar", label, zone)
	}
	return id, nil
}

// ChangeDelegation implements registry.DelegationStore.
func (s *Store) ChangeDelegation(ctx context.Context, zone, label string, registrarID int64, c *registry.DelegationChange) error {
	return s.internal("changing delegation", s.tx(ctx, func(tx *sql.Tx) error {
		id, err := s.ownedDomain(ctx, tx, zone, label, registrarID)
		if err != nil {
			return err
		}
		hostID := func(name string) (int64, error) {
			var hid int64
			err := tx.QueryRowContext(ctx, s.q(`SELECT id FROM hosts WHERE name = ?`), name).Scan(&hid)
			if errors.Is(err, sql.ErrNoRows) {
				return 0, registry.Errorf(registry.CodeNotFound, "name server %s is not a host of this registry (create it first)", name)
			}
			return hid, err
		}
		for _, n := range c.RemNS {
			hid, err := hostID(n)
			if err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, s.q(`DELETE FROM domain_hosts WHERE domain_id = ? AND host_id = ?`), id, hid)
			if err != nil {
				return err
			}
			if k, err := res.RowsAffected(); err != nil || k == 0 {
				if err == nil {
					err = registry.Errorf(registry.CodeHostPolicy, "%s is not a name server of %s.%s", n, label, zone)
				}
				return err
			}
		}
		for _, n := range c.AddNS {
			hid, err := hostID(n)
			if err != nil {
				return err
			}
			var k int
			if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM domain_hosts WHERE domain_id = ? AND host_id = ?`), id, hid).Scan(&k); err != nil {
				return err
			}
			if k > 0 {
				return registry.Errorf(registry.CodeHostPolicy, "%s is already a name server of %s.%s", n, label, zone)
			}
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO domain_hosts (domain_id, host_id) VALUES (?, ?)`), id, hid); err != nil {
				return err
			}
		}
		var k int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM domain_hosts WHERE domain_id = ?`), id).Scan(&k); err != nil {
			return err
		}
		if k > c.MaxNS {
			return registry.Errorf(registry.CodeLimit, "a domain of zone %s has at most %d name servers (this change would give %s.%s %d)", zone, c.MaxNS, label, zone, k)
		}
		if c.RemAllDS {
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM ds_records WHERE domain_id = ?`), id); err != nil {
				return err
			}
		}
		for _, d := range c.RemDS {
			res, err := tx.ExecContext(ctx, s.q(`DELETE FROM ds_records WHERE domain_id = ? AND key_tag = ? AND alg = ? AND digest_type = ? AND digest = ?`), id, d.KeyTag, d.Algorithm, d.DigestType, d.Digest)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				if err == nil {
					err = registry.Errorf(registry.CodeBadDS, "%s.%s has no DS record with key tag %d, algorithm %d, digest type %d and that digest", label, zone, d.KeyTag, d.Algorithm, d.DigestType)
				}
				return err
			}
		}
		for _, d := range c.AddDS {
			var n int
			if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM ds_records WHERE domain_id = ? AND key_tag = ? AND alg = ? AND digest_type = ? AND digest = ?`), id, d.KeyTag, d.Algorithm, d.DigestType, d.Digest).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return registry.Errorf(registry.CodeBadDS, "%s.%s already has the DS record with key tag %d", label, zone, d.KeyTag)
			}
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO ds_records (domain_id, key_tag, alg, digest_type, digest) VALUES (?, ?, ?, ?, ?)`), id, d.KeyTag, d.Algorithm, d.DigestType, d.Digest); err != nil {
				return err
			}
		}
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM ds_records WHERE domain_id = ?`), id).Scan(&k); err != nil {
			return err
		}
		if k > c.MaxDS {
			return registry.Errorf(registry.CodeLimit, "a domain has at most %d DS records (this change would give %s.%s %d)", c.MaxDS, label, zone, k)
		}
		return nil // the command writes its audit record (registry/flow.go)
	}))
}

// Delegation implements registry.DelegationStore.
func (s *Store) Delegation(ctx context.Context, domainID int64) (ns []string, ds []registry.DS, err error) {
	err = s.read(ctx, func(ctx context.Context) error {
		ns, ds = nil, nil
		rows, err := s.rdb(ctx).QueryContext(ctx, s.q(`SELECT h.name FROM domain_hosts dh JOIN hosts h ON h.id = dh.host_id WHERE dh.domain_id = ? ORDER BY h.name`), domainID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return err
			}
			ns = append(ns, n)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = s.rdb(ctx).QueryContext(ctx, s.q(`SELECT key_tag, alg, digest_type, digest FROM ds_records WHERE domain_id = ? ORDER BY key_tag, alg, digest_type, digest`), domainID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var d registry.DS
			if err := rows.Scan(&d.KeyTag, &d.Algorithm, &d.DigestType, &d.Digest); err != nil {
				return err
			}
			ds = append(ds, d)
		}
		return rows.Err()
	})
	return ns, ds, internal("reading delegation", err)
}

// deleteDelegation is a domain delete's part: refused while hosts are
// under the domain; its name servers and DS records go with it.
func (s *Store) deleteDelegation(ctx context.Context, tx *sql.Tx, domainID int64, name string) error {
	if err := s.noHostsUnder(ctx, tx, domainID, name); err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM domain_hosts WHERE domain_id = ?`, `DELETE FROM ds_records WHERE domain_id = ?`, `DELETE FROM domain_contacts WHERE domain_id = ?`} {
		if _, err := tx.ExecContext(ctx, s.q(q), domainID); err != nil {
			return err
		}
	}
	return nil
}

var _ registry.DelegationStore = (*Store)(nil)

// ZonePage implements registry.DelegationStore: a page of the zone's
// domains after the A-label after, in byte order (Dialect.ByteOrder),
// then their name servers (with the zone and statuses of the domain each
// is under, and whether it has addresses), DS records, glue and the
// statuses of the domains that name each glue host, each by one query
// over the page's
// range of A-labels (after, last]. A range, not a list of ids: the
// planners' generic plans for a statement prepared once (PostgreSQL's
// after five runs) read a range by the index, where for an IN list of a
// thousand ids they read whole tables (measured: 0.5 s a page). Each
// page is read on its own (no transaction around the export: on SQLite
// a transaction holds the write lock).
func (s *Store) ZonePage(ctx context.Context, zone, after string, limit int) (page []registry.ZoneDelegation, err error) {
	return s.zonePage(ctx, zone, after, ">", limit)
}

// ZoneDomain implements registry.DNSOutboxStore: the domain name of the
// zone as ZonePage reads it (a page of the one domain, by the same
// queries), or nil.
func (s *Store) ZoneDomain(ctx context.Context, zone, name string) (*registry.ZoneDelegation, error) {
	page, err := s.zonePage(ctx, zone, name, ">=", 1)
	if err != nil || len(page) == 0 || page[0].Name != name {
		return nil, err
	}
	return &page[0], nil
}

// zonePage is ZonePage from the A-label from, after it (op ">") or from
// it on (">=").
func (s *Store) zonePage(ctx context.Context, zone, after, op string, limit int) (page []registry.ZoneDelegation, err error) {
	bo := s.d.ByteOrder
	err = s.do(ctx, func() error {
		page = page[:0]
		byID := map[int64]int{}
		if err := s.eachRow(ctx, `SELECT id, alabel, statuses FROM domains WHERE zone = ? AND alabel`+bo+` `+op+` ? ORDER BY alabel`+bo+` LIMIT ?`, []any{zone, after, limit}, func(rows *sql.Rows) error {
			var id int64
			var name, statuses string
			if err := rows.Scan(&id, &name, &statuses); err != nil {
				return err
			}
			byID[id] = len(page)
			page = append(page, registry.ZoneDelegation{Name: name, Statuses: strings.Fields(statuses)})
			return nil
		}); err != nil || len(page) == 0 {
			return err
		}
		rng := ` WHERE d.zone = ? AND d.alabel` + bo + ` ` + op + ` ? AND d.alabel` + bo + ` <= ?`
		args := []any{zone, after, page[len(page)-1].Name}
		// of a domain in the range, not on the page: created meanwhile
		of := func(id int64) *registry.ZoneDelegation {
			if i, ok := byID[id]; ok {
				return &page[i]
			}
			return nil
		}
		// each name server, and the hosts under a domain of the registry
		// (hosts.domain_id) for the next query
		type nsOf struct {
			page int
			name string
		}
		under := map[int64][]nsOf{}
		var underIDs []int64
		if err := s.eachRow(ctx, `SELECT d.id, h.id, h.name, h.domain_id FROM domains d JOIN domain_hosts dh ON dh.domain_id = d.id JOIN hosts h ON h.id = dh.host_id`+rng, args, func(rows *sql.Rows) error {
			var id, hostID int64
			var host string
			var sup sql.NullInt64
			if err := rows.Scan(&id, &hostID, &host, &sup); err != nil {
				return err
			}
			i, ok := byID[id]
			if !ok {
				return nil
			}
			page[i].NS = append(page[i].NS, host)
			if sup.Valid {
				if _, seen := under[hostID]; !seen {
					underIDs = append(underIDs, hostID)
				}
				under[hostID] = append(under[hostID], nsOf{i, host})
			}
			return nil
		}); err != nil {
			return err
		}
		// for those, the zone and statuses of the domain each is under
		// and whether it has addresses (the export leaves out some:
		// registry.publishedNS), by their ids: a list of primary keys.
		// Measured on PostgreSQL (91,043 domains, a tenth with a host
		// under them, pages of 1,000 interleaved with the plain query):
		// this query cost 0.2-6 ms more a page; the same facts in the
		// query above cost 19-38 ms more a page as subqueries, 44 ms as
		// a LEFT JOIN of domains (whose generic plan gathers parallel
		// workers)
		if err := s.hostIDList(ctx, `SELECT h.id, p.zone, p.statuses, EXISTS (SELECT 1 FROM host_addrs a WHERE a.host_id = h.id) FROM hosts h JOIN domains p ON p.id = h.domain_id WHERE h.id IN (%s)`, underIDs, func(rows *sql.Rows) error {
			var hostID int64
			var z, statuses string
			var addrs bool
			if err := rows.Scan(&hostID, &z, &statuses, &addrs); err != nil {
				return err
			}
			for _, n := range under[hostID] {
				d := &page[n.page]
				d.NSUnder = append(d.NSUnder, registry.ZoneNSHost{Name: n.name, Zone: z, Statuses: strings.Fields(statuses), Addrs: addrs})
			}
			return nil
		}); err != nil {
			return err
		}
		if err := s.eachRow(ctx, `SELECT d.id, x.key_tag, x.alg, x.digest_type, x.digest FROM domains d JOIN ds_records x ON x.domain_id = d.id`+rng, args, func(rows *sql.Rows) error {
			var id int64
			var r registry.DS
			if err := rows.Scan(&id, &r.KeyTag, &r.Algorithm, &r.DigestType, &r.Digest); err != nil {
				return err
			}
			if d := of(id); d != nil {
				d.DS = append(d.DS, r)
			}
			return nil
		}); err != nil {
			return err
		}
		glue := map[int64]*registry.ZoneGlue{}
		var order []int64
		if err := s.eachRow(ctx, `SELECT d.id, h.id, h.name, a.addr FROM domains d JOIN hosts h ON h.domain_id = d.id JOIN host_addrs a ON a.host_id = h.id`+rng, args, func(rows *sql.Rows) error {
			var id, hostID int64
			var host, addr string
			if err := rows.Scan(&id, &hostID, &host, &addr); err != nil {
				return err
			}
			i, ok := byID[id]
			if !ok {
				return nil
			}
			g := glue[hostID]
			if g == nil {
				g = &registry.ZoneGlue{Name: host, Domain: i}
				glue[hostID] = g
				order = append(order, hostID)
			}
			g.Addrs = append(g.Addrs, addr)
			return nil
		}); err != nil {
			return err
		}
		if len(glue) == 0 {
			return nil
		}
		// the distinct statuses of the zone's domains that name each host
		// under the page's domains (those with addresses are kept)
		if err := s.eachRow(ctx, `SELECT DISTINCT h.id, n.zone, n.statuses FROM domains d JOIN hosts h ON h.domain_id = d.id JOIN domain_hosts dh ON dh.host_id = h.id JOIN domains n ON n.id = dh.domain_id`+rng, args, func(rows *sql.Rows) error {
			var hostID int64
			var z, statuses string
			if err := rows.Scan(&hostID, &z, &statuses); err != nil {
				return err
			}
			if g := glue[hostID]; g != nil && z == zone {
				g.NamedBy = append(g.NamedBy, strings.Fields(statuses))
			}
			return nil
		}); err != nil {
			return err
		}
		for _, h := range order {
			g := glue[h]
			d := &page[g.Domain]
			d.Glue = append(d.Glue, *g)
		}
		return nil
	})
	return page, internal("reading zone data", err)
}

// hostIDList runs query (with one IN (%s)) over ids in chunks (idChunks)
// and f on each row; nothing for no ids.
func (s *Store) hostIDList(ctx context.Context, query string, ids []int64, f func(*sql.Rows) error) error {
	return s.idChunks(query, ids, func(q string, a []any) error {
		return s.eachRow(ctx, q, a, f)
	})
}

// eachRow runs a query and f on each of its rows.
func (s *Store) eachRow(ctx context.Context, query string, args []any, f func(*sql.Rows) error) error {
	rows, err := s.conn(ctx).QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// purgeDelegation removes what the delegation tables hold of domains being
// purged (docs/delegation.md): their name servers and DS records, and the
// hosts under them (with their addresses, and as name servers of other
// domains). A delete into redemption is refused while hosts are under the
// domain (DeleteDomain); only a domain the lifecycle deleted on expiry can
// still have them at its purge, and a host under a domain that no longer
// exists cannot stay (its name would resolve nowhere).
func (s *Store) purgeDelegation(ctx context.Context, tx *sql.Tx, ids []any) error {
	in := `(` + marks(len(ids)) + `)`
	sub := `(SELECT id FROM hosts WHERE domain_id IN ` + in + `)`
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM domain_hosts WHERE domain_id IN ` + in, ids},
		{`DELETE FROM domain_hosts WHERE host_id IN ` + sub, ids},
		{`DELETE FROM host_addrs WHERE host_id IN ` + sub, ids},
		{`DELETE FROM hosts WHERE domain_id IN ` + in, ids},
		{`DELETE FROM ds_records WHERE domain_id IN ` + in, ids},
		{`DELETE FROM domain_contacts WHERE domain_id IN ` + in, ids}, // contacts.go: the contacts stay
	} {
		if _, err := tx.ExecContext(ctx, s.q(q.sql), q.args...); err != nil {
			return err
		}
	}
	return nil
}

// noHostsUnder refuses (ASSOCIATED) while hosts are under the domain.
func (s *Store) noHostsUnder(ctx context.Context, tx *sql.Tx, domainID int64, name string) error {
	var n int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM hosts WHERE domain_id = ?`), domainID).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return registry.Errorf(registry.CodeAssociated, "%s has %d host(s) under it: delete or rename them first", name, n)
	}
	return nil
}
