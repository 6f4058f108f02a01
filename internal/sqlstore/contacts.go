package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Contacts and the contacts of domains (registry.ContactStore; migration
// 100).

var _ registry.ContactStore = (*Store)(nil)

// CreateContact implements registry.ContactStore.
func (s *Store) CreateContact(ctx context.Context, c *registry.Contact, registrarID int64) (*registry.Contact, error) {
	data, err := json.Marshal(c.ContactData)
	if err != nil {
		return nil, internal("encoding contact", err)
	}
	out := *c
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, s.q(`INSERT INTO contacts (handle, registrar_id, data, auth_hash, statuses, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			c.ID, registrarID, string(data), c.AuthHash, strings.Join(c.Statuses, " "), c.Created.UnixNano(), c.Updated.UnixNano()).Scan(&out.ROID); err != nil {
			return err
		}
		return nil // the command writes its audit record (registry/flow.go)
	})
	if err != nil && s.d.IsUnique(err) {
		return nil, registry.Errorf(registry.CodeExists, "contact %s exists", c.ID)
	}
	if err != nil {
		return nil, s.internal("creating contact", err)
	}
	return &out, nil
}

// Contact implements registry.ContactStore.
func (s *Store) Contact(ctx context.Context, id string) (c *registry.Contact, err error) {
	err = s.do(ctx, func() error {
		c = &registry.Contact{ID: id}
		var data, statuses string
		var created, updated int64
		err := s.conn(ctx).QueryRowContext(ctx, s.q(`SELECT c.id, r.name, c.data, c.auth_hash, c.statuses, c.created, c.updated, c.version,
			EXISTS (SELECT 1 FROM domain_contacts dc WHERE dc.contact_id = c.id)
			FROM contacts c JOIN registrars r ON r.id = c.registrar_id WHERE c.handle = ?`), id).
			Scan(&c.ROID, &c.Registrar, &data, &c.AuthHash, &statuses, &created, &updated, &c.Version, &c.Linked)
		if err != nil {
			return err
		}
		c.Statuses = strings.Fields(statuses)
		c.Created, c.Updated = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
		return json.Unmarshal([]byte(data), &c.ContactData)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, registry.Errorf(registry.CodeNotFound, "there is no contact %s", id)
	}
	if err != nil {
		return nil, internal("finding contact", err)
	}
	return c, nil
}

// lockContact takes the contact's row lock (PostgreSQL; SQLite's writes
// are serialized anyway) until the transaction ends: a delete and a link
// of the same contact then run one after the other, so a delete never
// misses a link made meanwhile, nor a link lands on a deleted contact.
// CodeNotFound if the contact is gone.
func (s *Store) lockContact(ctx context.Context, tx *sql.Tx, rowID int64, id string) error {
	res, err := tx.ExecContext(ctx, s.q(`UPDATE contacts SET handle = handle WHERE id = ?`), rowID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = registry.Errorf(registry.CodeNotFound, "there is no contact %s", id)
		}
		return err
	}
	return nil
}

// contactOf finds a contact's row id and sponsor in a transaction.
func (s *Store) contactOf(ctx context.Context, tx *sql.Tx, id string) (rowID, owner int64, err error) {
	err = tx.QueryRowContext(ctx, s.q(`SELECT id, registrar_id FROM contacts WHERE handle = ?`), id).Scan(&rowID, &owner)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, registry.Errorf(registry.CodeNotFound, "there is no contact %s", id)
	}
	return rowID, owner, err
}

// UpdateContact implements registry.ContactStore.
func (s *Store) UpdateContact(ctx context.Context, c *registry.Contact, registrarID int64) error {
	data, err := json.Marshal(c.ContactData)
	if err != nil {
		return internal("encoding contact", err)
	}
	return s.internal("updating contact", s.tx(ctx, func(tx *sql.Tx) error {
		rowID, owner, err := s.contactOf(ctx, tx, c.ID)
		if err != nil {
			return err
		}
		if owner != registrarID {
			return registry.Errorf(registry.CodeForbidden, "contact %s is sponsored by another registrar", c.ID)
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE contacts SET data = ?, auth_hash = ?, statuses = ?, updated = ?, version = version + 1 WHERE id = ? AND version = ?`),
			string(data), c.AuthHash, strings.Join(c.Statuses, " "), c.Updated.UnixNano(), rowID, c.Version)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = registry.Errorf(registry.CodeStale, "contact %s changed while it was being updated", c.ID)
			}
			return err
		}
		return nil // the command writes its audit record (registry/flow.go)
	}))
}

