package httpapi_test

import (
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
)

// TestFamily: over HTTP, a name under ভারত blocks the same label and its
// র/ৰ variant under ভাৰত, its variant TLD (docs/variants.md, "Zone
// families"): check says blocked, naming the blocker with its zone, and a
// create is 409 CONFLICT (not EXISTS: another zone's name). Before
// families both were available.
func TestFamily(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
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
