package registry

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/akshara-idn/akshara"
)

// Contact objects (RFC 5733) and the contacts of domains (RFC 5731
// domain:registrant, domain:contact); docs/contacts.md.

// Error codes of contacts.
const (
	// CodeBadContact: a contact field the RFC 5733 schema refuses (an id
	// outside 3 to 16 characters, a line past 255, a telephone number
	// not +CC.NUMBER, an email that is no address, a country code that
	// is no ISO 3166 country).
	CodeBadContact = "BAD_CONTACT"
	// CodeContactPolicy: a contact the registry's policy refuses (an id
	// with other characters than ASCII letters, digits, '-', '_' and
	// '.'; bidi controls in a postal line; a status a registrar may not
	// set; more contacts of a role than allowed).
	CodeContactPolicy = "CONTACT_POLICY"
	// CodeContactRequired: a domain create without a contact its zone
	// requires (the zones file's `contacts`).
	CodeContactRequired = "CONTACT_REQUIRED"
	// CodeContactNotSponsored: a domain given a contact another registrar
	// sponsors (a registrar uses its own contacts only).
	CodeContactNotSponsored = "CONTACT_NOT_SPONSORED"
)

// (their entries are in the code table, codes.go)

// The roles of a domain's contacts.
const (
	RoleRegistrant = "registrant"
	RoleAdmin      = "admin"
	RoleTech       = "tech"
	RoleBilling    = "billing"
)

// MaxContactsPerRole is the most contacts of one role (admin, tech,
// billing) a domain has; it has one registrant at most.
const MaxContactsPerRole = 4

// The client statuses of a contact a registrar may set.
const (
	ContactDeleteProhibited = "clientDeleteProhibited"
	ContactUpdateProhibited = "clientUpdateProhibited"
)

// PostalInfo is a contact's name and address in one form: "int" (7-bit
// ASCII, RFC 5733 §2.3) or "loc" (any script). Every line is kept as the
// registrar gave it, byte for byte (docs/contacts.md: not normalised).
type PostalInfo struct {
	Type   string   `json:"type"` // "int" or "loc"
	Name   string   `json:"name"`
	Org    string   `json:"org,omitempty"`
	Street []string `json:"street,omitempty"` // 0 to 3
	City   string   `json:"city"`
	SP     string   `json:"sp,omitempty"`
	PC     string   `json:"pc,omitempty"`
	CC     string   `json:"cc"` // ISO 3166 alpha-2, upper case
}

// Phone is an E.164 number as RFC 5733 writes it (+CC.NUMBER) and its
// extension.
type Phone struct {
	Number string `json:"number"`
	Ext    string `json:"ext,omitempty"`
}

// Disclose is a contact's <contact:disclose>: Flag (true: disclose the
// fields, false: do not) and the fields it names: "name:int",
// "name:loc", "org:int", "org:loc", "addr:int", "addr:loc", "voice",
// "fax", "email".
type Disclose struct {
	Flag   bool     `json:"flag"`
	Fields []string `json:"fields"`
}

// ContactData is what a registrar says of a contact.
type ContactData struct {
	Postal   []PostalInfo `json:"postal"` // 1 or 2, at most one of each type
	Voice    *Phone       `json:"voice,omitempty"`
	Fax      *Phone       `json:"fax,omitempty"`
	Email    string       `json:"email"`
	Disclose *Disclose    `json:"disclose,omitempty"`
}

