package epp_test

import (
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

const (
	nsHost   = `xmlns:host="urn:ietf:params:xml:ns:host-1.0"`
	nsDomain = `xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"`
	nsSec    = `xmlns:secDNS="urn:ietf:params:xml:ns:secDNS-1.1"`
	digest   = "2BB183AF5F22588179A53B0A98631FAD1A292118B0A7C5B7E4B1F1A2E8C4D9A1"
)

func hostCmd(verb, inner string) string {
	return cmd(`<` + verb + `><host:` + verb + ` ` + nsHost + `>` + inner + `</host:` + verb + `></` + verb + `>`)
}

func hostName(n string) string { return `<host:name>` + n + `</host:name>` }

func ds(tag, alg, dt, dg string) string {
	return `<secDNS:dsData><secDNS:keyTag>` + tag + `</secDNS:keyTag><secDNS:alg>` + alg + `</secDNS:alg><secDNS:digestType>` + dt +
		`</secDNS:digestType><secDNS:digest>` + dg + `</secDNS:digest></secDNS:dsData>`
}

func createNS(name, ns, ext string) string {
	if ext != "" {
		ext = `<extension>` + ext + `</extension>`
	}
	return cmd(`<create><domain:create ` + nsDomain + `><domain:name>` + name + `</domain:name>` + ns +
		`<domain:authInfo><domain:pw>2fooBAR!xQ7wK4pL</domain:pw></domain:authInfo></domain:create></create>` + ext)
}

func hostObjs(names ...string) string {
	var b strings.Builder
	b.WriteString(`<domain:ns>`)
	for _, n := range names {
		b.WriteString(`<domain:hostObj>` + n + `</domain:hostObj>`)
	}
	b.WriteString(`</domain:ns>`)
	return b.String()
}

func updateDomain(name, inner, ext string) string {
	if ext != "" {
		ext = `<extension>` + ext + `</extension>`
	}
	return cmd(`<update><domain:update ` + nsDomain + `><domain:name>` + name + `</domain:name>` + inner + `</domain:update></update>` + ext)
}

// TestDelegation is a registrar's conversation about hosts, name servers
// and DS records, on both stores; every server frame is validated with
// xmllint against the RFC schemas (host-1.0 and secDNS-1.1 included).
func TestDelegation(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testDelegation(t, newEnv(t, epp.Options{}))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		testDelegation(t, newEnvOn(t, registrytest.PostgresServiceWith(t, registrytest.ContactsOptional()), epp.Options{}))
	})
}

