package epp_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

func transferFrame(op, name, pw, period string) string {
	inner := `<domain:name>` + name + `</domain:name>` + period
	if pw != "" {
		inner += `<domain:authInfo><domain:pw>` + pw + `</domain:pw></domain:authInfo>`
	}
	return cmd(`<transfer op="` + op + `"><domain:transfer ` + nsDomain + `>` + inner + `</domain:transfer></transfer>`)
}

func authInfoFrame(name, chg string) string {
	return cmd(`<update><domain:update ` + nsDomain + `><domain:name>` + name + `</domain:name><domain:chg><domain:authInfo>` + chg + `</domain:authInfo></domain:chg></domain:update></update>`)
}

const pollReq = `<poll op="req"/>`

func pollAck(id string) string { return cmd(`<poll op="ack" msgID="` + id + `"/>`) }

var msgIDRE = regexp.MustCompile(`<msgQ count="(\d+)" id="(\d+)"`)

// msgQ returns the count and id of a response's <msgQ>.
func msgQ(r string) (string, string) {
	m := msgIDRE.FindStringSubmatch(r)
	if m == nil {
		return "", ""
	}
	return m[1], m[2]
}

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.0Z") }

// TestTransferConversation is a whole transfer conversation over EPP
// pinned to instants, on both stores: a create with authInfo at t0, a
// request refused within the lock period and with a wrong authInfo, a
// request at t1 (1001), the losing registrar's poll message, a query by
// both, a rejection; a request approved, the conflict set moved with the
// name; a new authInfo set by the new sponsor, a request back approved by
// the server at t2+5d; poll req/ack all along. Every frame the server
// sends validates against the RFC schemas (serve's xmllint).
func TestTransferConversation(t *testing.T) {
	t.Parallel()
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			clk := registry.NewManualClock(registrytest.T0)
			svc := st.Service(t, registry.ServiceOptions{Clock: clk, Contacts: registrytest.NoContacts()})
			e := newEnvOn(t, svc, epp.Options{})
			a := e.dial() // acme: the losing registrar
			a.login("acme", "secret12")
			b := e.dial() // other: the gaining registrar
			b.login("other", "secret34")
			t0 := registrytest.T0
			t1 := t0.Add(61 * 24 * time.Hour)
			t2 := t1.Add(62 * 24 * time.Hour)
			t3 := t2.Add(5 * 24 * time.Hour)
			type step struct {
				name  string
				c     *client
				frame string
				code  int
				want  []string
				not   []string
			}
			var lastID string
			run := func(steps []step) {
				t.Helper()
				for _, s := range steps {
					r := s.c.do(s.frame)
					if code(r) != s.code {
						t.Fatalf("%s: code %d, want %d\n%s", s.name, code(r), s.code, r)
					}
					for _, w := range s.want {
						if !strings.Contains(r, w) {
							t.Errorf("%s: answer lacks %q\n%s", s.name, w, r)
						}
					}
					for _, w := range s.not {
						if strings.Contains(r, w) {
							t.Errorf("%s: answer has %q\n%s", s.name, w, r)
						}
					}
					if _, id := msgQ(r); id != "" {
						lastID = id
					}
				}
			}
			trn := func(status, re, reDate, ac, acDate string) []string {
				return []string{"<domain:trnData", "<domain:name>" + kitabA + "</domain:name>", "<domain:trStatus>" + status + "</domain:trStatus>",
					"<domain:reID>" + re + "</domain:reID><domain:reDate>" + reDate + "</domain:reDate><domain:acID>" + ac + "</domain:acID><domain:acDate>" + acDate + "</domain:acDate>"}
			}
			run([]step{
				{"create with authInfo", a, createFrame(kitabA, "hi", kitab), 1000, []string{"<domain:crDate>" + ts(t0) + "</domain:crDate>"}, nil},
				{"request in the lock period", b, transferFrame("request", kitab, "2fooBAR!xQ7wK4pL", ""), 2106, []string{"cannot be transferred until"}, nil},
			})
			clk.Set(t1)
			run([]step{
				{"request, wrong authInfo", b, transferFrame("request", kitab, "2fooBAR?", ""), 2202, nil, nil},
				{"request by the sponsor", a, transferFrame("request", kitab, "2fooBAR!xQ7wK4pL", ""), 2106, nil, nil},
				{"request in months", b, transferFrame("request", kitab, "2fooBAR!xQ7wK4pL", `<domain:period unit="m">12</domain:period>`), 2004, nil, nil},
				{"request of no op", b, strings.Replace(transferFrame("request", kitab, "2fooBAR!xQ7wK4pL", ""), ` op="request"`, ` op="steal"`, 1), 2001, nil, nil},
				{"request", b, transferFrame("request", kitab, "2fooBAR!xQ7wK4pL", `<domain:period unit="y">1</domain:period>`), 1001,
					trn("pending", "other", ts(t1), "acme", ts(t1.Add(5*24*time.Hour))), nil},
				{"request again", b, transferFrame("request", kitab, "2fooBAR!xQ7wK4pL", ""), 2300, nil, nil},
				{"info while pending", a, domainCmd("info", kitab), 1000, []string{`<domain:status s="pendingTransfer"/>`, "<domain:authInfo><domain:pw/></domain:authInfo>"}, nil},
				{"info by the requester", b, domainCmd("info", kitab), 1000, []string{`<domain:status s="pendingTransfer"/>`}, []string{"<domain:authInfo>", "2fooBAR!xQ7wK4pL"}},
				{"query by the requester", b, transferFrame("query", kitab, "", ""), 1000, trn("pending", "other", ts(t1), "acme", ts(t1.Add(5*24*time.Hour))), nil},
				{"approve by the requester", b, transferFrame("approve", kitab, "", ""), 2201, nil, nil},
				{"cancel by the sponsor", a, transferFrame("cancel", kitab, "", ""), 2201, nil, nil},
				{"poll by the sponsor", a, cmd(pollReq), 1301, append([]string{`<msgQ count="1" id="`, "<qDate>" + ts(t1) + "</qDate>", "Transfer requested"}, trn("pending", "other", ts(t1), "acme", ts(t1.Add(5*24*time.Hour)))...), nil},
			})
			run([]step{
				{"ack of another's message", b, pollAck(lastID), 2303, nil, nil},
				{"ack", a, pollAck(lastID), 1000, []string{`<msgQ count="0" id="` + lastID + `"/>`}, nil},
				{"ack again", a, pollAck(lastID), 2303, nil, nil},
				{"poll empty", a, cmd(pollReq), 1300, nil, []string{"<msgQ"}},
				{"reject", a, transferFrame("reject", kitab, "", ""), 1000, trn("clientRejected", "other", ts(t1), "acme", ts(t1)), nil},
				{"poll by the requester", b, cmd(pollReq), 1301, append([]string{`<msgQ count="1" id="`, "rejected"}, trn("clientRejected", "other", ts(t1), "acme", ts(t1))...), nil},
			})
			run([]step{
				{"ack the rejection", b, pollAck(lastID), 1000, []string{`<msgQ count="0"`}, nil},
				{"request again", b, transferFrame("request", kitab, "2fooBAR!xQ7wK4pL", ""), 1001, nil, nil},
				{"approve", a, transferFrame("approve", kitab, "", ""), 1000, trn("clientApproved", "other", ts(t1), "acme", ts(t1)), nil},
				{"info after the transfer", b, domainCmd("info", kitab), 1000, []string{`<domain:status s="ok"/>`, "<domain:clID>other</domain:clID>", "<domain:trDate>" + ts(t1) + "</domain:trDate>"}, []string{"<domain:authInfo>"}},
				{"the losing registrar creates a variant", a, createFrame(kittabA, "", ""), 2302, []string{"blocked by the registered domain " + kitab}, nil},
				{"the old authInfo set by the losing registrar", a, authInfoFrame(kitab, "<domain:pw>2fooBAR!xQ7wK4pL</domain:pw>"), 2201, nil, nil},
				{"a new authInfo", b, authInfoFrame(kitab, "<domain:pw>new-Auth-2-strong</domain:pw>"), 1000, nil, nil},
				{"info with the new authInfo", b, domainCmd("info", kitab), 1000, []string{"<domain:authInfo><domain:pw/></domain:authInfo>"}, []string{"new-Auth-2-strong"}},
			})
			clk.Set(t2)
			run([]step{
				{"request back, old authInfo", a, transferFrame("request", kitab, "2fooBAR!xQ7wK4pL", ""), 2202, nil, nil},
				{"request back", a, transferFrame("request", kitab, "new-Auth-2-strong", ""), 1001, trn("pending", "acme", ts(t2), "other", ts(t3)), nil},
			})
			clk.Set(t3)
			if n, err := svc.ApproveDueTransfers(t.Context(), 0); n != 1 || err != nil {
				t.Fatalf("worker at t2+5d: %d, %v", n, err)
			}
			run([]step{
				{"query after the server approved", b, transferFrame("query", kitab, "", ""), 1000, trn("serverApproved", "acme", ts(t2), "other", ts(t3)), nil},
				{"info at t2+5d", b, domainCmd("info", kitab), 1000, []string{"<domain:clID>acme</domain:clID>", "<domain:trDate>" + ts(t3) + "</domain:trDate>"}, nil},
				{"poll by the new sponsor", a, cmd(pollReq), 1301, append([]string{`<msgQ count="2"`, "<qDate>" + ts(t1) + "</qDate>"}, trn("pending", "other", ts(t1), "acme", ts(t1.Add(5*24*time.Hour)))...), nil},
			})
			run([]step{
				{"ack", a, pollAck(lastID), 1000, []string{`<msgQ count="1" id="` + lastID + `"/>`}, nil},
				{"poll by the new sponsor again", a, cmd(pollReq), 1301, append([]string{`<msgQ count="1"`, "<qDate>" + ts(t3) + "</qDate>", "approved by the registry"}, trn("serverApproved", "acme", ts(t2), "other", ts(t3))...), nil},
				{"poll by the old sponsor", b, cmd(pollReq), 1301, append([]string{`<msgQ count="3"`}, trn("clientApproved", "other", ts(t1), "acme", ts(t1))...), nil},
				{"poll ack of a bad id", b, pollAck("x1"), 2303, nil, nil},
				{"poll without op", b, cmd(`<poll/>`), 2001, nil, nil},
			})
			// the audit log has the EPP transaction ids of each transition
			log, err := svc.Audit(t.Context(), registry.AuditFilter{Name: kitab, Action: "transfer-approve"})
			if err != nil || len(log) != 2 || log[0].Result != "FORBIDDEN" || !log[0].At.Equal(t1) {
				t.Errorf("audit of the refused approval: %+v, %v", log, err)
			}
			log = log[1:]
			if err != nil || len(log) != 1 || log[0].Channel != "epp" || log[0].ClTRID != "TEST-1" || !strings.HasPrefix(log[0].SvTRID, "AK-") || !log[0].At.Equal(t1) {
				t.Errorf("audit of the approval: %+v, %v", log, err)
			}
		})
	}
}

