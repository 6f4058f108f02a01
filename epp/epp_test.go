package epp_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// env is an EPP server on loopback over a fresh SQLite registry, with the
// registrars acme and other (EPP passwords secret12 and secret34). Every
// frame the server sends is recorded and, when the test ends, validated
// against the RFC schemas with xmllint.
type env struct {
	t    testing.TB
	svc  *registry.Service
	srv  *epp.Server
	addr string
	fp   string

	mu       sync.Mutex
	frames   [][]byte
	norecord bool // benchmarks: do not keep frames
}

func newEnv(t testing.TB, o epp.Options) *env {
	t.Helper()
	return newEnvOn(t, registrytest.SQLiteServiceWith(t, registrytest.ContactsOptional()), o)
}

// newEnvOn is newEnv on a service of the caller's (another store).
func newEnvOn(t testing.TB, svc *registry.Service, o epp.Options) *env {
	t.Helper()
	ctx := t.Context()
	for name, pw := range map[string]string{"acme": "secret12", "other": "secret34"} {
		if _, _, err := svc.AddRegistrar(ctx, name); err != nil {
			t.Fatal(err)
		}
		if err := svc.SetEPPPassword(ctx, name, pw); err != nil {
			t.Fatal(err)
		}
	}
	return serve(t, svc, o)
}

