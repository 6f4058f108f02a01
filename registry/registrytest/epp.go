package registrytest

import (
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// testEPPCredentials: an EPP password is stored as a salted hash, logs in,
// changes; a pinned certificate fingerprint is required once set.
func testEPPCredentials(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	if _, ok := e.store.(registry.EPPStore); !ok {
		t.Skip("the store keeps no EPP credentials")
	}
	e.registrar("acme")
	e.registrar("other")
	ctx := e.ctx
	if _, err := e.svc.EPPLogin(ctx, "acme", "secret12", ""); registry.CodeOf(err) != registry.CodeUnauthorized {
		t.Errorf("login before a password is set: %v", err)
	}
	for _, bad := range []string{"short", strings.Repeat("x", registry.EPPPasswordMax+1), " spaced", "two  spaces", "tab\there", registry.LoginSecPlaceholder} {
		if err := e.svc.SetEPPPassword(ctx, "acme", bad); registry.CodeOf(err) != registry.CodeBadName {
			t.Errorf("SetEPPPassword(%q) = %v, want BAD_NAME", bad, err)
		}
	}
	e.registrar("ab")
	e.registrar("a registrar with a long name")
	for _, name := range []string{"ab", "a registrar with a long name"} {
		if err := e.svc.SetEPPPassword(ctx, name, "secret12"); registry.CodeOf(err) != registry.CodeBadName {
			t.Errorf("SetEPPPassword for %q (not a clID) = %v, want BAD_NAME", name, err)
		}
	}
	if err := e.svc.SetEPPPassword(ctx, "nobody", "secret12"); registry.CodeOf(err) != registry.CodeNotFound {
		t.Errorf("SetEPPPassword for no registrar = %v, want NOT_FOUND", err)
	}
	if err := e.svc.SetEPPPassword(ctx, "acme", "secret12"); err != nil {
		t.Fatal(err)
	}
	_, c, err := e.store.(registry.EPPStore).EPPCredentials(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.PasswordHash, "secret12") || !strings.HasPrefix(c.PasswordHash, "$argon2id$") {
		t.Errorf("stored %q: not an argon2id hash", c.PasswordHash)
	}
	tests := []struct {
		clID, pw, cert string
		ok             bool
	}{
		{"acme", "secret12", "", true},
		{"acme", "secret13", "", false},
		{"other", "secret12", "", false}, // no password set
		{"nobody", "secret12", "", false},
		{"ACME", "secret12", "", false},
	}
	for _, tt := range tests {
		r, err := e.svc.EPPLogin(ctx, tt.clID, tt.pw, tt.cert)
		if tt.ok && (err != nil || r.Name != tt.clID) {
			t.Errorf("EPPLogin(%s, %s) = %v, %v; want ok", tt.clID, tt.pw, r, err)
		}
		if !tt.ok && registry.CodeOf(err) != registry.CodeUnauthorized {
			t.Errorf("EPPLogin(%s, %s) = %v, %v; want UNAUTHORIZED", tt.clID, tt.pw, r, err)
		}
	}
	// a certificate pinned before any password: still no login
	if err := e.svc.SetEPPCertificate(ctx, "other", strings.Repeat("ab", 32)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.EPPLogin(ctx, "other", "", strings.Repeat("ab", 32)); registry.CodeOf(err) != registry.CodeUnauthorized {
		t.Errorf("login with a pinned certificate and no password set: %v", err)
	}
	// a second set replaces the first
	if err := e.svc.SetEPPPassword(ctx, "acme", "n3w-Secret"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.EPPLogin(ctx, "acme", "secret12", ""); err == nil {
		t.Error("the old password still logs in")
	}
	fp := strings.Repeat("ab", 32)
	if err := e.svc.SetEPPCertificate(ctx, "acme", "not hex"); registry.CodeOf(err) != registry.CodeBadName {
		t.Errorf("SetEPPCertificate(not hex) = %v", err)
	}
	if err := e.svc.SetEPPCertificate(ctx, "acme", strings.ToUpper(fp)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.EPPLogin(ctx, "acme", "n3w-Secret", ""); err == nil {
		t.Error("logged in without the pinned certificate")
	}
	if _, err := e.svc.EPPLogin(ctx, "acme", "n3w-Secret", fp); err != nil {
		t.Errorf("login with the pinned certificate: %v", err)
	}
	if _, err := e.svc.EPPLogin(ctx, "acme", "n3w-Secret", strings.Repeat("cd", 32)); err == nil {
		t.Error("logged in with another certificate")
	}

	// issue 22: a revoked registrar does not log in, with the right
	// credentials too, until it is reinstated
	if err := e.svc.RevokeRegistrar(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if r, err := e.svc.EPPLogin(ctx, "acme", "n3w-Secret", fp); registry.CodeOf(err) != registry.CodeUnauthorized || r != nil || !strings.Contains(err.Error(), "revoked") {
		t.Errorf("EPPLogin of a revoked registrar = %v, %v; want UNAUTHORIZED, revoked", r, err)
	}
	if _, err := e.svc.EPPLogin(ctx, "acme", "wrong-pw", fp); registry.CodeOf(err) != registry.CodeUnauthorized || strings.Contains(err.Error(), "revoked") {
		t.Errorf("EPPLogin of a revoked registrar with a wrong password = %v; want the common UNAUTHORIZED (it tells nothing)", err)
	}
	if _, err := e.svc.ReinstateRegistrar(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.EPPLogin(ctx, "acme", "n3w-Secret", fp); err != nil {
		t.Errorf("EPPLogin of a reinstated registrar: %v", err)
	}

	// issue 22: every change of EPP credentials is in the audit log with
	// its outcome, refusals included
	var got []string
	es, err := e.svc.Audit(ctx, registry.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range es {
		if x.Action == "epp-password" || x.Action == "epp-cert" {
			got = append(got, x.Registrar+" "+x.Action+" "+x.Result)
		}
	}
	want := []string{
		"acme epp-password BAD_NAME", "acme epp-password BAD_NAME", "acme epp-password BAD_NAME", "acme epp-password BAD_NAME", "acme epp-password BAD_NAME", "acme epp-password BAD_NAME",
		"ab epp-password BAD_NAME", "a registrar with a long name epp-password BAD_NAME",
		"nobody epp-password NOT_FOUND",
		"acme epp-password ok",
		"other epp-cert ok",
		"acme epp-password ok",
		"acme epp-cert BAD_NAME",
		"acme epp-cert ok",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit of EPP credentials:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
