package registry

import (
	"context"
	"errors"
)

// Flows: every command of a registrar or of the operator that changes the
// registry is one method of Service, in a file of its own named after the
// object and the command (domain_create.go, domain_update.go,
// host_update.go, …), that reads top to bottom:
//
//  1. parse: the request's names, periods, statuses and data checked and
//     made canonical, without the store;
//  2. one transaction (transact): read what the command decides on,
//     authorise, check every part, then write every part, its audit record
//     and its poll messages;
//  3. answer: the object after, or the refusal with its code (and, for a
//     refusal, an audit record of its own, written after the transaction
//     was rolled back: the store is exactly as it was).
//
// The checks that several commands share are the small helpers of this
// file (owned, prohibits, …), never another command's file. docs/architecture.md.

// transact runs f as one transaction of the store (Store.Atomic): every
// store method f calls with the context it is given joins it, and either
// all that f wrote is committed or none of it. f is run again from the
// start when a change it decided on was decided on a revision that is no
// longer the stored one (ErrStale, CodeStale: another command changed the
// object between f's read and its write), and by the store on a transient
// fault; f must therefore read everything it decides on through its
// context, and change nothing outside the store.
func (s *Service) transact(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, f, done := withFlow(ctx, f) // billing.go: the audit record's ID, the fees, what follows the commit
	for attempt := 0; ; attempt++ {
		err := s.store.Atomic(ctx, f)
		if (errors.Is(err, ErrStale) || CodeOf(err) == CodeStale) && attempt < maxStale {
			continue
		}
		return done(err)
	}
}

// maxStale bounds the runs of a command that found its object changed
// under it: each run is a transaction that lost to a concurrent one, which
// made progress.
const maxStale = 100

// refuse records a refused command in the audit log (after its
// transaction was rolled back: outside it) and returns err. A successful
// command records itself in its transaction.
func (s *Service) refuse(ctx context.Context, actor, action, name string, err error) error {
	if err != nil {
		s.audit(ctx, AuditEntry{Registrar: actor, Action: action, Name: name, Result: CodeOf(err)})
	}
	return err
}

// record writes a command's audit record in its transaction, at the
// clock's time, with the channel of ctx.
func (s *Service) record(ctx context.Context, actor, action, name, result string) error {
	e := s.auditEntry(ctx, actor, action, name)
	if result != "" {
		e.Result = result
	}
	e.Name, e.Registrar = auditName(e.Name), auditName(e.Registrar)
	return s.store.Audit(ctx, e)
}

// actorOf names who runs a command: the registrar, or the operator for a
// nil one.
func actorOf(r *Registrar) string {
	if r == nil {
		return "operator"
	}
	return r.Name
}

// domainIn reads the domain label of zone z in the command's transaction:
// its row, what commands decide on (Store.DomainState; its conflict set
// is the store's to keep, and not read).
func (s *Service) domainIn(ctx context.Context, z *Zone, label string) (*Domain, error) {
	return s.store.DomainState(ctx, z.Name, label)
}

// sponsoredDomain reads, in the command's transaction, the domain label of
// zone z that r must sponsor: NOT_FOUND, FORBIDDEN.
func (s *Service) sponsoredDomain(ctx context.Context, z *Zone, label string, r *Registrar) (*Domain, error) {
	d, err := s.domainIn(ctx, z, label)
	if err != nil {
		return nil, err
	}
	return d, owned(d, r)
}

// sponsoredHost reads, in the command's transaction, the host that r must
// sponsor: NOT_FOUND, FORBIDDEN.
func sponsoredHost(ctx context.Context, ds DelegationStore, name string, r *Registrar) (*Host, error) {
	h, err := ds.Host(ctx, name)
	if err != nil {
		return nil, err
	}
	if h.Registrar != r.Name {
		return nil, Errorf(CodeForbidden, "host %s is sponsored by another registrar", h.Name)
	}
	return h, nil
}

// sponsoredContact reads, in the command's transaction, the contact that
// r must sponsor: NOT_FOUND, FORBIDDEN.
func sponsoredContact(ctx context.Context, cs ContactStore, id string, r *Registrar) (*Contact, error) {
	c, err := cs.Contact(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.Registrar != r.Name {
		return nil, Errorf(CodeForbidden, "contact %s is sponsored by another registrar", id)
	}
	return c, nil
}
