package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// TestRegistrarAbuse: akshara registrar abuse records a registrar's abuse
// contact (RDAP's abuse entity, issue 34 item 13), prints it, keeps a
// field whose flag is not given, refuses a malformed one (exit 1) and an
// unknown registrar; registrar list -json shows it.
func TestRegistrarAbuse(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	if _, _, code := runCLI(t, "", "registrar", "add", "-db", db, "acme"); code != 0 {
		t.Fatalf("registrar add: %d", code)
	}
	if out, _, code := runCLI(t, "", "registrar", "abuse", "-db", db, "acme"); code != 0 || !strings.Contains(out, "no abuse contact") {
		t.Errorf("registrar abuse before: %q %d", out, code)
	}
	if _, errOut, code := runCLI(t, "", "registrar", "abuse", "-db", db, "-email", "abuse@acme.example", "-phone", "+91.1123456789", "acme"); code != 0 {
		t.Fatalf("registrar abuse: %d %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", "registrar", "abuse", "-db", db, "-phone", "+91.1199999999", "acme"); code != 0 {
		t.Fatalf("registrar abuse -phone: %d %s", code, errOut)
	}
	if out, _, code := runCLI(t, "", "registrar", "abuse", "-db", db, "acme"); code != 0 || out != "email: abuse@acme.example\nphone: +91.1199999999\n" {
		t.Errorf("registrar abuse: %q %d", out, code)
	}
	for _, args := range [][]string{{"-email", "not-an-address", "acme"}, {"-phone", "011-2345", "acme"}, {"-email", "a@b.example", "nobody"}} {
		if _, errOut, code := runCLI(t, "", append([]string{"registrar", "abuse", "-db", db}, args...)...); code != exitInvalid {
			t.Errorf("registrar abuse %q: %d %s, want exit 1", args, code, errOut)
		}
	}
	out, _, code := runCLI(t, "", "registrar", "list", "-db", db, "-json")
	var ri registry.RegistrarInfo
	if code != 0 || json.Unmarshal([]byte(out), &ri) != nil || ri.Abuse != (registry.AbuseContact{Email: "abuse@acme.example", Phone: "+91.1199999999"}) {
		t.Errorf("registrar list -json: %q %d", out, code)
	}
}
