package httpapi_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
)

// TestIssue22Names: the check API's answer for the names of issue 22 item
// 8 (the page's deep links show the same answers): a final dot, A-labels,
// a third-level name and a zone the registry does not serve, each said so.
// And item 7: a registered name is not blocked by itself.
func TestIssue22Names(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	if r := e.do("POST", "/v1/domains", e.tokenA, `{"name":"किताब.भारत","lang":"hi"}`, nil); r.StatusCode != 201 {
		t.Fatalf("create: %d", r.StatusCode)
	}
	for _, name := range []string{"किताब.भारत", "किताब.भारत.", "xn--11b4aya5ed.xn--h2brj9c", "XN--11B4AYA5ED.XN--H2BRJ9C."} {
		var c registry.CheckResult
		if r := e.do("GET", "/v1/check?name="+url.QueryEscape(name), "", "", &c); r.StatusCode != 200 {
			t.Errorf("check %s: %d", name, r.StatusCode)
		}
		if c.Status != registry.Registered || c.BlockedBy != "" || c.ULabel != "किताब.भारत" {
			t.Errorf("check %s: %s blocked by %q (%s), want registered, by nobody", name, c.Status, c.BlockedBy, c.ULabel)
		}
	}
	for _, tc := range []struct{ name, code, words string }{
		{"www.किताब.भारत", registry.CodeBadName, "third-level name"},
		{"www.xn--11b4aya5ed.xn--h2brj9c.", registry.CodeBadName, "third-level name"},
		{"google.com", registry.CodeUnknownZone, "not a zone this registry serves"},
		{"www.google.com", registry.CodeBadName, "not a zone this registry serves"},
	} {
		var eb httpapi.ErrorBody
		r := e.do("GET", "/v1/check?name="+url.QueryEscape(tc.name), "", "", &eb)
		if r.StatusCode/100 != 4 || eb.Code != tc.code || !strings.Contains(eb.Message, tc.words) {
			t.Errorf("check %s: %d %s %q, want %s saying %q", tc.name, r.StatusCode, eb.Code, eb.Message, tc.code, tc.words)
		}
	}
}

// TestDomainsPaged (issue 22 item 10): GET /v1/domains pages by limit and
// cursor; following Next-Cursor lists every domain once.
func TestDomainsPaged(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	names := []string{"किताब.भारत", "कमल.भारत", "नमूना.भारत", "मकान.भारत", "पानी.भारत"}
	for _, n := range names {
		if r := e.do("POST", "/v1/domains", e.tokenA, `{"name":"`+n+`","lang":"hi"}`, nil); r.StatusCode != 201 {
			t.Fatalf("create %s: %d", n, r.StatusCode)
		}
	}
	var got []string
	path := "/v1/domains?limit=2"
	for pages := 0; path != ""; pages++ {
		if pages > len(names) {
			t.Fatal("more pages than domains")
		}
		var ds []registry.Domain
		r := e.do("GET", path, e.tokenA, "", &ds)
		if r.StatusCode != 200 || len(ds) > 2 {
			t.Fatalf("GET %s: %d, %d domains", path, r.StatusCode, len(ds))
		}
		for _, d := range ds {
			got = append(got, d.Name)
		}
		path = ""
		if next := r.Header.Get("Next-Cursor"); next != "" {
			path = "/v1/domains?limit=2&cursor=" + next
			if l := r.Header.Get("Link"); !strings.Contains(l, "cursor="+next) || !strings.Contains(l, `rel="next"`) {
				t.Errorf("Link %q", l)
			}
		}
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("listed %q, want %q", got, names)
	}
	for _, bad := range []string{"limit=0", "limit=1001", "limit=x", "cursor=x", "cursor=-1"} {
		var eb httpapi.ErrorBody
		if r := e.do("GET", "/v1/domains?"+bad, e.tokenA, "", &eb); r.StatusCode != 400 || eb.Code != httpapi.CodeBadParam {
			t.Errorf("GET /v1/domains?%s: %d %s, want 400 BAD_PARAM", bad, r.StatusCode, eb.Code)
		}
	}
}
