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
