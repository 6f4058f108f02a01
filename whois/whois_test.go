package whois_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/idna"

	"github.com/akshara-idn/akshara/rdap"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/whois"
)

const (
	kitab    = "किताब.भारत"
	kitabA   = "xn--11b4aya5ed.xn--h2brj9c"
	kittab   = "कित्ताब.भारत"
	kittabA  = "xn--11b4aa6a3fd3h.xn--h2brj9c"
	mixed    = "कखab.भारत" // Devanagari and Latin: MIXED_SCRIPT
	nsKitab  = "ns1." + kitab
	nsKitabA = "ns1." + kitabA
	// digest256 is a SHA-256 DS digest (64 hex digits)
	digest256 = "2BB183AF5F22588179A53B0A98631FAD1A292118B0A7C5B7E4B1F1A2E8C4D9A1"
)

var mixedA, _ = idna.Punycode.ToASCII(mixed)

type env struct {
	svc  *registry.Service
	srv  *whois.Server
	addr string
	reg  *prometheus.Registry
}

func newEnv(t testing.TB, svc *registry.Service, o whois.Options) *env {
	t.Helper()
	ctx := context.Background()
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: kitab, Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	// its contacts (docs/contacts.md), shown redacted
	for _, id := range []string{"rs-1", "adm-1"} {
		if _, err := svc.CreateContact(ctx, r, registry.ContactCreate{ID: id, ContactData: registrytest.DevanagariContact(), AuthInfo: "Contact-pw-1-strong"}); err != nil {
			t.Fatal(err)
		}
	}
	dc := []registry.DomainContact{{Role: "registrant", ID: "rs-1"}, {Role: "admin", ID: "adm-1"}, {Role: "tech", ID: "adm-1"}}
	if err := registrytest.Err(svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: kitab, AddContacts: dc})); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "example.in"}); err != nil {
		t.Fatal(err)
	}
	// name servers: one under किताब.भारत with glue, one outside the
	// zones (with a status), one named by no domain; किताब.भारत has
	// the first two and a DS record, example.in none
	for _, h := range []struct {
		name  string
		addrs []registry.Addr
	}{{nsKitab, []registry.Addr{{IP: "8.8.8.8"}, {IP: "2001:4860:4860::8888", Family: "v6"}}}, {"ns1.example.net", nil}, {"ns2.example.net", nil}} {
		if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: h.name, Addrs: h.addrs}); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.UpdateHost(ctx, r, registry.HostUpdate{Name: "ns1.example.net", AddStatuses: []string{registry.HostDeleteProhibited}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: kitab, AddNS: []string{nsKitab, "NS1.EXAMPLE.NET"},
		AddDS: []registry.DS{{KeyTag: 12345, Algorithm: 13, DigestType: 2, Digest: digest256}}}); err != nil {
		t.Fatal(err)
	}
	// a deleted domain: in redemption, its set held until the purge
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "सागर.भारत", Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	if err := registrytest.Err(svc.DeleteDomain(ctx, r, registry.DomainDelete{Name: "सागर.भारत"})); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	o.Metrics = reg
	srv, err := whois.New(svc, o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return &env{svc: svc, srv: srv, addr: ln.Addr().String(), reg: reg}
}

// query sends raw (the query with its line end) and reads the answer.
func (e *env) query(t testing.TB, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(b) {
		t.Errorf("%q: the answer is not UTF-8: %q", raw, b)
	}
	return string(b)
}

