package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// TestContactCLI (issue 34 item 4): akshara contact create|info|update|delete
// act as the registrar -registrar names, with the registry's validation
// and authorisation (the codes EPP and HTTP give), and akshara domain
// create names the contacts; each step's exit status and code.
func TestContactCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	for _, r := range []string{"acme", "other"} {
		if _, stderr, code := runCLI(t, "", "registrar", "add", "-db", db, r); code != exitOK {
			t.Fatalf("registrar add: %s", stderr)
		}
	}
	const pw = "Contact-pw-1-strong"
	addr := []string{"-name", "Asha Rao", "-street", "12 MG Road", "-city", "Bengaluru", "-cc", "in", "-voice", "+91.8012345678"}
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string // in standard output (success) or standard error
	}{
		{"create", append([]string{"contact", "create", "-registrar", "acme", "-id", "ac-1", "-email", "asha@example.in", "-auth-info", pw}, addr...), exitOK, `"registrar": "acme"`},
		{"create from JSON", []string{"contact", "create", "-registrar", "acme", "-json", "-"}, exitOK, `"id": "ac-2"`},
		{"create other's", append([]string{"contact", "create", "-registrar", "other", "-id", "oc-1", "-email", "o@example.in", "-auth-info", pw}, addr...), exitOK, `"registrar": "other"`},
		{"create: the id taken", append([]string{"contact", "create", "-registrar", "other", "-id", "ac-1", "-email", "o@example.in", "-auth-info", pw}, addr...), exitInvalid, registry.CodeExists},
		{"create: no email address", append([]string{"contact", "create", "-registrar", "acme", "-id", "ac-9", "-email", "nope", "-auth-info", pw}, addr...), exitInvalid, registry.CodeBadContact},
		{"create: a weak authInfo", append([]string{"contact", "create", "-registrar", "acme", "-id", "ac-9", "-email", "a@example.in", "-auth-info", "weak"}, addr...), exitInvalid, registry.CodeWeakAuthInfo},
		{"create: no registrar", append([]string{"contact", "create", "-id", "ac-9", "-email", "a@example.in", "-auth-info", pw}, addr...), exitUsage, "-registrar"},
		{"create: an unknown registrar", append([]string{"contact", "create", "-registrar", "nobody", "-id", "ac-9", "-email", "a@example.in", "-auth-info", pw}, addr...), exitInvalid, registry.CodeNotFound},
		{"info", []string{"contact", "info", "-registrar", "acme", "ac-1"}, exitOK, `"email": "asha@example.in"`},
		{"info by another", []string{"contact", "info", "-registrar", "other", "ac-1"}, exitInvalid, registry.CodeForbidden},
		{"info by another with the authInfo", []string{"contact", "info", "-registrar", "other", "-auth-info", pw, "ac-1"}, exitOK, `"id": "ac-1"`},
		{"update", []string{"contact", "update", "-registrar", "acme", "-email", "new@example.in", "-add-status", "clientUpdateProhibited", "ac-2"}, exitOK, `"email": "new@example.in"`},
		{"update: prohibited", []string{"contact", "update", "-registrar", "acme", "-email", "x@example.in", "ac-2"}, exitInvalid, registry.CodeStatusProhibits},
		{"update by another", []string{"contact", "update", "-registrar", "other", "-email", "x@example.in", "ac-1"}, exitInvalid, registry.CodeForbidden},
		{"update the address", []string{"contact", "update", "-registrar", "acme", "-name", "Asha R", "-city", "Mysuru", "-cc", "IN", "ac-1"}, exitOK, `"city": "Mysuru"`},
		{"domain without contacts", []string{"domain", "create", "-registrar", "acme", "-lang", "hi", "किताब.भारत"}, exitInvalid, registry.CodeContactRequired},
		{"domain with another's contact", []string{"domain", "create", "-registrar", "acme", "-contact", "registrant=oc-1", "-contact", "admin=ac-1", "-contact", "tech=ac-1", "किताब.भारत"}, exitInvalid, registry.CodeContactNotSponsored},
		{"domain", []string{"domain", "create", "-registrar", "acme", "-contact", "registrant=ac-1", "-contact", "admin=ac-1", "-contact", "tech=ac-1", "किताब.भारत"}, exitOK, `"role": "registrant"`},
		{"domain: a bad -contact", []string{"domain", "create", "-registrar", "acme", "-contact", "ac-1", "कमल.भारत"}, exitUsage, "ROLE=ID"},
		{"delete a linked contact", []string{"contact", "delete", "-registrar", "acme", "ac-1"}, exitInvalid, registry.CodeAssociated},
		{"delete another's", []string{"contact", "delete", "-registrar", "acme", "oc-1"}, exitInvalid, registry.CodeForbidden},
		{"delete", []string{"contact", "delete", "-registrar", "other", "oc-1"}, exitOK, "deleted"},
		{"info after delete", []string{"contact", "info", "-registrar", "other", "oc-1"}, exitInvalid, registry.CodeNotFound},
	} {
		stdin := ""
		if tt.name == "create from JSON" {
			js, _ := json.Marshal(map[string]any{"id": "ac-2", "auth_info": pw, "email": "a2@example.in",
				"postal": []map[string]any{{"type": "loc", "name": "आशा राव", "city": "बेंगलुरु", "cc": "IN"}}})
			stdin = string(js)
		}
		args := append([]string{tt.args[0], tt.args[1], "-db", db}, tt.args[2:]...)
		out, stderr, code := runCLI(t, stdin, args...)
		if code != tt.code || !strings.Contains(out+stderr, tt.want) {
			t.Errorf("%s: exit %d, want %d with %q:\n%s%s", tt.name, code, tt.code, tt.want, out, stderr)
		}
	}
}