// Contact is a contact object.
type Contact struct {
	ID        string    `json:"id"` // the registrar's handle (clIDType)
	ROID      int64     `json:"roid"`
	Registrar string    `json:"registrar"`
	Statuses  []string  `json:"statuses"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	Linked    bool      `json:"linked"` // a domain names it
	ContactData
	// AuthHash is the argon2id hash of the contact's authInfo.
	AuthHash string `json:"-"`
	// Version counts the contact's updates (UpdateContact writes only
	// over the version it read).
	Version int64 `json:"-"`
}

// PostalOf returns the contact's postal info of a type, or nil.
func (c *Contact) PostalOf(typ string) *PostalInfo {
	for i := range c.Postal {
		if c.Postal[i].Type == typ {
			return &c.Postal[i]
		}
	}
	return nil
}

// Disclosed returns the postal info whose field ("name", "org" or "addr")
// the contact asks to publish (<contact:disclose flag="1">, the int form
// first), or nil: RDAP and WHOIS redact a field unless the contact's
// disclose says to publish it (docs/contacts.md).
func (c *Contact) Disclosed(field string) *PostalInfo {
	if c.Disclose == nil || !c.Disclose.Flag {
		return nil
	}
	for _, typ := range []string{"int", "loc"} {
		if has(c.Disclose.Fields, field+":"+typ) {
			if p := c.PostalOf(typ); p != nil {
				return p
			}
		}
	}
	return nil
}

// Discloses reports whether the contact asks to publish "voice", "fax" or
// "email".
func (c *Contact) Discloses(field string) bool {
	return c.Disclose != nil && c.Disclose.Flag && has(c.Disclose.Fields, field)
}

// DomainContact is one contact of a domain in a role.
type DomainContact struct {
	Role string `json:"role"` // registrant, admin, tech, billing
	ID   string `json:"id"`
}

// ContactChange is a change of a domain's contacts; removals first.
type ContactChange struct {
	Add, Rem []DomainContact
	// Required are the roles the zone requires: the change is refused if
	// the domain is left without one (CodeContactRequired).
	Required []string
}

// ContactStore keeps contacts and the contacts of domains. Each method is
// one transaction.
type ContactStore interface {
	// CreateContact inserts c for the registrar; CodeExists if the id is
	// taken.
	CreateContact(ctx context.Context, c *Contact, registrarID int64) (*Contact, error)
	// Contact returns a contact by id (with Linked and AuthHash), or
	// CodeNotFound.
	Contact(ctx context.Context, id string) (*Contact, error)
	// UpdateContact replaces the data, statuses and authInfo hash of the
	// contact c.ID with c's if registrarID sponsors it (CodeForbidden)
	// and it is still at c.Version (CodeStale).
	UpdateContact(ctx context.Context, c *Contact, registrarID int64) error
	// DeleteContact deletes a contact the registrar sponsors;
	// CodeAssociated while a domain names it.
	DeleteContact(ctx context.Context, id string, registrarID int64) error
	// ChangeDomainContacts applies c to the domain label.zone if
	// registrarID sponsors it: each contact added must exist
	// (CodeNotFound) and be the registrar's (CodeContactNotSponsored);
	// the result has at most one registrant and MaxContactsPerRole of
	// each other role (CodeContactPolicy), and every role of c.Required
	// (CodeContactRequired). Nothing changes on a refusal.
	ChangeDomainContacts(ctx context.Context, zone, label string, registrarID int64, c *ContactChange) error
	// DomainContacts returns a domain's contacts, by role then id.
	DomainContacts(ctx context.Context, domainID int64) ([]DomainContact, error)
}

func (s *Service) contactStore() (ContactStore, error) {
	cs, ok := s.store.(ContactStore)
	if !ok {
		return nil, Errorf(CodeInternal, "this store keeps no contacts")
	}
	return cs, nil
}

// contact reads a contact by id (checked first), with its store.
func (s *Service) contact(ctx context.Context, id string) (ContactStore, *Contact, error) {
	cs, err := s.contactStore()
	if err != nil {
		return nil, nil, err
	}
	if err := contactID(id); err != nil {
		return nil, nil, err
	}
	c, err := cs.Contact(ctx, id)
	return cs, c, err
}

// contactID checks a contact's id: the schema's clIDType (3 to 16
// characters) and the registry's policy (ASCII letters, digits, '-', '_',
// '.': an id is typed by people at registrars, and a joiner or bidi
// control in it would make two ids that look alike).
func contactID(id string) error {
	n := utf8.RuneCountInString(id)
	if !utf8.ValidString(id) || n < 3 || n > 16 || strings.TrimSpace(id) != id {
		return Errorf(CodeBadContact, "a contact id has 3 to 16 characters without surrounding spaces (%q has %d)", id, n)
	}
	for _, r := range id {
		if !(r < utf8.RuneSelf && (r == '-' || r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return Errorf(CodeContactPolicy, "contact id %q: the character %U is not allowed; an id is ASCII letters, digits, '-', '_' and '.'", id, r)
		}
	}
	return nil
}

var e164 = regexp.MustCompile(`^\+[0-9]{1,3}\.[0-9]{1,14}$`)

// checkLine checks a postal line: the schema's normalizedString of at
// most 255 characters (min 1 when required), ASCII for the int form, and
// no bidi embedding, override or isolate controls (a line is displayed;
// they would reorder what is shown around it).
func checkLine(field, v string, required, ascii bool) error {
	n := utf8.RuneCountInString(v)
	switch {
	case !utf8.ValidString(v):
		return Errorf(CodeBadContact, "%s is not UTF-8", field)
	case required && strings.TrimSpace(v) == "":
		return Errorf(CodeBadContact, "%s is required", field)
	case n > 255:
		return Errorf(CodeBadContact, "%s has at most 255 characters (%d given)", field, n)
	}
	for _, r := range v {
		switch {
		case r < 0x20 || (r >= 0x7f && r < 0xa0):
			return Errorf(CodeBadContact, "%s has the control character %U", field, r)
		case ascii && r >= 0x80:
			return Errorf(CodeBadContact, "%s of the int postal info is 7-bit ASCII (RFC 5733 §2.3; give the local script in type=\"loc\"): %q", field, r)
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			return Errorf(CodeContactPolicy, "%s has the bidi control %U, which a displayed line may not carry", field, r)
		case r == 0xfeff || (r >= 0xfff9 && r <= 0xfffb) || r == 0xfffe || r == 0xffff:
			return Errorf(CodeContactPolicy, "%s has the character %U", field, r)
		}
	}
	return nil
}

// isToken reports a schema token: no leading, trailing or double spaces.
func isToken(v string) bool {
	return !strings.HasPrefix(v, " ") && !strings.HasSuffix(v, " ") && !strings.Contains(v, "  ")
}

// checkContactData checks c and canonicalizes its country codes (upper
// case); the lines are kept as given.
func checkContactData(c *ContactData) error {
	if len(c.Postal) == 0 || len(c.Postal) > 2 {
		return Errorf(CodeBadContact, "a contact has one or two postal infos, type int and/or loc (%d given)", len(c.Postal))
	}
	seen := map[string]bool{}
	for i := range c.Postal {
		p := &c.Postal[i]
		if p.Type != "int" && p.Type != "loc" {
			return Errorf(CodeBadContact, "postal info type %q (int or loc)", p.Type)
		}
		if seen[p.Type] {
			return Errorf(CodeBadContact, "two postal infos of type %s", p.Type)
		}
		seen[p.Type] = true
		ascii := p.Type == "int"
		f := func(name string) string { return fmt.Sprintf("the %s of the %s postal info", name, p.Type) }
		if err := checkLine(f("name"), p.Name, true, ascii); err != nil {
			return err
		}
		if err := checkLine(f("org"), p.Org, false, ascii); err != nil {
			return err
		}
		if len(p.Street) > 3 {
			return Errorf(CodeBadContact, "an address has at most 3 street lines (%d given)", len(p.Street))
		}
		for _, st := range p.Street {
			if err := checkLine(f("street"), st, false, ascii); err != nil {
				return err
			}
		}
		if err := checkLine(f("city"), p.City, true, ascii); err != nil {
			return err
		}
		if err := checkLine(f("sp"), p.SP, false, ascii); err != nil {
			return err
		}
		if err := checkLine(f("pc"), p.PC, false, ascii); err != nil {
			return err
		}
		if utf8.RuneCountInString(p.PC) > 16 || !isToken(p.PC) {
			return Errorf(CodeBadContact, "a postal code is a token of at most 16 characters (%q)", p.PC)
		}
		cc := strings.ToUpper(p.CC)
		reg, err := language.ParseRegion(cc)
		if len(cc) != 2 || err != nil || !reg.IsCountry() || reg.String() != cc {
			return Errorf(CodeBadContact, "%q is not an ISO 3166 two-letter country code", p.CC)
		}
		p.CC = cc
	}
	for _, ph := range []struct {
		name string
		p    *Phone
	}{{"voice", c.Voice}, {"fax", c.Fax}} {
		if ph.p == nil {
			continue
		}
		if !e164.MatchString(ph.p.Number) {
			return Errorf(CodeBadContact, "%s %q is not a telephone number of the form +CC.NUMBER (RFC 5733 §2.5)", ph.name, ph.p.Number)
		}
		if utf8.RuneCountInString(ph.p.Ext) > 16 || !isToken(ph.p.Ext) || strings.ContainsFunc(ph.p.Ext, func(r rune) bool { return r < '0' || r > '9' }) {
			return Errorf(CodeBadContact, "%s extension %q is digits (at most 16)", ph.name, ph.p.Ext)
		}
	}
	if err := checkEmail(c.Email); err != nil {
		return err
	}
	if c.Disclose != nil {
		seen := map[string]bool{}
		for _, f := range c.Disclose.Fields {
			switch f {
			case "name:int", "name:loc", "org:int", "org:loc", "addr:int", "addr:loc", "voice", "fax", "email":
			default:
				return Errorf(CodeBadContact, "disclose field %q", f)
			}
			if seen[f] {
				return Errorf(CodeBadContact, "disclose names %s twice", f)
			}
			seen[f] = true
		}
	}
	return nil
}

// checkEmail checks an email address: one addr-spec (RFC 5322) of at most
// 254 octets, nothing around it.
func checkEmail(e string) error {
	if e == "" {
		return Errorf(CodeBadContact, "a contact has an email address")
	}
	a, err := mail.ParseAddress(e)
	if len(e) > 254 || err != nil || a.Name != "" || a.Address != e || !strings.Contains(e, "@") || strings.ContainsAny(e, " \t\r\n<>") {
		return Errorf(CodeBadContact, "%q is not an email address", e)
	}
	dom := e[strings.LastIndexByte(e, '@')+1:]
	if !strings.Contains(dom, ".") || strings.HasPrefix(dom, "[") {
		return Errorf(CodeBadContact, "%q is not an email address at a domain name", e)
	}
	return nil
}

// asBadContact reports an authInfo CheckAuthInfo refuses as BAD_CONTACT
// (a contact field; for a domain the same refusal is BAD_NAME), but a weak
// one as WEAK_AUTH_INFO, as for a domain.
func asBadContact(err error) error {
	var re *Error
	if errors.As(err, &re) && re.Code != CodeWeakAuthInfo {
		return Errorf(CodeBadContact, "%s", re.Message)
	}
	return err
}

// ContactCheck is the answer to "may this contact id be created?".
type ContactCheck struct {
	ID     string
	Avail  bool
	Reason string
}

// CheckContact answers whether a contact id is free.
func (s *Service) CheckContact(ctx context.Context, id string) (*ContactCheck, error) {
	cs, err := s.contactStore()
	if err != nil {
		return nil, err
	}
	if err := contactID(id); err != nil {
		return &ContactCheck{ID: id, Reason: InfoOf(CodeOf(err)).Reason}, nil
	}
	_, err = cs.Contact(ctx, id)
	switch {
	case CodeOf(err) == CodeNotFound:
		return &ContactCheck{ID: id, Avail: true}, nil
	case err != nil:
		return nil, err
	}
	return &ContactCheck{ID: id, Reason: "in use"}, nil
}

// ContactInfo returns a contact to its sponsor, or to a registrar that
// gives its authInfo (RFC 5733 §3.1.2); CodeForbidden to the others, and
// AUTH_INFO_LOCKED to a registrar that gave too many wrong authInfo
// (authguard.go: a wrong one is recorded, as a transfer's).
// Sponsor reports whether r sponsors it (only the sponsor learns that an
// authInfo is set).
func (s *Service) ContactInfo(ctx context.Context, r *Registrar, id, authInfo string) (*Contact, error) {
	_, c, err := s.contact(ctx, id)
	if err != nil {
		return nil, err
	}
	if r != nil && c.Registrar == r.Name {
		return c, nil
	}
	if authInfo != "" { // a guess like a transfer's: limited (authguard.go)
		defer guessLock(r, AuthObjectContact, c.ID)()
		if err := s.authLocked(ctx, r, AuthObjectContact, c.ROID, "contact "+c.ID); err != nil {
			return nil, err
		}
	}
	if authInfo == "" || len(authInfo) > maxAuthInfo || !VerifyEPPPassword(c.AuthHash, authInfo) {
		if authInfo != "" {
			s.authGuessed(ctx, r, AuthObjectContact, c.ROID, c.ID, c.ID)
		}
		return nil, Errorf(CodeForbidden, "contact %s is sponsored by another registrar: its info needs its authInfo", id)
	}
	return c, nil
}

// PublicContact returns a contact for RDAP and WHOIS, which redact it.
func (s *Service) PublicContact(ctx context.Context, id string) (*Contact, error) {
	cs, err := s.contactStore()
	if err != nil {
		return nil, err
	}
	if err := contactID(id); err != nil {
		return nil, Errorf(CodeNotFound, "there is no contact %s", id)
	}
	return cs.Contact(ctx, id)
}

// contactPolicyBinds reports whether the zones' contact policy (the
// zones file's `contacts`: the roles a domain must have) binds the
// command ctx carries: it binds every front end but those the operator
// exempted (ServiceOptions.ContactsExempt, akshara serve -contacts-exempt;
// docs/contacts.md).
func (s *Service) contactPolicyBinds(ctx context.Context) bool {
	return !s.contactsExempt[ChannelOf(ctx).Name]
}

// joinRoles lists roles for a message.
func joinRoles(roles []string) string { return strings.Join(roles, ", ") }

// requiredRoles lists the roles a zone requires.
func requiredRoles(z *Zone) []string {
	var out []string
	for _, role := range akshara.ContactRoles {
		if z.Contacts.Required(role) {
			out = append(out, role)
		}
	}
	return out
}

// checkDomainContacts checks the form of a domain's contacts.
func checkDomainContacts(cs []DomainContact) error {
	n := map[string]int{}
	for _, c := range cs {
		switch c.Role {
		case RoleRegistrant, RoleAdmin, RoleTech, RoleBilling:
		default:
			return Errorf(CodeContactPolicy, "contact role %q (registrant, admin, tech, billing)", c.Role)
		}
		if err := contactID(c.ID); err != nil {
			return err
		}
		n[c.Role]++
	}
	if n[RoleRegistrant] > 1 {
		return Errorf(CodeContactPolicy, "a domain has one registrant (%d given)", n[RoleRegistrant])
	}
	for _, role := range []string{RoleAdmin, RoleTech, RoleBilling} {
		if n[role] > MaxContactsPerRole {
			return Errorf(CodeContactPolicy, "a domain has at most %d %s contacts (%d given)", MaxContactsPerRole, role, n[role])
		}
	}
	return nil
}

func sortContacts(cs []DomainContact) []DomainContact {
	rank := map[string]int{}
	for i, r := range akshara.ContactRoles {
		rank[r] = i
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Role != cs[j].Role {
			return rank[cs[i].Role] < rank[cs[j].Role]
		}
		return cs[i].ID < cs[j].ID
	})
	return cs
}

// loadContacts fills in a domain's contacts.
func (s *Service) loadContacts(ctx context.Context, d *Domain) error {
	cs, ok := s.store.(ContactStore)
	if !ok {
		return nil
	}
	list, err := cs.DomainContacts(ctx, d.ID)
	if err != nil {
		return err
	}
	d.Contacts = sortContacts(list)
	return nil
}
