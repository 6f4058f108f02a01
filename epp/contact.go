package epp

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/akshara-idn/akshara/registry"
)

// Contact objects (RFC 5733) and the contacts of domains (RFC 5731
// domain:registrant, domain:contact); docs/contacts.md. The registry does
// the work (registry/contacts.go); this file parses and maps codes.
// Contact transfers are not served (2101).

// contactOp is a <contact:check|info|create|delete|update>: the fields of
// a create (those of an update's <contact:chg>) and an update's changes.
type contactOp struct {
	IDs []domainName `xml:"urn:ietf:params:xml:ns:contact-1.0 id"`
	contactFields
	Add *contactStatuses `xml:"urn:ietf:params:xml:ns:contact-1.0 add"`
	Rem *contactStatuses `xml:"urn:ietf:params:xml:ns:contact-1.0 rem"`
	Chg *contactFields   `xml:"urn:ietf:params:xml:ns:contact-1.0 chg"`
}

type contactFields struct {
	Postal   []contactPostal  `xml:"urn:ietf:params:xml:ns:contact-1.0 postalInfo"`
	Voice    *contactPhone    `xml:"urn:ietf:params:xml:ns:contact-1.0 voice"`
	Fax      *contactPhone    `xml:"urn:ietf:params:xml:ns:contact-1.0 fax"`
	Email    *string          `xml:"urn:ietf:params:xml:ns:contact-1.0 email"`
	AuthInfo *contactAuthInfo `xml:"urn:ietf:params:xml:ns:contact-1.0 authInfo"`
	Disclose *contactDisclose `xml:"urn:ietf:params:xml:ns:contact-1.0 disclose"`
}

type contactPostal struct {
	Type string       `xml:"type,attr"`
	Name *string      `xml:"urn:ietf:params:xml:ns:contact-1.0 name"`
	Org  *string      `xml:"urn:ietf:params:xml:ns:contact-1.0 org"`
	Addr *contactAddr `xml:"urn:ietf:params:xml:ns:contact-1.0 addr"`
}

type contactAddr struct {
	Street []string `xml:"urn:ietf:params:xml:ns:contact-1.0 street"`
	City   string   `xml:"urn:ietf:params:xml:ns:contact-1.0 city"`
	SP     string   `xml:"urn:ietf:params:xml:ns:contact-1.0 sp"`
	PC     string   `xml:"urn:ietf:params:xml:ns:contact-1.0 pc"`
	CC     string   `xml:"urn:ietf:params:xml:ns:contact-1.0 cc"`
}

type contactPhone struct {
	X string `xml:"x,attr"`
	V string `xml:",chardata"`
}

type contactAuthInfo struct {
	PW  *string  `xml:"urn:ietf:params:xml:ns:contact-1.0 pw"`
	Ext *anyElem `xml:"urn:ietf:params:xml:ns:contact-1.0 ext"`
}

type contactDisclose struct {
	Flag  string       `xml:"flag,attr"`
	Name  []typedEmpty `xml:"urn:ietf:params:xml:ns:contact-1.0 name"`
	Org   []typedEmpty `xml:"urn:ietf:params:xml:ns:contact-1.0 org"`
	Addr  []typedEmpty `xml:"urn:ietf:params:xml:ns:contact-1.0 addr"`
	Voice *struct{}    `xml:"urn:ietf:params:xml:ns:contact-1.0 voice"`
	Fax   *struct{}    `xml:"urn:ietf:params:xml:ns:contact-1.0 fax"`
	Email *struct{}    `xml:"urn:ietf:params:xml:ns:contact-1.0 email"`
}

type typedEmpty struct {
	Type string `xml:"type,attr"`
}

type contactStatuses struct {
	Statuses []statusElem `xml:"urn:ietf:params:xml:ns:contact-1.0 status"`
}

// domainContact is a domain's <domain:contact type="admin|tech|billing">.
type domainContact struct {
	Type string `xml:"type,attr"`
	V    string `xml:",chardata"`
}

// contactOp returns the contact operation of an object, if it is one.
func (o *object) contactOp() *contactOp {
	for _, c := range []*contactOp{o.CCheck, o.CInfo, o.CCre, o.CDel, o.CUpd} {
		if c != nil {
			return c
		}
	}
	return nil
}

