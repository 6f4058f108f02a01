package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestAuthInfoGuessHTTP: the limits of guessing over the HTTP API, on both
// stores (issue 34; docs/registry.md "Guessing the authInfo"): a weak
// auth_info is refused 422 WEAK_AUTH_INFO; five wrong ones are 403
// BAD_AUTH_INFO, then 429 AUTH_INFO_LOCKED whatever the auth_info (the
// message naming when the next attempt is taken), for a request and for a
// stranger's query; the sponsor's poll holds one authinfo-failures message
// with auth_failures.
func TestAuthInfoGuessHTTP(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			clk := registry.NewManualClock(registrytest.T0)
			svc := st.Service(t, registrytest.Exempt(registry.ServiceOptions{Clock: clk}, "http", ""))
			ctx := t.Context()
			_, a, _ := svc.AddRegistrar(ctx, "a")
			_, b, _ := svc.AddRegistrar(ctx, "b")
			if err := svc.SetTransferPolicy(ctx, "भारत", 5*24*time.Hour, 0); err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
			t.Cleanup(ts.Close)
			e := &env{t, svc, ts.URL, a, b}
			const name = "/v1/domains/xn--11b4aya5ed.xn--h2brj9c"
			var errBody struct{ Code, Message string }
			want := func(what string, status, got int, code string) {
				t.Helper()
				if got != status || errBody.Code != code {
					t.Fatalf("%s: HTTP %d %s, want %d %s (%s)", what, got, errBody.Code, status, code, errBody.Message)
				}
			}
			want("create with a weak auth_info", 422, e.do("POST", "/v1/domains", a, `{"name":"किताब.भारत","lang":"hi","auth_info":"2fooBAR"}`, &errBody).StatusCode, registry.CodeWeakAuthInfo)
			errBody.Code = ""
			want("create", 201, e.do("POST", "/v1/domains", a, `{"name":"किताब.भारत","lang":"hi","auth_info":"k3P9-vX2q-Lm7T-wR4z"}`, nil).StatusCode, "")
			want("a weak one set", 422, e.do("PUT", name+"/auth-info", a, `{"auth_info":"password12345678"}`, &errBody).StatusCode, registry.CodeWeakAuthInfo)
			for range registry.AuthFreeFailures {
				want("wrong", 403, e.do("POST", name+"/transfer", b, `{"auth_info":"Wrong-guess-0000-1111"}`, &errBody).StatusCode, registry.CodeBadAuthInfo)
			}
			want("the right one while locked", 429, e.do("POST", name+"/transfer", b, `{"auth_info":"k3P9-vX2q-Lm7T-wR4z"}`, &errBody).StatusCode, registry.CodeAuthInfoLocked)
			if !strings.Contains(errBody.Message, "is taken after 2030-01-01T00:01:00Z") {
				t.Errorf("message: %s", errBody.Message)
			}
			want("a stranger's query while locked", 429, e.doHeader("GET", name+"/transfer", b, "Auth-Info", "k3P9-vX2q-Lm7T-wR4z", &errBody), registry.CodeAuthInfoLocked)
			var poll struct {
				Count   int
				Message registry.PollMessage
			}
			errBody.Code = ""
			want("poll", 200, e.do("GET", "/v1/poll", a, "", &poll).StatusCode, "")
			m := poll.Message
			if poll.Count != 1 || m.Kind != registry.PollAuthFailures || m.Name != "किताब.भारत" || m.AuthFailures == nil || m.AuthFailures.Failures != 5 || m.AuthFailures.Object != "domain" {
				t.Errorf("poll: %+v (%+v)", poll, m.AuthFailures)
			}
		})
	}
}

// doHeader sends a request with one more header and decodes the JSON
// answer into out; it returns the status.
func (e *env) doHeader(method, path, token, header, value string, out any) int {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set(header, value)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode
}
