package httpapi_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestLifecycleHTTP is the lifecycle over the HTTP API pinned to instants
// (create at T0 for 2 years → after expiry, auto-renewed → renew →
// statuses → delete → restore → delete → purge), on both stores, the
// invariant checked after every step.
func TestLifecycleHTTP(t *testing.T) {
	const kitab, kittab = "किताब.भारत", "कित्ताब.भारत"
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			clock := registry.NewManualClock(registrytest.T0)
			svc := st.Service(t, registrytest.Exempt(registry.ServiceOptions{Clock: clock}, "http", ""))
			ctx := context.Background()
			_, a, _ := svc.AddRegistrar(ctx, "a")
			_, b, _ := svc.AddRegistrar(ctx, "b")
			ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
			t.Cleanup(ts.Close)
			e := &env{t, svc, ts.URL, a, b}
			path := "/v1/domains/" + url.PathEscape(kitab)
			set := []string{"किताब", "कित्ताब"}
			held := registrytest.Held{}
			var purged []string
			t0 := registrytest.T0
			type step struct {
				name                string
				at                  time.Time
				method, path, token string
				body                string
				status              int
				code                string // the error code, if any
				statuses            []string
				expires             time.Time
				after               func()
			}
			steps := []step{
				{name: "create 11 years", at: t0, method: "POST", path: "/v1/domains", token: a, body: `{"name":"` + kitab + `","years":11}`, status: 400, code: registry.CodePeriodRange},
				{name: "create 2 years", method: "POST", path: "/v1/domains", token: a, body: `{"name":"` + kitab + `","years":2}`, status: 201, statuses: []string{"ok"}, expires: t0.AddDate(2, 0, 0), after: func() { held[kitab] = set }},
				{name: "info after expiry", at: t0.AddDate(2, 0, 1), method: "GET", path: path, status: 200, statuses: []string{"autoRenewPeriod"}, expires: t0.AddDate(3, 0, 0)},
				{name: "renew wrong date", method: "POST", path: path + "/renew", token: a, body: `{"current_expiry":"2032-01-01"}`, status: 409, code: registry.CodeWrongExpiry},
				{name: "renew past the horizon", method: "POST", path: path + "/renew", token: a, body: `{"current_expiry":"2033-01-01","years":10}`, status: 409, code: registry.CodeNotRenewable},
				{name: "renew not yours", method: "POST", path: path + "/renew", token: b, body: `{"current_expiry":"2033-01-01"}`, status: 403, code: registry.CodeForbidden},
				{name: "renew", method: "POST", path: path + "/renew", token: a, body: `{"current_expiry":"2033-01-01","years":1}`, status: 200, statuses: []string{"autoRenewPeriod", "renewPeriod"}, expires: t0.AddDate(4, 0, 0)},
				{name: "add clientDeleteProhibited", method: "POST", path: path + "/statuses", token: a, body: `{"add":["clientDeleteProhibited"]}`, status: 200, statuses: []string{"autoRenewPeriod", "clientDeleteProhibited", "renewPeriod"}},
				{name: "add serverHold", method: "POST", path: path + "/statuses", token: a, body: `{"add":["serverHold"]}`, status: 400, code: registry.CodeBadStatus},
				{name: "delete prohibited", method: "DELETE", path: path, token: a, status: 409, code: registry.CodeStatusProhibits},
				{name: "remove it", method: "POST", path: path + "/statuses", token: a, body: `{"remove":["clientDeleteProhibited"]}`, status: 200},
				{name: "delete", at: t0.AddDate(2, 3, 0), method: "DELETE", path: path, token: a, status: 202, statuses: []string{"pendingDelete", "redemptionPeriod"}},
				{name: "create the variant", method: "POST", path: "/v1/domains", token: b, body: `{"name":"` + kittab + `"}`, status: 409, code: registry.CodeConflict},
				{name: "restore report first", method: "POST", path: path + "/restore", token: a, body: `{"op":"report"}`, status: 409, code: registry.CodeStatusProhibits},
				{name: "restore request", method: "POST", path: path + "/restore", token: a, body: `{"op":"request"}`, status: 200, statuses: []string{"pendingDelete", "pendingRestore", "redemptionPeriod"}},
				{name: "restore report", method: "POST", path: path + "/restore", token: a, body: `{"op":"report"}`, status: 200, statuses: []string{"ok"}, expires: t0.AddDate(4, 0, 0)},
				{name: "delete again", method: "DELETE", path: path, token: a, status: 202},
				{name: "a second before the purge", at: t0.AddDate(2, 3, 35).Add(-time.Second), method: "GET", path: path, status: 200, statuses: []string{"pendingDelete"}},
				{name: "after the purge", at: t0.AddDate(2, 3, 35), method: "GET", path: path, status: 404, code: registry.CodeNotFound, after: func() { delete(held, kitab); purged = append(purged, kitab) }},
				{name: "create the variant after the purge", method: "POST", path: "/v1/domains", token: b, body: `{"name":"` + kittab + `"}`, status: 201, after: func() { held[kittab] = set }},
			}
			for _, s := range steps {
				if !s.at.IsZero() {
					clock.Set(s.at)
					if _, err := svc.RunLifecycle(ctx, 0); err != nil {
						t.Fatal(err)
					}
				}
				var out struct {
					Code     string    `json:"code"`
					Statuses []string  `json:"statuses"`
					Expires  time.Time `json:"expires"`
				}
				r := e.do(s.method, s.path, s.token, s.body, &out)
				if r.StatusCode != s.status || out.Code != s.code {
					t.Errorf("%s: %d %q, want %d %q", s.name, r.StatusCode, out.Code, s.status, s.code)
				}
				if s.statuses != nil && !slices.Equal(out.Statuses, s.statuses) {
					t.Errorf("%s: statuses %q, want %q", s.name, out.Statuses, s.statuses)
				}
				if !s.expires.IsZero() && !out.Expires.Equal(s.expires) {
					t.Errorf("%s: expires %v, want %v", s.name, out.Expires, s.expires)
				}
				if s.after != nil {
					s.after()
				}
				registrytest.CheckHeld(t, s.name, svc, held, purged)
			}
			log, err := svc.Audit(ctx, registry.AuditFilter{Name: kitab, Action: "renew", Registrar: "a"})
			if err != nil || len(log) != 3 || log[2].Channel != "http" || log[2].Result[:2] != "ok" {
				t.Errorf("audit of the renews: %+v, %v", log, err)
			}
		})
	}
}
