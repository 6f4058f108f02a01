package registry

import (
	"context"
	"slices"
	"strings"
)

// DomainUpdate is a domain <update> (RFC 5731 §3.2.5), every part of it:
// the statuses, contacts, registrant, name servers, DS records (RFC 5910)
// and authInfo added, removed or changed. Removals are applied before
// additions.
type DomainUpdate struct {
	// Name is label.zone, in U-labels or A-labels.
	Name string
	// AddStatuses and RemStatuses: a registrar's client* statuses, or the
	// operator's server* statuses (docs/lifecycle.md).
	AddStatuses, RemStatuses []string
	// AddContacts and RemContacts: admin, tech and billing contacts (a
	// registrant among them too); Registrant, if set, replaces the
	// registrant.
	AddContacts, RemContacts []DomainContact
	Registrant               string
	// AddNS and RemNS: name servers (host names); AddDS and RemDS: DS
	// records; RemAllDS removes every DS record first.
	AddNS, RemNS []string
	AddDS, RemDS []DS
	RemAllDS     bool
	// AuthInfo, if set, replaces the domain's authInfo ("" removes it).
	AuthInfo *string
	// Reason is why the operator changes the statuses (at most 32
	// characters), told to the sponsor in the change poll message
	// (changepoll.go); a registrar's update has none.
	Reason string
}

// empty reports whether the update changes nothing.
func (u *DomainUpdate) empty() bool {
	return len(u.AddStatuses)+len(u.RemStatuses)+len(u.AddContacts)+len(u.RemContacts)+len(u.AddNS)+len(u.RemNS)+len(u.AddDS)+len(u.RemDS) == 0 &&
		u.Registrant == "" && !u.RemAllDS && u.AuthInfo == nil
}

// UpdateDomain changes a domain: a registrar's (r) of its own domain, or,
// for a nil r, the operator's server* statuses of any domain. Every part
// is checked first, then all are written, with one audit record, in one
// transaction: a refusal of any part leaves the domain exactly as it was.
// An update that changes nothing still asks that r sponsors the domain.
//
// The domain returned is its row after the command (Info reads its
// conflict set, delegation and contacts too).
//
// Refusals: BAD_NAME, UNKNOWN_ZONE, NOT_FOUND (the domain, a host, a
// contact), FORBIDDEN (another registrar's domain; the operator changes
// statuses only), BAD_STATUS (a status the caller may not set, one the
// domain has already or lacks), STATUS_PROHIBITS (pendingDelete,
// pendingTransfer, client/serverUpdateProhibited), CONTACT_POLICY,
// CONTACT_REQUIRED, CONTACT_NOT_SPONSORED, HOST_POLICY, LIMIT, BAD_DS, and
// BAD_NAME for a short authInfo.
func (s *Service) UpdateDomain(ctx context.Context, r *Registrar, req DomainUpdate) (*Domain, error) {
	d, err := s.updateDomain(ctx, r, req)
	return d, s.refuse(ctx, actorOf(r), updateAction(&req), req.Name, err)
}