// dispatchContact runs contact commands; nil for the others.
func (ss *session) dispatchContact(obj *object, verb string, ext *cmdExt) *response {
	c := obj.contactOp()
	if c == nil {
		return nil
	}
	if ext != nil && (ext.IDN != nil || ext.SecCreate != nil || ext.SecUpdate != nil || ext.RGP != nil) {
		return fail(CodeSyntax, messages[CodeSyntax]+": a contact command takes no extension")
	}
	ids, r := objectNames(c.IDs, "contact:id", "ids", verb, 3, 16) // commands.go; eppcom:clIDType
	if r != nil {
		return r
	}
	ctx, cancel := ss.contextFor()
	defer cancel()
	svc := ss.s.svc
	switch verb {
	case "check":
		items := make([]checked, len(ids))
		for i, id := range ids {
			ch, err := svc.CheckContact(ctx, id)
			if err != nil {
				return ss.failed("contact check", id, err)
			}
			items[i] = checked{id, ch.Avail, ch.Reason}
		}
		return &response{code: CodeOK, resData: chkData("contact", NSCont, "id", items)}
	case "create":
		data, r := contactData(c)
		if r != nil {
			return r
		}
		pw, r := contactPW(c.AuthInfo, true)
		if r != nil {
			return r
		}
		co, err := svc.CreateContact(ctx, ss.registrar, registry.ContactCreate{ID: ids[0], ContactData: data, AuthInfo: pw})
		if err != nil {
			return ss.failed("contact create", ids[0], err)
		}
		var b bytes.Buffer
		b.WriteString(`<contact:creData xmlns:contact="` + NSCont + `"><contact:id>`)
		esc(&b, co.ID)
		b.WriteString(`</contact:id><contact:crDate>` + co.Created.UTC().Format(timeFormat) + `</contact:crDate></contact:creData>`)
		ss.log.Info("epp: contact created", "id", co.ID)
		return &response{code: CodeOK, resData: b.String()}
	case "info":
		pw := ""
		if c.AuthInfo != nil {
			var r *response
			if pw, r = contactPW(c.AuthInfo, false); r != nil {
				return r
			}
		}
		co, err := svc.ContactInfo(ctx, ss.registrar, ids[0], pw)
		if err != nil {
			return ss.failed("contact info", ids[0], err)
		}
		return &response{code: CodeOK, resData: contactInfData(co, co.Registrar == ss.registrar.Name)}
	case "delete":
		if err := svc.DeleteContact(ctx, ss.registrar, registry.ContactDelete{ID: ids[0]}); err != nil {
			return ss.failed("contact delete", ids[0], err)
		}
		ss.log.Info("epp: contact deleted", "id", ids[0])
		return &response{code: CodeOK}
	case "update":
		u, r := contactUpdate(c)
		if r != nil {
			return r
		}
		u.ID = ids[0]
		if err := svc.UpdateContact(ctx, ss.registrar, u); err != nil {
			return ss.failed("contact update", ids[0], err)
		}
		ss.log.Info("epp: contact updated", "id", ids[0])
		return &response{code: CodeOK}
	}
	return fail(CodeUnimplemented, fmt.Sprintf("%s: <contact:%s>", messages[CodeUnimplemented], verb))
}

// contactPW reads a <contact:authInfo>.
func contactPW(a *contactAuthInfo, required bool) (string, *response) {
	switch {
	case a == nil && required:
		return "", fail(CodeMissing, messages[CodeMissing]+": <contact:authInfo>")
	case a == nil:
		return "", nil
	case a.Ext != nil:
		return "", fail(CodeUnimplOption, messages[CodeUnimplOption]+": <contact:ext> authorization information; this registry takes <contact:pw>")
	case a.PW == nil:
		return "", fail(CodeMissing, messages[CodeMissing]+": <contact:authInfo> holds a <contact:pw>")
	}
	return *a.PW, nil
}

// postalInfo reads a create's <contact:postalInfo> (every element as
// given: the registry checks and keeps the lines byte for byte).
func postalInfo(p contactPostal) (registry.PostalInfo, *response) {
	if p.Name == nil || p.Addr == nil {
		return registry.PostalInfo{}, fail(CodeMissing, messages[CodeMissing]+": <contact:postalInfo> holds <contact:name> and <contact:addr>")
	}
	out := registry.PostalInfo{Type: strings.TrimSpace(p.Type), Name: *p.Name}
	if p.Org != nil {
		out.Org = *p.Org
	}
	setAddr(&out, p.Addr)
	return out, nil
}

func setAddr(out *registry.PostalInfo, a *contactAddr) {
	out.Street, out.City, out.SP = a.Street, a.City, a.SP
	out.PC, out.CC = strings.TrimSpace(a.PC), strings.TrimSpace(a.CC)
}

func phone(p *contactPhone) *registry.Phone {
	if p == nil {
		return nil
	}
	return &registry.Phone{Number: strings.TrimSpace(p.V), Ext: strings.TrimSpace(p.X)}
}

