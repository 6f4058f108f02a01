package registry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// DomainCreate is a domain <create> (RFC 5731 §3.2.1), every part of it.
type DomainCreate struct {
	// Name is label.zone, in U-labels or A-labels.
	Name string
	// Lang is the language table (a tag such as hi; "ldh" for a plain
	// ASCII label), or "" (or "auto") for the zone's first language that
	// accepts the label.
	Lang string
	// Period is the registration period; the zero Period is the zone's
	// default (docs/lifecycle.md).
	Period Period
	// AuthInfo is the domain's authInfo (RFC 5731 §2.6), stored hashed;
	// "" for none (no transfer is possible until the sponsor sets one).
	AuthInfo string
	// Contacts are the domain's registrant and admin, tech and billing
	// contacts, the registrar's own (docs/contacts.md).
	Contacts []DomainContact
	// NameServers (host names, which must be hosts of the registry) and
	// DS records delegate the domain (docs/delegation.md).
	NameServers []string
	DS          []DS
	// Exempt brings in a name registered before, under an older conflict
	// relation (the operator's import, never a registrar's command: no
	// front end sets it): labels of its conflict set held by other
	// domains do not refuse it; it and they are kept, exempted with each
	// other (Store.CreateExemptDomain, docs/import.md). EXISTS only if the
	// name itself is registered.
	Exempt bool
}

// CreateDomain registers a domain for the registrar: the name, its whole
// conflict set, its authInfo, contacts, name servers and DS records, and
// the audit record, in one transaction; a refusal leaves nothing.
//
// Refusals: BAD_NAME, UNKNOWN_ZONE, UNKNOWN_LANGUAGE and INVALID_LABEL
// (with the policy's errors) for the name; PERIOD_RANGE; RESERVED; EXISTS
// for the name itself and CONFLICT for a name blocked by a registered
// domain (BlockedBy names it); CONTACT_REQUIRED, CONTACT_POLICY,
// CONTACT_NOT_SPONSORED and NOT_FOUND for the contacts; NOT_FOUND, LIMIT,
// BAD_NAME and BAD_DS for the delegation.
func (s *Service) CreateDomain(ctx context.Context, r *Registrar, req DomainCreate) (*Domain, error) {
	d, err := s.createDomain(ctx, r, req)
	action := "create"
	if req.Exempt {
		action = "create-exempt"
	}
	return d, s.refuse(ctx, r.Name, action, req.Name, err)
}

func (s *Service) createDomain(ctx context.Context, r *Registrar, req DomainCreate) (*Domain, error) {
	// parse: the name, the period, the authInfo, the contacts' form and
	// the delegation, without the store
	if req.AuthInfo != "" {
		if err := CheckAuthInfo(req.AuthInfo); err != nil {
			return nil, err
		}
	}
	n, c, err := s.judgeName(req.Name, req.Lang)
	if err != nil {
		return nil, err
	}
	z := n.zone
	months, err := z.period(req.Period)
	if err != nil {
		return nil, err
	}
	if len(c.errs) > 0 {
		return nil, &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s is not a valid %s label", n.label, c.lang), Errors: c.errs}
	}
	deleg, err := s.delegationChange(z, Delegation{AddNS: req.NameServers, AddDS: req.DS})
	if err != nil {
		return nil, err
	}
	if err := s.checkCreateContacts(ctx, z, req.Contacts); err != nil {
		return nil, err
	}
	full, afull := s.fullName(&c, z)
	if !req.Exempt {
		if err := s.notReserved(ctx, z, &c, full); err != nil { // a read of the cache, before the transaction
			return nil, err
		}
	}
	now := s.clock.Now()
	d := &Domain{Name: full, ALabel: afull, Label: c.label, Zone: z.Name, Lang: c.lang, Registrar: r.Name, Blocks: c.blocks,
		DataVersion: s.version, Created: now, Expires: addMonths(now, months)}
	if req.Exempt {
		d.Expires = time.Time{} // as an import without expiry dates (docs/import.md)
	}
	if req.AuthInfo != "" { // hashed after the checks, before the transaction
		if d.AuthInfoHash, err = HashAuthInfo(req.AuthInfo); err != nil {
			return nil, &Error{Code: CodeInternal, Message: "hashing the authInfo", Err: err}
		}
	}

	// one transaction: the domain and its conflict set (the unique index
	// on labels refuses a held one), the authInfo, the audit record, the
	// delegation and the contacts (the store checks that the hosts exist
	// and the contacts are the registrar's, under its locks)
	var created *Domain
	err = s.transact(ctx, func(ctx context.Context) error {
		var err error
		if req.Exempt {
			created, err = s.store.CreateExemptDomain(ctx, d, r.ID)
		} else if created, err = s.joinVariantGroup(ctx, z, &c, d, r, req.Contacts); err == nil && created == nil { // sameentity.go
			created, err = s.store.CreateDomain(ctx, d, r.ID)
		}
		if err != nil {
			return err
		}
		if !req.Exempt { // the price of the create, in its transaction (billing.go)
			if err := s.charge(ctx, r.ID, r.Name, BillCreate, created, months); err != nil {
				return err
			}
		}
		if !deleg.empty() {
			ds, err := s.delegationStore()
			if err != nil {
				return err
			}
			// the DNS outbox (dnsoutbox.go): the domain, the hosts it names
			w, err := s.watchDNS(ctx, []DNSDomain{{d.Zone, d.Label}})
			if err != nil {
				return err
			}
			if err := ds.ChangeDelegation(ctx, d.Zone, d.Label, r.ID, deleg); err != nil {
				return err
			}
			if err := w.record(ctx); err != nil {
				return err
			}
		}
		if len(req.Contacts) > 0 {
			cs, err := s.contactStore()
			if err != nil {
				return err
			}
			return cs.ChangeDomainContacts(ctx, d.Zone, d.Label, r.ID, &ContactChange{Add: req.Contacts})
		}
		return nil
	})
	if errors.Is(err, ErrConflict) {
		return nil, s.conflict(ctx, z, &c, full)
	}
	if err != nil {
		return nil, err
	}
	created.NameServers, created.DS = deleg.AddNS, deleg.AddDS
	sort.Strings(created.NameServers)
	created.Contacts = sortContacts(append([]DomainContact(nil), req.Contacts...))
	return created, nil
}

