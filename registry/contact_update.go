package registry

import (
	"context"
	"sort"
)

// ContactUpdate is a contact <update> (RFC 5733 §3.2.5): statuses added
// and removed, and the fields set replace the contact's.
type ContactUpdate struct {
	ID                       string
	AddStatuses, RemStatuses []string
	// Postal changes the postal info of each type it names (one of a
	// type the contact lacks is added).
	Postal     []PostalChange
	Voice, Fax *Phone // nil: unchanged; an empty Number removes it
	Email      string // "": unchanged
	Disclose   *Disclose
	AuthInfo   string // "": unchanged
}

// PostalChange is a <contact:chg>'s postal info: the fields set replace
// the contact's of that type.
type PostalChange struct {
	Type      string
	Name, Org *string
	Addr      *PostalInfo // its Street, City, SP, PC and CC
}

// UpdateContact changes a contact the registrar sponsors: every part
// checked first, all written with the audit record in one transaction.
//
// Refusals: CONTACT_POLICY (the id; a status a registrar may not set, or
// one the contact has already or lacks), NOT_FOUND, FORBIDDEN (another
// registrar's), STATUS_PROHIBITS (clientUpdateProhibited, unless the
// update removes it), BAD_CONTACT (a field of the result, the authInfo).
func (s *Service) UpdateContact(ctx context.Context, r *Registrar, req ContactUpdate) error {
	return s.refuse(ctx, r.Name, "contact-update", req.ID, s.updateContact(ctx, r, req))
}

func (s *Service) updateContact(ctx context.Context, r *Registrar, u ContactUpdate) error {
	cs, err := s.contactStore()
	if err != nil {
		return err
	}
	if err := contactID(u.ID); err != nil {
		return err
	}
	for _, st := range append(append([]string(nil), u.AddStatuses...), u.RemStatuses...) {
		if st != ContactDeleteProhibited && st != ContactUpdateProhibited {
			return Errorf(CodeContactPolicy, "status %q: a registrar sets %s and %s only", st, ContactDeleteProhibited, ContactUpdateProhibited)
		}
	}
	authHash := ""
	if u.AuthInfo != "" {
		if err := CheckAuthInfo(u.AuthInfo); err != nil {
			return asBadContact(err)
		}
		if authHash, err = HashAuthInfo(u.AuthInfo); err != nil {
			return &Error{Code: CodeInternal, Message: "hashing the authInfo", Err: err}
		}
	}
	return s.transact(ctx, func(ctx context.Context) error {
		c, err := sponsoredContact(ctx, cs, u.ID, r)
		if err != nil {
			return err
		}
		if has(c.Statuses, ContactUpdateProhibited) && !has(u.RemStatuses, ContactUpdateProhibited) {
			return Errorf(CodeStatusProhibits, "contact %s has status %s: remove it first", u.ID, ContactUpdateProhibited)
		}
		next := *c
		if next.Statuses, err = changeSet(c.Statuses, u.AddStatuses, u.RemStatuses, "contact "+u.ID, "status", CodeContactPolicy); err != nil {
			return err
		}
		next.Postal = append([]PostalInfo(nil), c.Postal...)
		for _, p := range u.Postal {
			i := 0
			for i < len(next.Postal) && next.Postal[i].Type != p.Type {
				i++
			}
			if i == len(next.Postal) {
				next.Postal = append(next.Postal, PostalInfo{Type: p.Type})
			}
			q := &next.Postal[i]
			if p.Name != nil {
				q.Name = *p.Name
			}
			if p.Org != nil {
				q.Org = *p.Org
			}
			if a := p.Addr; a != nil {
				q.Street, q.City, q.SP, q.PC, q.CC = a.Street, a.City, a.SP, a.PC, a.CC
			}
		}
		sort.Slice(next.Postal, func(i, j int) bool { return next.Postal[i].Type < next.Postal[j].Type })
		for _, ph := range []struct{ in, out **Phone }{{&u.Voice, &next.Voice}, {&u.Fax, &next.Fax}} {
			if *ph.in != nil {
				*ph.out = *ph.in
				if (*ph.in).Number == "" {
					*ph.out = nil
				}
			}
		}
		if u.Email != "" {
			next.Email = u.Email
		}
		if u.Disclose != nil {
			next.Disclose = u.Disclose
		}
		if err := checkContactData(&next.ContactData); err != nil {
			return err
		}
		if authHash != "" {
			next.AuthHash = authHash
		}
		next.Updated = s.clock.Now().UTC()
		// over the version read (STALE: the command runs again)
		if err := cs.UpdateContact(ctx, &next, r.ID); err != nil {
			return err
		}
		return s.record(ctx, r.Name, "contact-update", u.ID, "")
	})
}