func serve(t testing.TB, svc *registry.Service, o epp.Options) *env {
	t.Helper()
	cert, fp, err := epp.SelfSigned("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	o.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	// the tests open many sessions from loopback, as one registrar and at
	// full speed: the per-address and per-registrar caps and the command
	// rate are off unless a test sets them (TestSessionCaps)
	off := func(v *int) {
		if *v == 0 {
			*v = -1
		}
	}
	off(&o.MaxSessionsPerAddr)
	off(&o.MaxSessionsPerRegistrar)
	if o.CommandRate == 0 {
		o.CommandRate = -1
	}
	e := &env{t: t, svc: svc}
	// every frame the server sends, to any client, is validated at the end
	o.Trace = func(in bool, frame []byte) {
		if in {
			return
		}
		e.mu.Lock()
		if !e.norecord {
			e.frames = append(e.frames, bytes.Clone(frame))
		}
		e.mu.Unlock()
	}
	srv, err := epp.New(svc, o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	e.srv, e.addr, e.fp = srv, ln.Addr().String(), fp
	t.Cleanup(func() {
		srv.Close()
		e.validate()
	})
	return e
}

// client is a raw EPP client: it frames what it is given, nothing more.
type client struct {
	e    *env
	t    testing.TB // the test the client reports to
	conn *tls.Conn
}

func (e *env) dial() *client { return e.dialT(e.t) }

// dialT connects, reads the greeting and reports to t (a subtest).
func (e *env) dialT(t testing.TB) *client {
	t.Helper()
	conn, err := tls.Dial("tcp", e.addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &client{e: e, t: t, conn: conn}
	g, err := c.read()
	if err != nil || !strings.Contains(g, "<greeting>") {
		t.Fatalf("greeting: %q, %v", g, err)
	}
	return c
}

// dialRaw connects without reading the greeting.
func (e *env) dialRaw() (*client, error) {
	conn, err := tls.Dial("tcp", e.addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		return nil, err
	}
	e.t.Cleanup(func() { conn.Close() })
	return &client{e: e, t: e.t, conn: conn}, nil
}

func (c *client) writeRaw(b []byte) error {
	c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := c.conn.Write(b)
	return err
}

func (c *client) send(x string) error {
	b := make([]byte, 4+len(x))
	binary.BigEndian.PutUint32(b, uint32(4+len(x)))
	copy(b[4:], x)
	return c.writeRaw(b)
}

func (c *client) read() (string, error) {
	// generous: under -race on a loaded machine argon2 logins queue up
	c.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	var h [4]byte
	if _, err := io.ReadFull(c.conn, h[:]); err != nil {
		return "", err
	}
	n := binary.BigEndian.Uint32(h[:])
	if n <= 4 || n > 1<<20 {
		return "", fmt.Errorf("bad length %d", n)
	}
	b := make([]byte, n-4)
	if _, err := io.ReadFull(c.conn, b); err != nil {
		return "", err
	}
	return string(b), nil
}

// do sends a frame and reads the answer.
func (c *client) do(x string) string {
	c.t.Helper()
	if err := c.send(x); err != nil {
		c.t.Fatalf("send: %v", err)
	}
	r, err := c.read()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return r
}

// closed reports whether the server closed the connection.
func (c *client) closed() bool {
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := c.conn.Read(make([]byte, 1))
	return err != nil
}

var codeRE = regexp.MustCompile(`<result code="(\d{4})">`)

func code(resp string) int {
	m := codeRE.FindStringSubmatch(resp)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

const head = `<?xml version="1.0" encoding="UTF-8" standalone="no"?><epp xmlns="urn:ietf:params:xml:ns:epp-1.0">`

func cmd(inner string) string {
	return head + `<command>` + inner + `<clTRID>TEST-1</clTRID></command></epp>`
}

func loginFrame(clID, pw string, extra string) string {
	return cmd(`<login><clID>` + clID + `</clID><pw>` + pw + `</pw>` + extra + `<options><version>1.0</version><lang>en</lang></options>` +
		`<svcs><objURI>urn:ietf:params:xml:ns:domain-1.0</objURI><svcExtension><extURI>urn:ietf:params:xml:ns:idn-1.0</extURI></svcExtension></svcs></login>`)
}

func domainCmd(verb string, names ...string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(`<domain:name>` + n + `</domain:name>`)
	}
	return cmd(`<` + verb + `><domain:` + verb + ` xmlns:domain="urn:ietf:params:xml:ns:domain-1.0">` + b.String() + `</domain:` + verb + `></` + verb + `>`)
}

func createFrame(name, table, uname string) string {
	ext := ""
	if table != "" {
		ext = `<extension><idn:data xmlns:idn="urn:ietf:params:xml:ns:idn-1.0"><idn:table>` + table + `</idn:table>`
		if uname != "" {
			ext += `<idn:uname>` + uname + `</idn:uname>`
		}
		ext += `</idn:data></extension>`
	}
	return cmd(`<create><domain:create xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>` + name + `</domain:name>` +
		`<domain:period unit="y">1</domain:period><domain:authInfo><domain:pw>2fooBAR!xQ7wK4pL</domain:pw></domain:authInfo></domain:create></create>` + ext)
}

func (c *client) login(clID, pw string) {
	c.t.Helper()
	if r := c.do(loginFrame(clID, pw, "")); code(r) != 1000 {
		c.t.Fatalf("login %s: %s", clID, r)
	}
}

// validate checks every recorded frame against the RFC schemas (and our
// idn-1.0) with xmllint: skipped with a message where xmllint is missing,
// failed where CI=true.
func (e *env) validate() {
	t := e.t
	e.mu.Lock()
	frames := e.frames
	e.mu.Unlock()
	if len(frames) == 0 {
		return
	}
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Errorf("xmllint is required in CI (Debian libxml2-utils): %v", err)
		} else {
			t.Logf("xmllint not installed (Debian libxml2-utils): %d frames not validated", len(frames))
		}
		return
	}
	dir := t.TempDir()
	args := []string{"--noout", "--schema", filepath.Join("testdata", "xsd", "wrapper.xsd")}
	for i, f := range frames {
		p := filepath.Join(dir, fmt.Sprintf("frame%04d.xml", i))
		if err := os.WriteFile(p, f, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	out, err := exec.Command(xmllint, args...).CombinedOutput()
	if err != nil {
		t.Errorf("xmllint: %v\n%s", err, out)
		for i, f := range frames {
			if strings.Contains(string(out), fmt.Sprintf("frame%04d.xml fails", i)) {
				t.Errorf("frame %d: %s", i, f)
			}
		}
		return
	}
	validated.Add(len(frames))
}

// validated counts the frames xmllint accepted.
var validated counter

type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) Add(n int) { c.mu.Lock(); c.n += n; c.mu.Unlock() }

func TestMain(m *testing.M) {
	code := m.Run()
	if validated.n > 0 && testing.Verbose() {
		fmt.Printf("xmllint validated %d response frames\n", validated.n)
	}
	os.Exit(code)
}

const (
	kitab   = "किताब.भारत"
	kitabA  = "xn--11b4aya5ed.xn--h2brj9c"
	kittab  = "कित्ताब.भारत" // a Hindi variant of किताब
	kittabA = "xn--11b4aa6a3fd3h.xn--h2brj9c"
)

// TestSession walks a registrar's session: each step's result code and
// what the answer must say.
func TestSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, epp.Options{})
	if _, err := e.svc.Reserve(t.Context(), "सरकार.भारत", "held back by the operator"); err != nil {
		t.Fatal(err)
	}
	a := e.dial()
	b := e.dial()
	b.login("other", "secret34")
	x := e.dial()
	steps := []struct {
		name  string
		c     *client
		frame string
		code  int
		want  []string
	}{
		{"hello", a, head + `<hello/></epp>`, 0, []string{"<greeting>", "<objURI>urn:ietf:params:xml:ns:domain-1.0</objURI>", "<extURI>urn:ietf:params:xml:ns:idn-1.0</extURI>"}},
		{"check before login", a, domainCmd("check", kitab), 2002, []string{"log in first", "<clTRID>TEST-1</clTRID>", "<svTRID>"}},
		{"logout-less wrong password", a, loginFrame("acme", "wrongpw1", ""), 2200, nil},
		{"unknown registrar", a, loginFrame("nobody", "secret12", ""), 2200, nil},
		{"bad version", a, strings.Replace(loginFrame("acme", "secret12", ""), "<version>1.0", "<version>2.0", 1), 2100, nil},
		{"bad lang", a, strings.Replace(loginFrame("acme", "secret12", ""), "<lang>en", "<lang>fr", 1), 2102, nil},
		{"unknown objURI", a, strings.Replace(loginFrame("acme", "secret12", ""), "domain-1.0</objURI>", "domain-1.0</objURI><objURI>urn:ietf:params:xml:ns:contact-2.0</objURI>", 1), 2307, nil},
		// an extension listed and not served is ignored (RFC 5730 §2.9.1.1; loginext.go)
		{"unknown extURI", x, strings.Replace(loginFrame("acme", "secret12", ""), "</svcExtension>", "<extURI>urn:ietf:params:xml:ns:launch-1.0</extURI></svcExtension>", 1), 1000,
			[]string{"<msg>Command completed successfully; extensions not served by this server, ignored: urn:ietf:params:xml:ns:launch-1.0</msg>"}},
		{"login with rgp-1.0", b, strings.Replace(loginFrame("other", "secret34", ""), "</svcExtension>", "<extURI>urn:ietf:params:xml:ns:rgp-1.0</extURI></svcExtension>", 1), 2002, []string{"already logged in"}},
		{"login", a, loginFrame("acme", "secret12", ""), 1000, nil},
		{"second login", a, loginFrame("acme", "secret12", ""), 2002, []string{"already logged in"}},
		{"check", a, domainCmd("check", kitab, "xn--11b4aa6a3fd3h.xn--h2brj9c", "कख.भारत", "x.nozone", "abc.in"), 1000, []string{
			`<domain:name avail="1">` + kitab + `</domain:name>`,
			`<domain:name avail="0">कख.भारत</domain:name><domain:reason>invalid: `,
			`<domain:name avail="0">x.nozone</domain:name><domain:reason>unknown zone</domain:reason>`,
			`<domain:name avail="1">abc.in</domain:name>`}},
		{"check reserved", a, domainCmd("check", "सरकार.भारत"), 1000, []string{`<domain:name avail="0">सरकार.भारत</domain:name><domain:reason>reserved</domain:reason>`}},
		{"create reserved", a, createFrame("सरकार.भारत", "hi", ""), 2308, []string{"<msg>Data management policy violation: "}},
		{"create without uname match", a, createFrame(kitabA, "hi", "कमल.भारत"), 2306, []string{"<idn:uname", "not the U-label form"}},
		{"create", a, createFrame(kitabA, "hi", kitab), 1000, []string{"<domain:creData", "<domain:name>" + kitabA + "</domain:name>", "<domain:crDate>"}},
		{"check after create", a, domainCmd("check", kitab, kittab), 1000, []string{
			`<domain:name avail="0">` + kitab + `</domain:name><domain:reason>registered</domain:reason>`,
			`<domain:name avail="0">` + kittab + `</domain:name><domain:reason>blocked variant</domain:reason>`}},
		{"create a variant", b, createFrame(kittabA, "", ""), 2302, []string{"<extValue><value><domain:name", "blocked by the registered domain " + kitab + " (" + kitabA + ")"}},
		{"create invalid", a, createFrame("कख.भारत", "hi", ""), 2306, []string{"<extValue>", "at position"}},
		{"create bad language", a, createFrame("कमल.भारत", "xx", ""), 2306, []string{"no language"}},
		{"create bad A-label", a, createFrame("xn--zz-.भारत", "hi", ""), 0, nil},
		{"info", b, domainCmd("info", kitab), 1000, []string{"<domain:infData", "<domain:roid>D", "<domain:clID>acme</domain:clID>", "<idn:table>hi</idn:table>", "<idn:uname>" + kitab + "</idn:uname>"}},
		{"info unknown", a, domainCmd("info", "कमल.भारत"), 2303, nil},
		{"delete not yours", b, domainCmd("delete", kitab), 2201, nil},
		{"info by the sponsor", a, domainCmd("info", kitab), 1000, []string{"<domain:status s=\"ok\"/>", "<domain:authInfo><domain:pw/></domain:authInfo>"}},
		{"update", a, cmd(`<update><domain:update xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>` + kitab + `</domain:name></domain:update></update>`), 1000, nil},
		{"update not yours", b, cmd(`<update><domain:update xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>` + kitab + `</domain:name></domain:update></update>`), 2201, nil},
		{"renew without curExpDate", a, cmd(`<renew><domain:renew xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>` + kitab + `</domain:name></domain:renew></renew>`), 2003, nil},
		{"poll", a, cmd(`<poll op="req"/>`), 1300, nil},
		{"contact check", a, cmd(`<check><contact:check xmlns:contact="urn:ietf:params:xml:ns:contact-1.0"><contact:id>c-1</contact:id></contact:check></check>`), 1000, nil},
		{"unknown extension", a, strings.Replace(domainCmd("check", kitab), "<clTRID>", `<extension><x:y xmlns:x="urn:example:x"/></extension><clTRID>`, 1), 2103, nil},
		{"idn with check", a, strings.Replace(domainCmd("check", kitab), "<clTRID>", `<extension><idn:data xmlns:idn="urn:ietf:params:xml:ns:idn-1.0"><idn:table>hi</idn:table></idn:data></extension><clTRID>`, 1), 2001, nil},
		{"two commands", a, cmd(`<logout/><logout/>`), 2001, nil},
		{"empty name", a, domainCmd("check", ""), 2003, nil},
		{"no name", a, domainCmd("info"), 2003, nil},
		{"two names to info", a, domainCmd("info", kitab, kittab), 2001, nil},
		{"clTRID too short", a, strings.Replace(domainCmd("check", kitab), "TEST-1", "T", 1), 2001, nil},
		{"delete", a, domainCmd("delete", kitabA), 1001, []string{"redemption period until"}},
		{"info after delete", a, domainCmd("info", kitab), 1000, []string{`<domain:status s="pendingDelete"/>`, `<rgp:rgpStatus s="redemptionPeriod"/>`}},
		{"variant still held", b, createFrame(kittab, "hi", ""), 2302, nil},
		{"logout", a, cmd(`<logout/>`), 1500, nil},
	}
	for _, s := range steps {
		r := s.c.do(s.frame)
		if s.code == 0 && code(r) != 0 && code(r) < 2000 {
			t.Errorf("%s: %s, want a refusal", s.name, r)
		}
		if s.code != 0 && code(r) != s.code {
			t.Errorf("%s: code %d, want %d\n%s", s.name, code(r), s.code, r)
		}
		for _, w := range s.want {
			if !strings.Contains(r, w) {
				t.Errorf("%s: answer lacks %q\n%s", s.name, w, r)
			}
		}
	}
	if !a.closed() {
		t.Error("the session is open after logout")
	}
}

