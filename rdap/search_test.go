package rdap_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"

	openrdap "github.com/openrdap/rdap"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/internal/testlabel"
	"github.com/akshara-idn/akshara/rdap"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/whois"
)

// Issue 34 item 13: an invalid name is a 400 with the policy's rules (as
// WHOIS gives them), the registrar entity of every answer resolves with
// an abuse contact, and the domain search works, paged and rate-limited;
// on both stores.

// getDoc GETs a URL and decodes its JSON.
func getDoc(t *testing.T, u string) (*http.Response, map[string]any, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("GET %s: not JSON: %v\n%s", u, err, body)
	}
	return resp, doc, string(body)
}

// TestInvalidName: a name the policy refuses answers 400 with each rule
// (code, position, message) and the code INVALID_LABEL, the same rules
// WHOIS gives for it; a reserved name is a 404 that says so. Before, both
// were a 404 "is not registered".
func TestInvalidName(t *testing.T) {
	for _, st := range registrytest.Stores {
		t.Run(st.Name, func(t *testing.T) {
			svc := st.Service(t)
			if _, err := svc.Reserve(t.Context(), "सरकार.भारत", "government"); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(rdap.Handler(svc, rdap.Options{}))
			defer srv.Close()
			wsrv, err := whois.New(svc, whois.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"िकताब.भारत", "कab.भारत", "क्\u200dष.भारत"} {
				resp, doc, body := getDoc(t, srv.URL+"/rdap/domain/"+url.PathEscape(name))
				desc := descriptions(doc)
				if resp.StatusCode != 400 || doc["errorCode"] != float64(400) || !slices.Contains(desc, "code: INVALID_LABEL") {
					t.Errorf("%s: %d %s", name, resp.StatusCode, body)
				}
				if fails := check(doc, true); len(fails) > 0 {
					t.Errorf("%s: conformance %v", name, fails)
				}
				// WHOIS's rules ("Rule: CODE at POS: message") are RDAP's
				answer, result := wsrv.Answer(context.Background(), whois.Query{Name: name})
				var rules []string
				for _, line := range strings.Split(string(answer), "\r\n") {
					if strings.HasPrefix(line, "Rule: ") {
						rules = append(rules, line)
					}
				}
				var got []string
				for _, d := range desc {
					if strings.HasPrefix(d, "Rule: ") {
						got = append(got, d)
					}
				}
				if result != "invalid" || len(rules) == 0 || !slices.Equal(got, rules) {
					t.Errorf("%s: RDAP rules %q, WHOIS (%s) %q", name, got, result, rules)
				}
			}
			resp, doc, body := getDoc(t, srv.URL+"/rdap/domain/"+url.PathEscape("सरकार.भारत"))
			if resp.StatusCode != 404 || !strings.Contains(strings.Join(descriptions(doc), " "), "reserved") {
				t.Errorf("a reserved name: %d %s", resp.StatusCode, body)
			}
		})
	}
}

