package rdap

import (
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/akshara-idn/akshara/registry"
)

// Contacts as RDAP entities (RFC 9083 §5.1), redacted by default (RFC
// 9537): a contact's entity keeps its handle and roles; its name,
// organization, address, telephone, fax and email are removed unless its
// <contact:disclose flag="1"> names them, and the response's "redacted"
// member says which were removed and where they were (docs/contacts.md).

// Redacted is one member of RFC 9537's "redacted" array.
type Redacted struct {
	Name     RedactedName `json:"name"`
	PrePath  string       `json:"prePath"`
	PathLang string       `json:"pathLang"`
	Method   string       `json:"method"`
	Reason   RedactedName `json:"reason"`
}

// RedactedName is a redaction's name or reason: a registered type or a
// description.
type RedactedName struct {
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
}

// EntityResponse is the answer to /rdap/entity/{handle}: a contact, or a
// registrar (registrar.go).
type EntityResponse struct {
	Conformance []string   `json:"rdapConformance"`
	Entity                 // its status: Entity.Status
	Events      []Event    `json:"events"`
	Notices     []Notice   `json:"notices"`
	Redacted    []Redacted `json:"redacted,omitempty"`
}

// redactedConformance is the rdapConformance of a response that redacts.
var redactedConformance = []string{"rdap_level_0", "redacted"}

// rdapRole maps a domain contact's role to RDAP's (RFC 9083 §10.2.4).
var rdapRole = map[string]string{
	registry.RoleRegistrant: "registrant",
	registry.RoleAdmin:      "administrative",
	registry.RoleTech:       "technical",
	registry.RoleBilling:    "billing",
}

// redactionRole is the word of a role in the names of redactions (the
// ICANN RDAP Response Profile's "Registrant Name", "Tech Email", …).
var redactionRole = map[string]string{
	registry.RoleRegistrant: "Registrant",
	registry.RoleAdmin:      "Admin",
	registry.RoleTech:       "Tech",
	registry.RoleBilling:    "Billing",
}

var redactionReason = RedactedName{Description: "Server policy: the personal data of contacts is not published"}

// redactedEntity renders a contact as an entity of roles (RDAP words):
// the fields its <contact:disclose flag="1"> names are published in its
// vCard, the others removed, and a redaction says so for each, with the
// prePath of the removed field in the entity at base (a JSONPath such as
// "$.entities[?(@.handle=='X')]").
func redactedEntity(c *registry.Contact, rdapRoles []string, names []string, base string) (Entity, []Redacted) {
	card := []any{[]any{"version", map[string]any{}, "text", "4.0"}}
	e := Entity{ObjectClassName: "entity", Handle: c.ID, Roles: rdapRoles}
	// the vCard property of each field when it is published: which fields
	// the contact has and which are published is the registry's decision
	// (Contact.PublicFields), the one WHOIS redacts by
	prop := map[string][]any{}
	if p := c.Disclosed("name"); p != nil {
		prop["Name"] = []any{"fn", map[string]any{}, "text", p.Name}
	}
	if p := c.Disclosed("org"); p != nil {
		prop["Organization"] = []any{"org", map[string]any{}, "text", p.Org}
	}
	if p := c.Disclosed("addr"); p != nil {
		adr := []any{"adr", map[string]any{"cc": p.CC}, "text", []any{"", "", streets(p.Street), p.City, p.SP, p.PC, ""}}
		for _, f := range []string{"Street", "City", "State/Province", "Postal Code", "Country"} {
			prop[f] = adr
		}
	}
	if c.Voice != nil {
		prop["Phone"] = []any{"tel", map[string]any{"type": []string{"voice"}}, "uri", telURI(c.Voice)}
	}
	if c.Fax != nil {
		prop["Fax"] = []any{"tel", map[string]any{"type": []string{"fax"}}, "uri", telURI(c.Fax)}
	}
	prop["Email"] = []any{"email", map[string]any{}, "text", c.Email}
	fields := c.PublicFields()
	for _, f := range fields {
		if p := prop[f.Name]; f.Shown && p != nil && !sameProp(card[len(card)-1], p) {
			card = append(card, p)
		}
	}
	var out []Redacted
	for _, who := range names {
		for _, f := range fields {
			if f.Shown {
				continue
			}
			out = append(out, Redacted{
				Name:     RedactedName{Type: who + " " + f.Name},
				PrePath:  base + ".vcardArray[1][?(@[0]=='" + vcardProp[f.Name] + "')]",
				PathLang: "jsonpath",
				Method:   "removal",
				Reason:   redactionReason,
			})
		}
	}
	e.VCard = []any{"vcard", card}
	return e, out
}

