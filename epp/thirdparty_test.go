package epp_test

import (
	"crypto/tls"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	domainr "github.com/domainr/epp"
	"golang.org/x/net/idna"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestDomainrClient drives the server with github.com/domainr/epp, a Go
// client we did not write: greeting, login, check, info.
func TestDomainrClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t, epp.Options{})
	c := e.dial()
	c.login("acme", "secret12")
	if r := c.do(createFrame(kitabA, "hi", kitab)); code(r) != 1000 {
		t.Fatalf("create: %s", r)
	}
	raw, err := tls.Dial("tcp", e.addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := domainr.NewTimeoutConn(raw, 10*time.Second)
	if err != nil {
		t.Fatalf("greeting: %v", err)
	}
	defer conn.Close()
	if !conn.Greeting.SupportsObject(domainr.ObjDomain) || !conn.Greeting.SupportsExtension(epp.NSIDN) || conn.Greeting.ServerName != "akshara" {
		t.Errorf("greeting: %+v", conn.Greeting)
	}
	if _, err := conn.Login("acme", "wrongpass", ""); err == nil {
		t.Error("login with a wrong password succeeded")
	}
	if res, err := conn.Login("acme", "secret12", ""); err != nil || res.Code != 1000 {
		t.Fatalf("login: %+v, %v", res, err)
	}
	dcr, err := conn.CheckDomain(kitabA, kittabA, "कमल.भारत", "कख.भारत")
	if err != nil {
		t.Fatal(err)
	}
	invalid, err := e.svc.Check(t.Context(), "कख.भारत", "")
	if err != nil || len(invalid.Errors) == 0 {
		t.Fatalf("कख.भारत: %+v, %v", invalid, err)
	}
	want := []domainr.DomainCheck{
		{Domain: kitabA, Available: false, Reason: "registered"},
		{Domain: kittabA, Available: false, Reason: "blocked variant"},
		{Domain: "कमल.भारत", Available: true},
		{Domain: "कख.भारत", Available: false, Reason: "invalid: " + invalid.Errors[0].Code.String()},
	}
	if len(dcr.Checks) != len(want) {
		t.Fatalf("checks: %+v", dcr.Checks)
	}
	for i, w := range want {
		g := dcr.Checks[i]
		if g != w {
			t.Errorf("check %d: %+v, want %+v", i, g, w)
		}
	}
	info, err := conn.DomainInfo(kitab, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := info
	if d.Domain != kitabA || d.ClID != "acme" || !strings.HasPrefix(d.ID, "D") || d.CrDate.IsZero() || len(d.Status) != 1 || d.Status[0] != "ok" {
		t.Errorf("info: %+v", d)
	}
	if _, err := conn.DomainInfo("कमल.भारत", nil); err == nil || !strings.Contains(err.Error(), "2303") {
		t.Errorf("info of an unregistered name: %v", err)
	}
}

// needTool skips when a third-party tool is missing locally, and fails
// when CI=true (.ci/run installs it).
func needTool(t *testing.T, what string, check func() error) {
	t.Helper()
	if err := check(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required in CI: %v", what, err)
		}
		t.Skipf("%s is not installed: %v", what, err)
	}
}

// TestNetEPP drives the server with Debian's Net::EPP (Perl), through
// testdata/netepp.pl: login, check, create with <idn:data>, a second
// create refused, info with the extension read back, delete, logout.
func TestNetEPP(t *testing.T) {
	t.Parallel()
	needNetEPP(t)
	e := newEnv(t, epp.Options{})
	want := []string{
		`^login: 1000$`,
		`^check: avail=1 \(1000\)$`,
		`^create: 1000$`,
		`^check after create: avail=0 \(1000\)$`,
		`^create again: 2302 Object exists: किताब.भारत is already registered$`,
		`^info: 1000 roid=D\d+-AKSHARA idn:table=hi idn:uname=किताब.भारत$`,
		`^renew wrong date: 2306$`,
		`^renew: 1000 exDate=\d{4}-\d\d-\d\dT`,
		`^delete: 1001$`,
		`^info after delete: 1000 status=pendingDelete rgp=redemptionPeriod$`,
		`^restore request: 1000$`,
		`^restore report: 1000$`,
		`^info after restore: 1000 status=ok rgp=renewPeriod$`,
		`^logout: ok$`,
	}
	netEPP(t, e, "netepp.pl", want)
}

