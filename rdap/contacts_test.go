package rdap_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	openrdap "github.com/openrdap/rdap"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// withContacts gives kitab a registrant (rs-1), an admin who is also
// its billing contact (adm-1) and a tech contact (tech-1), each with the
// Devanagari postal info of registrytest.DevanagariContact.
func (e *env) withContacts(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	r := &registry.Registrar{ID: 1, Name: "acme"}
	for _, id := range []string{"rs-1", "adm-1", "tech-1"} {
		if _, err := e.svc.CreateContact(ctx, r, registry.ContactCreate{ID: id, ContactData: registrytest.DevanagariContact(), AuthInfo: "Contact-pw-1-strong"}); err != nil {
			t.Fatal(err)
		}
	}
	dc := []registry.DomainContact{{Role: "registrant", ID: "rs-1"}, {Role: "admin", ID: "adm-1"}, {Role: "billing", ID: "adm-1"}, {Role: "tech", ID: "tech-1"}}
	if err := registrytest.Err(e.svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: kitab, AddContacts: dc})); err != nil {
		t.Fatal(err)
	}
}

// personal are strings of the contacts' personal data, none of which
// may appear in an RDAP answer.
func personal() []string {
	d := registrytest.DevanagariContact()
	out := []string{d.Email, d.Voice.Number, d.Fax.Number}
	for _, p := range d.Postal {
		out = append(out, p.Name, p.Org, p.City, p.SP, p.PC, p.Street[0])
	}
	return out
}

