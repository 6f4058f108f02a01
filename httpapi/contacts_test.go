package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestContactsHTTP (issue 34 item 4): the HTTP API's contacts and the
// contacts of domains, on both stores, with the zones file's policy
// binding the HTTP API (no exemption): the same validation and
// authorisation as EPP's (epp.TestContactsEPP), each refusal with the
// code and the HTTP status of the one code table (registry/codes.go).
func TestContactsHTTP(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			svc := st.Service(t, registry.ServiceOptions{}) // nothing exempt
			ctx := t.Context()
			_, a, _ := svc.AddRegistrar(ctx, "a")
			_, b, _ := svc.AddRegistrar(ctx, "b")
			ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
			t.Cleanup(ts.Close)
			e := &env{t, svc, ts.URL, a, b}
			contact := func(id, email, pw string) string {
				c := registrytest.DevanagariContact()
				c.Email = email
				js, _ := json.Marshal(httpapi.ContactRequest{ID: id, ContactData: c, AuthInfo: pw})
				return string(js)
			}
			const pw = "Contact-pw-1-strong"
			domain := func(name string, contacts ...string) string {
				var cs []string
				for _, c := range contacts {
					role, id, _ := strings.Cut(c, "=")
					cs = append(cs, `{"role":"`+role+`","id":"`+id+`"}`)
				}
				return `{"name":"` + name + `","lang":"hi","contacts":[` + strings.Join(cs, ",") + `]}`
			}
			for _, tt := range []struct {
				name         string
				method, path string
				token        string
				body         string
				authInfo     string // the Auth-Info header
				status       int
				code         string // the answer's code, for a refusal
			}{
				{"create", "POST", "/v1/contacts", a, contact("rs-1", "r@example.in", pw), "", 201, ""},
				{"create a second", "POST", "/v1/contacts", a, contact("adm-1", "a@example.in", pw), "", 201, ""},
				{"create b's", "POST", "/v1/contacts", b, contact("oth-1", "o@example.in", pw), "", 201, ""},
				{"create: an id taken", "POST", "/v1/contacts", b, contact("rs-1", "r@example.in", pw), "", 409, registry.CodeExists},
				{"create: no email address", "POST", "/v1/contacts", a, contact("bad-1", "not-an-address", pw), "", 400, registry.CodeBadContact},
				{"create: a weak authInfo", "POST", "/v1/contacts", a, contact("bad-2", "r@example.in", "weak"), "", 422, registry.CodeWeakAuthInfo},
				{"create: a bidi control in the id", "POST", "/v1/contacts", a, contact("rs\u202e1", "r@example.in", pw), "", 422, registry.CodeContactPolicy},
				{"create: no token", "POST", "/v1/contacts", "", contact("anon-1", "r@example.in", pw), "", 401, ""},
				{"info by its sponsor", "GET", "/v1/contacts/rs-1", a, "", "", 200, ""},
				{"info by another", "GET", "/v1/contacts/rs-1", b, "", "", 403, registry.CodeForbidden},
				{"info by another with its authInfo", "GET", "/v1/contacts/rs-1", b, "", pw, 200, ""},
				{"info of none", "GET", "/v1/contacts/nobody", a, "", "", 404, registry.CodeNotFound},
				{"update by another", "PATCH", "/v1/contacts/rs-1", b, `{"email":"x@example.in"}`, "", 403, registry.CodeForbidden},
				{"update: a bad email", "PATCH", "/v1/contacts/rs-1", a, `{"email":"nope"}`, "", 400, registry.CodeBadContact},
				{"update", "PATCH", "/v1/contacts/adm-1", a, `{"email":"adm@example.in","add":{"statuses":["clientDeleteProhibited"]}}`, "", 200, ""},
				{"domain without contacts", "POST", "/v1/domains", a, domain(kitabName), "", 422, registry.CodeContactRequired},
				{"domain without tech", "POST", "/v1/domains", a, domain(kitabName, "registrant=rs-1", "admin=adm-1"), "", 422, registry.CodeContactRequired},
				{"domain with an unknown contact", "POST", "/v1/domains", a, domain(kitabName, "registrant=rs-1", "admin=nobody", "tech=adm-1"), "", 404, registry.CodeNotFound},
				{"domain with another's contact", "POST", "/v1/domains", a, domain(kitabName, "registrant=oth-1", "admin=adm-1", "tech=adm-1"), "", 403, registry.CodeContactNotSponsored},
				{"domain with two registrants", "POST", "/v1/domains", a, domain(kitabName, "registrant=rs-1", "registrant=adm-1", "admin=adm-1", "tech=adm-1"), "", 422, registry.CodeContactPolicy},
				{"domain", "POST", "/v1/domains", a, domain(kitabName, "registrant=rs-1", "admin=adm-1", "tech=adm-1"), "", 201, ""},
				{"update leaving no tech", "PATCH", "/v1/domains/" + kitabName, a, `{"remove":{"contacts":[{"role":"tech","id":"adm-1"}]}}`, "", 422, registry.CodeContactRequired},
				{"update naming another's contact", "PATCH", "/v1/domains/" + kitabName, a, `{"add":{"contacts":[{"role":"billing","id":"oth-1"}]}}`, "", 403, registry.CodeContactNotSponsored},
				{"update by another registrar", "PATCH", "/v1/domains/" + kitabName, b, `{"registrant":"oth-1"}`, "", 403, registry.CodeForbidden},
				{"update replacing the registrant", "PATCH", "/v1/domains/" + kitabName, a, `{"registrant":"adm-1"}`, "", 200, ""},
				{"delete a contact with clientDeleteProhibited", "DELETE", "/v1/contacts/adm-1", a, "", "", 409, registry.CodeStatusProhibits},
				{"lift clientDeleteProhibited", "PATCH", "/v1/contacts/adm-1", a, `{"remove":{"statuses":["clientDeleteProhibited"]}}`, "", 200, ""},
				{"delete a linked contact", "DELETE", "/v1/contacts/adm-1", a, "", "", 409, registry.CodeAssociated},
				{"delete another's", "DELETE", "/v1/contacts/oth-1", a, "", "", 403, registry.CodeForbidden},
				{"delete an unlinked contact", "DELETE", "/v1/contacts/rs-1", a, "", "", 204, ""},
			} {
				req, _ := http.NewRequest(tt.method, e.url+tt.path, strings.NewReader(tt.body))
				if tt.token != "" {
					req.Header.Set("Authorization", "Bearer "+tt.token)
				}
				if tt.authInfo != "" {
					req.Header.Set("Auth-Info", tt.authInfo)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var ans struct {
					Code string `json:"code"`
				}
				json.NewDecoder(resp.Body).Decode(&ans)
				resp.Body.Close()
				if resp.StatusCode != tt.status || (tt.code != "" && ans.Code != tt.code) {
					t.Errorf("%s: %s %s: %d %q, want %d %q", tt.name, tt.method, tt.path, resp.StatusCode, ans.Code, tt.status, tt.code)
				}
			}
			d, err := svc.Info(ctx, kitabName)
			if err != nil || len(d.Contacts) != 3 || d.Contacts[0] != (registry.DomainContact{Role: "registrant", ID: "adm-1"}) {
				t.Errorf("%s after the updates: %+v %v, want registrant adm-1, admin and tech adm-1", kitabName, d, err)
			}
		})
	}
}

const kitabName = "किताब.भारत"