// TestAnswers: every kind of answer, over a real TCP listener, on both
// stores; each query in U-label and A-label form, with and without a
// final dot, gives the same answer.
func TestAnswers(t *testing.T) {
	tests := []struct {
		name  string
		forms []string
		want  []string
		not   []string
	}{
		{"registered", []string{kitab, kitabA, kitab + ".", "XN--11B4AYA5ED.xn--h2brj9c.", "domain " + kitab, "DOMAIN\t" + kitabA}, []string{
			"Domain Name: " + kitabA + "\r\n", "Domain Name (U-label): " + kitab + "\r\n", "Registrar: acme\r\n",
			"Creation Date: ", "Registry Expiry Date: ", "Updated Date: ", "Language: hi (Hindi)\r\n",
			"Blocked Variant: " + kittab + " (" + kittabA + ")\r\n",
			// the contacts: ids published (RDAP's handles), fields redacted
			"Registry Registrant ID: rs-1\r\nRegistrant Name: REDACTED FOR PRIVACY\r\nRegistrant Organization: REDACTED FOR PRIVACY\r\n",
			"Registrant Email: REDACTED FOR PRIVACY\r\nRegistry Admin ID: adm-1\r\n", "Registry Tech ID: adm-1\r\n", "Tech Phone: REDACTED FOR PRIVACY\r\n", "Tech Fax: REDACTED FOR PRIVACY\r\n",
			// .IN's layout: the name servers (A-labels, lower case,
			// sorted), DNSSEC, the complaint form, in this order
			"Tech Email: REDACTED FOR PRIVACY\r\nName Server: ns1.example.net\r\nName Server: " + nsKitabA + "\r\nDNSSEC: signedDelegation\r\n",
			"URL of the ICANN Whois Inaccuracy Complaint Form: https://www.icann.org/wicf/\r\n",
			"Domain Status: ok\r\nRegistry Registrant ID:",
			"Registry Domain ID: D1-AKSHARA\r\nUpdated Date: "},
			[]string{"Blocked Variant: " + kitab + " ", "Billing", "rahul@example.in", "+91.", "Rahul", "राहुल", "Lucknow", "लखनऊ", "226001",
				"Name Server: ns2", "NS1.", "Name Server: " + nsKitab, "DNSSEC: unsigned"}},
		{"blocked variant", []string{kittab, kittabA, kittab + ".", kittabA + "."}, []string{
			"Domain Name: " + kittabA + "\r\n", "Domain Name (U-label): " + kittab + "\r\n", "Status: blocked\r\n",
			"Code: CONFLICT\r\n", "Blocked By: " + kitab + " (" + kitabA + ")\r\n",
			"it is a blocked variant of the registered domain " + kitab}, nil},
		{"pending delete", []string{"सागर.भारत", "सागर.भारत."}, []string{
			"Domain Status: pendingDelete\r\n", "Domain Status: redemptionPeriod\r\n", "Pending Delete Until: "},
			[]string{"Domain Status: ok"}},
		{"ldh registered", []string{"example.in", "EXAMPLE.IN.", "example.in."}, []string{
			"Domain Name: example.in\r\n", "Language: ldh", "Registrar: acme\r\n", "Domain Status: ok\r\nDNSSEC: unsigned\r\n"},
			[]string{"Blocked Variant", "Name Server", "Registry Registrant ID"}},
		// hosts: a name of three labels or more that a host has, or the
		// keywords nameserver and host
		{"host with glue", []string{nsKitab, nsKitabA, "NS1." + strings.ToUpper(kitabA) + ".", "nameserver " + nsKitab, "host " + nsKitabA, "Host\t" + nsKitab}, []string{
			"Server Name: " + nsKitabA + "\r\nServer Name (U-label): " + nsKitab + "\r\nRegistry Host ID: H1-AKSHARA\r\n",
			"IP Address: 2001:4860:4860::8888\r\nIP Address: 8.8.8.8\r\nRegistrar: acme\r\nHost Status: ok\r\nHost Status: linked\r\nCreation Date: "},
			[]string{"Domain Name", "third-level", "URL of the ICANN"}},
		{"host outside the zones", []string{"ns1.example.net", "NS1.EXAMPLE.NET.", "nameserver ns1.example.net"}, []string{
			"Server Name: ns1.example.net\r\nRegistry Host ID: H2-AKSHARA\r\nRegistrar: acme\r\nHost Status: clientDeleteProhibited\r\nHost Status: linked\r\n", "Updated Date: "},
			[]string{"IP Address", "U-label", "Host Status: ok"}},
		{"host not linked", []string{"ns2.example.net", "host ns2.example.net"}, []string{"Server Name: ns2.example.net\r\n", "Host Status: ok\r\nCreation Date: "}, []string{"linked", "Updated Date"}},
		{"no such host", []string{"nameserver ns9.example.net", "host NS9.example.net."}, []string{
			"Server Name: ns9.example.net\r\nStatus: not found\r\nCode: NOT_FOUND\r\nMessage: ns9.example.net is not a name server of this registry.\r\n"}, []string{"Domain Name"}},
		{"no such host in a zone", []string{"nameserver ns2." + kitab, "host ns2." + kitabA}, []string{
			"Server Name: ns2." + kitabA + "\r\nServer Name (U-label): ns2." + kitab + "\r\nStatus: not found\r\n"}, nil},
		{"not a host name", []string{"host example"}, []string{"Server Name: example\r\nStatus: error\r\nCode: BAD_NAME\r\n", "it has one label"}, nil},
		// contacts, by the id a domain's answer gives, as RDAP's entity
		{"contact", []string{"contact adm-1", "CONTACT adm-1", "contact\tadm-1"}, []string{
			"Contact ID: adm-1\r\nContact Name: REDACTED FOR PRIVACY\r\nContact Organization: REDACTED FOR PRIVACY\r\nContact Street: REDACTED FOR PRIVACY\r\n",
			"Contact City: REDACTED FOR PRIVACY\r\nContact State/Province: REDACTED FOR PRIVACY\r\nContact Postal Code: REDACTED FOR PRIVACY\r\nContact Country: REDACTED FOR PRIVACY\r\n",
			"Contact Phone: REDACTED FOR PRIVACY\r\nContact Fax: REDACTED FOR PRIVACY\r\nContact Email: REDACTED FOR PRIVACY\r\nContact Status: ok\r\nContact Status: linked\r\nCreation Date: "},
			[]string{"rahul@example.in", "+91.", "Rahul", "राहुल", "Lucknow", "लखनऊ", "226001", "Kitab", "Registrar", "Domain Name"}},
		{"no such contact", []string{"contact nobody-9"}, []string{"Contact ID: nobody-9\r\nStatus: not found\r\nCode: NOT_FOUND\r\nMessage: there is no contact nobody-9.\r\n"}, nil},
		{"no contact can have the id", []string{"contact " + kitab}, []string{"Contact ID: " + kitab + "\r\nStatus: not found\r\nCode: NOT_FOUND\r\n"}, nil},
		{"an id too short", []string{"contact x"}, []string{"Contact ID: x\r\nStatus: not found\r\nCode: NOT_FOUND\r\n"}, nil},
		{"available", []string{"कमल.भारत", "xn--11b4cm.xn--h2brj9c", "कमल.भारत."}, []string{
			"Domain Name (U-label): कमल.भारत\r\n", "Status: available\r\n", "Code: NOT_FOUND\r\n", "a registrar can register it"}, nil},
		{"invalid", []string{"ab--cd.in", "ab--cd.in."}, []string{"Status: invalid\r\n", "Code: INVALID_LABEL\r\n", "Rule: "}, nil},
		{"invalid IDN", []string{mixed, mixedA, strings.ToUpper(mixedA) + "."}, []string{"Domain Name: " + mixedA + "\r\n", "Domain Name (U-label): " + mixed + "\r\n",
			"Status: invalid\r\n", "Code: INVALID_LABEL\r\n", "Rule: MIXED_SCRIPT at "}, nil},
		{"unknown zone", []string{"x.nozone", "x.nozone."}, []string{"Status: unknown zone\r\n", "Code: UNKNOWN_ZONE\r\n", "\"nozone\""}, nil},
		{"third level", []string{"www.example.in", "www.example.in.", "domain www.example.in"}, []string{"Status: third-level name\r\n", "Code: BAD_NAME\r\n", "zone in is served here"}, nil},
		{"host name as a domain", []string{"domain " + nsKitab, "domain " + nsKitab + "."}, []string{"Status: third-level name\r\n", "Code: BAD_NAME\r\n"}, []string{"Server Name"}},
		{"third level unknown zone", []string{"a.b.nozone"}, []string{"Status: third-level name\r\n", "zone nozone is not served here"}, nil},
		{"help", []string{"", "help", "HELP"}, []string{"% akshara WHOIS", "भारत (xn--h2brj9c)"}, nil},
	}
	for _, st := range registrytest.Stores {
		t.Run(st.Name, func(t *testing.T) {
			e := newEnv(t, st.Service(t), whois.Options{RateLimit: -1, Notices: []string{"Terms of use: test data."}})
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					var first string
					for i, q := range tt.forms {
						got := e.query(t, q+"\r\n")
						body, _, _ := strings.Cut(got, ">>> Last update")
						if i == 0 {
							first = body
						} else if body != first {
							t.Errorf("%q answers differently from %q:\n%s\n---\n%s", q, tt.forms[0], body, first)
						}
						if !strings.HasPrefix(got, "% Terms of use: test data.\r\n") || !strings.HasSuffix(got, "<<<\r\n") {
							t.Errorf("%q: notices or last-update line missing:\n%s", q, got)
						}
						for _, w := range tt.want {
							if !strings.Contains(got, w) {
								t.Errorf("%q: %q missing from\n%s", q, w, got)
							}
						}
						for _, w := range tt.not {
							if strings.Contains(got, w) {
								t.Errorf("%q: %q in\n%s", q, w, got)
							}
						}
					}
				})
			}
		})
	}
}