// disclose reads a <contact:disclose>, its fields in the schema's order.
func disclose(d *contactDisclose) (*registry.Disclose, *response) {
	if d == nil {
		return nil, nil
	}
	out := &registry.Disclose{Fields: []string{}}
	switch strings.TrimSpace(d.Flag) {
	case "1", "true":
		out.Flag = true
	case "0", "false":
	default:
		return nil, fail(CodeSyntax, messages[CodeSyntax]+`: <contact:disclose flag> is 0 or 1`)
	}
	for _, g := range []struct {
		name string
		els  []typedEmpty
	}{{"name", d.Name}, {"org", d.Org}, {"addr", d.Addr}} {
		for _, e := range g.els {
			out.Fields = append(out.Fields, g.name+":"+strings.TrimSpace(e.Type))
		}
	}
	for _, g := range []struct {
		name string
		on   bool
	}{{"voice", d.Voice != nil}, {"fax", d.Fax != nil}, {"email", d.Email != nil}} {
		if g.on {
			out.Fields = append(out.Fields, g.name)
		}
	}
	return out, nil
}

// contactData reads a <contact:create>.
func contactData(c *contactOp) (registry.ContactData, *response) {
	var d registry.ContactData
	for _, p := range c.Postal {
		pi, r := postalInfo(p)
		if r != nil {
			return d, r
		}
		d.Postal = append(d.Postal, pi)
	}
	if len(d.Postal) == 0 {
		return d, fail(CodeMissing, messages[CodeMissing]+": <contact:postalInfo>")
	}
	if c.Email == nil {
		return d, fail(CodeMissing, messages[CodeMissing]+": <contact:email>")
	}
	d.Email = strings.TrimSpace(*c.Email)
	if d.Voice = phone(c.Voice); d.Voice != nil && d.Voice.Number == "" {
		d.Voice = nil
	}
	if d.Fax = phone(c.Fax); d.Fax != nil && d.Fax.Number == "" {
		d.Fax = nil
	}
	var r *response
	d.Disclose, r = disclose(c.Disclose)
	return d, r
}

// contactUpdate reads a <contact:update>.
func contactUpdate(c *contactOp) (registry.ContactUpdate, *response) {
	var u registry.ContactUpdate
	if c.Add != nil {
		u.AddStatuses = statuses(c.Add.Statuses)
	}
	if c.Rem != nil {
		u.RemStatuses = statuses(c.Rem.Statuses)
	}
	if c.Chg == nil {
		if c.Add == nil && c.Rem == nil {
			return u, fail(CodeMissing, messages[CodeMissing]+": <contact:update> holds <contact:add>, <contact:rem> or <contact:chg>")
		}
		return u, nil
	}
	ch := c.Chg
	for _, p := range ch.Postal {
		pc := registry.PostalChange{Type: strings.TrimSpace(p.Type), Name: p.Name, Org: p.Org}
		if p.Addr != nil {
			pc.Addr = &registry.PostalInfo{}
			setAddr(pc.Addr, p.Addr)
		}
		u.Postal = append(u.Postal, pc)
	}
	u.Voice, u.Fax = phone(ch.Voice), phone(ch.Fax)
	if ch.Email != nil {
		if u.Email = strings.TrimSpace(*ch.Email); u.Email == "" {
			return u, fail(CodeMissing, messages[CodeMissing]+": an empty <contact:email> (a contact has one)")
		}
	}
	var r *response
	if ch.AuthInfo != nil {
		if u.AuthInfo, r = contactPW(ch.AuthInfo, true); r != nil {
			return u, r
		}
		if u.AuthInfo == "" {
			return u, fail(CodeMissing, messages[CodeMissing]+": an empty <contact:pw> (a contact has an authInfo)")
		}
	}
	u.Disclose, r = disclose(ch.Disclose)
	return u, r
}

