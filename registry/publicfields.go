package registry

import "strings"

// ContactField is one field of a contact as the public front ends (RDAP
// and WHOIS) show it: redacted unless the contact's <contact:disclose
// flag="1"> names it (docs/contacts.md). Both take the fields a contact
// has, and which of them are published, from Contact.PublicFields, so
// that WHOIS redacts exactly what RDAP removes.
type ContactField struct {
	// Name is the field's word in the ICANN RDAP Response Profile's
	// redaction names ("Registrant Name", "Tech Email") and in WHOIS
	// keys: Name, Organization, Street, City, State/Province, Postal
	// Code, Country, Phone, Fax, Email.
	Name string
	// Shown says the contact's disclose publishes the field; Value is
	// then its text (street lines joined by ", ", a telephone number and
	// " ext. " its extension), "" where the postal info published has
	// none (a state of a form without one). Not shown: redacted.
	Shown bool
	Value string
}

// PublicFields returns the fields the contact has, in the order above: a
// field it has in none of its postal infos (an organization, a state, a
// postal code, street lines), or a fax or telephone it has not, is left
// out; the name, city, country and email are always there. A name,
// organization or address is published from the postal info Disclosed
// names (the int form first); an organization that form lacks is not.
func (c *Contact) PublicFields() []ContactField {
	org, street, sp, pc := false, false, false, false
	for _, p := range c.Postal {
		org = org || p.Org != ""
		street = street || len(p.Street) > 0
		sp = sp || p.SP != ""
		pc = pc || p.PC != ""
	}
	name, o, addr := c.Disclosed("name"), c.Disclosed("org"), c.Disclosed("addr")
	var out []ContactField
	add := func(field string, present bool, p *PostalInfo, value func(*PostalInfo) string) {
		if !present {
			return
		}
		f := ContactField{Name: field}
		if p != nil {
			f.Shown, f.Value = true, value(p)
		}
		out = append(out, f)
	}
	phone := func(field string, ph *Phone, disclose string) {
		if ph == nil {
			return
		}
		f := ContactField{Name: field}
		if c.Discloses(disclose) {
			f.Shown, f.Value = true, ph.Number
			if ph.Ext != "" {
				f.Value += " ext. " + ph.Ext
			}
		}
		out = append(out, f)
	}
	if o != nil && o.Org == "" {
		o = nil // the form disclosed has no organization: none published
	}
	add("Name", true, name, func(p *PostalInfo) string { return p.Name })
	add("Organization", org, o, func(p *PostalInfo) string { return p.Org })
	add("Street", street, addr, func(p *PostalInfo) string { return strings.Join(p.Street, ", ") })
	add("City", true, addr, func(p *PostalInfo) string { return p.City })
	add("State/Province", sp, addr, func(p *PostalInfo) string { return p.SP })
	add("Postal Code", pc, addr, func(p *PostalInfo) string { return p.PC })
	add("Country", true, addr, func(p *PostalInfo) string { return p.CC })
	phone("Phone", c.Voice, "voice")
	phone("Fax", c.Fax, "fax")
	f := ContactField{Name: "Email"}
	if c.Discloses("email") {
		f.Shown, f.Value = true, c.Email
	}
	return append(out, f)
}
