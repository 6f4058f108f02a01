package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/rdap"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestFamily: over HTTP, a name under ভারত blocks the same label and its
// র/ৰ variant under ভাৰত, its variant TLD (docs/variants.md, "Zone
// families"): check says blocked, naming the blocker with its zone, and a
// create is 409 CONFLICT (not EXISTS: another zone's name). Before
// families both were available.
func TestFamily(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	var zones []registry.Zone
	e.do("GET", "/v1/zones", "", "", &zones)
	fams := map[string]string{}
	for _, z := range zones {
		if z.Family != "" {
			fams[z.Name] = z.Family
		}
	}
	if len(fams) != 2 || fams["ভারত"] != "ভারত" || fams["ভাৰত"] != "ভারত" {
		t.Errorf("GET /v1/zones: families %v, want ভারত and ভাৰত in family ভারত", fams)
	}
	for _, n := range []string{"কিতাব.ভারত", "সরকার.ভারত"} {
		var d registry.Domain
		if r := e.do("POST", "/v1/domains", e.tokenA, `{"name":"`+n+`"}`, &d); r.StatusCode != 201 {
			t.Fatalf("create %s: %d", n, r.StatusCode)
		}
	}
	for _, tt := range []struct{ name, status, blocker string }{
		{"কিতাব.ভাৰত", "blocked", "কিতাব.ভারত"},
		{"সৰকাৰ.ভাৰত", "blocked", "সরকার.ভারত"},
		{"কিতাব.ভারত", "registered", ""},
		{"ন্যায়.ভাৰত", "available", ""},
	} {
		var c registry.CheckResult
		e.do("GET", q(tt.name, ""), "", "", &c)
		if string(c.Status) != tt.status || c.BlockedBy != tt.blocker {
			t.Errorf("check %s: %s by %q, want %s by %q", tt.name, c.Status, c.BlockedBy, tt.status, tt.blocker)
		}
		if tt.status != "blocked" {
			continue
		}
		var eb httpapi.ErrorBody
		if r := e.do("POST", "/v1/domains", e.tokenB, `{"name":"`+tt.name+`"}`, &eb); r.StatusCode != 409 || eb.Code != "CONFLICT" || eb.BlockedBy != tt.blocker {
			t.Errorf("create %s: %d %+v, want 409 CONFLICT blocked by %s", tt.name, r.StatusCode, eb, tt.blocker)
		}
	}
}

// TestFamilyRDAP: RDAP answers a name blocked across the family as a
// blocked variant naming its blocker under the other member TLD.
func TestFamilyRDAP(t *testing.T) {
	svc := registrytest.SQLiteServiceWith(t, registrytest.Exempt(registry.ServiceOptions{}, "http", ""))
	r, _, err := svc.AddRegistrar(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(t.Context(), r, registry.DomainCreate{Name: "সরকার.ভারত"}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(rdap.Handler(svc, rdap.Options{}))
	defer ts.Close()
	resp, err := http.Get(ts.URL + rdap.Prefix + "domain/" + url.PathEscape("সৰকাৰ.ভাৰত"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc rdap.Domain
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || len(doc.Remarks) == 0 || !strings.Contains(strings.Join(doc.Remarks[0].Description, " "), "blocked variant of the registered domain সরকার.ভারত") {
		t.Errorf("RDAP of সৰকাৰ.ভাৰত: %d %+v, want a blocked variant of সরকার.ভারত", resp.StatusCode, doc)
	}
}
