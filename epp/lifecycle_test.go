package epp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

const dNS = `xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"`

func renewFrame(name, cur, period string) string {
	p := ""
	if period != "" {
		p = `<domain:period unit="` + period[len(period)-1:] + `">` + period[:len(period)-1] + `</domain:period>`
	}
	return cmd(`<renew><domain:renew ` + dNS + `><domain:name>` + name + `</domain:name><domain:curExpDate>` + cur + `</domain:curExpDate>` + p + `</domain:renew></renew>`)
}

func statusFrame(name, addRem, status string) string {
	return cmd(`<update><domain:update ` + dNS + `><domain:name>` + name + `</domain:name><domain:` + addRem + `><domain:status s="` + status + `"/></domain:` + addRem + `></domain:update></update>`)
}

func restoreFrame(name, op string) string {
	return head + `<command><update><domain:update ` + dNS + `><domain:name>` + name + `</domain:name><domain:chg/></domain:update></update>` +
		`<extension><rgp:update xmlns:rgp="urn:ietf:params:xml:ns:rgp-1.0"><rgp:restore op="` + op + `"/></rgp:update></extension><clTRID>LIFE-1</clTRID></command></epp>`
}

func createPeriodFrame(name, period string) string {
	return cmd(`<create><domain:create ` + dNS + `><domain:name>` + name + `</domain:name><domain:period unit="` + period[len(period)-1:] + `">` + period[:len(period)-1] + `</domain:period></domain:create></create>`)
}