// contactInfData renders a contact's <contact:infData>; the authInfo is
// said to be set (never its value: it is kept hashed) to the sponsor only.
func contactInfData(c *registry.Contact, sponsor bool) string {
	var b bytes.Buffer
	b.WriteString(`<contact:infData xmlns:contact="` + NSCont + `"><contact:id>`)
	esc(&b, c.ID)
	b.WriteString(`</contact:id><contact:roid>C` + strconv.FormatInt(c.ROID, 10) + `-AKSHARA</contact:roid>`)
	objectStatuses(&b, "contact", c.Statuses, c.Linked) // host.go
	for _, p := range c.Postal {
		b.WriteString(`<contact:postalInfo type="` + p.Type + `"><contact:name>`)
		esc(&b, p.Name)
		b.WriteString(`</contact:name>`)
		if p.Org != "" {
			b.WriteString(`<contact:org>`)
			esc(&b, p.Org)
			b.WriteString(`</contact:org>`)
		}
		b.WriteString(`<contact:addr>`)
		for _, st := range p.Street {
			b.WriteString(`<contact:street>`)
			esc(&b, st)
			b.WriteString(`</contact:street>`)
		}
		b.WriteString(`<contact:city>`)
		esc(&b, p.City)
		b.WriteString(`</contact:city>`)
		if p.SP != "" {
			b.WriteString(`<contact:sp>`)
			esc(&b, p.SP)
			b.WriteString(`</contact:sp>`)
		}
		if p.PC != "" {
			b.WriteString(`<contact:pc>`)
			esc(&b, p.PC)
			b.WriteString(`</contact:pc>`)
		}
		b.WriteString(`<contact:cc>` + p.CC + `</contact:cc></contact:addr></contact:postalInfo>`)
	}
	for _, ph := range []struct {
		name string
		p    *registry.Phone
	}{{"voice", c.Voice}, {"fax", c.Fax}} {
		if ph.p == nil {
			continue
		}
		b.WriteString(`<contact:` + ph.name)
		if ph.p.Ext != "" {
			b.WriteString(` x="`)
			esc(&b, ph.p.Ext)
			b.WriteString(`"`)
		}
		b.WriteString(`>`)
		esc(&b, ph.p.Number)
		b.WriteString(`</contact:` + ph.name + `>`)
	}
	b.WriteString(`<contact:email>`)
	esc(&b, c.Email)
	b.WriteString(`</contact:email>`)
	objectSponsor(&b, "contact", c.Registrar, c.Created, c.Updated)
	if sponsor {
		b.WriteString(`<contact:authInfo><contact:pw/></contact:authInfo>`)
	}
	if d := c.Disclose; d != nil {
		b.WriteString(`<contact:disclose flag="` + strconv.Itoa(boolInt(d.Flag)) + `">`)
		for _, f := range d.Fields {
			if name, typ, ok := strings.Cut(f, ":"); ok {
				b.WriteString(`<contact:` + name + ` type="` + typ + `"/>`)
			} else {
				b.WriteString(`<contact:` + f + `/>`)
			}
		}
		b.WriteString(`</contact:disclose>`)
	}
	b.WriteString(`</contact:infData>`)
	return b.String()
}

// domainContacts reads a domain create's <domain:registrant> and
// <domain:contact>s.
func domainContacts(registrant *domainName, cs []domainContact) ([]registry.DomainContact, *response) {
	var out []registry.DomainContact
	if registrant != nil {
		id := strings.TrimSpace(registrant.V)
		if id == "" {
			return nil, fail(CodeMissing, messages[CodeMissing]+": an empty <domain:registrant>")
		}
		out = append(out, registry.DomainContact{Role: registry.RoleRegistrant, ID: id})
	}
	for _, c := range cs {
		id, role := strings.TrimSpace(c.V), strings.TrimSpace(c.Type)
		switch {
		case id == "":
			return nil, fail(CodeMissing, messages[CodeMissing]+": an empty <domain:contact>")
		case role != registry.RoleAdmin && role != registry.RoleTech && role != registry.RoleBilling:
			return nil, fail(CodeSyntax, messages[CodeSyntax]+`: <domain:contact type> is admin, tech or billing`)
		}
		out = append(out, registry.DomainContact{Role: role, ID: id})
	}
	return out, nil
}

// domainContactsXML renders a domain's <domain:registrant> and
// <domain:contact>s (in the schema's order: after the statuses).
func domainContactsXML(d *registry.Domain) string {
	var b bytes.Buffer
	for _, c := range d.Contacts {
		if c.Role == registry.RoleRegistrant {
			b.WriteString(`<domain:registrant>`)
			esc(&b, c.ID)
			b.WriteString(`</domain:registrant>`)
		}
	}
	for _, c := range d.Contacts {
		if c.Role != registry.RoleRegistrant {
			b.WriteString(`<domain:contact type="` + c.Role + `">`)
			esc(&b, c.ID)
			b.WriteString(`</domain:contact>`)
		}
	}
	return b.String()
}

// updateContacts reads a domain <update>'s contacts: <domain:add> and
// <domain:rem> <domain:contact>s and <domain:chg><domain:registrant>
// (which replaces the registrant: the service removes the old one).
func updateContacts(u *domainUpdate) (add, rem []registry.DomainContact, newRegistrant string, r *response) {
	if u.Add != nil {
		if add, r = domainContacts(nil, u.Add.Contacts); r != nil {
			return nil, nil, "", r
		}
	}
	if u.Rem != nil {
		if rem, r = domainContacts(nil, u.Rem.Contacts); r != nil {
			return nil, nil, "", r
		}
	}
	if u.Chg != nil && u.Chg.Registrant != nil {
		if newRegistrant = strings.TrimSpace(u.Chg.Registrant.V); newRegistrant == "" {
			return nil, nil, "", fail(CodeMissing, messages[CodeMissing]+": an empty <domain:registrant> (a registrant is replaced, not removed)")
		}
	}
	return add, rem, newRegistrant, nil
}
