package registry

import (
	"context"
	"strings"
	"time"
)

// What RDAP publishes of a registrar (docs/rdap.md, "The registrar"): its
// name, when it was added, whether it is revoked, and its abuse contact,
// where reports of abuse of the domains it sponsors go, which the
// registry operator records (akshara registrar abuse).

// AbuseContact is a registrar's abuse contact: an email address and a
// telephone number (+CC.NUMBER, RFC 5733 §2.5), either may be empty.
type AbuseContact struct {
	Email string `json:"email,omitempty"`
	Phone string `json:"phone,omitempty"`
}

// IsZero reports whether no abuse contact is recorded.
func (a AbuseContact) IsZero() bool { return a.Email == "" && a.Phone == "" }

// PublicRegistrar is a registrar as RDAP shows it.
type PublicRegistrar struct {
	ID      int64
	Name    string
	Created time.Time
	Revoked time.Time // zero while it is not revoked
	Abuse   AbuseContact
}

// RegistrarDirectory is implemented by stores that keep registrars'
// public data (the SQL stores do).
type RegistrarDirectory interface {
	// SetRegistrarAbuse records a registrar's abuse contact (both fields
	// empty: none); ErrNotFound if there is no such registrar.
	SetRegistrarAbuse(ctx context.Context, name string, a AbuseContact) error
	// RegistrarByName and RegistrarByID return a registrar, revoked or
	// not; ErrNotFound if there is none.
	RegistrarByName(ctx context.Context, name string) (*PublicRegistrar, error)
	RegistrarByID(ctx context.Context, id int64) (*PublicRegistrar, error)
}

func (s *Service) registrarDirectory() (RegistrarDirectory, error) {
	d, ok := s.store.(RegistrarDirectory)
	if !ok {
		return nil, Errorf(CodeInternal, "the store keeps no registrar directory")
	}
	return d, nil
}

// CheckAbuseContact checks an abuse contact: an email address (one
// addr-spec at a domain name, as a contact's) and a telephone number of
// the form +CC.NUMBER, each optional.
func CheckAbuseContact(a AbuseContact) error {
	if a.Email != "" {
		if err := checkEmail(a.Email); err != nil {
			return Errorf(CodeBadContact, "abuse email %q is not an email address at a domain name", a.Email)
		}
	}
	if a.Phone != "" && !e164.MatchString(a.Phone) {
		return Errorf(CodeBadContact, "abuse telephone %q is not of the form +CC.NUMBER (such as +91.1123456789; RFC 5733 §2.5)", a.Phone)
	}
	return nil
}

// SetRegistrarAbuse records a registrar's abuse contact (replacing the one
// before; both fields empty removes it). It is recorded in the audit log
// (action registrar-abuse), whatever the outcome.
func (s *Service) SetRegistrarAbuse(ctx context.Context, name string, a AbuseContact) error {
	a.Email, a.Phone = strings.TrimSpace(a.Email), strings.TrimSpace(a.Phone)
	err := s.setRegistrarAbuse(ctx, name, a)
	s.audit(ctx, AuditEntry{Registrar: name, Action: "registrar-abuse", Name: name, Result: resultOf(err)}) // a failure is logged and counted
	return err
}

func (s *Service) setRegistrarAbuse(ctx context.Context, name string, a AbuseContact) error {
	if err := checkInput(name); err != nil {
		return err
	}
	if err := CheckAbuseContact(a); err != nil {
		return err
	}
	d, err := s.registrarDirectory()
	if err != nil {
		return err
	}
	return d.SetRegistrarAbuse(ctx, name, a)
}

// PublicRegistrar returns a registrar's public data by its name (a
// domain's or host's sponsor); ErrNotFound if there is none. A replica
// may answer it.
func (s *Service) PublicRegistrar(ctx context.Context, name string) (*PublicRegistrar, error) {
	if err := checkInput(name); err != nil {
		return nil, err
	}
	d, err := s.registrarDirectory()
	if err != nil {
		return nil, err
	}
	return d.RegistrarByName(ReadOnly(ctx), name)
}

// PublicRegistrarByID is PublicRegistrar by the registrar's ID.
func (s *Service) PublicRegistrarByID(ctx context.Context, id int64) (*PublicRegistrar, error) {
	d, err := s.registrarDirectory()
	if err != nil {
		return nil, err
	}
	return d.RegistrarByID(ReadOnly(ctx), id)
}