// TestAuthInfoUpdate: <update> sets and removes the authInfo; what info
// says of it to the sponsor; refusals.
func TestAuthInfoUpdate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, epp.Options{})
	if err := e.svc.SetTransferPolicy(t.Context(), "भारत", 5*24*time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	a := e.dial()
	a.login("acme", "secret12")
	b := e.dial()
	b.login("other", "secret34")
	steps := []struct {
		name  string
		c     *client
		frame string
		code  int
		want  string
	}{
		{"create without authInfo", a, strings.Replace(createFrame(kitabA, "hi", ""), "<domain:pw>2fooBAR!xQ7wK4pL</domain:pw>", "<domain:pw/>", 1), 1000, ""},
		{"info: none set", a, domainCmd("info", kitab), 1000, "</domain:exDate></domain:infData>"},
		{"request without one set", b, transferFrame("request", kitab, "2fooBAR!xQ7wK4pL", ""), 2202, ""},
		{"a short one", a, authInfoFrame(kitab, "<domain:pw>abc</domain:pw>"), 2306, "16 characters of three kinds"},
		{"RFC 5731's example", a, authInfoFrame(kitab, "<domain:pw>2fooBAR</domain:pw>"), 2306, "this one has 7 characters"},
		{"long, of two kinds", a, authInfoFrame(kitab, "<domain:pw>abcdefghijklmnopqrst0123</domain:pw>"), 2306, "of 2 kinds"},
		{"ext", a, authInfoFrame(kitab, `<domain:ext><x:y xmlns:x="urn:example:x"/></domain:ext>`), 2102, ""},
		{"status add", a, cmd(`<update><domain:update ` + nsDomain + `><domain:name>` + kitab + `</domain:name><domain:add><domain:status s="clientHold"/></domain:add></domain:update></update>`), 1000, ""},
		{"status rem", a, cmd(`<update><domain:update ` + nsDomain + `><domain:name>` + kitab + `</domain:name><domain:rem><domain:status s="clientHold"/></domain:rem></domain:update></update>`), 1000, ""},
		{"a contact added", a, cmd(`<update><domain:update ` + nsDomain + `><domain:name>` + kitab + `</domain:name><domain:add><domain:contact type="admin">c-1</domain:contact></domain:add></domain:update></update>`), 2303, "no contact c-1"},
		{"set", a, authInfoFrame(kitab, "<domain:pw>Auth-Info-9-strong</domain:pw>"), 1000, ""},
		{"info: set", a, domainCmd("info", kitab), 1000, "<domain:authInfo><domain:pw/></domain:authInfo>"},
		{"set by another", b, authInfoFrame(kitab, "<domain:pw>Auth-Info-8-strong</domain:pw>"), 2201, ""},
		{"removed", a, authInfoFrame(kitab, "<domain:null/>"), 1000, ""},
		{"info: removed", a, domainCmd("info", kitab), 1000, "</domain:exDate></domain:infData>"},
		{"request after removal", b, transferFrame("request", kitab, "Auth-Info-9-strong", ""), 2202, ""},
		{"set again", a, authInfoFrame(kitab, "<domain:pw>Auth-Info-7-strong</domain:pw>"), 1000, ""},
		{"request", b, transferFrame("request", kitab, "Auth-Info-7-strong", ""), 1001, "<domain:trStatus>pending</domain:trStatus>"},
		{"update while pending", a, authInfoFrame(kitab, "<domain:pw>Auth-Info-6-strong</domain:pw>"), 2304, "pendingTransfer"},
		{"delete while pending", a, domainCmd("delete", kitab), 2304, "pendingTransfer"},
		{"cancel", b, transferFrame("cancel", kitab, "", ""), 1000, "clientCancelled"},
		{"update after", a, authInfoFrame(kitab, "<domain:pw>Auth-Info-6-strong</domain:pw>"), 1000, ""},
		{"request with the replaced one", b, transferFrame("request", kitab, "Auth-Info-7-strong", ""), 2202, ""},
		{"transfer of nothing", b, transferFrame("query", "कमल.भारत", "", ""), 2303, ""},
		{"transfer of a contact", b, cmd(`<transfer op="query"><contact:transfer xmlns:contact="urn:ietf:params:xml:ns:contact-1.0"><contact:id>c-1</contact:id></contact:transfer></transfer>`), 2101, "contact transfers are not served"},
	}
	for _, s := range steps {
		r := s.c.do(s.frame)
		if code(r) != s.code || !strings.Contains(r, s.want) {
			t.Errorf("%s: code %d, want %d with %q\n%s", s.name, code(r), s.code, s.want, r)
		}
	}
}
