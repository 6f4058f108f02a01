package rdap_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	openrdap "github.com/openrdap/rdap"

	"github.com/akshara-idn/akshara/rdap"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

const (
	kitab   = "किताब.भारत"
	kitabA  = "xn--11b4aya5ed.xn--h2brj9c"
	kittab  = "कित्ताब.भारत"
	kittabA = "xn--11b4aa6a3fd3h.xn--h2brj9c"
)

type env struct {
	svc   *registry.Service
	srv   *httptest.Server
	d     *registry.Domain
	clock *registry.ManualClock
}

func newEnv(t *testing.T) *env {
	t.Helper()
	clock := registry.NewManualClock(time.Now())
	svc := registrytest.SQLiteServiceWith(t, registrytest.Exempt(registry.ServiceOptions{Clock: clock}, ""))
	r, _, err := svc.AddRegistrar(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	d, err := svc.CreateDomain(t.Context(), r, registry.DomainCreate{Name: kitab, Lang: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(t.Context(), r, registry.DomainCreate{Name: "example.in"}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rdap.Handler(svc, rdap.Options{Notices: []rdap.Notice{{Title: "Terms of Use", Description: []string{"Test data."}}}}))
	t.Cleanup(srv.Close)
	return &env{svc: svc, srv: srv, d: d, clock: clock}
}

func (e *env) get(t *testing.T, path string) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.Get(e.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("GET %s: not JSON: %v\n%s", path, err, body)
	}
	return resp, doc
}

// TestOpenRDAP reads a domain with github.com/openrdap/rdap, a client we
// did not write, by A-label and by U-label.
func TestOpenRDAP(t *testing.T) {
	e := newEnv(t)
	server, _ := url.Parse(e.srv.URL + "/rdap")
	client := &openrdap.Client{}
	for _, q := range []string{kitabA, kitab, "XN--11B4AYA5ED.xn--h2brj9c"} {
		req := &openrdap.Request{Type: openrdap.DomainRequest, Query: q, Server: server}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		d, ok := resp.Object.(*openrdap.Domain)
		if !ok {
			t.Fatalf("%s: %T", q, resp.Object)
		}
		if d.ObjectClassName != "domain" || d.LDHName != kitabA || d.UnicodeName != kitab || !slices.Equal(d.Status, []string{"active"}) ||
			!slices.Contains(d.Conformance, "rdap_level_0") {
			t.Errorf("%s: %+v", q, d)
		}
		if len(d.Entities) != 1 || d.Entities[0].Handle != "R1-AKSHARA-REGISTRAR" || !slices.Equal(d.Entities[0].Roles, []string{"registrar"}) || d.Entities[0].VCard == nil || d.Entities[0].VCard.Name() != "acme" {
			t.Errorf("%s: entities %+v", q, d.Entities)
		}
		if len(d.Events) == 0 || d.Events[0].Action != "registration" || d.Events[0].Date == "" {
			t.Errorf("%s: events %+v", q, d.Events)
		}
		if len(d.Variants) != 1 {
			t.Fatalf("%s: variants %+v", q, d.Variants)
		}
		v := d.Variants[0]
		if !slices.Equal(v.Relation, []string{"unregistered", "registration restricted"}) || v.IDNTable != "hi" || len(v.VariantNames) != len(e.d.Blocks)-1 {
			t.Errorf("%s: variants %+v", q, v)
		}
		found := false
		for _, n := range v.VariantNames {
			found = found || (n.LDHName == kittabA && n.UnicodeName == kittab)
			if n.UnicodeName == kitab {
				t.Errorf("%s: the domain is listed among its own variants", q)
			}
		}
		if !found {
			t.Errorf("%s: %s (%s) is not among the variants %+v", q, kittab, kittabA, v.VariantNames)
		}
	}
	_, err := client.Do(&openrdap.Request{Type: openrdap.DomainRequest, Query: "कमल.भारत", Server: server})
	if ce, ok := err.(*openrdap.ClientError); !ok || ce.Type != openrdap.ObjectDoesNotExist {
		t.Errorf("an unregistered name: %v", err)
	}
}

// TestResponses: statuses, media type, CORS and the error bodies.
func TestResponses(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		path   string
		status int
		want   []string // substrings of the JSON
	}{
		{"/rdap/domain/" + kitabA, 200, []string{`"ldhName":"` + kitabA + `"`, `"variants"`, `"idnTable":"hi"`, `"Terms of Use"`}},
		{"/rdap/domain/" + url.PathEscape(kitab), 200, []string{`"unicodeName":"` + kitab + `"`}},
		{"/rdap/domain/example.in", 200, []string{`"ldhName":"example.in"`}},
		{"/rdap/domain/" + kittabA, 200, []string{`"status":["inactive"]`, `"relation":["registered"]`, "blocked variant of the registered domain " + kitab + " (" + kitabA + ")"}},
		{"/rdap/domain/" + url.PathEscape("कमल.भारत"), 404, []string{`"errorCode":404`, "is not registered"}},
		{"/rdap/domain/nodots", 400, []string{`"errorCode":400`, "BAD_NAME"}},
		{"/rdap/domain/x.nozone", 400, []string{"UNKNOWN_ZONE"}},
		{"/rdap/domain/xn--zz-.in", 400, []string{`"errorCode":400`, "not a valid A-label"}},
		{"/rdap/nameserver/ns1.example.in", 404, []string{`"errorCode":404`, "not a name server"}},
		{"/rdap/nameservers?name=ns1.*", 501, []string{`"errorCode":501`}}, // a search: not served
		{"/rdap/domains?name=" + url.QueryEscape("कि*.भारत"), 200, []string{`"domainSearchResults":[{"objectClassName":"domain"`, `"ldhName":"` + kitabA + `"`, `"paging"`}},
		{"/rdap/domains?name=x*", 422, []string{"UNSUPPORTED_SEARCH"}},
		{"/rdap/domains?nsLdhName=ns1.example.in", 501, nil},
		{"/rdap/frob", 400, []string{`"errorCode":400`}},
		{"/rdap/help", 200, []string{`"rdapConformance":["rdap_level_0"]`, "/rdap/domain/{name}"}},
	}
	for _, tt := range tests {
		resp, err := http.Get(e.srv.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: %d, want %d\n%s", tt.path, resp.StatusCode, tt.status, body)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/rdap+json" {
			t.Errorf("%s: Content-Type %q", tt.path, ct)
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: no CORS header", tt.path)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(body), w) {
				t.Errorf("%s: body lacks %q\n%s", tt.path, w, body)
			}
		}
		var doc map[string]any
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Errorf("%s: not JSON", tt.path)
		}
		if fails := check(doc, resp.StatusCode != 200); len(fails) > 0 {
			t.Errorf("%s: conformance checks fail: %v\n%s", tt.path, fails, body)
		}
	}
	req, _ := http.NewRequest("POST", e.srv.URL+"/rdap/domain/"+kitabA, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}

// TestDeleteFreesVariants: after a delete the domain is pending delete,
// with its deletion event, until its purge (issue 23); after the purge it
// is 404 and so are its variants, with no blocker named.
func TestDeleteFreesVariants(t *testing.T) {
	e := newEnv(t)
	r := &registry.Registrar{ID: 1, Name: "acme"}
	if err := registrytest.Err(e.svc.DeleteDomain(t.Context(), r, registry.DomainDelete{Name: kitab})); err != nil {
		t.Fatal(err)
	}
	resp, doc := e.get(t, "/rdap/domain/"+kitabA)
	if st := fmt.Sprint(doc["status"]); resp.StatusCode != 200 || st != "[pending delete redemption period]" || !strings.Contains(fmt.Sprint(doc["events"]), "eventAction:deletion") {
		t.Errorf("%s after delete: %d status %s events %v", kitabA, resp.StatusCode, st, doc["events"])
	}
	if resp, doc := e.get(t, "/rdap/domain/"+kittabA); resp.StatusCode != 200 || !strings.Contains(fmt.Sprint(doc["remarks"]), "stays blocked until it is purged at") {
		t.Errorf("%s, held by a domain in redemption: %d %v", kittabA, resp.StatusCode, doc)
	}
	e.clock.Advance(35 * 24 * time.Hour)
	if _, err := e.svc.RunLifecycle(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{kitabA, kittabA} {
		resp, doc := e.get(t, "/rdap/domain/"+p)
		if resp.StatusCode != 404 || strings.Contains(strings.Join(descriptions(doc), " ")+fmt.Sprint(doc["remarks"]), "blocked") {
			t.Errorf("%s after delete: %d %v", p, resp.StatusCode, doc)
		}
	}
}

func descriptions(doc map[string]any) []string {
	var out []string
	if d, ok := doc["description"].([]any); ok {
		for _, s := range d {
			out = append(out, s.(string))
		}
	}
	return out
}

// TestExemptedVariants: an exempted domain lists the domains it is kept
// with as registered variants, apart from its blocked ones.
func TestExemptedVariants(t *testing.T) {
	svc := registrytest.SQLiteService(t)
	ctx := t.Context()
	a, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := svc.AddRegistrar(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	first, err := svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "पतताता.भारत", Lang: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := svc.CreateDomain(ctx, b, registry.DomainCreate{Name: "पत्तताता.भारत", Lang: "hi", Exempt: true})
	if err != nil || !second.Exempted {
		t.Fatalf("CreateExempt: %+v, %v", second, err)
	}
	srv := httptest.NewServer(rdap.Handler(svc, rdap.Options{}))
	defer srv.Close()
	for _, tt := range []struct{ name, other string }{{first.ALabel, second.Name}, {second.ALabel, first.Name}} {
		resp, err := http.Get(srv.URL + "/rdap/domain/" + tt.name)
		if err != nil {
			t.Fatal(err)
		}
		var d rdap.Domain
		json.NewDecoder(resp.Body).Decode(&d)
		resp.Body.Close()
		var registered, blocked []string
		for _, g := range d.Variants {
			for _, n := range g.VariantNames {
				switch {
				case slices.Equal(g.Relation, []string{"registered"}):
					registered = append(registered, n.UnicodeName)
				case slices.Equal(g.Relation, []string{"unregistered", "registration restricted"}):
					blocked = append(blocked, n.UnicodeName)
				default:
					t.Errorf("%s: relation %v", tt.name, g.Relation)
				}
			}
		}
		if !slices.Equal(registered, []string{tt.other}) || len(blocked) != len(first.Blocks)-2 || slices.Contains(blocked, tt.other) {
			t.Errorf("%s: registered %v, blocked %v (set of %d)", tt.name, registered, blocked, len(first.Blocks))
		}
		var doc map[string]any
		b, _ := json.Marshal(d)
		json.Unmarshal(b, &doc)
		if fails := check(doc, false); len(fails) > 0 {
			t.Errorf("%s: conformance %v", tt.name, fails)
		}
	}
}

// TestBlockedVariantOpenRDAP (issue 22 item 11): the standard client shows
// a blocked variant and the domain that blocks it (it prints no 404 body);
// a Gurmukhi twin of a Hindi name is in the Gurmukhi table; the Variants
// notice is on domains that have variants only.
func TestBlockedVariantOpenRDAP(t *testing.T) {
	e := newEnv(t)
	r := &registry.Registrar{ID: 1, Name: "acme"}
	if _, err := e.svc.CreateDomain(t.Context(), r, registry.DomainCreate{Name: "टीम.in", Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	server, _ := url.Parse(e.srv.URL + "/rdap")
	client := &openrdap.Client{}
	for _, tc := range []struct{ q, blocker string }{{kittabA, kitab}, {kittab, kitab}, {"ਟੀਸ.in", "टीम.in"}} {
		resp, err := client.Do(&openrdap.Request{Type: openrdap.DomainRequest, Query: tc.q, Server: server})
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		d, ok := resp.Object.(*openrdap.Domain)
		if !ok {
			t.Fatalf("%s: %T", tc.q, resp.Object)
		}
		var remarks []string
		for _, m := range d.Remarks {
			remarks = append(remarks, m.Title+": "+strings.Join(m.Description, " "))
		}
		if !slices.Equal(d.Status, []string{"inactive"}) || !strings.Contains(strings.Join(remarks, " "), "blocked variant of the registered domain "+tc.blocker) {
			t.Errorf("%s: status %v, remarks %q", tc.q, d.Status, remarks)
		}
		// what the client prints names the blocker
		var out strings.Builder
		(&openrdap.Printer{Writer: &out}).Print(d)
		if !strings.Contains(out.String(), tc.blocker) {
			t.Errorf("%s: the client prints\n%s", tc.q, out.String())
		}
	}
	twin := func(q string) map[string]string {
		_, doc := e.get(t, "/rdap/domain/"+url.PathEscape(q))
		tables := map[string]string{}
		vs, _ := doc["variants"].([]any)
		for _, v := range vs {
			g := v.(map[string]any)
			table, _ := g["idnTable"].(string)
			for _, n := range g["variantNames"].([]any) {
				tables[n.(map[string]any)["unicodeName"].(string)] = table
			}
		}
		return tables
	}
	if tables := twin("टीम.in"); tables["ਟੀਸ.in"] != "pa" {
		t.Errorf("टीम.in: the Gurmukhi twin's table is %q (all: %v), want pa", tables["ਟੀਸ.in"], tables)
	}
	if tables := twin(kitab); tables[kittab] != "hi" {
		t.Errorf("%s: %s in table %q, want hi", kitab, kittab, tables[kittab])
	}
	for _, tc := range []struct {
		q    string
		want bool
	}{{kitabA, true}, {"example.in", false}} {
		_, doc := e.get(t, "/rdap/domain/"+tc.q)
		has := false
		ns, _ := doc["notices"].([]any)
		for _, n := range ns {
			if n.(map[string]any)["title"] == "Variants" {
				has = true
			}
		}
		if has != tc.want {
			t.Errorf("%s: Variants notice %v, want %v (variants %v)", tc.q, has, tc.want, doc["variants"])
		}
	}
}