// TestRefusals: a long query, bad UTF-8, the rate limit and a silent
// client get one clear line each.
func TestRefusals(t *testing.T) {
	e := newEnv(t, registrytest.SQLiteService(t), whois.Options{RateLimit: 0.001, RateBurst: 4, MaxQuery: 64, ReadTimeout: 200 * time.Millisecond})
	if got := e.query(t, strings.Repeat("a", 65)+".in\r\n"); got != "% BAD_NAME: the query is longer than 64 bytes\r\n" {
		t.Errorf("long query: %q", got)
	}
	if got := e.query(t, "\xff\xfe.in\r\n"); got != "% BAD_NAME: the query is not valid UTF-8\r\n" {
		t.Errorf("bad UTF-8: %q", got)
	}
	if got := e.query(t, ""); !strings.Contains(got, "% BAD_NAME: no query line") {
		t.Errorf("silent client: %q", got)
	}
	if got := e.query(t, kitab+"\r\n"); !strings.Contains(got, "Domain Name: "+kitabA) {
		t.Errorf("fourth query (within the burst): %q", got)
	}
	got := e.query(t, kitab+"\r\n")
	if !strings.HasPrefix(got, "% RATE_LIMITED: too many queries from 127.0.0.1") || strings.Count(got, "\n") != 1 {
		t.Errorf("fifth query (past the burst): %q", got)
	}
	if n := counter(t, e.reg, "akshara_whois_refused_total", "rate_limited"); n != 1 {
		t.Errorf("akshara_whois_refused_total{reason=rate_limited} = %v", n)
	}
}