// DeleteContact implements registry.ContactStore.
func (s *Store) DeleteContact(ctx context.Context, id string, registrarID int64) error {
	return s.internal("deleting contact", s.tx(ctx, func(tx *sql.Tx) error {
		rowID, owner, err := s.contactOf(ctx, tx, id)
		if err != nil {
			return err
		}
		if owner != registrarID {
			return registry.Errorf(registry.CodeForbidden, "contact %s is sponsored by another registrar", id)
		}
		if err := s.lockContact(ctx, tx, rowID, id); err != nil { // before counting the links
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(DISTINCT domain_id) FROM domain_contacts WHERE contact_id = ?`), rowID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return registry.Errorf(registry.CodeAssociated, "contact %s is a contact of %d domain(s): replace it there first", id, n)
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM contacts WHERE id = ?`), rowID); err != nil {
			return err
		}
		return nil // the command writes its audit record (registry/flow.go)
	}))
}

// ChangeDomainContacts implements registry.ContactStore.
func (s *Store) ChangeDomainContacts(ctx context.Context, zone, label string, registrarID int64, c *registry.ContactChange) error {
	return s.internal("changing domain contacts", s.tx(ctx, func(tx *sql.Tx) error {
		id, err := s.ownedDomain(ctx, tx, zone, label, registrarID) // hosts.go
		if err != nil {
			return err
		}
		for _, dc := range c.Rem {
			res, err := tx.ExecContext(ctx, s.q(`DELETE FROM domain_contacts WHERE domain_id = ? AND role = ? AND contact_id = (SELECT id FROM contacts WHERE handle = ?)`), id, dc.Role, dc.ID)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				if err == nil {
					err = registry.Errorf(registry.CodeContactPolicy, "%s is not a %s contact of %s.%s", dc.ID, dc.Role, label, zone)
				}
				return err
			}
		}
		for _, dc := range c.Add {
			cid, cowner, err := s.contactOf(ctx, tx, dc.ID)
			if err != nil {
				return err
			}
			if cowner != registrarID {
				return registry.Errorf(registry.CodeContactNotSponsored, "contact %s is sponsored by another registrar: a domain takes its own registrar's contacts only", dc.ID)
			}
			if err := s.lockContact(ctx, tx, cid, dc.ID); err != nil { // a concurrent delete
				return err
			}
			var k int
			if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM domain_contacts WHERE domain_id = ? AND role = ? AND contact_id = ?`), id, dc.Role, cid).Scan(&k); err != nil {
				return err
			}
			if k > 0 {
				return registry.Errorf(registry.CodeContactPolicy, "%s is already a %s contact of %s.%s", dc.ID, dc.Role, label, zone)
			}
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO domain_contacts (domain_id, contact_id, role) VALUES (?, ?, ?)`), id, cid, dc.Role); err != nil {
				return err
			}
		}
		rows, err := tx.QueryContext(ctx, s.q(`SELECT role, COUNT(*) FROM domain_contacts WHERE domain_id = ? GROUP BY role`), id)
		if err != nil {
			return err
		}
		count := map[string]int{}
		for rows.Next() {
			var role string
			var n int
			if err := rows.Scan(&role, &n); err != nil {
				rows.Close()
				return err
			}
			count[role] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if count[registry.RoleRegistrant] > 1 {
			return registry.Errorf(registry.CodeContactPolicy, "a domain has one registrant (this change would give %s.%s %d; remove the old one in the same update)", label, zone, count[registry.RoleRegistrant])
		}
		for _, role := range []string{registry.RoleAdmin, registry.RoleTech, registry.RoleBilling} {
			if count[role] > registry.MaxContactsPerRole {
				return registry.Errorf(registry.CodeContactPolicy, "a domain has at most %d %s contacts (this change would give %s.%s %d)", registry.MaxContactsPerRole, role, label, zone, count[role])
			}
		}
		for _, role := range c.Required {
			if count[role] == 0 {
				return registry.Errorf(registry.CodeContactRequired, "a domain of zone %s has a %s contact: this change would leave %s.%s without one", zone, role, label, zone)
			}
		}
		return nil // the command writes its audit record (registry/flow.go)
	}))
}

// DomainContacts implements registry.ContactStore.
func (s *Store) DomainContacts(ctx context.Context, domainID int64) (out []registry.DomainContact, err error) {
	err = s.do(ctx, func() error {
		out = nil
		rows, err := s.conn(ctx).QueryContext(ctx, s.q(`SELECT dc.role, c.handle FROM domain_contacts dc JOIN contacts c ON c.id = dc.contact_id WHERE dc.domain_id = ? ORDER BY dc.role, c.handle`), domainID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var dc registry.DomainContact
			if err := rows.Scan(&dc.Role, &dc.ID); err != nil {
				return err
			}
			out = append(out, dc)
		}
		return rows.Err()
	})
	return out, internal("reading domain contacts", err)
}
