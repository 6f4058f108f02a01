package epp_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

const lsPlaceholder = "[LOGIN-SECURITY]"

// lsLogin is a login frame: <pw> and <newPW> (none for ""), and, when
// lsPW or lsNew is set or ua, a <loginSec:loginSec> extension; listLS lists
// the loginSec extension in <svcExtension>.
func lsLogin(clID, pw, newPW, lsPW, lsNew string, listLS bool) string {
	var b strings.Builder
	b.WriteString(`<login><clID>` + clID + `</clID><pw>` + pw + `</pw>`)
	if newPW != "" {
		b.WriteString(`<newPW>` + newPW + `</newPW>`)
	}
	b.WriteString(`<options><version>1.0</version><lang>en</lang></options><svcs><objURI>urn:ietf:params:xml:ns:domain-1.0</objURI>`)
	if listLS {
		b.WriteString(`<svcExtension><extURI>` + epp.NSLoginSec + `</extURI></svcExtension>`)
	}
	b.WriteString(`</svcs></login>`)
	if lsPW != "" || lsNew != "" {
		b.WriteString(`<extension><loginSec:loginSec xmlns:loginSec="` + epp.NSLoginSec + `"><loginSec:userAgent><loginSec:app>akshara-test 1.0</loginSec:app><loginSec:tech>Go</loginSec:tech></loginSec:userAgent>`)
		if lsPW != "" {
			b.WriteString(`<loginSec:pw>` + lsPW + `</loginSec:pw>`)
		}
		if lsNew != "" {
			b.WriteString(`<loginSec:newPW>` + lsNew + `</loginSec:newPW>`)
		}
		b.WriteString(`</loginSec:loginSec></extension>`)
	}
	return cmd(b.String())
}

var eventRE = regexp.MustCompile(`<loginSec:event type="([^"]+)"(?: name="[^"]*")? level="([^"]+)"(?: exDate="([^"]+)")?[^>]*>([^<]*)</loginSec:event>`)

// lsEvents are the events of an answer as "type/level exDate: message".
func lsEvents(r string) []string {
	var out []string
	for _, m := range eventRE.FindAllStringSubmatch(r, -1) {
		out = append(out, m[1]+"/"+m[2]+" "+m[3]+": "+m[4])
	}
	return out
}

// clientCert is a self-signed client certificate expiring at notAfter.
func clientCert(t testing.TB, notAfter time.Time) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "acme EPP client"},
		NotBefore: notAfter.Add(-400 * 24 * time.Hour), NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// dialWith connects with a TLS configuration of the test's and reads the
// greeting.
func (e *env) dialWith(t *testing.T, cfg *tls.Config) *client {
	t.Helper()
	cfg.InsecureSkipVerify = true
	conn, err := tls.Dial("tcp", e.addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &client{e: e, t: t, conn: conn}
	if g, err := c.read(); err != nil || !strings.Contains(g, "<greeting>") {
		t.Fatalf("greeting: %q, %v", g, err)
	}
	return c
}

// TestLoginSec (issue 38, RFC 8807) on both stores: the greeting lists the
// extension; a password of 128 characters logs in through <loginSec:pw>
// with the placeholder in <pw>, and is changed through <loginSec:newPW>;
// the placeholder rules; a password lifetime gives warnings 30, 7 and 1
// days ahead and refuses an expired password (2200 with the password
// event) unless a new one is given, by the registry's clock; a client
// that does not use the extension gets the warnings in <msg>; the client
// certificate's expiry, a CBC cipher suite and failed logins are events
// too. Every frame validates against the RFC schemas, loginSec-1.0
// included.
func TestLoginSec(t *testing.T) {
	t.Parallel()
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			clock := registry.NewManualClock(time.Now())
			o := registrytest.ContactsOptional()
			o.Clock = clock
			svc := st.Service(t, o)
			testLoginSec(t, newEnvOn(t, svc, epp.Options{}), clock)
		})
	}
}

