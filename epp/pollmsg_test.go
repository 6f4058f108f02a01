package epp_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

var svTRIDRE = regexp.MustCompile(`<svTRID>([^<]+)</svTRID>`)

// TestLifecyclePollData (issue 34 item 12): the lifecycle's poll messages
// carry data, not only English text, on both stores, every frame
// validated against the RFC schemas:
//   - the purge of a domain the registrar deleted (answered 1001) is an
//     RFC 5731 §3.3 <domain:panData>: paResult="1", the <delete>'s own
//     clTRID and svTRID, the purge's date;
//   - the registry's deletion at expiry is a <domain:infData> (roid,
//     pendingDelete, clID) with <rgp:infData> redemptionPeriod;
//   - that domain's purge is a <domain:panData> whose svTRID is the
//     expiry's audit record (AKSHARA-AUDIT-n: the worker has no EPP
//     transaction).
func TestLifecyclePollData(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			clock := registry.NewManualClock(registrytest.T0)
			noRenew := akshara.DefaultLifecycle()
			noRenew.AutoRenew, noRenew.AddGrace = false, 0
			svc := st.Service(t, registry.ServiceOptions{Clock: clock, Contacts: registrytest.NoContacts(),
				Lifecycle: map[string]akshara.ZoneLifecycle{"in": noRenew}})
			e := newEnvOn(t, svc, epp.Options{})
			a := e.dial()
			a.login("acme", "secret12")
			run := func(at time.Time) {
				t.Helper()
				clock.Set(at)
				if _, err := svc.RunLifecycle(t.Context(), 0); err != nil {
					t.Fatal(err)
				}
			}
			// poll reads the head of the queue, checks it and acks it
			poll := func(what string, want ...string) string {
				t.Helper()
				r := a.do(cmd(`<poll op="req"/>`))
				if code(r) != 1301 {
					t.Fatalf("%s: poll %d, want 1301\n%s", what, code(r), r)
				}
				for _, w := range want {
					if !regexp.MustCompile(w).MatchString(r) {
						t.Errorf("%s: the message lacks %s\n%s", what, w, r)
					}
				}
				id := regexp.MustCompile(`<msgQ count="\d+" id="(\d+)">`).FindStringSubmatch(r)
				if id == nil {
					t.Fatalf("%s: no msgQ id\n%s", what, r)
				}
				if ack := a.do(cmd(`<poll op="ack" msgID="` + id[1] + `"/>`)); code(ack) != 1000 {
					t.Fatalf("%s: ack %s", what, ack)
				}
				return r
			}
			t0 := registrytest.T0
			for _, n := range []string{kitab, "expiring.in"} {
				if r := a.do(createFrame(n, map[bool]string{true: "hi"}[n == kitab], "")); code(r) != 1000 {
					t.Fatalf("create %s: %s", n, r)
				}
			}
			clock.Set(t0.AddDate(0, 0, 10))
			del := a.do(strings.Replace(domainCmd("delete", kitab), "TEST-1", "DEL-0001", 1))
			if code(del) != 1001 {
				t.Fatalf("delete: %s", del)
			}
			delSv := svTRIDRE.FindStringSubmatch(del)[1]

			purgeAt := t0.AddDate(0, 0, 10+35).Add(time.Hour)
			run(purgeAt)
			poll("the purge of a deleted domain", `<msg lang="en">Purged`,
				`<resData><domain:panData xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name paResult="1">`+regexp.QuoteMeta(kitabA)+`</domain:name>`+
					`<domain:paTRID><clTRID>DEL-0001</clTRID><svTRID>`+regexp.QuoteMeta(delSv)+`</svTRID></domain:paTRID>`+
					`<domain:paDate>`+regexp.QuoteMeta(purgeAt.Format("2006-01-02T15:04:05.0Z"))+`</domain:paDate></domain:panData></resData>`)

			expiry := t0.AddDate(1, 0, 0)
			run(expiry.Add(time.Hour))
			poll("the deletion at expiry", `<msg lang="en">Deleted at its expiry`,
				`<resData><domain:infData xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>expiring.in</domain:name><domain:roid>D\d+-AKSHARA</domain:roid>`+
					`<domain:status s="pendingDelete"/><domain:clID>acme</domain:clID></domain:infData></resData>`,
				`<extension><rgp:infData xmlns:rgp="urn:ietf:params:xml:ns:rgp-1.0"><rgp:rgpStatus s="redemptionPeriod"/></rgp:infData>`) // and RFC 8590's change data (changepoll.go)

			run(expiry.AddDate(0, 0, 36))
			poll("the purge of a domain deleted at expiry", `<domain:name paResult="1">expiring.in</domain:name><domain:paTRID><svTRID>AKSHARA-AUDIT-\d+</svTRID></domain:paTRID>`)
			if r := a.do(cmd(`<poll op="req"/>`)); code(r) != 1300 {
				t.Errorf("the queue after: %s", r)
			}
		})
	}
}
