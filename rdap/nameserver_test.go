package rdap_test

import (
	"encoding/json"
	"fmt"
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

// nsEnv: ns1.किताब.भारत with glue (v4 and v6), named by किताब.भारत;
// ns1.example.net outside the zones, named by no domain, with
// clientDeleteProhibited.
func nsEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	ctx := t.Context()
	r := &registry.Registrar{ID: 1, Name: "acme"}
	if _, err := e.svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns1." + kitab, Addrs: []registry.Addr{{IP: "8.8.8.8"}, {IP: "2001:4860:4860::8888", Family: "v6"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns1.example.net"}); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.UpdateHost(ctx, r, registry.HostUpdate{Name: "ns1.example.net", AddStatuses: []string{registry.HostDeleteProhibited}}); err != nil {
		t.Fatal(err)
	}
	if err := registrytest.Err(e.svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: kitab, AddNS: []string{"ns1." + kitab}})); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestNameserver: /rdap/nameserver/{name} answers a host object (RFC 9083
// §5.2) by its A-label or U-label name: ldhName and unicodeName, glue in
// ipAddresses v4/v6, statuses (associated for a host a domain names),
// the registrar, events and a self link; a name that is no host is a 404
// in the RDAP error form, a name that is no host name a 400.
func TestNameserver(t *testing.T) {
	e := nsEnv(t)
	nsA := "ns1." + kitabA
	tests := []struct {
		query  string
		status int
		want   map[string]any // members compared as JSON
	}{
		{nsA, 200, map[string]any{"ldhName": nsA, "unicodeName": "ns1." + kitab, "ipAddresses": map[string]any{"v4": []any{"8.8.8.8"}, "v6": []any{"2001:4860:4860::8888"}}, "status": []any{"associated"}}},
		{"ns1." + kitab, 200, map[string]any{"ldhName": nsA, "unicodeName": "ns1." + kitab}},
		{"NS1." + strings.ToUpper(kitabA), 200, map[string]any{"ldhName": nsA}},
		{"ns1.example.net", 200, map[string]any{"ldhName": "ns1.example.net", "unicodeName": nil, "ipAddresses": nil, "status": []any{"client delete prohibited"}}},
		{"ns2.example.net", 404, map[string]any{"errorCode": 404.0}},
		{"ns2." + kitab, 404, map[string]any{"errorCode": 404.0}},
		{"ns1.a\u200db.example.net", 400, map[string]any{"errorCode": 400.0}}, // a joiner outside its context
	}
	for _, tt := range tests {
		resp, doc := e.get(t, "/rdap/nameserver/"+url.PathEscape(tt.query))
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d: %v", tt.query, resp.StatusCode, tt.status, doc)
			continue
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/rdap+json" {
			t.Errorf("%s: Content-Type %q", tt.query, ct)
		}
		for k, v := range tt.want {
			got, _ := json.Marshal(doc[k])
			want, _ := json.Marshal(v)
			if string(got) != string(want) {
				t.Errorf("%s: %s = %s, want %s", tt.query, k, got, want)
			}
		}
		if tt.status != 200 {
			if fails := check(doc, true); len(fails) > 0 {
				t.Errorf("%s: the error body fails %v", tt.query, fails)
			}
			continue
		}
		if fails := checkNameserver(doc); len(fails) > 0 {
			t.Errorf("%s: the nameserver object fails %v: %v", tt.query, fails, doc)
		}
		self, _ := doc["links"].([]any)
		if len(self) != 1 || !strings.HasSuffix(self[0].(map[string]any)["href"].(string), "/rdap/nameserver/"+doc["ldhName"].(string)) {
			t.Errorf("%s: links %v", tt.query, doc["links"])
		}
		ents, _ := doc["entities"].([]any)
		if len(ents) != 1 || ents[0].(map[string]any)["handle"] != "R1-AKSHARA-REGISTRAR" || !strings.Contains(fmt.Sprint(ents[0]), "fn map[] text acme") {
			t.Errorf("%s: entities %v, want the registrar acme", tt.query, doc["entities"])
		}
	}
}