func testLoginSec(t *testing.T, e *env, clock *registry.ManualClock) {
	ctx := t.Context()
	g, err := e.dialRaw()
	if err != nil {
		t.Fatal(err)
	}
	if greet, _ := g.read(); !strings.Contains(greet, "<extURI>"+epp.NSLoginSec+"</extURI>") {
		t.Errorf("the greeting does not list loginSec: %s", greet)
	}
	long := strings.Repeat("0123456789 abcdef-", 8)[:128]
	long2 := strings.Repeat("Another long pass phrase, ", 5) // 130
	long2 = strings.TrimSpace(long2[:100])
	if err := e.svc.SetEPPPassword(ctx, "acme", long); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		frame string
		code  int
	}{
		{"a long password in <pw>", lsLogin("acme", long, "", "", "", true), 2005},
		{"the placeholder without the extension", lsLogin("acme", lsPlaceholder, "", "", "", true), 2003},
		{"<loginSec:pw> without the placeholder", lsLogin("acme", "secret12", "", long, "", true), 2005},
		{"<loginSec:newPW> without the placeholder in <newPW>", lsLogin("acme", lsPlaceholder, "n3wSecret", long, long2, true), 2005},
		{"the placeholder in <newPW> without <loginSec:newPW>", lsLogin("acme", lsPlaceholder, lsPlaceholder, long, "", true), 2003},
		{"a new password of 129 characters", lsLogin("acme", lsPlaceholder, lsPlaceholder, long, long+"x", true), 2005},
		{"the wrong long password", lsLogin("acme", lsPlaceholder, "", long[:127]+"!", "", true), 2200},
	} {
		if r := e.dial().do(tt.frame); code(r) != tt.code {
			t.Errorf("%s: %s", tt.name, r)
		}
	}
	idnAtLogin := cmd(`<login><clID>acme</clID><pw>secret12</pw><options><version>1.0</version><lang>en</lang></options><svcs><objURI>urn:ietf:params:xml:ns:domain-1.0</objURI></svcs></login>` +
		`<extension><idn:data xmlns:idn="urn:ietf:params:xml:ns:idn-1.0"><idn:table>hi</idn:table></idn:data></extension>`)
	if r := e.dial().do(idnAtLogin); code(r) != 2103 {
		t.Errorf("a login with <idn:data>: %s", r)
	}

	// the long password logs in; a failed login before it is a stat event
	c := e.dial()
	r := c.do(lsLogin("acme", lsPlaceholder, "", long, "", true))
	if code(r) != 1000 || strings.Join(lsEvents(r), "\n") != "stat/warning : 1 failed login(s) with this client identifier since the last login, in the last 24 hours" || !strings.Contains(r, `name="failedLogins"`) || !strings.Contains(r, `value="1" duration="P1D"`) {
		t.Fatalf("login with a 128-character password: %s", r)
	}
	if r := c.do(cmd(`<check><domain:check xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>` + kitab + `</domain:name></domain:check></check>` +
		`<extension><loginSec:loginSec xmlns:loginSec="` + epp.NSLoginSec + `"><loginSec:pw>` + long + `</loginSec:pw></loginSec:loginSec></extension>`)); code(r) != 2001 {
		t.Errorf("loginSec on a check: %s", r)
	}
	// the password changed to another long one through <loginSec:newPW>
	if r := e.dial().do(lsLogin("acme", lsPlaceholder, lsPlaceholder, long, long2, false)); code(r) != 1000 || strings.Contains(r, "loginSec") {
		t.Fatalf("change through <loginSec:newPW>: %s", r)
	}
	if r := e.dial().do(lsLogin("acme", lsPlaceholder, "", long, "", true)); code(r) != 2200 {
		t.Errorf("the old password after the change: %s", r)
	}
	if r := e.dial().do(lsLogin("acme", lsPlaceholder, "", long2, "", false)); code(r) != 1000 {
		t.Errorf("the new password: %s", r)
	}

	// a lifetime of 90 days, by the registry's clock
	set := clock.Now()
	if err := e.svc.SetEPPDefaultPasswordLifetime(ctx, 90*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	exDate := set.Add(90 * 24 * time.Hour).UTC().Format(time.RFC3339)
	for _, step := range []struct {
		days float64
		want string
	}{
		{50, ""},
		{65, "password/warning " + exDate + ": The password expires within 30 days, on " + exDate + ": change it with &lt;newPW&gt; or &lt;loginSec:newPW&gt;"},
		{85, "password/warning " + exDate + ": The password expires within 7 days, on " + exDate + ": change it with &lt;newPW&gt; or &lt;loginSec:newPW&gt;"},
		{89.5, "password/warning " + exDate + ": The password expires within 1 day, on " + exDate + ": change it with &lt;newPW&gt; or &lt;loginSec:newPW&gt;"},
	} {
		clock.Set(set.Add(time.Duration(step.days * float64(24*time.Hour))))
		r := e.dial().do(lsLogin("acme", lsPlaceholder, "", long2, "", true))
		if code(r) != 1000 || strings.Join(lsEvents(r), "\n") != step.want {
			t.Errorf("day %v: %v\n%s", step.days, lsEvents(r), r)
		}
	}
	// a client that does not use the extension: the warning in <msg>
	if err := e.svc.SetEPPPassword(ctx, "other", "secret34"); err != nil { // set at day 89.5
		t.Fatal(err)
	}
	clock.Set(set.Add(89*24*time.Hour + 12*time.Hour + 85*24*time.Hour))
	if r := e.dial().do(loginFrame("other", "secret34", "")); code(r) != 1000 || strings.Contains(r, "<extension>") || !strings.Contains(r, "<msg>Command completed successfully; The password expires within 7 days, on ") {
		t.Errorf("a plain client's warning: %s", r)
	}
	// expired: refused with the password event, unless a new password is given
	r = e.dial().do(lsLogin("acme", lsPlaceholder, "", long2, "", true))
	if ev := lsEvents(r); code(r) != 2200 || len(ev) != 1 || !strings.HasPrefix(ev[0], "password/error "+exDate+": The password expired on ") {
		t.Errorf("an expired password: %v\n%s", ev, r)
	}
	if r := e.dial().do(loginFrame("acme", "secret12", "")); code(r) != 2200 || strings.Contains(r, "expired") {
		t.Errorf("a wrong password of an expired registrar: %s", r)
	}
	// (the wrong password just now is the stat event of the next login)
	if r := e.dial().do(lsLogin("acme", lsPlaceholder, "n3w-Secret", long2, "", false)); code(r) != 1000 || strings.Join(lsEvents(r), "\n") != "stat/warning : 1 failed login(s) with this client identifier since the last login, in the last 24 hours" {
		t.Errorf("an expired password changed with <newPW>: %s", r)
	}
	if r := e.dial().do(loginFrame("acme", "n3w-Secret", "")); code(r) != 1000 {
		t.Errorf("the new short password: %s", r)
	}
	if r := e.dial().do(lsLogin("acme", "n3w-Secret", "n3w-Secret", "", "", true)); code(r) != 2005 || !strings.Contains(r, `type="newPW" level="error"`) {
		t.Errorf("the current password as the new one: %s", r)
	}

	// the client certificate, by the registry's clock
	now := clock.Now()
	for _, cc := range []struct {
		notAfter time.Time
		code     int
		want     string
	}{
		{now.Add(3 * 24 * time.Hour), 1000, `certificate/warning ` + now.Add(3*24*time.Hour).UTC().Format(time.RFC3339) + `: The client certificate expires within 7 days, on `},
		{now.Add(-time.Minute), 2200, `certificate/error ` + now.Add(-time.Minute).UTC().Format(time.RFC3339) + `: The client certificate expired on `},
	} {
		c := e.dialWith(t, &tls.Config{Certificates: []tls.Certificate{clientCert(t, cc.notAfter.Truncate(time.Second))}})
		r := c.do(lsLogin("acme", "n3w-Secret", "", "", "", true))
		if ev := lsEvents(r); code(r) != cc.code || len(ev) != 1 || !strings.HasPrefix(ev[0], cc.want) {
			t.Errorf("certificate expiring %v: %v\n%s", cc.notAfter.Sub(now), ev, r)
		}
	}
	// a TLS 1.2 CBC cipher suite
	c = e.dialWith(t, &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA}})
	if r := c.do(lsLogin("acme", "n3w-Secret", "", "", "", true)); code(r) != 1000 || !strings.Contains(r, `<loginSec:event type="cipher" level="warning" value="TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA">`) {
		t.Errorf("a CBC cipher suite: %s", r)
	}
}

