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

// TestStagingConversation (issue 34 item 14) is a registrar's rehearsal
// on a staging server, on both stores, every frame schema-valid: the
// greeting says it is a staging server and how far ahead its clock runs,
// and its svDate is the registry's time; the registrar creates and
// deletes a domain (1001), the operator moves the clock past the
// redemption and pending delete periods, the worker purges it, the
// registrar polls the purge (<domain:panData>) and registers the name
// again; a transfer requested is approved by the registry when the clock
// is moved past the transfer period. Nothing is written to the database
// by hand and no clock of the test is set: the registry's time moves
// only through Service.MoveClock, as akshara clock advance moves it.
func TestStagingConversation(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			ctx := t.Context()
			base := registry.NewManualClock(registrytest.T0) // real time, standing still for the test
			clock := registry.NewStagingClock(base, 0)
			svc := st.Service(t, registry.ServiceOptions{Clock: clock, Contacts: registrytest.NoContacts()})
			if err := svc.SetTransferPolicy(ctx, "भारत", 5*24*time.Hour, 0); err != nil {
				t.Fatal(err)
			}
			e := newEnvOn(t, svc, epp.Options{})
			a, b := e.dial(), e.dial()
			a.login("acme", "secret12")
			b.login("other", "secret34")
			advance := func(d time.Duration) {
				t.Helper()
				if _, err := svc.MoveClock(ctx, registry.ClockChange{By: d}); err != nil {
					t.Fatal(err)
				}
				if _, err := svc.RunLifecycle(ctx, 0); err != nil { // the worker's next run
					t.Fatal(err)
				}
			}
			hello := func(want ...string) {
				t.Helper()
				g := a.do(head + `<hello/></epp>`)
				for _, w := range want {
					if !strings.Contains(g, w) {
						t.Errorf("greeting lacks %q:\n%s", w, g)
					}
				}
			}
			date := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.0Z") }
			hello("<svID>akshara (staging, clock +0s)</svID>", "<svDate>"+date(registrytest.T0)+"</svDate>")

			if r := a.do(createFrame(kitab, "hi", "")); code(r) != 1000 {
				t.Fatalf("create: %s", r)
			}
			advance(10 * 24 * time.Hour)
			if r := a.do(domainCmd("delete", kitab)); code(r) != 1001 {
				t.Fatalf("delete: %s", r)
			}
			if r := b.do(createFrame(kittab, "hi", "")); code(r) != 2302 {
				t.Errorf("the variant in redemption: %s", r)
			}
			advance(30 * 24 * time.Hour) // the end of the redemption
			if r := a.do(domainCmd("info", kitab)); code(r) != 1000 || !strings.Contains(r, `<domain:status s="pendingDelete"/>`) || strings.Contains(r, "redemptionPeriod") {
				t.Errorf("info after the redemption: %s", r)
			}
			advance(5*24*time.Hour + time.Hour) // past the pending delete: purged
			hello("<svID>akshara (staging, clock +45d1h)</svID>", "<svDate>"+date(registrytest.T0.Add(45*24*time.Hour+time.Hour))+"</svDate>")
			if r := a.do(domainCmd("info", kitab)); code(r) != 2303 {
				t.Errorf("info after the purge: %s", r)
			}
			// the sponsor's queue: the end of the redemption (RFC 8590's
			// change data), then the purge (RFC 5731's panData)
			r := a.do(cmd(`<poll op="req"/>`))
			if code(r) == 1301 && strings.Contains(r, `op="redemptionEnd"`) {
				a.do(cmd(`<poll op="ack" msgID="` + msgID(r) + `"/>`))
				r = a.do(cmd(`<poll op="req"/>`))
			}
			if code(r) != 1301 || !strings.Contains(r, `<domain:panData`) || !strings.Contains(r, `<domain:paDate>`+date(registrytest.T0.Add(45*24*time.Hour+time.Hour))) {
				t.Errorf("poll after the purge: %s", r)
			}
			if r := b.do(createFrame(kittab, "hi", "")); code(r) != 1000 {
				t.Errorf("the variant after the purge: %s", r)
			}

			// transfer auto-approval: requested, approved by the registry
			// when the clock passes the transfer period
			if r := a.do(createFrame(kamal, "hi", "")); code(r) != 1000 {
				t.Fatalf("create %s: %s", kamal, r)
			}
			if r := b.do(transferFrame("request", kamal, "2fooBAR!xQ7wK4pL", "")); code(r) != 1001 {
				t.Fatalf("transfer request: %s", r)
			}
			advance(4 * 24 * time.Hour)
			if r := b.do(transferFrame("query", kamal, "", "")); !strings.Contains(r, "<domain:trStatus>pending</domain:trStatus>") {
				t.Errorf("transfer after 4 days: %s", r)
			}
			advance(24*time.Hour + time.Minute)
			if _, err := svc.ApproveDueTransfers(ctx, 0); err != nil { // the transfer worker's next run
				t.Fatal(err)
			}
			if r := b.do(domainCmd("info", kamal)); !strings.Contains(r, "<domain:clID>other</domain:clID>") {
				t.Errorf("info after the transfer period: %s", r)
			}
			hello("<svID>akshara (staging, clock +50d1h1m)</svID>")
		})
	}
}

const kamal = "कमल.भारत"

// msgID is the id of the message a poll answer carries ("" if none).
func msgID(r string) string {
	m := regexp.MustCompile(`<msgQ count="\d+" id="(\d+)">`).FindStringSubmatch(r)
	if m == nil {
		return ""
	}
	return m[1]
}
