package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRegistrarAccessCommands (issue 38): registrar allow sets, shows and
// clears an address allow-list; epp-password-lifetime sets the registry's
// and a registrar's password lifetime and shows the expiry;
// epp-password-expire; a password of 128 characters is accepted; refusals
// exit 1; everything is in the audit log with its outcome.
func TestRegistrarAccessCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	if _, _, code := runCLI(t, "", "registrar", "add", "-db", db, "acme"); code != 0 {
		t.Fatal("registrar add")
	}
	long := strings.Repeat("passphrase-", 12)[:128]
	if out, errOut, code := runCLI(t, long+"\n", "registrar", "epp-password", "-db", db, "acme"); code != 0 {
		t.Fatalf("epp-password of 128 characters: %q %q %d", out, errOut, code)
	}
	for _, c := range []struct {
		args []string
		code int
		out  string // in stdout (exit 0) or stderr
	}{
		{[]string{"allow", "-db", db, "acme"}, 0, `registrar "acme": every address (no allow-list)`},
		{[]string{"allow", "-db", db, "acme", "192.0.2.9/24", "2001:db8::1"}, 0, `registrar "acme": 192.0.2.0/24 2001:db8::1/128`},
		{[]string{"allow", "-db", db, "acme"}, 0, `registrar "acme": 192.0.2.0/24 2001:db8::1/128`},
		{[]string{"allow", "-db", db, "acme", "0.0.0.0/0"}, exitInvalid, "BAD_NAME"},
		{[]string{"allow", "-db", db, "nobody", "192.0.2.0/24"}, exitInvalid, "NOT_FOUND"},
		{[]string{"allow", "-db", db, "-clear", "acme"}, 0, `registrar "acme": every address (no allow-list)`},
		{[]string{"allow", "-db", db}, exitUsage, "usage: akshara registrar allow"},
		{[]string{"epp-password-lifetime", "-db", db, "-registry"}, 0, "the registry's EPP password lifetime: never"},
		{[]string{"epp-password-lifetime", "-db", db, "-registry", "90d"}, 0, "the registry's EPP password lifetime: 90d"},
		{[]string{"epp-password-lifetime", "-db", db, "acme"}, 0, "(lifetime 90d, the registry's)"},
		{[]string{"epp-password-lifetime", "-db", db, "acme", "30d"}, 0, "(lifetime 30d, its own)"},
		{[]string{"epp-password-lifetime", "-db", db, "acme", "never"}, 0, "never expires (lifetime never, its own)"},
		{[]string{"epp-password-lifetime", "-db", db, "acme", "default"}, 0, "(lifetime 90d, the registry's)"},
		{[]string{"epp-password-lifetime", "-db", db, "acme", "soon"}, exitInvalid, "BAD_NAME"},
		{[]string{"epp-password-expire", "-db", db, "acme"}, 0, `EPP password of registrar "acme" expired`},
	} {
		out, errOut, code := runCLI(t, "", append([]string{"registrar"}, c.args...)...)
		where := out
		if c.code != 0 {
			where = errOut
		}
		if code != c.code || !strings.Contains(where, c.out) {
			t.Errorf("registrar %s: exit %d, out %q, err %q; want exit %d and %q", strings.Join(c.args, " "), code, out, errOut, c.code, c.out)
		}
	}
	out, _, code := runCLI(t, "", "registrar", "epp-password-lifetime", "-db", db, "acme")
	if code != 0 || !strings.Contains(out, ", expires ") {
		t.Errorf("after epp-password-expire: %q", out)
	}
	out, _, _ = runCLI(t, "", "audit-log", "-db", db)
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		for _, a := range []string{`"registrar-allow"`, `"epp-password-lifetime"`, `"epp-password-expire"`} {
			if strings.Contains(l, `"action":`+a) {
				got = append(got, a)
			}
		}
	}
	if len(got) != 10 {
		t.Errorf("%d audit records of the commands, want 10 (4 allow, 5 lifetime, 1 expire):\n%s", len(got), out)
	}
}
