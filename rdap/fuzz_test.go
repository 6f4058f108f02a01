package rdap_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/akshara-idn/akshara/rdap"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// FuzzRDAP looks names up: never a 5xx, always an RDAP JSON body with
// rdapConformance.
func FuzzRDAP(f *testing.F) {
	for _, s := range []string{kitab, kitabA, kittabA, "example.in", "nodots", "x.nozone", "xn--zz-.in", "\xff.भारत", "a..b", "."} {
		f.Add(s)
	}
	svc := registrytest.SQLiteService(f)
	r, _, err := svc.AddRegistrar(f.Context(), "acme")
	if err != nil {
		f.Fatal(err)
	}
	if _, err := svc.CreateDomain(f.Context(), r, registry.DomainCreate{Name: kitab, Lang: "hi"}); err != nil {
		f.Fatal(err)
	}
	h := rdap.Handler(svc, rdap.Options{})
	f.Fuzz(func(t *testing.T, name string) {
		req := httptest.NewRequest("GET", "/rdap/domain/x", nil)
		req.URL.Path = "/rdap/domain/" + name
		req.URL.RawPath = "/rdap/domain/" + url.PathEscape(name)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%q: %d %s", name, w.Code, w.Body)
		}
		if w.Code == http.StatusMovedPermanently || w.Code == http.StatusTemporaryRedirect {
			return // the mux cleans paths with dots and slashes
		}
		var doc map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc["rdapConformance"] == nil {
			t.Fatalf("%q: %d %s", name, w.Code, w.Body)
		}
	})
}

// FuzzRDAPSearch sends domain searches (the name and cursor parameters
// as given): never a 5xx, always an RDAP JSON body with rdapConformance,
// a 200 only with domainSearchResults.
func FuzzRDAPSearch(f *testing.F) {
	for _, s := range [][2]string{{"कि*.भारत", ""}, {"xn--11b4*.xn--h2brj9c", ""}, {"ex*.in", "MjpleGFtcGxlLmlu"}, {"*.in", ""},
		{"a*c.in", ""}, {"\xff*.in", ""}, {"ab*.in", "!!"}, {"ab*.in", "MTpk"}, {"", ""}, {"ab*.in.", "Mjp6"}} {
		f.Add(s[0], s[1])
	}
	svc := registrytest.SQLiteService(f)
	r, _, err := svc.AddRegistrar(f.Context(), "acme")
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range []string{kitab, "example.in", "exam.in"} {
		if _, err := svc.CreateDomain(f.Context(), r, registry.DomainCreate{Name: n}); err != nil {
			f.Fatal(err)
		}
	}
	h := rdap.Handler(svc, rdap.Options{SearchRate: -1, SearchPage: 1})
	f.Fuzz(func(t *testing.T, name, cursor string) {
		req := httptest.NewRequest("GET", "/rdap/domains?"+url.Values{"name": {name}, "cursor": {cursor}}.Encode(), nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%q %q: %d %s", name, cursor, w.Code, w.Body)
		}
		var doc map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc["rdapConformance"] == nil {
			t.Fatalf("%q %q: %d %s", name, cursor, w.Code, w.Body)
		}
		if _, ok := doc["domainSearchResults"].([]any); (w.Code == http.StatusOK) != ok {
			t.Fatalf("%q %q: %d %s", name, cursor, w.Code, w.Body)
		}
	})
}
