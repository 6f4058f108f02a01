package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestAtomicityHTTP is the atomicity suite (registrytest.World, issue 33)
// over the HTTP API, on both stores: every command with one invalid part,
// alone or beside valid ones (PATCH /v1/domains/{name} with every part of
// an update, POST /v1/domains with contacts, name servers and DS records,
// renew, restore, transfer, hosts and contacts), is answered with the
// HTTP status and the code the code table gives the invalid part's code,
// and the registry reads exactly as before, with one new audit record:
// the refusal's.
func TestAtomicityHTTP(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			clock := registry.NewManualClock(registrytest.T0)
			svc := st.Service(t, registrytest.Exempt(registry.ServiceOptions{Clock: clock}, "http", ""))
			w := registrytest.NewWorld(t, svc, clock)
			// the suite sends some 300 commands at full speed: no rate limit
			ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{RateLimit: 1e6, RateBurst: 1e6}))
			t.Cleanup(ts.Close)
			w.Run(t, registrytest.Level{
				Name: "HTTP",
				Run: func(t *testing.T, op registrytest.Op) (string, bool) {
					method, path, body := opRequest(t, op)
					e := &env{t: t, url: ts.URL}
					var out struct {
						Code string `json:"code"`
					}
					r := e.do(method, path, w.Tokens[op.As], body, &out)
					return fmt.Sprint(r.StatusCode, " ", out.Code), true
				},
				Refused:   func(code string) string { return fmt.Sprint(registry.InfoOf(code).HTTP, " ", code) },
				Succeeded: func(answer string) bool { return answer[0] == '2' },
			})
		})
	}
}

// opRequest is the HTTP request of a command of the suite.
func opRequest(t *testing.T, op registrytest.Op) (method, path, body string) {
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	domain := "/v1/domains/" + url.PathEscape(op.Name)
	switch op.Kind {
	case registrytest.OpDomainCreate:
		return "POST", "/v1/domains", js(httpapi.CreateRequest{Name: op.Name, AuthInfo: op.AuthInfo, Years: op.Years,
			Contacts: op.Contacts, NameServers: op.NS, DS: op.DS})
	case registrytest.OpDomainUpdate:
		return "PATCH", domain, js(httpapi.UpdateRequest{
			Add:        httpapi.UpdateParts{Statuses: op.AddStatuses, Contacts: op.AddContacts, NameServers: op.AddNS, DS: op.AddDS},
			Remove:     httpapi.UpdateParts{Statuses: op.RemStatuses, Contacts: op.RemContacts, NameServers: op.RemNS, DS: op.RemDS},
			Registrant: op.Registrant, AuthInfo: op.SetAuth})
	case registrytest.OpDomainRenew:
		return "POST", domain + "/renew", js(httpapi.RenewRequest{CurrentExpiry: op.CurExpiry.UTC().Format(time.DateOnly), Years: op.Years})
	case registrytest.OpDomainDelete:
		return "DELETE", domain, ""
	case registrytest.OpDomainRestore:
		return "POST", domain + "/restore", js(httpapi.RestoreRequest{Op: op.Verb})
	case registrytest.OpDomainTransfer:
		if op.Verb == registry.TransferRequestOp {
			return "POST", domain + "/transfer", js(httpapi.TransferRequest{AuthInfo: op.AuthInfo, Period: op.Years})
		}
		return "POST", domain + "/transfer/" + op.Verb, ""
	case registrytest.OpHostCreate:
		return "POST", "/v1/hosts", js(httpapi.HostRequest{Name: op.Name, Addrs: op.Addrs})
	case registrytest.OpHostUpdate:
		return "PATCH", "/v1/hosts/" + url.PathEscape(op.Name), js(httpapi.HostPatch{
			Add:    httpapi.HostParts{Addrs: op.AddAddrs, Statuses: op.AddStatuses},
			Remove: httpapi.HostParts{Addrs: op.RemAddrs, Statuses: op.RemStatuses}, NewName: op.NewName})
	case registrytest.OpHostDelete:
		return "DELETE", "/v1/hosts/" + url.PathEscape(op.Name), ""
	case registrytest.OpContactCreate:
		return "POST", "/v1/contacts", js(httpapi.ContactRequest{ID: op.Name, ContactData: op.Contact, AuthInfo: op.AuthInfo})
	case registrytest.OpContactUpdate:
		p := httpapi.ContactPatch{Add: httpapi.ContactStatuses{Statuses: op.AddStatuses}, Remove: httpapi.ContactStatuses{Statuses: op.RemStatuses},
			Email: op.Email, AuthInfo: op.AuthInfo}
		if op.Voice != "" {
			p.Voice = &registry.Phone{Number: op.Voice}
		}
		return "PATCH", "/v1/contacts/" + url.PathEscape(op.Name), js(p)
	case registrytest.OpContactDelete:
		return "DELETE", "/v1/contacts/" + url.PathEscape(op.Name), ""
	}
	t.Fatalf("no request for %s", op.Kind)
	return "", "", ""
}