// registrarLinks returns the self links of the registrar entities of a
// document (a domain, a name server, or each result of a search).
func registrarLinks(doc map[string]any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if roles, ok := strs(v["roles"]); ok && slices.Contains(roles, "registrar") {
				for _, l := range v["links"].([]any) {
					if l := l.(map[string]any); l["rel"] == "self" {
						out = append(out, l["href"].(string))
					}
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	return out
}

// TestRegistrarEntity: the registrar entity of a domain, a name server
// and each search result has a self link that resolves (with openrdap)
// to the registrar: role registrar, its name, and its abuse contact
// (role abuse, email and telephone); one without an abuse contact says
// so. Its handle is no contact's: a contact named as the registrar is
// still the contact.
func TestRegistrarEntity(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			svc := st.Service(t, registrytest.ContactsOptional())
			ctx := t.Context()
			acme, _, err := svc.AddRegistrar(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			other, _, err := svc.AddRegistrar(ctx, "other")
			if err != nil {
				t.Fatal(err)
			}
			abuse := registry.AbuseContact{Email: "abuse@acme.example", Phone: "+91.1123456789"}
			if err := svc.SetRegistrarAbuse(ctx, "acme", abuse); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.CreateDomain(ctx, acme, registry.DomainCreate{Name: kitab, Lang: "hi"}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.CreateDomain(ctx, other, registry.DomainCreate{Name: "example.in"}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.CreateHost(ctx, acme, registry.HostCreate{Name: "ns1." + kitab, Addrs: []registry.Addr{{IP: "8.8.8.8", Family: "v4"}}}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.CreateContact(ctx, acme, registry.ContactCreate{ID: "acme", ContactData: registrytest.DevanagariContact(), AuthInfo: "Contact-pw-1-strong"}); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(rdap.Handler(svc, rdap.Options{}))
			defer srv.Close()
			server, _ := url.Parse(srv.URL + "/rdap")
			client := &openrdap.Client{}
			want := map[string]struct {
				name  string
				abuse bool
			}{rdap.RegistrarHandle(acme.ID): {"acme", true}, rdap.RegistrarHandle(other.ID): {"other", false}}
			seen := map[string]bool{}
			for _, path := range []string{"/rdap/domain/" + kitabA, "/rdap/domain/example.in", "/rdap/nameserver/ns1." + kitabA,
				"/rdap/domains?name=" + url.QueryEscape("कि*.भारत"), "/rdap/domains?name=ex*.in"} {
				_, doc, body := getDoc(t, srv.URL+path)
				links := registrarLinks(doc)
				if len(links) == 0 {
					t.Errorf("%s: no registrar link: %s", path, body)
				}
				fails := check(doc, false)
				if doc["objectClassName"] == "nameserver" {
					fails = checkNameserver(doc)
				}
				if len(fails) > 0 {
					t.Errorf("%s: conformance %v\n%s", path, fails, body)
				}
				for _, l := range links {
					handle := l[strings.LastIndexByte(l, '/')+1:]
					w, ok := want[handle]
					if !ok || !strings.HasPrefix(l, srv.URL+"/rdap/entity/") {
						t.Errorf("%s: registrar link %s", path, l)
						continue
					}
					seen[handle] = true
					resp, err := client.Do(&openrdap.Request{Type: openrdap.EntityRequest, Query: handle, Server: server})
					if err != nil {
						t.Fatalf("%s: %v", l, err)
					}
					e, ok := resp.Object.(*openrdap.Entity)
					if !ok || e.Handle != handle || !slices.Equal(e.Roles, []string{"registrar"}) || e.VCard == nil || e.VCard.Name() != w.name ||
						!slices.Equal(e.Status, []string{"active"}) || len(e.Links) != 1 || e.Links[0].Href != l {
						t.Errorf("%s: %+v", l, resp.Object)
						continue
					}
					if !w.abuse {
						if len(e.Entities) != 0 || len(e.Remarks) != 1 || e.Remarks[0].Title != "No abuse contact" {
							t.Errorf("%s: no abuse contact, but %+v %+v", l, e.Entities, e.Remarks)
						}
						continue
					}
					if len(e.Entities) != 1 || !slices.Equal(e.Entities[0].Roles, []string{"abuse"}) || e.Entities[0].VCard == nil ||
						e.Entities[0].VCard.Email() != abuse.Email || e.Entities[0].VCard.Tel() != "tel:"+abuse.Phone {
						t.Errorf("%s: abuse contact %+v", l, e.Entities)
					}
					_, doc, _ := getDoc(t, l)
					if fails := check(doc, false); len(fails) > 0 {
						t.Errorf("%s: conformance %v", l, fails)
					}
				}
			}
			if len(seen) != 2 {
				t.Errorf("registrars seen: %v", seen)
			}
			// a revoked registrar is inactive, and still answered
			if err := svc.RevokeRegistrar(ctx, "other"); err != nil {
				t.Fatal(err)
			}
			if _, doc, _ := getDoc(t, srv.URL+"/rdap/entity/"+rdap.RegistrarHandle(other.ID)); fmt.Sprint(doc["status"]) != "[inactive]" {
				t.Errorf("a revoked registrar: %v", doc)
			}
			// the contact named acme is the contact; handles not quite a
			// registrar's are no registrar
			if _, doc, body := getDoc(t, srv.URL+"/rdap/entity/acme"); doc["handle"] != "acme" || strings.Contains(body, `"registrar"`) {
				t.Errorf("the contact acme: %s", body)
			}
			for _, h := range []string{"R0-AKSHARA-REGISTRAR", fmt.Sprintf("R0%d-AKSHARA-REGISTRAR", acme.ID), fmt.Sprintf("R%d-akshara-registrar", acme.ID),
				fmt.Sprintf("R+%d-AKSHARA-REGISTRAR", acme.ID), "R99999-AKSHARA-REGISTRAR", "R-AKSHARA-REGISTRAR"} {
				if resp, _, body := getDoc(t, srv.URL+"/rdap/entity/"+h); resp.StatusCode != 404 {
					t.Errorf("%s: %d %s", h, resp.StatusCode, body)
				}
			}
		})
	}
}

// TestDomainSearch: domains?name=PREFIX*.ZONE with openrdap as the client
// (a domain search request, then its "next" links followed as raw
// requests) finds every domain of the zone whose U-label (or, for an
// ASCII prefix, A-label name) starts with the prefix, each once, in byte
// order, 50 a page, pageNumber counting; nothing else; the forms of the
// zone and prefix alike; malformed requests refused.
func TestDomainSearch(t *testing.T) {
	for _, st := range registrytest.Stores {
		t.Run(st.Name, func(t *testing.T) {
			svc := st.Service(t)
			ctx := t.Context()
			r, _, err := svc.AddRegistrar(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			var all []*registry.Domain
			for i := range 130 {
				d, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "कि" + testlabel.Hindi(i) + ".भारत", Lang: "hi"})
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, d)
			}
			for i := range 20 {
				d, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: testlabel.Hindi(9000+i) + ".भारत", Lang: "hi"})
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, d)
			}
			for _, n := range []string{"abc.in", "abd.in", "ab-x.in", "xyz.in", "कि" + testlabel.Hindi(0) + ".in"} {
				d, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: n})
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, d)
			}
			srv := httptest.NewServer(rdap.Handler(svc, rdap.Options{SearchRate: -1}))
			defer srv.Close()
			server, _ := url.Parse(srv.URL + "/rdap")
			client := &openrdap.Client{}
			expect := func(zone, prefix string, alabel bool) []string {
				var keys []string
				byKey := map[string]string{}
				for _, d := range all {
					key := d.Label
					if alabel {
						key = d.ALabel
					}
					if d.Zone == zone && strings.HasPrefix(key, prefix) {
						keys = append(keys, key)
						byKey[key] = d.ALabel
					}
				}
				slices.Sort(keys)
				var out []string
				for _, k := range keys {
					out = append(out, byKey[k])
				}
				return out
			}
			idn := all[0].ALabel[:len("xn--")+3]
			for _, tc := range []struct {
				pattern, zone, prefix string
				alabel                bool
			}{
				{"कि*.भारत", "भारत", "कि", false},
				{"कि*.xn--h2brj9c", "भारत", "कि", false},
				{"किक*.भारत", "भारत", "किक", false},
				{idn + "*.xn--h2brj9c", "भारत", idn, true},
				{strings.ToUpper(idn) + "*.भारत", "भारत", idn, true},
				{"ab*.in", "in", "ab", true},
				{"कि*.in", "in", "कि", false},
				{"zz*.in", "in", "zz", true},
			} {
				want := expect(tc.zone, tc.prefix, tc.alabel)
				resp, err := client.Do(&openrdap.Request{Type: openrdap.DomainSearchRequest, Query: tc.pattern, Server: server})
				if err != nil {
					t.Fatalf("%s: %v", tc.pattern, err)
				}
				var got []string
				for page := 1; ; page++ {
					res, ok := resp.Object.(*openrdap.DomainSearchResults)
					if !ok {
						t.Fatalf("%s: %T", tc.pattern, resp.Object)
					}
					if !slices.Equal(res.Conformance, []string{"rdap_level_0", "paging"}) || len(res.Domains) > 50 {
						t.Errorf("%s page %d: %v, %d results", tc.pattern, page, res.Conformance, len(res.Domains))
					}
					for _, d := range res.Domains {
						got = append(got, d.LDHName)
						if d.ObjectClassName != "domain" || len(d.Links) != 1 || d.Links[0].Href != srv.URL+"/rdap/domain/"+d.LDHName ||
							len(d.Entities) != 1 || d.Entities[0].Roles[0] != "registrar" || len(d.Status) == 0 || len(d.Events) == 0 {
							t.Errorf("%s: result %+v", tc.pattern, d)
						}
					}
					// the raw document: its paging_metadata and conformance
					var doc map[string]any
					if err := json.Unmarshal(resp.HTTP[len(resp.HTTP)-1].Body, &doc); err != nil {
						t.Fatal(err)
					}
					if fails := check(doc, false); len(fails) > 0 {
						t.Errorf("%s page %d: conformance %v", tc.pattern, page, fails)
					}
					pm, _ := doc["paging_metadata"].(map[string]any)
					if pm["pageNumber"] != float64(page) || pm["pageSize"] != float64(50) {
						t.Errorf("%s page %d: paging_metadata %v", tc.pattern, page, pm)
					}
					links, _ := pm["links"].([]any)
					if len(got) == len(want) && len(res.Domains) < 50 || len(links) == 0 {
						if len(links) != 0 {
							t.Errorf("%s page %d: a next link after the last result: %v", tc.pattern, page, links)
						}
						break
					}
					next := links[0].(map[string]any)
					href, _ := next["href"].(string)
					if next["rel"] != "next" || !strings.HasPrefix(href, srv.URL+"/rdap/domains?") || !strings.Contains(href, "cursor=") {
						t.Fatalf("%s page %d: next %v", tc.pattern, page, next)
					}
					if page > len(want)/50+1 {
						t.Fatalf("%s: more pages than results", tc.pattern)
					}
					u, _ := url.Parse(href)
					if resp, err = client.Do(&openrdap.Request{Type: openrdap.RawRequest, Server: u}); err != nil {
						t.Fatalf("%s page %d: %v", tc.pattern, page+1, err)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s:\n got %d %q\nwant %d %q", tc.pattern, len(got), got, len(want), want)
				}
			}
			// a page's cursor with another search, and malformed ones
			_, doc, _ := getDoc(t, srv.URL+"/rdap/domains?name="+url.QueryEscape("कि*.भारत"))
			href := doc["paging_metadata"].(map[string]any)["links"].([]any)[0].(map[string]any)["href"].(string)
			u, _ := url.Parse(href)
			cursor := u.Query().Get("cursor")
			for _, tc := range []struct {
				query  string
				status int
				want   string
			}{
				{"name=ab*.in&cursor=" + cursor, 400, "BAD_NAME"},
				{"name=ab*.in&cursor=!!", 400, "BAD_NAME"},
				{"name=ab*.in&cursor=MTpk", 400, "BAD_NAME"}, // "1:d": page 1 has no cursor
				{"name=ab*.in&name=ac*.in", 400, "BAD_NAME"},
				{"", 400, "BAD_NAME"},
				{"name=a*.in", 422, "UNSUPPORTED_SEARCH"},
				{"name=a*c.in", 422, "UNSUPPORTED_SEARCH"},
				{"name=*.in", 422, "UNSUPPORTED_SEARCH"},
				{"name=abc.in", 422, "UNSUPPORTED_SEARCH"},
				{"name=ab*.nozone", 400, "UNKNOWN_ZONE"},
				{"name=%FF*.in", 400, "BAD_NAME"},
				{"nsIp=192.0.2.1", 501, ""},
			} {
				resp, doc, body := getDoc(t, srv.URL+"/rdap/domains?"+tc.query)
				if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) || resp.Header.Get("Content-Type") != rdap.ContentType {
					t.Errorf("%s: %d %s", tc.query, resp.StatusCode, body)
				}
				if fails := check(doc, true); len(fails) > 0 {
					t.Errorf("%s: conformance %v", tc.query, fails)
				}
			}
		})
	}
}