// TestNewPassword: newPW at login changes the EPP password.
func TestNewPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t, epp.Options{})
	c := e.dial()
	if r := c.do(loginFrame("acme", "secret12", "<newPW>n3w-Secret</newPW>")); code(r) != 1000 {
		t.Fatalf("login with newPW: %s", r)
	}
	c.do(cmd(`<logout/>`))
	if r := e.dial().do(loginFrame("acme", "secret12", "")); code(r) != 2200 {
		t.Errorf("the old password: %s", r)
	}
	e.dial().login("acme", "n3w-Secret")
	if r := e.dial().do(loginFrame("acme", "n3w-Secret", "<newPW>short</newPW>")); code(r) != 2005 {
		t.Errorf("a newPW of 5 characters: %s", r)
	}
}

// TestPinnedCertificate: a registrar with a pinned fingerprint logs in
// only with that client certificate.
func TestPinnedCertificate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, epp.Options{})
	cert, fp, err := epp.SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SetEPPCertificate(t.Context(), "acme", fp); err != nil {
		t.Fatal(err)
	}
	if r := e.dial().do(loginFrame("acme", "secret12", "")); code(r) != 2200 {
		t.Errorf("without the certificate: %s", r)
	}
	conn, err := tls.Dial("tcp", e.addr, &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := &client{e: e, t: t, conn: conn}
	c.read()
	if r := c.do(loginFrame("acme", "secret12", "")); code(r) != 1000 {
		t.Errorf("with the certificate: %s", r)
	}
}

