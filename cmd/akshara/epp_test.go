package main

import (
	"context"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestRegistrarEPPPassword: the password is read from standard input,
// checked against the schema's limits, and logs in; epp-cert pins a
// fingerprint.
func TestRegistrarEPPPassword(t *testing.T) {
	db := t.TempDir() + "/r.db"
	if _, stderr, code := runCLI(t, "", "registrar", "add", "-db", db, "acme"); code != exitOK {
		t.Fatalf("registrar add: %d %s", code, stderr)
	}
	tests := []struct {
		stdin string
		args  []string
		code  int
	}{
		{"short\n", []string{"epp-password", "-db", db, "acme"}, exitUsage},
		{"", []string{"epp-password", "-db", db, "acme"}, exitUsage},
		{"secret12\n", []string{"epp-password", "-db", db, "nobody"}, exitUsage},
		{"secret12\n", []string{"epp-password", "-db", db}, exitUsage},
		{"secret12\n", []string{"epp-password", "-db", db, "acme"}, exitOK},
		{"", []string{"epp-cert", "-db", db, "acme", "zz"}, exitUsage},
		{"", []string{"epp-cert", "-db", db, "acme", strings.Repeat("AB:", 31) + "AB"}, exitOK},
	}
	for _, tt := range tests {
		if _, stderr, code := runCLI(t, tt.stdin, append([]string{"registrar"}, tt.args...)...); code != tt.code {
			t.Errorf("registrar %v (stdin %q): exit %d, want %d (%s)", tt.args, tt.stdin, code, tt.code, stderr)
		}
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := registry.NewService(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.EPPLogin(ctx, "acme", "secret12", strings.Repeat("ab", 32)); err != nil {
		t.Errorf("login with the password set and the pinned certificate: %v", err)
	}
	if _, err := svc.EPPLogin(ctx, "acme", "secret12", ""); err == nil {
		t.Error("login without the pinned certificate")
	}
}