// TestLifecycleEPP is the lifecycle as a registrar's EPP conversation
// pinned to instants (create at T0 → info after expiry and auto-renew →
// renew → statuses → delete → restore → delete → purge), on both stores,
// the invariant checked after every step, every frame validated against
// the RFC schemas (rgp-1.0 included).
func TestLifecycleEPP(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			clock := registry.NewManualClock(registrytest.T0)
			svc := st.Service(t, registry.ServiceOptions{Clock: clock, Contacts: registrytest.NoContacts()})
			e := newEnvOn(t, svc, epp.Options{})
			a, b := e.dial(), e.dial()
			a.login("acme", "secret12")
			b.login("other", "secret34")
			set := []string{"किताब", "कित्ताब"}
			held := registrytest.Held{}
			var purged []string
			run := func() {
				t.Helper()
				if _, err := svc.RunLifecycle(t.Context(), 0); err != nil {
					t.Fatal(err)
				}
			}
			t0 := registrytest.T0
			date := func(t time.Time) string { return t.Format(time.DateOnly) }
			steps := []struct {
				name  string
				at    time.Time // zero: as it is
				c     *client
				frame string
				code  int
				want  []string
				after func()
			}{
				{"create 11 years", t0, a, createPeriodFrame(kitab, "11y"), 2004, nil, nil},
				{"create 24 months", t0, a, createPeriodFrame(kitab, "24m"), 2004, []string{"not months"}, nil},
				{"create 2 years", t0, a, createPeriodFrame(kitab, "2y"), 1000, []string{"<domain:exDate>2032-01-01T00:00:00.0Z</domain:exDate>"}, func() { held[kitab] = set }},
				{"info after expiry, auto-renewed", t0.AddDate(2, 0, 1), b, domainCmd("info", kitab), 1000,
					[]string{"<domain:exDate>2033-01-01T00:00:00.0Z</domain:exDate>", `<rgp:rgpStatus s="autoRenewPeriod"/>`, `<domain:status s="ok"/>`}, nil},
				{"renew wrong curExpDate", time.Time{}, a, renewFrame(kitab, "2032-01-01", "1y"), 2306, nil, nil},
				{"renew 11 years", time.Time{}, a, renewFrame(kitab, "2033-01-01", "11y"), 2004, nil, nil},
				{"renew past the horizon", time.Time{}, a, renewFrame(kitab, "2033-01-01", "10y"), 2105, nil, nil},
				{"renew not yours", time.Time{}, b, renewFrame(kitab, "2033-01-01", "1y"), 2201, nil, nil},
				{"renew", time.Time{}, a, renewFrame(kitab, "2033-01-01", "2y"), 1000, []string{"<domain:renData", "<domain:exDate>2035-01-01T00:00:00.0Z</domain:exDate>"}, nil},
				{"add clientDeleteProhibited", time.Time{}, a, statusFrame(kitab, "add", "clientDeleteProhibited"), 1000, nil, nil},
				{"add serverHold", time.Time{}, a, statusFrame(kitab, "add", "serverHold"), 2306, nil, nil},
				{"delete prohibited", time.Time{}, a, domainCmd("delete", kitab), 2304, nil, nil},
				{"info shows the status", time.Time{}, b, domainCmd("info", kitab), 1000, []string{`<domain:status s="clientDeleteProhibited"/>`}, nil},
				{"rem clientDeleteProhibited", time.Time{}, a, statusFrame(kitab, "rem", "clientDeleteProhibited"), 1000, nil, nil},
				{"restore outside redemption", time.Time{}, a, restoreFrame(kitab, "request"), 2304, nil, nil},
				{"delete", t0.AddDate(2, 2, 0), a, domainCmd("delete", kitab), 1001, nil, nil},
				{"info in redemption", time.Time{}, b, domainCmd("info", kitab), 1000, []string{`<domain:status s="pendingDelete"/>`, `<rgp:rgpStatus s="redemptionPeriod"/>`}, nil},
				{"check the variant", time.Time{}, b, domainCmd("check", kittab), 1000, []string{`avail="0"`, "<domain:reason>pending delete until 2032-04-05</domain:reason>"}, nil},
				{"create the variant", time.Time{}, b, createFrame(kittab, "hi", ""), 2302, nil, nil},
				{"renew in redemption", time.Time{}, a, renewFrame(kitab, "2035-01-01", "1y"), 2304, nil, nil},
				{"restore report first", time.Time{}, a, restoreFrame(kitab, "report"), 2304, nil, nil},
				{"restore by another", time.Time{}, b, restoreFrame(kitab, "request"), 2201, nil, nil},
				{"restore request", time.Time{}, a, restoreFrame(kitab, "request"), 1000, nil, nil},
				{"info pending restore", time.Time{}, a, domainCmd("info", kitab), 1000, []string{`<rgp:rgpStatus s="pendingRestore"/>`}, nil},
				{"restore report", time.Time{}, a, restoreFrame(kitab, "report"), 1000, nil, nil},
				{"info restored", time.Time{}, a, domainCmd("info", kitab), 1000, []string{`<domain:status s="ok"/>`, "<domain:exDate>2035-01-01"}, nil},
				{"delete again", time.Time{}, a, domainCmd("delete", kitab), 1001, nil, nil},
				{"info a day before the purge", t0.AddDate(2, 2, 34), b, domainCmd("info", kitab), 1000, []string{`<domain:status s="pendingDelete"/>`}, nil},
				{"create the variant a day before", time.Time{}, b, createFrame(kittab, "hi", ""), 2302, nil, nil},
				{"info after the purge", t0.AddDate(2, 2, 35), b, domainCmd("info", kitab), 2303, nil, func() { delete(held, kitab); purged = append(purged, kitab) }},
				{"create the variant", time.Time{}, b, createFrame(kittab, "hi", ""), 1000, nil, func() { held[kittab] = set }},
			}
			for _, s := range steps {
				if !s.at.IsZero() {
					clock.Set(s.at)
					run()
				}
				r := s.c.do(s.frame)
				if code(r) != s.code {
					t.Errorf("%s (%s): code %d, want %d\n%s", s.name, date(clock.Now()), code(r), s.code, r)
				}
				for _, w := range s.want {
					if !strings.Contains(r, w) {
						t.Errorf("%s: answer lacks %q\n%s", s.name, w, r)
					}
				}
				if s.after != nil {
					s.after()
				}
				registrytest.CheckHeld(t, s.name, svc, held, purged)
			}
			// the audit log: each transition with the channel and the ids
			log, err := svc.Audit(t.Context(), registry.AuditFilter{Name: kitab, Action: "restore-request"})
			if err != nil || len(log) != 3 {
				t.Fatalf("audit of restore requests: %+v, %v", log, err)
			}
			ok := log[2]
			if ok.Channel != "epp" || ok.ClTRID != "LIFE-1" || ok.SvTRID == "" || ok.Result != "ok" {
				t.Errorf("audit of the restore request: %+v", ok)
			}
		})
	}
}