// TestNameserverOpenRDAP reads the name servers with openrdap (a client
// we did not write): no member it does not know, the glue, the statuses;
// and follows the link in a domain's nameservers to the same object.
func TestNameserverOpenRDAP(t *testing.T) {
	e := nsEnv(t)
	server, _ := url.Parse(e.srv.URL + "/rdap")
	client := &openrdap.Client{}
	for _, q := range []string{"ns1." + kitabA, "ns1." + kitab} {
		resp, err := client.Do(&openrdap.Request{Type: openrdap.NameserverRequest, Query: q, Server: server})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		ns, ok := resp.Object.(*openrdap.Nameserver)
		if !ok {
			t.Fatalf("%s: %T, want a nameserver", q, resp.Object)
		}
		if u := ns.DecodeData.UnknownFields(); len(u) > 0 {
			t.Errorf("%s: members openrdap does not know: %v", q, u)
		}
		if ns.LDHName != "ns1."+kitabA || ns.UnicodeName != "ns1."+kitab || ns.IPAddresses == nil ||
			!slices.Equal(ns.IPAddresses.V4, []string{"8.8.8.8"}) || !slices.Equal(ns.IPAddresses.V6, []string{"2001:4860:4860::8888"}) ||
			!slices.Equal(ns.Status, []string{"associated"}) || ns.ObjectClassName != "nameserver" {
			t.Errorf("%s: %+v", q, ns)
		}
	}
	_, err := client.Do(&openrdap.Request{Type: openrdap.NameserverRequest, Query: "ns9.example.net", Server: server})
	if ce, ok := err.(*openrdap.ClientError); !ok || ce.Type != openrdap.ObjectDoesNotExist {
		t.Errorf("unknown host: %v, want ObjectDoesNotExist", err)
	}
	// the domain's nameservers link to the objects
	resp, err := client.Do(&openrdap.Request{Type: openrdap.DomainRequest, Query: kitabA, Server: server})
	if err != nil {
		t.Fatal(err)
	}
	d := resp.Object.(*openrdap.Domain)
	if len(d.Nameservers) != 1 || len(d.Nameservers[0].Links) != 1 {
		t.Fatalf("domain nameservers: %+v", d.Nameservers)
	}
	href := d.Nameservers[0].Links[0].Href
	hr, err := http.Get(href)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(hr.Body)
	hr.Body.Close()
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil || hr.StatusCode != 200 || doc["objectClassName"] != "nameserver" || doc["ldhName"] != "ns1."+kitabA {
		t.Errorf("GET %s: %d %v %s", href, hr.StatusCode, err, body)
	}
}

// checkNameserver applies the conformance tool's nameserver tests (std_95
// stdRdapNameserverLookupValidation -124xx: known members, class name,
// handle, LDH and Unicode names, ipAddresses) and the common ones (links,
// events, status, entities, notices).
func checkNameserver(d map[string]any) []int {
	c := &checker{}
	c.conformance(d["rdapConformance"])
	if !keysIn(d, "rdapConformance", "objectClassName", "handle", "ldhName", "unicodeName", "ipAddresses", "entities", "status", "remarks", "links", "port43", "events", "notices", "lang") {
		c.fail(-12401)
	}
	if d["objectClassName"] != "nameserver" {
		c.fail(-12403)
	}
	if h, ok := d["handle"]; ok {
		if _, ok := h.(string); !ok {
			c.fail(-12404)
		}
	}
	if len(ldhName(d["ldhName"])) > 0 {
		c.fail(-12405)
	}
	if u, ok := d["unicodeName"]; ok && len(unicodeName(u)) > 0 {
		c.fail(-12406)
	}
	if ip, ok := d["ipAddresses"]; ok {
		m, ok := ip.(map[string]any)
		if !ok || !keysIn(m, "v4", "v6") {
			c.fail(-12407)
		}
		for fam, v := range m {
			a, ok := strs(v)
			if !ok {
				c.fail(-12408)
			}
			for _, s := range a {
				if (fam == "v4") == strings.Contains(s, ":") {
					c.fail(-12409)
				}
			}
		}
	}
	for k, f := range map[string]func(any){"entities": c.entities, "status": c.status, "links": c.links, "events": c.events, "notices": c.notices} {
		if v, ok := d[k]; ok {
			f(v)
		}
	}
	c.nested(d, 0)
	slices.Sort(c.codes)
	return slices.Compact(c.codes)
}

// TestCheckNameserver: the nameserver checks fail where they must.
func TestCheckNameserver(t *testing.T) {
	e := nsEnv(t)
	_, good := e.get(t, "/rdap/nameserver/ns1."+kitabA)
	if fails := checkNameserver(good); len(fails) > 0 {
		t.Fatalf("the served nameserver fails %v", fails)
	}
	for _, tt := range []struct {
		name string
		f    func(d map[string]any)
		code int
	}{
		{"unknown member", func(d map[string]any) { d["glue"] = []any{} }, -12401},
		{"class", func(d map[string]any) { d["objectClassName"] = "host" }, -12403},
		{"ldhName in U-labels", func(d map[string]any) { d["ldhName"] = "ns1." + kitab }, -12405},
		{"v4 address in v6", func(d map[string]any) { d["ipAddresses"] = map[string]any{"v6": []any{"8.8.8.8"}} }, -12409},
		{"unknown status", func(d map[string]any) { d["status"] = []any{"linked"} }, -11002},
	} {
		b, _ := json.Marshal(good)
		var d map[string]any
		json.Unmarshal(b, &d)
		tt.f(d)
		if fails := checkNameserver(d); !slices.Contains(fails, tt.code) {
			t.Errorf("%s: checks found %v, want %d", tt.name, fails, tt.code)
		}
	}
}