// TestNetEPPLoginExtensions (issue 34 item 12): Net::EPP configured as a
// registrar's toolkit is, listing extensions this server does not serve
// (launch, fee, allocationToken) beside those it does, logs in (1000, its
// message naming what is ignored) and checks; a command carrying
// <launch:check> is refused with 2103 (testdata/netepp_login.pl).
func TestNetEPPLoginExtensions(t *testing.T) {
	t.Parallel()
	needNetEPP(t)
	e := newEnv(t, epp.Options{})
	want := []string{
		`^login: 1000 Command completed successfully; extensions not served by this server, ignored: urn:ietf:params:xml:ns:launch-1\.0, urn:ietf:params:xml:ns:fee-0\.5, urn:ietf:params:xml:ns:allocationToken-1\.0$`,
		`^check: avail=1 \(1000\)$`,
		`^check with launch: 2103$`,
		`^logout: ok$`,
	}
	netEPP(t, e, "netepp_login.pl", want)
}

// TestNetEPPHosts drives host create, info, update and delete with
// Debian's Net::EPP (testdata/netepp_host.pl); every frame the server
// sends is validated with xmllint.
func TestNetEPPHosts(t *testing.T) {
	t.Parallel()
	needNetEPP(t)
	e := newEnv(t, epp.Options{})
	c := e.dial()
	c.login("acme", "secret12")
	if r := c.do(createFrame("example.in", "", "")); code(r) != 1000 {
		t.Fatalf("create: %s", r)
	}
	want := []string{
		`^login: 1000$`,
		`^create: ok \(1000\)$`,
		`^info: addrs=v4:8\.8\.8\.8 status=ok clID=acme$`,
		`^update: ok \(1000\)$`,
		`^info after update: addrs=v6:2001:4860:4860::8888,v4:8\.8\.8\.8 status=clientDeleteProhibited clID=acme$`,
		`^delete prohibited: refused \(2304\)$`,
		`^remove status: ok \(1000\)$`,
		`^delete: ok \(1000\)$`,
		`^info after delete: gone \(2303\)$`,
		`^out-of-zone glue: refused \(2306\)$`,
		`^logout: ok$`,
	}
	netEPP(t, e, "netepp_host.pl", want)
}

// TestNetEPPTransfer drives a transfer and the poll queue with Net::EPP,
// through testdata/nettransfer.pl: request (1001, pending), the sponsor's
// poll req/ack, approve, the requester's poll req/ack and empty queue.
// Every frame the server sends is validated by xmllint (serve).
func TestNetEPPTransfer(t *testing.T) {
	t.Parallel()
	needNetEPP(t)
	e := newEnv(t, epp.Options{})
	if err := e.svc.SetTransferPolicy(t.Context(), "भारत", 5*24*time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(e.addr)
	cmd := exec.Command("perl", "testdata/nettransfer.pl")
	cmd.Env = append(os.Environ(), "PORT="+port)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nettransfer.pl: %v\n%s", err, out)
	}
	want := []string{
		"login: 1000",
		"create: 1000",
		"request, wrong authInfo: 2202",
		"request: 1001 pending reID=other acID=acme",
		"poll acme: 1301 count=1 pending",
		"ack acme: 1000 count=0 same id=yes",
		"approve: 1000 clientApproved",
		"poll other: 1301 count=1 clientApproved",
		"ack other: 1000 count=0 same id=yes",
		"poll other: 1300 count=0",
		"info: 1000 clID=other",
		"logout: ok",
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("nettransfer.pl printed:\n%s", out)
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d: %q, want %q", i+1, lines[i], w)
		}
	}
}

