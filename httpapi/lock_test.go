package httpapi_test

import (
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestRegistryLock: over HTTP, a registrar locks its domain with its
// registrant's one-time code (a wrong one refused), every mutating
// endpoint on the locked domain and its host then answers 409
// STATUS_PROHIBITS (the code EPP maps to 2304; renew aside), and an
// unlock with a fresh code lets them through again.
func TestRegistryLock(t *testing.T) {
	ctx := t.Context()
	clock := registry.NewManualClock(time.Now())
	opts := registrytest.ContactsOptional()
	opts.Clock = clock
	svc := registrytest.SQLiteServiceWith(t, opts)
	ra, a, _ := svc.AddRegistrar(ctx, "a")
	_, b, _ := svc.AddRegistrar(ctx, "b")
	ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
	t.Cleanup(ts.Close)
	e := &env{t, svc, ts.URL, a, b}
	const name = "किताब.भारत"
	if _, err := svc.CreateContact(ctx, ra, registry.ContactCreate{ID: "rs-1", ContactData: registrytest.DevanagariContact(), AuthInfo: "Contact-pw-1-strong"}); err != nil {
		t.Fatal(err)
	}
	d, err := svc.CreateDomain(ctx, ra, registry.DomainCreate{Name: name, AuthInfo: "2fooBAR!xQ7wK4pL", Contacts: []registry.DomainContact{{Role: registry.RoleRegistrant, ID: "rs-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateHost(ctx, ra, registry.HostCreate{Name: "ns1." + name, Addrs: []registry.Addr{{IP: "8.8.8.8"}}}); err != nil {
		t.Fatal(err)
	}
	uri := registrytest.EnrolLocked(t, ctx, svc, clock, "rs-1")
	p := "/v1/domains/" + url.PathEscape(name)
	var fail struct{ Code string }
	if r := e.do("POST", p+"/lock", a, `{"code": "000000"}`, &fail); r.StatusCode != 403 || fail.Code != registry.CodeBadLockCode {
		t.Fatalf("lock with a wrong code: %d %s", r.StatusCode, fail.Code)
	}
	if r := e.do("POST", p+"/lock", a, `{"code": "`+registrytest.LockCode(t, uri, clock.Now())+`"}`, nil); r.StatusCode != 200 {
		t.Fatalf("lock: %d", r.StatusCode)
	}
	host := "/v1/hosts/" + url.PathEscape("ns1."+name)
	for _, c := range []struct{ method, path, token, body string }{
		{"PATCH", p, a, `{"add": {"statuses": ["clientHold"]}}`},
		{"PATCH", p, a, `{"remove": {"name_servers": ["ns1.` + name + `"]}}`},
		{"POST", p + "/statuses", a, `{"add": ["clientTransferProhibited"]}`},
		{"PUT", p + "/auth-info", a, `{"auth_info": "New-pw-12345!-strong"}`},
		{"DELETE", p + "/auth-info", a, ``},
		{"DELETE", p, a, ``},
		{"POST", p + "/restore", a, `{"op": "request"}`},
		{"POST", p + "/transfer", b, `{"auth_info": "2fooBAR!xQ7wK4pL"}`},
		{"PATCH", host, a, `{"add": {"addrs": ["8.8.4.4"]}}`},
		{"PATCH", host, a, `{"new_name": "ns9.` + name + `"}`},
		{"DELETE", host, a, ``},
		{"POST", "/v1/hosts", a, `{"name": "ns2.` + name + `", "addrs": ["8.8.4.4"]}`},
	} {
		fail.Code = ""
		if r := e.do(c.method, c.path, c.token, c.body, &fail); r.StatusCode != 409 || fail.Code != registry.CodeStatusProhibits {
			t.Errorf("%s %s %s on the locked domain: %d %s, want 409 %s", c.method, c.path, c.body, r.StatusCode, fail.Code, registry.CodeStatusProhibits)
		}
	}
	if r := e.do("POST", p+"/renew", a, `{"current_expiry": "`+d.Expires.Format(time.DateOnly)+`", "years": 1}`, nil); r.StatusCode != 200 {
		t.Errorf("renew of the locked domain: %d, want 200", r.StatusCode)
	}
	clock.Advance(30 * time.Second)
	if r := e.do("POST", p+"/unlock", a, `{"code": "`+registrytest.LockCode(t, uri, clock.Now())+`", "relock_after": 600}`, nil); r.StatusCode != 200 {
		t.Fatalf("unlock: %d", r.StatusCode)
	}
	if r := e.do("PATCH", host, a, `{"add": {"addrs": ["8.8.4.4"]}}`, nil); r.StatusCode != 200 {
		t.Errorf("host update after the unlock: %d, want 200", r.StatusCode)
	}
}