func (s *Service) updateDomain(ctx context.Context, r *Registrar, req DomainUpdate) (*Domain, error) {
	// parse: every part, without the store
	z, label, err := s.locate(req.Name)
	if err != nil {
		return nil, err
	}
	if err := checkStatusChange(r, req.AddStatuses, req.RemStatuses); err != nil {
		return nil, err
	}
	if r == nil && !onlyStatuses(&req) {
		return nil, Errorf(CodeForbidden, "the operator changes a domain's server statuses only; its registrar changes the rest")
	}
	addC, remC := req.AddContacts, req.RemContacts
	if req.Registrant != "" {
		addC = append(slices.Clone(addC), DomainContact{Role: RoleRegistrant, ID: req.Registrant})
	}
	for _, list := range [][]DomainContact{addC, remC} {
		for _, c := range list {
			if err := checkDomainContacts([]DomainContact{c}); err != nil {
				return nil, err
			}
		}
	}
	deleg, err := s.delegationChange(z, Delegation{AddNS: req.AddNS, RemNS: req.RemNS, AddDS: req.AddDS, RemDS: req.RemDS, RemAllDS: req.RemAllDS})
	if err != nil {
		return nil, err
	}
	authHash, setAuth := "", req.AuthInfo != nil
	if setAuth && *req.AuthInfo != "" {
		if err := CheckAuthInfo(*req.AuthInfo); err != nil {
			return nil, err
		}
		if authHash, err = HashAuthInfo(*req.AuthInfo); err != nil {
			return nil, &Error{Code: CodeInternal, Message: "hashing the authInfo", Err: err}
		}
	}

	// one transaction: read, authorise, check, write
	var out *Domain
	err = s.transact(ctx, func(ctx context.Context) error {
		d, err := s.domainIn(ctx, z, label)
		if err != nil {
			return err
		}
		if r != nil {
			if err := owned(d, r); err != nil {
				return err
			}
			// clientUpdateProhibited refuses every update but the one that
			// removes it (RFC 5731 §2.3), which may change the rest too
			lifted := slices.Contains(req.RemStatuses, StatusClientUpdateProhibited)
			if err := prohibits(d, "updates", StatusPendingDelete, StatusServerUpdateProhibited); err != nil {
				return err
			}
			if !lifted {
				if err := prohibits(d, "updates", StatusClientUpdateProhibited); err != nil {
					return err
				}
			}
		}
		if err := statusesApply(d, req.AddStatuses, req.RemStatuses); err != nil {
			return err
		}
		// the DNS outbox (dnsoutbox.go): statuses (a hold) and name
		// servers change what the zone publishes of the domain, the hosts
		// under it and the domains naming them, the hosts it names
		var w *dnsWatch
		if len(req.AddStatuses)+len(req.RemStatuses) > 0 || !deleg.empty() {
			if w, err = s.watchDNS(ctx, []DNSDomain{{z.Name, label}}); err != nil {
				return err
			}
		}
		now := s.clock.Now()
		ch := change(ctx, d, updateAction(&req), actorOf(r), now)
		ch.Statuses = slices.DeleteFunc(ch.Statuses, func(st string) bool { return slices.Contains(req.RemStatuses, st) })
		ch.Statuses = append(ch.Statuses, req.AddStatuses...)
		slices.Sort(ch.Statuses)
		ch.Result = updateResult(&req)
		ch.RefusePendingTransfer = r != nil && !req.empty()
		if r == nil && !req.empty() {
			notifyOperator(ctx, d, ch, req.Reason) // the sponsor hears of it (changepoll.go)
		}
		if out, err = s.store.ApplyChange(ctx, d, ch); err != nil { // the statuses, the revision, the audit record
			return err
		}
		if len(addC)+len(remC) > 0 {
			if err := s.changeContacts(ctx, d, z, r, addC, remC, req.Registrant != ""); err != nil {
				return err
			}
			if err := s.groupRegistrant(ctx, d, r, addC, remC); err != nil { // sameentity.go
				return err
			}
		}
		if !deleg.empty() {
			ds, err := s.delegationStore()
			if err != nil {
				return err
			}
			if err := ds.ChangeDelegation(ctx, z.Name, label, r.ID, deleg); err != nil {
				return err
			}
		}
		if w != nil {
			if err := w.record(ctx); err != nil {
				return err
			}
		}
		if setAuth {
			ts, err := s.transferStore()
			if err != nil {
				return err
			}
			if err := ts.SetAuthInfo(ctx, d.ID, r.ID, authHash, AuditEntry{At: now, Name: d.Name}); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// checkStatusChange refuses a status the caller may not set or remove: a
// registrar (r) sets client* statuses, the operator (nil) server* ones.
func checkStatusChange(r *Registrar, add, rem []string) error {
	allowed := ClientStatuses
	if r == nil {
		allowed = ServerStatuses
	}
	for _, st := range append(slices.Clone(add), rem...) {
		if !slices.Contains(allowed, st) {
			who := "a registrar sets only " + strings.Join(ClientStatuses, ", ")
			if r == nil {
				who = "the operator sets only " + strings.Join(ServerStatuses, ", ")
			}
			return Errorf(CodeBadStatus, "status %q cannot be set or removed here: %s", st, who)
		}
	}
	return nil
}

// statusesApply refuses adding a status the domain has or removing one it
// lacks.
func statusesApply(d *Domain, add, rem []string) error {
	for _, st := range add {
		if d.HasStatus(st) {
			return Errorf(CodeBadStatus, "%s already has status %s", d.Name, st)
		}
	}
	for _, st := range rem {
		if !d.HasStatus(st) {
			return Errorf(CodeBadStatus, "%s does not have status %s", d.Name, st)
		}
	}
	return nil
}

// onlyStatuses reports whether an update changes statuses only.
func onlyStatuses(u *DomainUpdate) bool {
	return len(u.AddContacts)+len(u.RemContacts)+len(u.AddNS)+len(u.RemNS)+len(u.AddDS)+len(u.RemDS) == 0 &&
		u.Registrant == "" && !u.RemAllDS && u.AuthInfo == nil
}

// updateAction is the audit record's action of an update: "status" for
// one that changes statuses only, "auth-info" for one that changes the
// authInfo only (as the audit log has always named them), "update" for
// the others.
func updateAction(u *DomainUpdate) string {
	switch {
	case onlyStatuses(u) && len(u.AddStatuses)+len(u.RemStatuses) > 0:
		return "status"
	case u.AuthInfo != nil && len(u.AddStatuses)+len(u.RemStatuses) == 0 && onlyAuthInfo(u):
		return "auth-info"
	}
	return "update"
}

// onlyAuthInfo reports whether an update changes nothing but statuses and
// the authInfo.
func onlyAuthInfo(u *DomainUpdate) bool {
	return len(u.AddContacts)+len(u.RemContacts)+len(u.AddNS)+len(u.RemNS)+len(u.AddDS)+len(u.RemDS) == 0 &&
		u.Registrant == "" && !u.RemAllDS
}

// updateResult is the audit record's result of an update: ok, and the
// statuses it added (+) and removed (-).
func updateResult(u *DomainUpdate) string {
	parts := []string{"ok"}
	for _, st := range u.AddStatuses {
		parts = append(parts, "+"+st)
	}
	for _, st := range u.RemStatuses {
		parts = append(parts, "-"+st)
	}
	return strings.Join(parts, " ")
}

// changeContacts changes a domain's contacts in the command's
// transaction: removals, then additions; replacing the registrant removes
// the one it has. The zone's required roles must remain (where its policy
// binds the command's front end).
func (s *Service) changeContacts(ctx context.Context, d *Domain, z *Zone, r *Registrar, add, rem []DomainContact, registrant bool) error {
	store, err := s.contactStore()
	if err != nil {
		return err
	}
	if registrant {
		cur, err := store.DomainContacts(ctx, d.ID)
		if err != nil {
			return err
		}
		for _, c := range cur {
			if c.Role == RoleRegistrant {
				rem = append(slices.Clone(rem), c)
			}
		}
	}
	var required []string
	if s.contactPolicyBinds(ctx) {
		required = requiredRoles(z)
	}
	return store.ChangeDomainContacts(ctx, z.Name, d.Label, r.ID, &ContactChange{Add: add, Rem: rem, Required: required})
}