// TestSearchRateLimit: a client address gets SearchBurst searches, then
// 429 (an RDAP error, RATE_LIMITED, Retry-After) until its bucket fills
// again; lookups and other addresses are not limited by it. Mounted on
// the HTTP API behind a trusted proxy, the client is the address the
// proxy forwards for (httpapi.ClientAddr).
func TestSearchRateLimit(t *testing.T) {
	svc := registrytest.SQLiteService(t)
	r, _, err := svc.AddRegistrar(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(t.Context(), r, registry.DomainCreate{Name: kitab, Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(svc, httpapi.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Public: map[string]http.Handler{rdap.Prefix: rdap.Handler(svc, rdap.Options{SearchRate: 0.01, SearchBurst: 3, ClientAddr: httpapi.ClientAddr})}})
	srv := httptest.NewServer(api)
	defer srv.Close()
	search := func(client string) *http.Response {
		req, _ := http.NewRequest("GET", srv.URL+"/rdap/domains?name="+url.QueryEscape("कि*.भारत"), nil)
		req.Header.Set("X-Forwarded-For", client)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == 429 {
			var doc map[string]any
			if err := json.Unmarshal(body, &doc); err != nil || doc["errorCode"] != float64(429) || !strings.Contains(string(body), "RATE_LIMITED") || len(check(doc, true)) > 0 {
				t.Errorf("429 body: %s", body)
			}
		}
		return resp
	}
	var codes []int
	for range 5 {
		codes = append(codes, search("198.51.100.7").StatusCode)
	}
	if !slices.Equal(codes, []int{200, 200, 200, 429, 429}) {
		t.Errorf("searches from one address: %v", codes)
	}
	if resp := search("198.51.100.7"); resp.Header.Get("Retry-After") != "100" {
		t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
	}
	if resp := search("203.0.113.9"); resp.StatusCode != 200 {
		t.Errorf("another address: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/rdap/domain/"+kitabA, nil)
	req.Header.Set("X-Forwarded-For", "198.51.100.7")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a lookup from the limited address: %d", resp.StatusCode)
	}
}
