package epp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// addRegistrar adds a registrar with an EPP password to e's registry.
func addRegistrar(t testing.TB, e *env, name, pw string) {
	t.Helper()
	if _, _, err := e.svc.AddRegistrar(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SetEPPPassword(t.Context(), name, pw); err != nil {
		t.Fatal(err)
	}
}

// TestAuthInfoGuessEPP guesses a domain's and a contact's authInfo over
// EPP on both stores (issue 34, item 3): five wrong authInfo are answered
// 2202, the sixth attempt, and then the right authInfo too, 2201 with the
// instant the next attempt is taken; another registrar with the right one
// is not held back (1001); the sponsor's queue holds one message about the
// guessing (msg only), then the other's request; a minute after, one more
// guess is taken. A contact's info is limited alike. Every frame validates
// against the RFC schemas (serve's xmllint).
func TestAuthInfoGuessEPP(t *testing.T) {
	t.Parallel()
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			clk := registry.NewManualClock(registrytest.T0)
			svc := st.Service(t, registry.ServiceOptions{Clock: clk, Contacts: registrytest.NoContacts()})
			e := newEnvOn(t, svc, epp.Options{})
			addRegistrar(t, e, "third", "secret56")
			if err := svc.SetTransferPolicy(t.Context(), "भारत", 5*24*time.Hour, 0); err != nil {
				t.Fatal(err)
			}
			a, b, c := e.dial(), e.dial(), e.dial()
			a.login("acme", "secret12")
			b.login("other", "secret34")
			c.login("third", "secret56")
			const right = "2fooBAR!xQ7wK4pL" // createFrame's
			if r := a.do(createFrame(kitabA, "hi", kitab)); code(r) != 1000 {
				t.Fatalf("create: %s", r)
			}
			if r := a.do(contactCreate("rs-1", nil)); code(r) != 1000 {
				t.Fatalf("contact create: %s", r)
			}
			wrong := func(i int) string { return fmt.Sprintf("Wrong-guess-%04d-xyz", i) }
			for i := range registry.AuthFreeFailures {
				if r := b.do(transferFrame("request", kitab, wrong(i), "")); code(r) != 2202 {
					t.Fatalf("guess %d: %s", i+1, r)
				}
			}
			until := registrytest.T0.Add(registry.AuthBackoffBase).Format(time.RFC3339)
			for _, pw := range []string{wrong(9), right} {
				r := b.do(transferFrame("request", kitab, pw, ""))
				if code(r) != 2201 || !strings.Contains(r, "Authorization error: other gave 5 wrong authInfo for किताब.भारत within 24 hours: its next attempt on it (even with the right authInfo) is taken after "+until) {
					t.Errorf("attempt with %s while locked: %s", pw, r)
				}
			}
			if r := c.do(transferFrame("request", kitab, right, "")); code(r) != 1001 {
				t.Fatalf("the third's request: %s", r)
			}
			// the sponsor's queue: the alert, then the request
			r := a.do(cmd(pollReq))
			count, id := msgQ(r)
			if code(r) != 1301 || count != "2" || !strings.Contains(r, "<msg lang=\"en\">Wrong authInfo given 5 times in 24 hours for domain किताब.भारत") || strings.Contains(r, "<resData>") {
				t.Fatalf("poll: %s", r)
			}
			if r := a.do(pollAck(id)); code(r) != 1000 {
				t.Fatalf("ack: %s", r)
			}
			r = a.do(cmd(pollReq))
			_, id = msgQ(r)
			if code(r) != 1301 || !strings.Contains(r, "<domain:trStatus>pending</domain:trStatus><domain:reID>third</domain:reID>") {
				t.Fatalf("poll: %s", r)
			}
			a.do(pollAck(id))
			clk.Advance(registry.AuthBackoffBase)
			if r := b.do(transferFrame("request", kitab, wrong(10), "")); code(r) != 2202 {
				t.Errorf("a guess after the back-off: %s", r)
			}
			if r := b.do(transferFrame("query", kitab, right, "")); code(r) != 2201 {
				t.Errorf("a query with the right authInfo after the 6th failure: %s", r)
			}

			// a contact's authInfo
			info := func(pw string) string {
				return contactCmd("info", contactID("rs-1")+`<contact:authInfo><contact:pw>`+pw+`</contact:pw></contact:authInfo>`)
			}
			for i := range registry.AuthFreeFailures {
				if r := b.do(info(wrong(i))); code(r) != 2201 || !strings.Contains(r, "needs its authInfo") {
					t.Fatalf("contact guess %d: %s", i+1, r)
				}
			}
			if r := b.do(info("Contact-pw-1-strong")); code(r) != 2201 || !strings.Contains(r, "wrong authInfo for contact rs-1") {
				t.Errorf("the contact's right authInfo while locked: %s", r)
			}
			if r := c.do(info("Contact-pw-1-strong")); code(r) != 1000 {
				t.Errorf("the third's contact info: %s", r)
			}
			r = a.do(cmd(pollReq))
			if code(r) != 1301 || !strings.Contains(r, "for contact rs-1") {
				t.Errorf("poll: %s", r)
			}
		})
	}
}

// TestTransferStormEPP: another registrar's request/cancel storm over EPP
// on both stores (issue 34, item 9): 200 pairs; five requests a day are
// taken, the rest refused 2201; every cancel withdraws its request's
// message from the sponsor's queue, which stays empty (before: 400
// messages).
func TestTransferStormEPP(t *testing.T) {
	t.Parallel()
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			clk := registry.NewManualClock(registrytest.T0)
			svc := st.Service(t, registry.ServiceOptions{Clock: clk, Contacts: registrytest.NoContacts()})
			e := newEnvOn(t, svc, epp.Options{})
			if err := svc.SetTransferPolicy(t.Context(), "भारत", 5*24*time.Hour, 0); err != nil {
				t.Fatal(err)
			}
			a, b := e.dial(), e.dial()
			a.login("acme", "secret12")
			b.login("other", "secret34")
			if r := a.do(createFrame(kitabA, "hi", kitab)); code(r) != 1000 {
				t.Fatalf("create: %s", r)
			}
			taken, limited := 0, 0
			for i := range 200 {
				clk.Advance(time.Second)
				switch r := b.do(transferFrame("request", kitab, "2fooBAR!xQ7wK4pL", "")); code(r) {
				case 1001:
					taken++
					if r := b.do(transferFrame("cancel", kitab, "", "")); code(r) != 1000 {
						t.Fatalf("cancel %d: %s", i, r)
					}
				case 2201:
					limited++
					if !strings.Contains(r, "other requested the transfer of किताब.भारत 5 times within 24 hours") {
						t.Fatalf("request %d: %s", i, r)
					}
				default:
					t.Fatalf("request %d: %s", i, r)
				}
			}
			if taken != registry.TransferRequestLimit || limited != 200-registry.TransferRequestLimit {
				t.Errorf("%d taken, %d limited", taken, limited)
			}
			if r := a.do(cmd(pollReq)); code(r) != 1300 {
				t.Errorf("the sponsor's queue after the storm: %s", r)
			}
		})
	}
}
