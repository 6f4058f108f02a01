package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestAllowList (issue 38) on both stores: a registrar whose address
// allow-list does not hold the client is refused with 403
// ADDRESS_NOT_ALLOWED, its valid token notwithstanding; behind a trusted
// proxy the client is the forwarded address (httpapi.ClientAddr); an
// empty list allows every address; another registrar is not affected.
func TestAllowList(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			ctx := t.Context()
			svc := st.Service(t, registrytest.ContactsOptional())
			_, a, err := svc.AddRegistrar(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			_, b, _ := svc.AddRegistrar(ctx, "b")
			ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}))
			t.Cleanup(ts.Close)
			get := func(token, xff string) (int, string) {
				t.Helper()
				req, _ := http.NewRequest("GET", ts.URL+"/v1/domains", nil)
				req.Header.Set("Authorization", "Bearer "+token)
				if xff != "" {
					req.Header.Set("X-Forwarded-For", xff)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				var e httpapi.ErrorBody
				json.Unmarshal(body, &e)
				return resp.StatusCode, e.Code
			}
			if st, _ := get(a, "203.0.113.7"); st != 200 {
				t.Fatalf("no list: %d", st)
			}
			if err := svc.SetRegistrarAllowList(ctx, "a", []string{"192.0.2.0/24", "2001:db8::/32"}); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				token, xff string
				status     int
				code       string
			}{
				{a, "192.0.2.10", 200, ""},
				{a, "2001:db8::7", 200, ""},
				{a, "203.0.113.7", 403, registry.CodeAddressNotAllowed},
				{a, "", 403, registry.CodeAddressNotAllowed},                        // the proxy itself, 127.0.0.1
				{a, "192.0.2.10, 203.0.113.7", 403, registry.CodeAddressNotAllowed}, // the last untrusted hop
				{b, "203.0.113.7", 200, ""},
			} {
				if st, code := get(c.token, c.xff); st != c.status || code != c.code {
					t.Errorf("X-Forwarded-For %q: %d %s, want %d %s", c.xff, st, code, c.status, c.code)
				}
			}
			if err := svc.SetRegistrarAllowList(ctx, "a", nil); err != nil {
				t.Fatal(err)
			}
			if st, _ := get(a, "203.0.113.7"); st != 200 {
				t.Errorf("after clearing the list: %d", st)
			}
		})
	}
}
