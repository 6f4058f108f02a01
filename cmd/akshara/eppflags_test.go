package main

import (
	"strings"
	"testing"
)

// TestEPPCommandTimeoutFlag (issue 34 item 12): -epp-command-timeout
// reaches the EPP server: with 1ns no command has time for the registry
// (a login answers 2400), with the default it logs in; 0 is a usage
// error.
func TestEPPCommandTimeoutFlag(t *testing.T) {
	db := t.TempDir() + "/r.db"
	if _, stderr, code := runCLI(t, "", "registrar", "add", "-db", db, "acme"); code != exitOK {
		t.Fatalf("registrar add: %s", stderr)
	}
	if _, stderr, code := runCLI(t, "secret12\n", "registrar", "epp-password", "-db", db, "acme"); code != exitOK {
		t.Fatalf("epp-password: %s", stderr)
	}
	login := `<login><clID>acme</clID><pw>secret12</pw><options><version>1.0</version><lang>en</lang></options><svcs><objURI>urn:ietf:params:xml:ns:domain-1.0</objURI></svcs></login>`
	for _, tc := range []struct {
		args []string
		code string
	}{
		{[]string{"-epp-command-timeout", "1ns"}, `code="2400"`},
		{nil, `code="1000"`},
		{[]string{"-epp-command-timeout", "30s"}, `code="1000"`},
	} {
		c := dialEPP(t, serveEPP(t, append([]string{"-db", db}, tc.args...)...))
		if r := c.do(login); !strings.Contains(r, tc.code) {
			t.Errorf("serve %v: login answered\n%s\nwant %s", tc.args, r, tc.code)
		}
	}
	if _, stderr, code := runCLI(t, "", "serve", "-addr", "127.0.0.1:0", "-epp", "127.0.0.1:0", "-db", db, "-epp-command-timeout", "0"); code != exitUsage || !strings.Contains(stderr, "-epp-command-timeout") {
		t.Errorf("-epp-command-timeout 0: exit %d, want %d\n%s", code, exitUsage, stderr)
	}
}