func testDelegation(t *testing.T, e *env) {
	a := e.dial()
	b := e.dial()
	const nsA = "ns1." + kitabA
	login := strings.Replace(loginFrame("acme", "secret12", ""), "domain-1.0</objURI>", "domain-1.0</objURI><objURI>urn:ietf:params:xml:ns:host-1.0</objURI>", 1)
	login = strings.Replace(login, "</svcExtension>", "<extURI>urn:ietf:params:xml:ns:secDNS-1.1</extURI></svcExtension>", 1)
	var fourteen []string
	var createMany []step
	for i := 1; i <= 14; i++ {
		n := "ns" + string(rune('a'+i)) + ".example.com"
		fourteen = append(fourteen, n)
		createMany = append(createMany, step{"create " + n, a, hostCmd("create", hostName(n)), 1000, nil})
	}
	b.login("other", "secret34")
	steps := []step{
		{"hello lists host and secDNS", a, head + `<hello/></epp>`, 0, []string{"<objURI>urn:ietf:params:xml:ns:host-1.0</objURI>", "<extURI>urn:ietf:params:xml:ns:secDNS-1.1</extURI>"}},
		{"login with host and secDNS", a, login, 1000, nil},
		{"create the domain", a, createFrame(kitabA, "hi", kitab), 1000, nil},
		{"host check", a, hostCmd("check", hostName("ns1."+kitab)+hostName("ns\u200d1.example.com")), 1000, []string{`<host:name avail="1">` + nsA + `</host:name>`, `<host:name avail="0">ns` + "\u200d" + `1.example.com</host:name><host:reason>bad name</host:reason>`}},
		{"host create with glue", a, hostCmd("create", hostName("ns1."+kitab)+`<host:addr ip="v4">8.8.8.8</host:addr><host:addr ip="v6">2001:4860:4860::8888</host:addr>`), 1000, []string{"<host:name>" + nsA + "</host:name>", "<host:crDate>"}},
		{"host create again", a, hostCmd("create", hostName(nsA)), 2302, nil},
		{"host create under another's domain", b, hostCmd("create", hostName("ns2."+kitab)+`<host:addr>8.8.4.4</host:addr>`), 2306, []string{"another registrar sponsors"}},
		{"out-of-zone glue", a, hostCmd("create", hostName("ns1.example.net")+`<host:addr ip="v4">8.8.4.4</host:addr>`), 2306, []string{"takes no addresses"}},
		{"joiner", a, hostCmd("create", hostName("ns1.कि\u200dताब.भारत")), 2306, nil},
		{"mixed scripts", a, hostCmd("create", hostName("nsक."+kitab)), 2306, nil},
		{"private address", a, hostCmd("create", hostName("ns3."+kitab)+`<host:addr>10.1.2.3</host:addr>`), 2004, []string{"not a public unicast address"}},
		{"bad address", a, hostCmd("create", hostName("ns3."+kitab)+`<host:addr ip="v6">8.8.8.8</host:addr>`), 2005, nil},
		{"nothing stored", a, hostCmd("check", hostName("ns2."+kitab)+hostName("ns1.example.net")+hostName("ns3."+kitab)), 1000, []string{`<host:name avail="1">ns2.` + kitabA, `<host:name avail="1">ns1.example.net`, `<host:name avail="1">ns3.` + kitabA}},
		{"host info", b, hostCmd("info", hostName("ns1."+kitab)), 1000, []string{"<host:name>" + nsA + "</host:name>", `<host:status s="ok"/>`, `<host:addr ip="v4">8.8.8.8</host:addr>`, `<host:addr ip="v6">2001:4860:4860::8888</host:addr>`, "<host:clID>acme</host:clID>"}},
		{"host info unknown", a, hostCmd("info", hostName("ns9.example.org")), 2303, nil},
	}
	steps = append(steps, createMany...)
	steps = append(steps, []step{
		{"14 name servers", a, updateDomain(kitab, `<domain:add>`+hostObjs(fourteen...)+`</domain:add>`, ""), 2306, []string{"at most 13 name servers"}},
		{"hostAttr", a, updateDomain(kitab, `<domain:add><domain:ns><domain:hostAttr><domain:hostName>ns.example.org</domain:hostName></domain:hostAttr></domain:ns></domain:add>`, ""), 2306, []string{"hostObj"}},
		{"add name servers", a, updateDomain(kitab, `<domain:add>`+hostObjs("ns1."+kitab, fourteen[0])+`</domain:add>`, ""), 1000, nil},
		{"unknown name server", a, updateDomain(kitab, `<domain:add>`+hostObjs("ns1.nowhere.org")+`</domain:add>`, ""), 2303, nil},
		{"not yours", b, updateDomain(kitab, `<domain:add>`+hostObjs(fourteen[1])+`</domain:add>`, ""), 2201, nil},
		{"add DS", a, updateDomain(kitab, "", `<secDNS:update `+nsSec+`><secDNS:add>`+ds("12345", "13", "2", strings.ToLower(digest))+`</secDNS:add></secDNS:update>`), 1000, nil},
		{"DS RSASHA1", a, updateDomain(kitab, "", `<secDNS:update `+nsSec+`><secDNS:add>`+ds("1", "5", "2", digest)+`</secDNS:add></secDNS:update>`), 2306, []string{"RFC 8624"}},
		{"DS SHA-1", a, updateDomain(kitab, "", `<secDNS:update `+nsSec+`><secDNS:add>`+ds("1", "13", "1", digest[:40])+`</secDNS:add></secDNS:update>`), 2306, []string{"digest type 1"}},
		{"DS short digest", a, updateDomain(kitab, "", `<secDNS:update `+nsSec+`><secDNS:add>`+ds("1", "13", "2", digest[:60])+`</secDNS:add></secDNS:update>`), 2306, nil},
		{"keyData", a, updateDomain(kitab, "", `<secDNS:update `+nsSec+`><secDNS:add><secDNS:keyData><secDNS:flags>257</secDNS:flags><secDNS:protocol>3</secDNS:protocol><secDNS:alg>13</secDNS:alg><secDNS:pubKey>AAAA</secDNS:pubKey></secDNS:keyData></secDNS:add></secDNS:update>`), 2306, []string{"keyData"}},
		{"domain info", b, domainCmd("info", kitab), 1000, []string{
			`<domain:ns><domain:hostObj>` + nsA + `</domain:hostObj><domain:hostObj>` + fourteen[0] + `</domain:hostObj></domain:ns><domain:clID>`,
			`<secDNS:infData xmlns:secDNS="urn:ietf:params:xml:ns:secDNS-1.1"><secDNS:dsData><secDNS:keyTag>12345</secDNS:keyTag><secDNS:alg>13</secDNS:alg><secDNS:digestType>2</secDNS:digestType><secDNS:digest>` + digest + `</secDNS:digest></secDNS:dsData></secDNS:infData>`}},
		{"host info linked", a, hostCmd("info", hostName(nsA)), 1000, []string{`<host:status s="linked"/>`}},
		{"host delete linked", a, hostCmd("delete", hostName(nsA)), 2305, nil},
		{"domain delete with a host under it", a, domainCmd("delete", kitab), 2305, nil},
		{"host update", a, hostCmd("update", hostName(nsA)+`<host:add><host:addr ip="v4">1.1.1.1</host:addr><host:status s="clientDeleteProhibited"/></host:add><host:rem><host:addr ip="v4">8.8.8.8</host:addr></host:rem>`), 1000, nil},
		{"host update by another", b, hostCmd("update", hostName(nsA)+`<host:add><host:addr ip="v4">1.0.0.1</host:addr></host:add>`), 2201, nil},
		{"host info updated", a, hostCmd("info", hostName(nsA)), 1000, []string{`<host:status s="clientDeleteProhibited"/><host:status s="linked"/><host:addr ip="v4">1.1.1.1</host:addr>`, "<host:upDate>"}},
		{"host rename", a, hostCmd("update", hostName(fourteen[0])+`<host:chg><host:name>ns0.example.org</host:name></host:chg>`), 1000, nil},
		{"create with ns and DS", a, createNS("signed.in", hostObjs("ns0.example.org"), `<secDNS:create `+nsSec+`>`+ds("2371", "15", "4", strings.Repeat("AB", 48))+`</secDNS:create>`), 1000, nil},
		{"create with a bad DS", a, createNS("badds.in", hostObjs("ns0.example.org"), `<secDNS:create `+nsSec+`>`+ds("2371", "7", "2", digest)+`</secDNS:create>`), 2306, nil},
		{"refused create stored nothing", a, domainCmd("check", "badds.in"), 1000, []string{`<domain:name avail="1">badds.in</domain:name>`}},
		{"info signed", b, domainCmd("info", "signed.in"), 1000, []string{"<domain:hostObj>ns0.example.org</domain:hostObj>", "<secDNS:keyTag>2371</secDNS:keyTag>"}},
		// one <update> for statuses, name servers, DS records and authInfo
		{"update all at once", a, updateDomain("signed.in", `<domain:add><domain:status s="clientHold"/></domain:add><domain:rem>`+hostObjs("ns0.example.org")+`</domain:rem><domain:chg><domain:authInfo><domain:pw>newsecret1-Strong</domain:pw></domain:authInfo></domain:chg>`,
			`<secDNS:update `+nsSec+`><secDNS:rem><secDNS:all>true</secDNS:all></secDNS:rem></secDNS:update>`), 1000, nil},
		{"info after the update", a, domainCmd("info", "signed.in"), 1000, []string{`<domain:status s="clientHold"/>`, "<domain:authInfo><domain:pw/></domain:authInfo>", "<domain:exDate>"}},
		{"update back at once", a, updateDomain("signed.in", `<domain:add>`+hostObjs("ns0.example.org")+`</domain:add><domain:rem><domain:status s="clientHold"/></domain:rem>`,
			`<secDNS:update `+nsSec+`><secDNS:add>`+ds("2371", "15", "4", strings.Repeat("AB", 48))+`</secDNS:add></secDNS:update>`), 1000, nil},
		{"info after it", b, domainCmd("info", "signed.in"), 1000, []string{`<domain:status s="ok"/>`, "<domain:hostObj>ns0.example.org</domain:hostObj>", "<secDNS:keyTag>2371</secDNS:keyTag>"}},
		{"replace DS", a, updateDomain(kitab, "", `<secDNS:update `+nsSec+`><secDNS:rem><secDNS:all>true</secDNS:all></secDNS:rem></secDNS:update>`), 1000, nil},
		{"remove name servers", a, updateDomain(kitab, `<domain:rem>`+hostObjs(nsA, "ns0.example.org")+`</domain:rem>`, ""), 1000, nil},
		{"info unsigned", a, domainCmd("info", kitab), 1000, nil},
		{"host delete prohibited", a, hostCmd("delete", hostName(nsA)), 2304, nil},
		{"remove the status", a, hostCmd("update", hostName(nsA)+`<host:rem><host:status s="clientDeleteProhibited"/></host:rem>`), 1000, nil},
		{"host delete", a, hostCmd("delete", hostName(nsA)), 1000, nil},
		{"domain delete", a, domainCmd("delete", kitab), 1001, []string{"redemption period"}}, // outside its add grace (docs/lifecycle.md)
		{"contact served", a, cmd(`<check><contact:check xmlns:contact="urn:ietf:params:xml:ns:contact-1.0"><contact:id>c-1</contact:id></contact:check></check>`), 1000, []string{`<contact:id avail="1">c-1</contact:id>`}},
	}...)
	runSteps(t, steps)
	d, err := e.svc.Info(t.Context(), "signed.in")
	if err != nil || len(d.DS) != 1 || len(d.NameServers) != 1 {
		t.Errorf("signed.in: %+v, %v", d, err)
	}
	if d, err := e.svc.Info(t.Context(), kitab); err != nil || !d.Deleted() {
		t.Errorf("%s after delete: %+v, %v; want pendingDelete", kitab, d, err)
	}
}