// TestNetEPPLoginSec drives RFC 8807 with Debian's Net::EPP
// (testdata/netepp_loginsec.pl): a 125-character password in
// <loginSec:pw>, whose login is warned of the password's expiry in 5
// days, changed through <loginSec:newPW> at the next; the new password
// logs in without events, the old one is refused. Every frame the server sends
// validates against the RFC schemas, loginSec-1.0 included.
func TestNetEPPLoginSec(t *testing.T) {
	t.Parallel()
	needNetEPP(t)
	clock := registry.NewManualClock(time.Now())
	o := registrytest.ContactsOptional()
	o.Clock = clock
	e := newEnvOn(t, registrytest.SQLiteServiceWith(t, o), epp.Options{})
	ctx := t.Context()
	long := strings.Join(slices.Repeat([]string{"loginsec"}, 14), "-")
	if err := e.svc.SetEPPDefaultPasswordLifetime(ctx, 90*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SetEPPPassword(ctx, "acme", long); err != nil {
		t.Fatal(err)
	}
	clock.Advance(85 * 24 * time.Hour)
	netEPP(t, e, "netepp_loginsec.pl", []string{
		`^greeting lists loginSec: yes$`,
		`^login: 1000 events=password/warning$`,
		`^login with a new password: 1000 events=none$`,
		`^check: avail=1 \(1000\)$`,
		`^login with the new password: 1000 events=none$`,
		`^login with the old password: 2200$`,
	})
}

// TestLoginSecSchema: the login frames the tests send with the extension
// validate against the EPP schemas and loginSec-1.0 (so the re-typed
// schema, testdata/xsd/LICENSE.md, takes what RFC 8807 §4.1 describes),
// and loginSec frames that break the RFC's schema do not.
func TestLoginSecSchema(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("xmllint"); err != nil {
		needXmllint(t)
		return
	}
	long := strings.Repeat("0123456789 abcdef-", 8)[:128]
	resp := func(ext string) string {
		return `<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><response><result code="1000"><msg>ok</msg></result><extension>` + ext + `</extension><trID><svTRID>abc</svTRID></trID></response></epp>`
	}
	ls := `xmlns:loginSec="` + epp.NSLoginSec + `"`
	for _, c := range []struct {
		frame string
		valid bool
	}{
		{lsLogin("acme", lsPlaceholder, "", long, "", true), true},
		{lsLogin("acme", lsPlaceholder, lsPlaceholder, long, long, true), true},
		{lsLogin("acme", "secret12", lsPlaceholder, "", long, false), true},
		{lsLogin("acme", lsPlaceholder, "", "short", "", true), false}, // pwType: 6 characters at least
		{resp(`<loginSec:loginSecData ` + ls + `><loginSec:event type="stat" name="failedLogins" level="warning" value="3" duration="P1D">x</loginSec:event></loginSec:loginSecData>`), true},
		{resp(`<loginSec:loginSecData ` + ls + `><loginSec:event type="password" level="warn">x</loginSec:event></loginSec:loginSecData>`), false},
		{resp(`<loginSec:loginSecData ` + ls + `><loginSec:event type="expiry" level="warning">x</loginSec:event></loginSec:loginSecData>`), false},
		{resp(`<loginSec:loginSecData ` + ls + `/>`), false}, // one event at least
		{resp(`<loginSec:loginSecData ` + ls + `><loginSec:event type="password" level="error" exDate="tomorrow">x</loginSec:event></loginSec:loginSecData>`), false},
	} {
		p := filepath.Join(t.TempDir(), "f.xml")
		os.WriteFile(p, []byte(c.frame), 0o644)
		out, err := exec.Command("xmllint", "--noout", "--schema", filepath.Join("testdata", "xsd", "wrapper.xsd"), p).CombinedOutput()
		if (err == nil) != c.valid {
			t.Errorf("valid %v, xmllint: %v\n%s\n%s", c.valid, err, out, c.frame)
		}
	}
}

// BenchmarkLogin: one login on an open session (the TLS handshake is not
// timed), with a 8-character password in <pw> and with a 128-character
// one in <loginSec:pw> and the events of a password expiring within 7
// days: the argon2id hash dominates both.
func BenchmarkLogin(b *testing.B) {
	clock := registry.NewManualClock(time.Now())
	o := registrytest.ContactsOptional()
	o.Clock = clock
	e := newEnvOn(b, registrytest.SQLiteServiceWith(b, o), epp.Options{MaxSessions: 1 << 16, LoginTimeout: time.Hour})
	e.mu.Lock()
	e.norecord = true
	e.mu.Unlock()
	long := strings.Repeat("0123456789 abcdef-", 8)[:128]
	if err := e.svc.SetEPPPassword(b.Context(), "other", long); err != nil {
		b.Fatal(err)
	}
	if err := e.svc.SetEPPDefaultPasswordLifetime(b.Context(), 90*24*time.Hour); err != nil {
		b.Fatal(err)
	}
	clock.Advance(85 * 24 * time.Hour)
	for _, bc := range []struct {
		name, frame string
		events      int
	}{
		{"plain", loginFrame("acme", "secret12", ""), 0},
		{"loginSec-128", lsLogin("other", lsPlaceholder, "", long, "", true), 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				c := e.dial()
				b.StartTimer()
				r := c.do(bc.frame)
				if code(r) != 1000 || len(lsEvents(r)) != bc.events {
					b.Fatalf("login: %s", r)
				}
				b.StopTimer()
				c.conn.Close()
				b.StartTimer()
			}
		})
	}
}