// TestNetEPPContacts drives contact create and info with a loc postal
// address in Devanagari (its name not in NFC: it must come back byte for
// byte), and a domain create with registrant, admin and tech, with
// Debian's Net::EPP (testdata/netepp_contact.pl), on a registry with the
// zones file's contact policy (भारत requires registrant, admin and
// tech). Every frame the server sends is validated with xmllint.
func TestNetEPPContacts(t *testing.T) {
	t.Parallel()
	needNetEPP(t)
	e := newEnvOn(t, registrytest.SQLiteService(t), epp.Options{})
	want := []string{
		`^login: 1000$`,
		`^check: avail=1 \(1000\)$`,
		`^create rs-1: 1000$`,
		`^create adm-1: 1000$`,
		`^create tech-1: 1000$`,
		`^create bad email: 2005$`,
		`^info: 1000 id=rs-1 email=rahul@example.in voice=\+91\.5222345678$`,
		`^loc: ` + regexp.QuoteMeta("राहुल शर्मा \u0958ादिर|किताब प्रकाशन|१२ एम॰ जी॰ मार्ग|हज़रतगंज|लखनऊ|उत्तर प्रदेश|226001|IN") + `$`,
		`^int: Rahul Sharma\|Lucknow$`,
		`^domain create without tech: 2003$`,
		`^domain create: 1000$`,
		`^domain info: 1000 registrant=rs-1 admin=adm-1 tech=tech-1$`,
		`^delete linked: 2305$`,
		`^logout: ok$`,
	}
	netEPP(t, e, "netepp_contact.pl", want)
}

// TestNetEPPGuess guesses authInfo and storms a poll queue with Net::EPP
// on both stores (testdata/netguess.pl; issue 34, items 3 and 9): five
// wrong authInfo 2202, then 2201 for the sixth and for the right one,
// another registrar's request 1001, one poll message about the guessing,
// and a request/cancel storm that leaves the sponsor's queue empty. Every
// frame the server sends is validated with xmllint.
func TestNetEPPGuess(t *testing.T) {
	t.Parallel()
	needNetEPP(t)
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			e := newEnvOn(t, st.Service(t, registrytest.ContactsOptional()), epp.Options{})
			addRegistrar(t, e, "third", "secret56")
			if err := e.svc.SetTransferPolicy(t.Context(), "भारत", 5*24*time.Hour, 0); err != nil {
				t.Fatal(err)
			}
			netEPP(t, e, "netguess.pl", []string{
				`^login: 1000$`,
				`^create: 1000$`,
				`^create: 1000$`,
				`^five guesses: 2202 2202 2202 2202 2202$`,
				`^sixth guess: 2201 after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`,
				`^the right authInfo: 2201 after \d{4}-`,
				`^third: 1001 pending$`,
				`^poll acme: 1301 count=2 Wrong authInfo given 5 times in 24 hours for domain किताब.भारत$`,
				`^poll acme: 1301 count=1 Transfer requested$`,
				`^storm: taken=5 cancelled=5 refused 2201=15$`,
				`^poll acme: 1300 count=0$`,
				`^logout: ok$`,
			})
		})
	}
}

func needNetEPP(t *testing.T) {
	t.Helper()
	needTool(t, "perl with Net::EPP (Debian libnet-epp-perl)", func() error {
		return exec.Command("perl", "-MNet::EPP::Simple", "-e", "1").Run()
	})
}

// netEPP runs a Net::EPP script of testdata against e (PORT set) and
// matches the lines it prints with the regular expressions of want.
func netEPP(t *testing.T, e *env, script string, want []string) {
	t.Helper()
	_, port, _ := net.SplitHostPort(e.addr)
	cmd := exec.Command("perl", "testdata/"+script)
	cmd.Env = append(os.Environ(), "PORT="+port)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%s printed:\n%s", script, out)
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(lines[i]) {
			t.Errorf("line %d: %q, want %s", i+1, lines[i], w)
		}
	}
}

