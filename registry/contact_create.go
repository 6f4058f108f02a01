package registry

import "context"

// ContactCreate is a contact <create> (RFC 5733 §3.2.1).
type ContactCreate struct {
	// ID is the contact's identifier (RFC 5733 clIDType: 3 to 16
	// characters).
	ID string
	// ContactData is its postal info, phones, e-mail and disclose flags.
	ContactData
	// AuthInfo is its authInfo, kept as an argon2id hash.
	AuthInfo string
}

// CreateContact creates a contact for the registrar, in one transaction
// with its audit record.
//
// Refusals: BAD_CONTACT (a field), CONTACT_POLICY (the id), EXISTS.
func (s *Service) CreateContact(ctx context.Context, r *Registrar, req ContactCreate) (*Contact, error) {
	c, err := s.createContact(ctx, r, req)
	return c, s.refuse(ctx, r.Name, "contact-create", req.ID, err)
}

func (s *Service) createContact(ctx context.Context, r *Registrar, req ContactCreate) (*Contact, error) {
	cs, err := s.contactStore()
	if err != nil {
		return nil, err
	}
	if err := contactID(req.ID); err != nil {
		return nil, err
	}
	data := req.ContactData
	if err := checkContactData(&data); err != nil {
		return nil, err
	}
	if err := CheckAuthInfo(req.AuthInfo); err != nil {
		return nil, asBadContact(err)
	}
	hash, err := HashAuthInfo(req.AuthInfo)
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: "hashing the authInfo", Err: err}
	}
	now := s.clock.Now().UTC()
	c := &Contact{ID: req.ID, Registrar: r.Name, Statuses: []string{}, Created: now, Updated: now, ContactData: data, AuthHash: hash}
	var out *Contact
	err = s.transact(ctx, func(ctx context.Context) error {
		if out, err = cs.CreateContact(ctx, c, r.ID); err != nil {
			return err
		}
		return s.record(ctx, r.Name, "contact-create", c.ID, "")
	})
	return out, err
}