// vcardProp is the vCard property a contact field is published in.
var vcardProp = map[string]string{
	"Name": "fn", "Organization": "org",
	"Street": "adr", "City": "adr", "State/Province": "adr", "Postal Code": "adr", "Country": "adr",
	"Phone": "tel", "Fax": "tel", "Email": "email",
}

// sameProp reports whether two vCard properties are the same value (the
// address fields share one adr).
func sameProp(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// streets joins street lines as vCard's street component does.
func streets(s []string) any {
	if len(s) == 1 {
		return s[0]
	}
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// telURI is a telephone number as an RFC 3966 URI.
func telURI(p *registry.Phone) string {
	u := "tel:" + p.Number
	if p.Ext != "" {
		u += ";ext=" + p.Ext
	}
	return u
}

// contactEntities adds a domain's contacts to its entities (one entity
// per contact, with all its roles), redacted, and the redactions.
func (h *handler) contactEntities(r *http.Request, out *Domain, d *registry.Domain) error {
	if len(d.Contacts) == 0 {
		return nil
	}
	var order []string
	byID := map[string][]string{}
	for _, c := range d.Contacts {
		if _, ok := byID[c.ID]; !ok {
			order = append(order, c.ID)
		}
		byID[c.ID] = append(byID[c.ID], c.Role)
	}
	for _, id := range order {
		c, err := h.svc.PublicContact(r.Context(), id)
		if err != nil {
			return err
		}
		var rr, names []string
		for _, role := range byID[id] {
			rr = append(rr, rdapRole[role])
			names = append(names, redactionRole[role])
		}
		e, red := redactedEntity(c, rr, names, "$.entities[?(@.handle=='"+id+"')]")
		e.Links = []Link{h.selfLink(r, "/rdap/entity/"+id, ContentType)}
		out.Entities = append(out.Entities, e)
		out.Redacted = append(out.Redacted, red...)
	}
	out.Conformance = redactedConformance
	return nil
}

func (h *handler) entity(w http.ResponseWriter, r *http.Request) {
	handle := r.PathValue("handle")
	if !utf8.ValidString(handle) || len(handle) > h.opts.MaxName {
		h.fail(w, http.StatusBadRequest, "the handle is not valid UTF-8 or is too long")
		return
	}
	if id, ok := registrarID(handle); ok { // registrar.go
		h.registrar(w, r, handle, id)
		return
	}
	c, err := h.svc.PublicContact(r.Context(), handle)
	if registry.CodeOf(err) == registry.CodeNotFound {
		h.fail(w, http.StatusNotFound, fmt.Sprintf("there is no entity %s", handle))
		return
	}
	if err != nil {
		h.failErr(w, err)
		return
	}
	e, red := redactedEntity(c, nil, []string{"Contact"}, "$")
	e.Roles = []string{}
	e.Links = []Link{h.selfLink(r, "/rdap/entity/"+c.ID, ContentType)}
	e.Status = []string{"active"}
	if c.Linked {
		e.Status = append(e.Status, "associated")
	}
	events := []Event{{Action: "registration", Date: c.Created.UTC().Format(time.RFC3339)}}
	if c.Updated.After(c.Created) {
		events = append(events, Event{Action: "last changed", Date: c.Updated.UTC().Format(time.RFC3339)})
	}
	events = append(events, Event{Action: "last update of RDAP database", Date: h.svc.Clock().Now().UTC().Format(time.RFC3339)})
	notices := h.opts.Notices
	if notices == nil {
		notices = []Notice{}
	}
	write(w, http.StatusOK, EntityResponse{Conformance: redactedConformance, Entity: e, Events: events, Notices: notices, Redacted: red})
}