// TestNetEPPIssue38 drives issue 38 with Debian's Net::EPP
// (testdata/netepp_issue38.pl): the check and creates of the same label
// under the other variant TLD (available to the holder's registrar, for
// the holder's registrant only; 2302 for everyone else), every command on
// a domain the operator locked with its registrant's one-time code (2304;
// renew allowed), and the change poll (RFC 8590) and maintenance (RFC
// 9167) messages of the queue. Every frame the server sends is validated
// with xmllint against the RFC schemas (changePoll and maintenance
// vendored in testdata/xsd).
func TestNetEPPIssue38(t *testing.T) {
	t.Parallel()
	needNetEPP(t)
	ctx := t.Context()
	clock := registry.NewManualClock(time.Now())
	opts := registrytest.ContactsOptional()
	opts.Clock = clock
	e := newEnvOn(t, registrytest.SQLiteServiceWith(t, opts), epp.Options{})
	regs := map[string]*registry.Registrar{}
	rs, err := e.svc.Registrars(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		regs[r.Name] = &registry.Registrar{ID: r.ID, Name: r.Name}
	}
	acme, other := regs["acme"], regs["other"]
	for _, c := range []struct {
		r  *registry.Registrar
		id string
	}{{acme, "rs-9"}, {acme, "rs-x"}, {other, "rs-o"}} {
		if _, err := e.svc.CreateContact(ctx, c.r, registry.ContactCreate{ID: c.id, ContactData: registrytest.DevanagariContact(), AuthInfo: "Contact-pw-1-strong"}); err != nil {
			t.Fatal(err)
		}
	}
	reg := []registry.DomainContact{{Role: registry.RoleRegistrant, ID: "rs-9"}}
	for _, n := range []string{"কিতাব.ভারত", kitab} {
		if _, err := e.svc.CreateDomain(ctx, acme, registry.DomainCreate{Name: n, Contacts: reg, AuthInfo: "2fooBAR!xQ7wK4pL"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.svc.CreateHost(ctx, acme, registry.HostCreate{Name: "ns1." + kitab, Addrs: []registry.Addr{{IP: "8.8.8.8"}}}); err != nil {
		t.Fatal(err)
	}
	uri := registrytest.EnrolLocked(t, ctx, e.svc, clock, "rs-9")
	if _, err := e.svc.LockDomain(ctx, nil, registry.DomainLockRequest{Name: kitab, Code: registrytest.LockCode(t, uri, clock.Now())}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CreateMaintenance(ctx, registry.Maintenance{Start: clock.Now().Add(24 * time.Hour), End: clock.Now().Add(26 * time.Hour),
		Systems: []registry.MaintenanceSystem{{Name: "EPP", Host: "epp.registry.in", Impact: "full"}}, Description: "database upgrade", TLDs: []string{"भारत"}}); err != nil {
		t.Fatal(err)
	}
	holder, _ := idna.Punycode.ToASCII("কিতাব.ভারত")
	variant, _ := idna.Punycode.ToASCII("কিতাব.ভাৰত")
	_, port, _ := net.SplitHostPort(e.addr)
	cmd := exec.Command("perl", "testdata/netepp_issue38.pl")
	cmd.Env = append(os.Environ(), "PORT="+port, "HOLDER="+holder, "VARIANT="+variant, "LOCKED="+kitabA, "LOCKEDNS=ns1."+kitabA)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("netepp_issue38.pl: %v\n%s", err, out)
	}
	want := []string{
		"login: 1000",
		"check other: avail=0 reason=blocked: same entity only",
		"check acme: avail=1 reason=for the holder registrant only",
		"create by other: 2302",
		"create by acme, another registrant: 2302",
		"create by acme, the holder's registrant: 1000",
		"update: 2304",
		"delete: 2304",
		"transfer: 2304",
		"host update: 2304",
		"host delete: 2304",
		"host create: 2304",
		"renew: ok (1000)",
		"poll: 1301 changePoll update op=lock who=operator reason=registry lock object=urn:ietf:params:xml:ns:domain-1.0",
		"poll: 1301 changePoll update op=lock who=operator reason=registry lock object=urn:ietf:params:xml:ns:host-1.0",
		"poll: 1301 maintenance pollType=create",
		"logout: ok",
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("netepp_issue38.pl printed:\n%s", out)
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d: %q, want %q", i+1, lines[i], w)
		}
	}
	if d, err := e.svc.Info(ctx, "কিতাব.ভাৰত"); err != nil || len(d.VariantGroup) != 1 {
		t.Errorf("Info(কিতাব.ভাৰত) after the create = %+v, %v; want of কিতাব.ভারত's group", d, err)
	}
}