// checkCreateContacts checks the form of a create's contacts and that
// they fill the roles the zone requires (where its policy binds the
// command's front end: contactPolicyBinds).
func (s *Service) checkCreateContacts(ctx context.Context, z *Zone, cs []DomainContact) error {
	if err := checkDomainContacts(cs); err != nil {
		return err
	}
	if !s.contactPolicyBinds(ctx) {
		return nil
	}
	for _, role := range requiredRoles(z) {
		found := false
		for _, c := range cs {
			found = found || c.Role == role
		}
		if !found {
			return Errorf(CodeContactRequired, "a domain of zone %s has a %s contact (the zone's policy requires %s)", z.Name, role, joinRoles(requiredRoles(z)))
		}
	}
	return nil
}

// notReserved refuses a name the operator reserved, or a variant of one.
func (s *Service) notReserved(ctx context.Context, z *Zone, c *canonical, full string) error {
	rn, err := s.reservedAmong(ctx, z.Name, c.blocks)
	if err != nil || rn == nil {
		return err
	}
	msg := full + " is reserved by the registry"
	if rn.Label != c.label || rn.Zone != z.Name { // a variant, or the label under its variant TLD
		msg = full + " is a variant of " + rn.Label + "." + rn.Zone + ", which is reserved by the registry"
	}
	return &Error{Code: CodeReserved, Message: msg}
}

// conflict explains a create refused because a label of its conflict set
// is held: EXISTS for the name itself (exempted domains share labels, so
// the first holder of the set need not be it), CONFLICT naming the holder.
func (s *Service) conflict(ctx context.Context, z *Zone, c *canonical, full string) error {
	if own, err := s.store.Domain(ctx, z.Name, c.label); err == nil {
		msg := full + " is already registered"
		if own.Deleted() {
			msg += "; it is deleted and is purged at " + own.PurgeAt.Format(time.RFC3339) + " (its registrar may restore it until its redemption period ends)"
		}
		return &Error{Code: CodeExists, Message: msg, BlockedBy: own.Name}
	}
	e := &Error{Code: CodeConflict, Message: full + " conflicts with a registered domain"}
	if b, err := s.store.FindBlocker(ctx, z.Name, c.blocks); err == nil {
		e.BlockedBy = b.Name
		e.Message = full + " is blocked by " + b.Name
		if b.Deleted() {
			e.Message += ", deleted and in its redemption or pending delete period until " + b.PurgeAt.Format(time.RFC3339)
		}
		if b.Label == c.label && b.Zone == z.Name {
			e.Code, e.Message = CodeExists, full+" is already registered"
		} else {
			e.Message += sameEntityNote(z, c.label, b) // sameentity.go
		}
	}
	return e
}
