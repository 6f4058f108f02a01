package registrytest

import (
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// events writes a login's events as "type/level: message" lines.
func events(res *registry.EPPLoginResult) string {
	if res == nil {
		return ""
	}
	var b []string
	for _, e := range res.Events {
		b = append(b, e.Type+"/"+e.Level+": "+e.Message)
	}
	return strings.Join(b, "\n")
}

// testLoginSecurity (issue 38, RFC 8807): passwords of up to 128
// characters; a password lifetime, the registry's or a registrar's own,
// and the expiry it gives, stored; warnings 30, 7 and 1 days ahead;
// an expired password refused unless a new one is given; the client
// certificate's expiry; every change audited.
func testLoginSecurity(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	if _, ok := e.store.(registry.EPPStore); !ok {
		t.Skip("the store keeps no EPP credentials")
	}
	ctx := e.ctx
	e.registrar("acme")
	e.registrar("other")
	long := strings.Repeat("Long-pass phrase ", 8)[:registry.EPPPasswordMax] // 128 characters
	if err := e.svc.SetEPPPassword(ctx, "acme", long); err != nil {
		t.Fatalf("a password of %d characters: %v", len(long), err)
	}
	if err := e.svc.SetEPPPassword(ctx, "other", "secret34"); err != nil {
		t.Fatal(err)
	}
	login := func(clID, pw, newPW string, notAfter time.Time) (*registry.EPPLoginResult, error) {
		t.Helper()
		return e.svc.LoginEPP(ctx, registry.EPPLoginRequest{ClID: clID, Password: pw, NewPassword: newPW, CertNotAfter: notAfter})
	}
	res, err := login("acme", long, "", time.Time{})
	if err != nil || res.Registrar.Name != "acme" || len(res.Events) != 0 || !res.PasswordExpires.IsZero() {
		t.Fatalf("login with a 128-character password and no lifetime: %+v, %v", res, err)
	}
	if _, err := login("acme", long[:127], "", time.Time{}); registry.CodeOf(err) != registry.CodeUnauthorized {
		t.Errorf("a prefix of the password: %v", err)
	}

	// the registry's lifetime: both passwords expire 90 days after they were set
	set := e.clock.Now()
	if err := e.svc.SetEPPDefaultPasswordLifetime(ctx, 90*day); err != nil {
		t.Fatal(err)
	}
	p, err := e.svc.EPPPasswordPolicyOf(ctx, "acme")
	if err != nil || !p.Expires.Equal(set.Add(90*day)) || p.Own || p.Life != 90*day || !p.Changed.Equal(set) {
		t.Fatalf("policy after the registry's lifetime: %+v, %v (set %v)", p, err, set)
	}
	for _, step := range []struct {
		at   time.Duration // after the password was set
		want string        // the events
	}{
		{59 * day, ""},
		{61 * day, "password/warning: The password expires within 30 days, on "},
		{84 * day, "password/warning: The password expires within 7 days, on "},
		{89*day + 12*time.Hour, "password/warning: The password expires within 1 day, on "},
	} {
		e.clock.Set(set.Add(step.at))
		res, err := login("acme", long, "", time.Time{})
		if err != nil || !strings.HasPrefix(events(res), step.want) || (step.want == "") != (len(res.Events) == 0) {
			t.Errorf("login %v after the password was set: %q, %v; want %q…", step.at, events(res), err, step.want)
		}
		if len(res.Events) > 0 && !res.Events[0].ExDate.Equal(set.Add(90*day)) {
			t.Errorf("exDate %v, want %v", res.Events[0].ExDate, set.Add(90*day))
		}
	}
	e.clock.Set(set.Add(90 * day))
	res, err = login("acme", long, "", time.Time{})
	if registry.CodeOf(err) != registry.CodePasswordExpired || registry.InfoOf(registry.CodeOf(err)).EPP != 2200 || !strings.HasPrefix(events(res), "password/error: The password expired on ") {
		t.Errorf("login at the expiry: %q, %v; want PASSWORD_EXPIRED with a password error event", events(res), err)
	}
	if _, err := login("acme", "wrong-password", "", time.Time{}); registry.CodeOf(err) != registry.CodeUnauthorized {
		t.Errorf("an expired registrar with a wrong password is told only the common failure: %v", err)
	}
	// a new password: the current one refused, then one that logs in and
	// starts a new lifetime
	res, err = login("acme", long, long, time.Time{})
	if registry.CodeOf(err) != registry.CodeBadName || !strings.HasPrefix(events(res), "newPW/error: The new password was refused: the new password is the current one") {
		t.Errorf("the current password as the new one: %q, %v", events(res), err)
	}
	res, err = login("acme", long, "short", time.Time{})
	if registry.CodeOf(err) != registry.CodeBadName || !strings.HasPrefix(events(res), "newPW/error:") {
		t.Errorf("a short new password: %q, %v", events(res), err)
	}
	if res, err := login("acme", long, "n3w-Secret-of-the-acme-registrar", time.Time{}); err != nil || len(res.Events) != 0 {
		t.Fatalf("an expired password with a new one: %q, %v", events(res), err)
	}
	if err := e.svc.SetEPPPassword(ctx, "acme", "n3w-Secret-of-the-acme-registrar"); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	if p, _ := e.svc.EPPPasswordPolicyOf(ctx, "acme"); !p.Expires.Equal(now.Add(90 * day)) {
		t.Errorf("expiry after a change: %v, want %v", p.Expires, now.Add(90*day))
	}
	if _, err := login("other", "secret34", "", time.Time{}); registry.CodeOf(err) != registry.CodePasswordExpired {
		t.Errorf("other, 90 days after its password was set: %v", err)
	}

	// a registrar's own lifetime overrides the registry's, whose change
	// leaves it alone; nil goes back to the registry's
	own := 30 * day
	if err := e.svc.SetEPPPasswordLifetime(ctx, "acme", &own); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SetEPPDefaultPasswordLifetime(ctx, 365*day); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.svc.EPPPasswordPolicyOf(ctx, "acme"); !p.Expires.Equal(now.Add(30*day)) || !p.Own || p.Life != own {
		t.Errorf("acme's own 30 days: %+v", p)
	}
	if _, err := login("other", "secret34", "", time.Time{}); err != nil {
		t.Errorf("other, under the registry's new 365 days: %v", err)
	}
	never := time.Duration(0)
	if err := e.svc.SetEPPPasswordLifetime(ctx, "acme", &never); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.svc.EPPPasswordPolicyOf(ctx, "acme"); !p.Expires.IsZero() || !p.Own {
		t.Errorf("acme's own lifetime never: %+v", p)
	}
	if err := e.svc.SetEPPPasswordLifetime(ctx, "acme", nil); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.svc.EPPPasswordPolicyOf(ctx, "acme"); !p.Expires.Equal(now.Add(365*day)) || p.Own {
		t.Errorf("acme back on the registry's lifetime: %+v", p)
	}
	// the operator forces a change
	if err := e.svc.ExpireEPPPassword(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if _, err := login("acme", "n3w-Secret-of-the-acme-registrar", "", time.Time{}); registry.CodeOf(err) != registry.CodePasswordExpired {
		t.Errorf("after ExpireEPPPassword: %v", err)
	}
	for _, bad := range []time.Duration{-day, 30 * time.Minute, registry.MaxPasswordLifetime + day} {
		if err := e.svc.SetEPPPasswordLifetime(ctx, "acme", &bad); registry.CodeOf(err) != registry.CodeBadName {
			t.Errorf("lifetime %v: %v", bad, err)
		}
	}
	if err := e.svc.ExpireEPPPassword(ctx, "nobody"); registry.CodeOf(err) != registry.CodeNotFound {
		t.Errorf("ExpireEPPPassword(nobody): %v", err)
	}

	// the client certificate's expiry, by the registry's clock
	now = e.clock.Now()
	for _, c := range []struct {
		notAfter time.Time
		code     string
		want     string
	}{
		{now.Add(45 * day), "", ""},
		{now.Add(20 * day), "", "certificate/warning: The client certificate expires within 30 days, on "},
		{now.Add(5 * day), "", "certificate/warning: The client certificate expires within 7 days, on "},
		{now.Add(time.Hour), "", "certificate/warning: The client certificate expires within 1 day, on "},
		{now.Add(-time.Second), registry.CodeCertificateExpired, "certificate/error: The client certificate expired on "},
	} {
		res, err := login("other", "secret34", "", c.notAfter)
		if registry.CodeOf(err) != c.code && !(c.code == "" && err == nil) || !strings.HasPrefix(events(res), c.want) || (c.want == "") != (len(res.Events) == 0) {
			t.Errorf("certificate expiring %v: %q, %v; want %s %q…", c.notAfter.Sub(now), events(res), err, c.code, c.want)
		}
	}

	var got []string
	es, err := e.svc.Audit(ctx, registry.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range es {
		if strings.HasPrefix(x.Action, "epp-password-") {
			got = append(got, x.Registrar+" "+x.Action+" "+x.Result)
		}
	}
	want := []string{
		"* epp-password-lifetime ok",
		"acme epp-password-lifetime ok", "* epp-password-lifetime ok", "acme epp-password-lifetime ok", "acme epp-password-lifetime ok",
		"acme epp-password-expire ok",
		"acme epp-password-lifetime BAD_NAME", "acme epp-password-lifetime BAD_NAME", "acme epp-password-lifetime BAD_NAME",
		"nobody epp-password-expire NOT_FOUND",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// testAllowList (issue 38): a registrar's address allow-list, set and
// cleared by the operator (audited), read with its API token and its EPP
// credentials, and enforced for both; an empty list allows every address.
func testAllowList(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	if _, ok := e.store.(registry.AllowListStore); !ok {
		t.Skip("the store keeps no allow-lists")
	}
	ctx := e.ctx
	_, token := e.registrar("acme")
	e.registrar("other")
	if _, ok := e.store.(registry.EPPStore); ok {
		if err := e.svc.SetEPPPassword(ctx, "acme", "secret12"); err != nil {
			t.Fatal(err)
		}
	}
	r, err := e.svc.Authenticate(ctx, token)
	if err != nil || len(r.AllowFrom) != 0 || registry.CheckClientAddr(r, "203.0.113.9") != nil {
		t.Fatalf("no list: %+v, %v", r, err)
	}
	for _, bad := range [][]string{{"0.0.0.0/0"}, {"::/0"}, {"192.0.2.0/33"}, {"not an address"}, {"fe80::1%eth0"}} {
		if err := e.svc.SetRegistrarAllowList(ctx, "acme", bad); registry.CodeOf(err) != registry.CodeBadName {
			t.Errorf("allow %q: %v, want BAD_NAME", bad, err)
		}
	}
	if err := e.svc.SetRegistrarAllowList(ctx, "nobody", []string{"192.0.2.0/24"}); registry.CodeOf(err) != registry.CodeNotFound {
		t.Errorf("allow for no registrar: %v", err)
	}
	if err := e.svc.SetRegistrarAllowList(ctx, "acme", []string{"2001:db8::1", "192.0.2.77/24", "192.0.2.0/24", "::ffff:198.51.100.0/120"}); err != nil {
		t.Fatal(err)
	}
	lists, err := e.svc.AllowLists(ctx)
	if err != nil || registry.FormatAllowList(lists["acme"]) != "192.0.2.0/24 198.51.100.0/24 2001:db8::1/128" || len(lists) != 1 {
		t.Fatalf("AllowLists = %v, %v", lists, err)
	}
	r, err = e.svc.Authenticate(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	for addr, ok := range map[string]bool{
		"192.0.2.7": true, "::ffff:192.0.2.7": true, "198.51.100.200": true, "2001:db8::1": true,
		"2001:db8::2": false, "203.0.113.9": false, "": false, "garbage": false,
	} {
		err := registry.CheckClientAddr(r, addr)
		if ok != (err == nil) || (!ok && registry.CodeOf(err) != registry.CodeAddressNotAllowed) {
			t.Errorf("API from %q: %v, want allowed %v", addr, err, ok)
		}
	}
	if info := registry.InfoOf(registry.CodeAddressNotAllowed); info.HTTP != 403 || info.EPP != 2501 {
		t.Errorf("ADDRESS_NOT_ALLOWED answers %+v", info)
	}
	if _, ok := e.store.(registry.EPPStore); ok {
		login := func(addr string) error {
			_, err := e.svc.LoginEPP(ctx, registry.EPPLoginRequest{ClID: "acme", Password: "secret12", Addr: addr})
			return err
		}
		if err := login("192.0.2.8"); err != nil {
			t.Errorf("EPP login from an allowed address: %v", err)
		}
		if err := login("203.0.113.9"); registry.CodeOf(err) != registry.CodeAddressNotAllowed {
			t.Errorf("EPP login from another address: %v", err)
		}
		if _, err := e.svc.LoginEPP(ctx, registry.EPPLoginRequest{ClID: "acme", Password: "wrong-pw", Addr: "203.0.113.9"}); registry.CodeOf(err) != registry.CodeUnauthorized {
			t.Errorf("a wrong password from another address is told only the common failure: %v", err)
		}
		if _, err := e.svc.EPPLogin(ctx, "acme", "secret12", ""); registry.CodeOf(err) != registry.CodeAddressNotAllowed {
			t.Errorf("EPPLogin without an address, under a list: %v", err)
		}
	}
	if err := e.svc.SetRegistrarAllowList(ctx, "acme", nil); err != nil {
		t.Fatal(err)
	}
	if r, err := e.svc.Authenticate(ctx, token); err != nil || registry.CheckClientAddr(r, "203.0.113.9") != nil {
		t.Errorf("after clearing: %+v, %v", r, err)
	}
	if lists, _ := e.svc.AllowLists(ctx); len(lists) != 0 {
		t.Errorf("AllowLists after clearing: %v", lists)
	}
	var got []string
	es, _ := e.svc.Audit(ctx, registry.AuditFilter{Action: "registrar-allow"})
	for _, x := range es {
		got = append(got, x.Registrar+" "+x.Result)
	}
	want := "acme BAD_NAME,acme BAD_NAME,acme BAD_NAME,acme BAD_NAME,acme BAD_NAME,nobody NOT_FOUND,acme ok,acme ok"
	if strings.Join(got, ",") != want {
		t.Errorf("audit: %s, want %s", strings.Join(got, ","), want)
	}
}