func counter(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetValue() == label {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("%s{%s} not gathered", name, label)
	return 0
}

// TestDebianClient asks with Debian's whois client, a client we did not
// write. It skips without it, and fails under CI=true.
func TestDebianClient(t *testing.T) {
	bin, err := exec.LookPath("whois")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the whois client is not installed (Debian package whois; .ci/run installs it)")
		}
		t.Skip("the whois client is not installed (Debian package whois): skipped")
	}
	e := newEnv(t, registrytest.SQLiteService(t), whois.Options{RateLimit: -1})
	_, port, _ := net.SplitHostPort(e.addr)
	for _, tt := range []struct {
		args []string // the query, as arguments of whois
		want []string
	}{
		{[]string{kitab}, []string{"Domain Name: " + kitabA, "Blocked Variant: " + kittab + " (" + kittabA + ")",
			"Name Server: ns1.example.net\n", "Name Server: " + nsKitabA + "\n", "DNSSEC: signedDelegation\n", "Registry Tech ID: adm-1\n"}},
		{[]string{kitabA}, []string{"Domain Name: " + kitabA, "Blocked Variant: " + kittab + " (" + kittabA + ")", "DNSSEC: signedDelegation\n"}},
		{[]string{"example.in"}, []string{"Domain Name: example.in", "DNSSEC: unsigned\n"}},
		{[]string{kittab}, []string{"Status: blocked", "Blocked By: " + kitab + " (" + kitabA + ")"}},
		// a name server by its name, in U-labels and A-labels, and with
		// the keyword (the client joins its arguments with spaces)
		{[]string{nsKitab}, []string{"Server Name: " + nsKitabA + "\n", "IP Address: 8.8.8.8\n", "Host Status: linked\n"}},
		{[]string{"nameserver", nsKitabA}, []string{"Server Name: " + nsKitabA + "\n", "IP Address: 2001:4860:4860::8888\n"}},
		{[]string{"host", "ns1.example.net"}, []string{"Server Name: ns1.example.net\n", "Host Status: clientDeleteProhibited\n"}},
		{[]string{"contact", "rs-1"}, []string{"Contact ID: rs-1\n", "Contact Name: REDACTED FOR PRIVACY\n", "Contact Status: linked\n"}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, bin, append([]string{"-h", "127.0.0.1", "-p", port, "--"}, tt.args...)...).CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("whois %s: %v\n%s", tt.args, err, out)
		}
		s := strings.ReplaceAll(string(out), "\r\n", "\n")
		for _, w := range tt.want {
			if !strings.Contains(s, w) {
				t.Errorf("whois %s: %q missing from\n%s", tt.args, w, s)
			}
		}
		if strings.Contains(s, "rahul@example.in") || strings.Contains(s, "Rahul") {
			t.Errorf("whois %s: personal data shown:\n%s", tt.args, s)
		}
	}
}