func (e *env) raw(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(e.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestContactRedaction: a domain's RDAP answer carries the registrar and
// its contacts as entities with their roles, redacted (RFC 9537): no
// personal field, a "redacted" member naming each removal with its
// prePath, "redacted" in rdapConformance; read with openrdap.
func TestContactRedaction(t *testing.T) {
	e := newEnv(t)
	e.withContacts(t)
	status, body := e.raw(t, "/rdap/domain/"+kitabA)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	for _, p := range personal() {
		if strings.Contains(body, p) {
			t.Errorf("the answer shows %q:\n%s", p, body)
		}
	}
	var doc map[string]any
	json.Unmarshal([]byte(body), &doc)
	if fails := check(doc, false); len(fails) > 0 {
		t.Errorf("the domain fails the conformance checks %v", fails)
	}
	var red struct {
		Redacted []struct {
			Name     struct{ Type string }
			PrePath  string
			PathLang string
			Method   string
			Reason   struct{ Description string }
		}
	}
	json.Unmarshal([]byte(body), &red)
	want := map[string]string{
		"Registrant Name":  `$.entities[?(@.handle=='rs-1')].vcardArray[1][?(@[0]=='fn')]`,
		"Registrant Email": `$.entities[?(@.handle=='rs-1')].vcardArray[1][?(@[0]=='email')]`,
		"Admin Phone":      `$.entities[?(@.handle=='adm-1')].vcardArray[1][?(@[0]=='tel')]`,
		"Billing Street":   `$.entities[?(@.handle=='adm-1')].vcardArray[1][?(@[0]=='adr')]`,
		"Tech Fax":         `$.entities[?(@.handle=='tech-1')].vcardArray[1][?(@[0]=='tel')]`,
	}
	got := map[string]string{}
	for _, r := range red.Redacted {
		if r.Method != "removal" || r.PathLang != "jsonpath" || r.Reason.Description == "" {
			t.Errorf("redaction %+v", r)
		}
		got[r.Name.Type] = r.PrePath
	}
	for name, path := range want {
		if got[name] != path {
			t.Errorf("redaction %q: prePath %q, want %q", name, got[name], path)
		}
	}

	server, _ := url.Parse(e.srv.URL + "/rdap")
	client := &openrdap.Client{}
	resp, err := client.Do(&openrdap.Request{Type: openrdap.DomainRequest, Query: kitab, Server: server})
	if err != nil {
		t.Fatal(err)
	}
	d := resp.Object.(*openrdap.Domain)
	if !slices.Contains(d.Conformance, "redacted") || !slices.Contains(d.Conformance, "rdap_level_0") {
		t.Errorf("rdapConformance %v", d.Conformance)
	}
	roles := map[string][]string{}
	for _, en := range d.Entities {
		roles[en.Handle] = en.Roles
		if en.Handle != "R1-AKSHARA-REGISTRAR" && (en.VCard == nil || en.VCard.Name() != "" || en.VCard.Email() != "" || en.VCard.Tel() != "") {
			t.Errorf("entity %s is not redacted: %+v", en.Handle, en.VCard)
		}
	}
	wantRoles := map[string][]string{"R1-AKSHARA-REGISTRAR": {"registrar"}, "rs-1": {"registrant"}, "adm-1": {"administrative", "billing"}, "tech-1": {"technical"}}
	if len(roles) != len(wantRoles) {
		t.Errorf("entities %v, want %v", roles, wantRoles)
	}
	for h, r := range wantRoles {
		if !slices.Equal(roles[h], r) {
			t.Errorf("entity %s: roles %v, want %v", h, roles[h], r)
		}
	}
	if d.Entities[0].VCard.Name() != "acme" {
		t.Errorf("the registrar entity: %+v", d.Entities[0])
	}
}

// TestEntity: /rdap/entity/{handle} answers a contact, redacted; an
// unknown handle (or one no contact can have) is a 404 in RDAP's error
// form; read with openrdap.
func TestEntity(t *testing.T) {
	e := newEnv(t)
	e.withContacts(t)
	server, _ := url.Parse(e.srv.URL + "/rdap")
	client := &openrdap.Client{}
	resp, err := client.Do(&openrdap.Request{Type: openrdap.EntityRequest, Query: "rs-1", Server: server})
	if err != nil {
		t.Fatal(err)
	}
	en, ok := resp.Object.(*openrdap.Entity)
	if !ok {
		t.Fatalf("%T", resp.Object)
	}
	if en.Handle != "rs-1" || en.ObjectClassName != "entity" || !slices.Equal(en.Status, []string{"active", "associated"}) || !slices.Contains(en.Conformance, "redacted") ||
		en.VCard == nil || en.VCard.Name() != "" || len(en.Events) == 0 || en.Events[0].Action != "registration" {
		t.Errorf("entity %+v", en)
	}
	status, body := e.raw(t, "/rdap/entity/rs-1")
	for _, p := range personal() {
		if strings.Contains(body, p) {
			t.Errorf("the entity shows %q:\n%s", p, body)
		}
	}
	if status != 200 || !strings.Contains(body, `"prePath":"$.vcardArray[1][?(@[0]=='fn')]"`) || !strings.Contains(body, `"type":"Contact Email"`) {
		t.Errorf("status %d: %s", status, body)
	}
	for _, h := range []string{"nobody", "rs\u200d1", "x"} {
		_, err := client.Do(&openrdap.Request{Type: openrdap.EntityRequest, Query: h, Server: server})
		if ce, ok := err.(*openrdap.ClientError); !ok || ce.Type != openrdap.ObjectDoesNotExist {
			t.Errorf("entity %q: %v", h, err)
		}
		status, body := e.raw(t, "/rdap/entity/"+url.PathEscape(h))
		var doc map[string]any
		if json.Unmarshal([]byte(body), &doc) != nil || status != 404 || doc["errorCode"] != 404.0 || len(check(doc, true)) > 0 {
			t.Errorf("entity %q: %d %s", h, status, body)
		}
	}
}

// TestContactDisclosed: the fields a contact's <contact:disclose
// flag="1"> names are published in its vCard (fn, adr, email) and have no
// redaction; the others stay removed.
func TestContactDisclosed(t *testing.T) {
	e := newEnv(t)
	e.withContacts(t)
	r := &registry.Registrar{ID: 1, Name: "acme"}
	if err := e.svc.UpdateContact(t.Context(), r, registry.ContactUpdate{ID: "tech-1", Disclose: &registry.Disclose{Flag: true, Fields: []string{"name:loc", "addr:int", "email"}}}); err != nil {
		t.Fatal(err)
	}
	server, _ := url.Parse(e.srv.URL + "/rdap")
	resp, err := (&openrdap.Client{}).Do(&openrdap.Request{Type: openrdap.EntityRequest, Query: "tech-1", Server: server})
	if err != nil {
		t.Fatal(err)
	}
	d := registrytest.DevanagariContact()
	// (openrdap flattens the adr's components, its two street lines
	// included, so its Locality() is not the city: read the values)
	v := resp.Object.(*openrdap.Entity).VCard
	if v == nil || v.Name() != d.Postal[1].Name || v.Email() != d.Email || v.GetFirst("adr") == nil || !slices.Contains(v.GetFirst("adr").Values(), "Lucknow") || v.Tel() != "" {
		t.Errorf("vCard %+v", v)
	}
	_, body := e.raw(t, "/rdap/domain/"+kitabA)
	for _, no := range []string{`"Tech Name"`, `"Tech Email"`, `"Tech City"`, d.Voice.Number} {
		if strings.Contains(body, no) {
			t.Errorf("the domain has %s:\n%s", no, body)
		}
	}
	for _, yes := range []string{`"Tech Phone"`, `"Registrant Name"`, `"Tech Organization"`, d.Postal[1].Name} {
		if !strings.Contains(body, yes) {
			t.Errorf("the domain lacks %s:\n%s", yes, body)
		}
	}
}
