package registry

import "context"

// ContactDelete is a contact <delete> (RFC 5733 §3.2.2).
type ContactDelete struct {
	ID string
}

// DeleteContact deletes a contact the registrar sponsors, in one
// transaction with its audit record.
//
// Refusals: CONTACT_POLICY (the id), NOT_FOUND, FORBIDDEN (another
// registrar's), STATUS_PROHIBITS (clientDeleteProhibited), ASSOCIATED (a
// domain names it).
func (s *Service) DeleteContact(ctx context.Context, r *Registrar, req ContactDelete) error {
	return s.refuse(ctx, r.Name, "contact-delete", req.ID, s.deleteContact(ctx, r, req))
}

func (s *Service) deleteContact(ctx context.Context, r *Registrar, req ContactDelete) error {
	cs, err := s.contactStore()
	if err != nil {
		return err
	}
	if err := contactID(req.ID); err != nil {
		return err
	}
	return s.transact(ctx, func(ctx context.Context) error {
		c, err := sponsoredContact(ctx, cs, req.ID, r)
		if err != nil {
			return err
		}
		if has(c.Statuses, ContactDeleteProhibited) {
			return Errorf(CodeStatusProhibits, "contact %s has status %s", req.ID, ContactDeleteProhibited)
		}
		if err := cs.DeleteContact(ctx, req.ID, r.ID); err != nil { // ASSOCIATED while a domain names it
			return err
		}
		return s.record(ctx, r.Name, "contact-delete", req.ID, "")
	})
}