// BenchmarkQuery measures WHOIS queries per second over TCP on
// 127.0.0.1 (connect, query, answer, close), a registered domain.
func BenchmarkQuery(b *testing.B) {
	e := newEnv(b, registrytest.SQLiteService(b), whois.Options{RateLimit: -1})
	b.ReportAllocs()
	for b.Loop() {
		if got := e.query(b, kitab+"\r\n"); !strings.Contains(got, "Registrar: acme") {
			b.Fatal(got)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}

// BenchmarkAnswer is the answer alone (no network): a registered domain
// (its name servers, DS and three contact roles read), a blocked variant,
// a host by its bare name, a contact.
func BenchmarkAnswer(b *testing.B) {
	e := newEnv(b, registrytest.SQLiteService(b), whois.Options{RateLimit: -1})
	for _, line := range []string{kitab, kittab, nsKitab, "contact adm-1"} {
		q, err := whois.ParseQuery([]byte(line))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strconv.Quote(line), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, result := e.srv.Answer(context.Background(), q); result == "INTERNAL" {
					b.Fatal(line)
				}
			}
		})
	}
}

// BenchmarkQueryParallel is BenchmarkQuery from GOMAXPROCS clients at once.
func BenchmarkQueryParallel(b *testing.B) {
	e := newEnv(b, registrytest.SQLiteService(b), whois.Options{RateLimit: -1})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if got := e.query(b, kittab+"\r\n"); !strings.Contains(got, "Status: blocked") {
				b.Error(got)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}

// TestContactDisclosed: a contact whose <contact:disclose flag="1"> names
// fields has those shown (its int name, its email), the rest still
// REDACTED FOR PRIVACY, as RDAP publishes and removes them.
func TestContactDisclosed(t *testing.T) {
	svc := registrytest.SQLiteService(t)
	e := newEnv(t, svc, whois.Options{})
	r := &registry.Registrar{ID: 1, Name: "acme"}
	if err := svc.UpdateContact(t.Context(), r, registry.ContactUpdate{ID: "adm-1", Disclose: &registry.Disclose{Flag: true, Fields: []string{"name:int", "email"}}}); err != nil {
		t.Fatal(err)
	}
	got := e.query(t, kitab+"\r\n")
	for _, w := range []string{"Admin Name: Rahul Sharma\r\n", "Admin Email: rahul@example.in\r\n", "Tech Name: Rahul Sharma\r\n",
		"Admin Phone: REDACTED FOR PRIVACY\r\n", "Admin City: REDACTED FOR PRIVACY\r\n", "Registrant Name: REDACTED FOR PRIVACY\r\n", "Registrant Email: REDACTED FOR PRIVACY\r\n"} {
		if !strings.Contains(got, w) {
			t.Errorf("the answer lacks %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "राहुल") || strings.Contains(got, "+91.") {
		t.Errorf("an undisclosed field is shown:\n%s", got)
	}
}

// TestRedactedAsRDAP: for each disclose of a contact (none, name and
// email, the loc forms and telephones, the address only) and a contact
// without organization, fax or state, the WHOIS lines REDACTED FOR
// PRIVACY are exactly the fields RDAP's "redacted" member names, in a
// domain's answer ("Admin Name", role by role) and a contact's ("Contact
// Name"), and each value WHOIS shows is in RDAP's vCard.
func TestRedactedAsRDAP(t *testing.T) {
	svc := registrytest.SQLiteService(t)
	e := newEnv(t, svc, whois.Options{RateLimit: -1})
	ctx := t.Context()
	r := &registry.Registrar{ID: 1, Name: "acme"}
	bare := registry.ContactData{Postal: []registry.PostalInfo{{Type: "loc", Name: "सीता", City: "पुणे", CC: "IN"}}, Email: "sita@example.in",
		Voice: &registry.Phone{Number: "+91.2012345678"}}
	if _, err := svc.CreateContact(ctx, r, registry.ContactCreate{ID: "bare-1", ContactData: bare, AuthInfo: "Contact-pw-1-strong"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: kitab, AddContacts: []registry.DomainContact{{Role: "billing", ID: "bare-1"}}}); err != nil {
		t.Fatal(err)
	}
	api := rdap.Handler(svc, rdap.Options{})
	get := func(path string) (string, map[string]bool) {
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		var doc struct {
			Redacted []struct {
				Name struct{ Type string } `json:"name"`
			} `json:"redacted"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, r := range doc.Redacted {
			out[r.Name.Type] = true
		}
		return rec.Body.String(), out
	}
	// whoisFields splits an answer's contact lines (those of prefixes)
	// into the redacted and the shown.
	whoisFields := func(answer string, prefixes ...string) (map[string]bool, map[string]string) {
		red, shown := map[string]bool{}, map[string]string{}
		for _, l := range strings.Split(answer, "\r\n") {
			k, v, ok := strings.Cut(l, ": ")
			if !ok || strings.HasPrefix(k, "Registry ") || k == "Contact ID" || k == "Contact Status" {
				continue
			}
			for _, p := range prefixes {
				if strings.HasPrefix(k, p+" ") {
					if v == "REDACTED FOR PRIVACY" {
						red[k] = true
					} else {
						shown[k] = v
					}
				}
			}
		}
		return red, shown
	}
	same := func(what string, whoisRed, rdapRed map[string]bool) {
		t.Helper()
		for k := range whoisRed {
			if !rdapRed[k] {
				t.Errorf("%s: WHOIS redacts %q, RDAP does not", what, k)
			}
		}
		for k := range rdapRed {
			if !whoisRed[k] {
				t.Errorf("%s: RDAP redacts %q, WHOIS does not", what, k)
			}
		}
	}
	inVCard := func(what, body string, shown map[string]string) {
		t.Helper()
		for k, v := range shown {
			for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' }) {
				part, _, _ = strings.Cut(strings.TrimSpace(part), " ext. ")
				if !strings.Contains(body, part) {
					t.Errorf("%s: WHOIS shows %s: %q, not in RDAP's answer", what, k, part)
				}
			}
		}
	}
	for _, d := range []*registry.Disclose{
		{Flag: false, Fields: []string{"voice", "email"}},
		{Flag: true, Fields: []string{"name:int", "email"}},
		{Flag: true, Fields: []string{"name:loc", "org:loc", "addr:loc", "voice", "fax"}},
		{Flag: true, Fields: []string{"addr:int", "fax"}},
		{Flag: true, Fields: []string{"name:int", "org:int", "addr:int", "voice", "fax", "email"}},
	} {
		for _, id := range []string{"adm-1", "bare-1"} {
			if err := svc.UpdateContact(ctx, r, registry.ContactUpdate{ID: id, Disclose: d}); err != nil {
				t.Fatal(err)
			}
		}
		what := fmt.Sprintf("disclose %v %v", d.Flag, d.Fields)
		for _, id := range []string{"adm-1", "bare-1"} {
			body, rdapRed := get("/rdap/entity/" + id)
			red, shown := whoisFields(e.query(t, "contact "+id+"\r\n"), "Contact")
			same(what+", contact "+id, red, rdapRed)
			inVCard(what+", contact "+id, body, shown)
			if len(red)+len(shown) < 5 {
				t.Fatalf("%s: contact %s: too few fields (%v %v)", what, id, red, shown)
			}
		}
		body, rdapRed := get("/rdap/domain/" + kitabA)
		red, shown := whoisFields(e.query(t, kitab+"\r\n"), "Registrant", "Admin", "Tech", "Billing")
		same(what+", "+kitab, red, rdapRed)
		inVCard(what+", "+kitab, body, shown)
		if !red["Registrant Name"] || !red["Registrant Email"] { // rs-1 discloses nothing
			t.Errorf("%s: the registrant's name or email not redacted: %v", what, red)
		}
	}
}

// holdConns opens n connections to addr from the address from, sending
// nothing (held until the read timeout), and returns them and the
// refusal lines of those the server refuses, as they come.
func holdConns(t *testing.T, addr, from string, n int) ([]net.Conn, <-chan string) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	refused := make(chan string, n)
	var conns []net.Conn
	for range n {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("from %s: %v", from, err)
		}
		t.Cleanup(func() { c.Close() })
		conns = append(conns, c)
		go func() {
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			if b, _ := io.ReadAll(c); len(b) > 0 {
				refused <- string(b)
			}
		}()
	}
	return conns, refused
}

// TestConnsPerAddr: one address that opens every connection of the
// server and sends nothing has those past MaxConnsPerAddr refused with
// one line, and another address (127.0.0.2, a loopback alias on Linux)
// is still answered; once the first closes its connections it is
// answered again. Without the cap, the first address holds all the
// server's connections and the second is refused as busy.
func TestConnsPerAddr(t *testing.T) {
	e := newEnv(t, registrytest.SQLiteService(t), whois.Options{RateLimit: -1, MaxConns: 4, MaxConnsPerAddr: 2, ReadTimeout: 30 * time.Second})
	held, refused := holdConns(t, e.addr, "127.0.0.1", 4)
	for i := range 2 {
		select {
		case got := <-refused:
			if want := "% RATE_LIMITED: 127.0.0.1 has 2 connections open, the most one address may; retry later\r\n"; got != want {
				t.Errorf("refusal %d: %q, want %q", i, got, want)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("127.0.0.1 opened 4 connections with MaxConnsPerAddr 2: %d refused", i)
		}
	}
	// another address: answered, by the connections the first could not take
	other := func() string {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp", e.addr)
		if err != nil {
			t.Skipf("no loopback alias 127.0.0.2 here: %v", err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, kitab+"\r\n")
		b, _ := io.ReadAll(c)
		return string(b)
	}
	for i := range 2 {
		if got := other(); !strings.Contains(got, "Domain Name: "+kitabA+"\r\n") {
			t.Fatalf("127.0.0.2, query %d, while 127.0.0.1 holds its connections: %q", i, got)
		}
	}
	if n := counter(t, e.reg, "akshara_whois_refused_total", "addr_busy"); n != 2 {
		t.Errorf("akshara_whois_refused_total{reason=addr_busy} = %v, want 2", n)
	}
	// the first address closes its connections: its slots come back
	for _, c := range held {
		c.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := e.query(t, kitab+"\r\n")
		if strings.Contains(got, "Domain Name: "+kitabA+"\r\n") {
			break
		}
		if !strings.HasPrefix(got, "% RATE_LIMITED: 127.0.0.1 has 2 connections open") || time.Now().After(deadline) {
			t.Fatalf("127.0.0.1 after closing its connections: %q", got)
		}
		time.Sleep(10 * time.Millisecond) // the server has not yet seen the close
	}
}