// TestSchemaCatchesInvalidFrames: the validation the suite relies on
// fails where it must (a reason of 46 characters, an unknown result code).
func TestSchemaCatchesInvalidFrames(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("xmllint"); err != nil {
		needXmllint(t)
		return
	}
	bad := []string{
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><response><result code="1000"><msg>ok</msg></result><resData><domain:chkData xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:cd><domain:name avail="0">a.in</domain:name><domain:reason>Blocked: variant of xn--11b4aya5ed.xn--h2brj9c</domain:reason></domain:cd></domain:chkData></resData><trID><svTRID>abc</svTRID></trID></response></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><response><result code="2399"><msg>x</msg></result><trID><svTRID>abc</svTRID></trID></response></epp>`,
		`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><response><result code="1000"><msg>x</msg></result><extension><idn:data xmlns:idn="urn:ietf:params:xml:ns:idn-1.0"><idn:uname>x</idn:uname></idn:data></extension><trID><svTRID>abc</svTRID></trID></response></epp>`,
	}
	dir := t.TempDir()
	for i, f := range bad {
		p := filepath.Join(dir, fmt.Sprintf("bad%d.xml", i))
		os.WriteFile(p, []byte(f), 0o644)
		if out, err := exec.Command("xmllint", "--noout", "--schema", filepath.Join("testdata", "xsd", "wrapper.xsd"), p).CombinedOutput(); err == nil {
			t.Errorf("frame %d validates:\n%s", i, out)
		}
	}
}

func needXmllint(t *testing.T) {
	if os.Getenv("CI") == "true" {
		t.Fatal("xmllint is required in CI (Debian libxml2-utils)")
	}
	t.Skip("xmllint is not installed (Debian libxml2-utils)")
}

// TestClientCA: with a client CA the server requires a certificate it
// signed; without one the handshake fails.
func TestClientCA(t *testing.T) {
	t.Parallel()
	svc := registrytest.SQLiteService(t)
	clientCert, _, err := epp.SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(clientCert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	serverCert, _, err := epp.SelfSigned("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := epp.New(svc, epp.Options{TLS: &tls.Config{Certificates: []tls.Certificate{serverCert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	e := &env{t: t, svc: svc, srv: srv, addr: ln.Addr().String()}
	for _, tt := range []struct {
		certs []tls.Certificate
		ok    bool
	}{{nil, false}, {[]tls.Certificate{clientCert}, true}} {
		conn, err := tls.Dial("tcp", e.addr, &tls.Config{InsecureSkipVerify: true, Certificates: tt.certs})
		if err == nil {
			c := &client{e: e, t: t, conn: conn}
			var g string
			g, err = c.read() // TLS 1.3 reports a refused client certificate on the first read
			if err == nil && !strings.Contains(g, "<greeting>") {
				err = fmt.Errorf("no greeting: %s", g)
			}
			conn.Close()
		}
		if (err == nil) != tt.ok {
			t.Errorf("client certificates %d: err %v, want ok=%v", len(tt.certs), err, tt.ok)
		}
	}
}

// TestMetrics: commands are counted by command, object (issue 34 item
// 12: domain, host and contact apart) and result code.
func TestMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	e := newEnv(t, epp.Options{Metrics: reg})
	c := e.dial()
	c.do(loginFrame("acme", "wrongpw1", ""))
	c.login("acme", "secret12")
	c.do(domainCmd("check", kitab))
	c.do(domainCmd("check", kittab))
	c.do(cmd(`<check><host:check xmlns:host="urn:ietf:params:xml:ns:host-1.0"><host:name>ns1.example.in</host:name></host:check></check>`))
	c.do(cmd(`<info><host:info xmlns:host="urn:ietf:params:xml:ns:host-1.0"><host:name>ns1.example.in</host:name></host:info></info>`))
	c.do(cmd(`<check><contact:check xmlns:contact="urn:ietf:params:xml:ns:contact-1.0"><contact:id>c-1</contact:id></contact:check></check>`))
	c.do(cmd(`<check><x:check xmlns:x="urn:example:x"/></check>`))
	c.do(cmd(`<poll op="req"/>`))
	c.do(cmd(`<renew/>`))
	want := map[string]float64{
		`login/none/2200`: 1, `login/none/1000`: 1, `check/domain/1000`: 2, `check/host/1000`: 1, `info/host/2303`: 1,
		`check/contact/1000`: 1, `check/other/2307`: 1, `poll/none/1300`: 1, `renew/other/2003`: 1,
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch mf.GetName() {
			case "akshara_epp_commands_total":
				l := map[string]string{}
				for _, p := range m.GetLabel() {
					l[p.GetName()] = p.GetValue()
				}
				got[l["command"]+"/"+l["object"]+"/"+l["code"]] = m.GetCounter().GetValue()
			case "akshara_epp_login_failures_total":
				got["failures"] = m.GetCounter().GetValue()
			case "akshara_epp_sessions":
				got["sessions"] = m.GetGauge().GetValue()
			}
		}
	}
	want["failures"], want["sessions"] = 1, 1
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("counters %v, want exactly %v", got, want)
	}
}