// step is one command of a conversation: who sends which frame, the
// result code wanted (0: any) and strings the answer must hold.
type step struct {
	name  string
	c     *client
	frame string
	code  int
	want  []string
}

// runSteps sends each step's frame and checks its answer.
func runSteps(t *testing.T, steps []step) {
	t.Helper()
	for _, s := range steps {
		r := s.c.do(s.frame)
		if s.code != 0 && code(r) != s.code {
			t.Errorf("%s: code %d, want %d\n%s", s.name, code(r), s.code, r)
		}
		for _, w := range s.want {
			if !strings.Contains(r, w) {
				t.Errorf("%s: answer lacks %q\n%s", s.name, w, r)
			}
		}
	}
}

// TestServedURIs (issue 24 item 7): the greeting lists host-1.0 among the
// objects and secDNS-1.1 and rgp-1.0 among the extensions, and a login
// that names them, each alone or all at once, is accepted (1000); an
// object the server does not serve is refused (2307). An extension it
// does not serve is ignored (issue 34 item 12, RFC 5730 §2.9.1.1): the
// login succeeds and its <msg> names what was ignored, so the test fails
// if login stops reading the list; a command carrying an element of that
// extension is then refused with 2103.
func TestServedURIs(t *testing.T) {
	e := newEnv(t, epp.Options{})
	c, err := e.dialRaw()
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.read()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<objURI>urn:ietf:params:xml:ns:domain-1.0</objURI>", "<objURI>urn:ietf:params:xml:ns:host-1.0</objURI>",
		"<extURI>urn:ietf:params:xml:ns:secDNS-1.1</extURI>", "<extURI>urn:ietf:params:xml:ns:rgp-1.0</extURI>",
	} {
		if !strings.Contains(g, want) {
			t.Errorf("the greeting lacks %s:\n%s", want, g)
		}
	}
	const obj, ext = "domain-1.0</objURI>", "</svcExtension>"
	withURIs := func(objs, exts []string) string {
		l := loginFrame("acme", "secret12", "")
		for _, o := range objs {
			l = strings.Replace(l, obj, obj+"<objURI>urn:ietf:params:xml:ns:"+o+"</objURI>", 1)
		}
		for _, x := range exts {
			l = strings.Replace(l, ext, "<extURI>urn:ietf:params:xml:ns:"+x+"</extURI>"+ext, 1)
		}
		return l
	}
	const ignored = "<msg>Command completed successfully; extensions not served by this server, ignored: "
	for _, tc := range []struct {
		name       string
		objs, exts []string
		code       int
		msg        string // the answer's <msg> ("": the RFC's text)
	}{
		{"host-1.0", []string{"host-1.0"}, nil, 1000, ""},
		{"secDNS-1.1", nil, []string{"secDNS-1.1"}, 1000, ""},
		{"rgp-1.0", nil, []string{"rgp-1.0"}, 1000, ""},
		{"all three", []string{"host-1.0"}, []string{"secDNS-1.1", "rgp-1.0"}, 1000, ""},
		{"an object not served", []string{"host-1.0", "example-1.0"}, nil, 2307, ""},
		{"an extension not served", nil, []string{"rgp-1.0", "launch-1.0"}, 1000, ignored + "urn:ietf:params:xml:ns:launch-1.0</msg>"},
		{"secDNS-1.0 (the old version)", nil, []string{"secDNS-1.0"}, 1000, ignored + "urn:ietf:params:xml:ns:secDNS-1.0</msg>"},
		{"a toolkit's list", nil, []string{"secDNS-1.1", "launch-1.0", "fee-0.5", "launch-1.0", "rgp-1.0", "allocationToken-1.0"}, 1000,
			ignored + "urn:ietf:params:xml:ns:launch-1.0, urn:ietf:params:xml:ns:fee-0.5, urn:ietf:params:xml:ns:allocationToken-1.0</msg>"},
	} {
		c := e.dial()
		r := c.do(withURIs(tc.objs, tc.exts))
		if code(r) != tc.code {
			t.Errorf("login with %s: %d, want %d\n%s", tc.name, code(r), tc.code, r)
		}
		if want := tc.msg; want == "" && tc.code == 1000 {
			if !strings.Contains(r, "<msg>Command completed successfully</msg>") {
				t.Errorf("login with %s: want the RFC's text\n%s", tc.name, r)
			}
		} else if !strings.Contains(r, want) {
			t.Errorf("login with %s: answer lacks %q\n%s", tc.name, want, r)
		}
		if tc.code != 1000 || len(tc.exts) == 0 {
			continue
		}
		// what is ignored at login is refused in a command
		launch := strings.Replace(domainCmd("check", kitab), "<clTRID>",
			`<extension><launch:check xmlns:launch="urn:ietf:params:xml:ns:launch-1.0" type="avail"/></extension><clTRID>`, 1)
		if r := c.do(launch); code(r) != 2103 || !strings.Contains(r, "urn:ietf:params:xml:ns:launch-1.0") {
			t.Errorf("after login with %s, a check with <launch:check>: want 2103 naming launch-1.0\n%s", tc.name, r)
		}
	}
	e.validate()
}
