package httpapi_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// hostile are inputs a security review throws at every parameter: NUL and
// other controls, broken UTF-8, overlong names, Unicode oddities, SQL and
// markup, path tricks.
var hostile = []string{
	"\x00", "a\x00b.in", "कि\x00ताब.भारत", "\x00.in", "a.\x00",
	"\x01\x02\x1f.in", "a\x7f.in", "a\u0085.in", "a\u2028b.in", "a\r\nb.in", "a\tb.in",
	"\xff", "a\xfe.in", "\xed\xa0\x80.in", "\xc0\xaf.in", "\xe0\xa4.in",
	strings.Repeat("a", 64) + ".in", strings.Repeat("क", 400) + ".भारत", strings.Repeat("a", 5000) + ".in",
	strings.Repeat(".", 300), strings.Repeat("a.", 200) + "in",
	"xn--.in", "xn--a.in", "xn--zzzzzzzzzzzzzzzz.in", "xn--11b4aya5ed-.xn--h2brj9c", "XN--11B4AYA5ED.XN--H2BRJ9C",
	"\u200d\u200c.in", "\ufeffkitab.in", "\U0010ffff.in", "\ufffd.in", "ﬁ.in", "Ⓐ.in", "İ.in",
	"'; DROP TABLE domains; --.in", "a' OR '1'='1.in", "%00.in", "%2e%2e%2f.in", "../../etc/passwd",
	"<script>alert(1)</script>.in", "${jndi:ldap://x}.in", "{{7*7}}.in", "\\x00.in",
	".", "..", "a..in", "", " ", ".in", "in", "a.in.", "a.in..",
}

// TestHostileInputs sends every hostile input to every parameter of every
// endpoint, on both stores: no answer is a 5xx and nothing is logged as an
// error (issue 10: before, PostgreSQL answered some with 500).
func TestHostileInputs(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			var logs syncBuffer
			e := newStoreEnv(t, st.Service(t, registrytest.Exempt(registry.ServiceOptions{}, "http", "")), httpapi.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)),
				RateLimit: 1e9, RateBurst: 1e9, PublicRate: -1, AuthFailRate: -1})
			cases := 0
			send := func(method, path, token, body string) {
				t.Helper()
				cases++
				req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
				if err != nil {
					t.Fatalf("%s %.80q: %v", method, path, err)
				}
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil && strings.Contains(err.Error(), "invalid header field value") {
					cases-- // a token no HTTP client can send
					return
				}
				if err != nil {
					t.Fatalf("%s %.80q: %v", method, path, err)
				}
				resp.Body.Close()
				if resp.StatusCode >= 500 {
					t.Errorf("%s %.120q %.80q: %d", method, path, body, resp.StatusCode)
				}
			}
			// a domain of B's with an authInfo, for A's transfer requests
			if _, err := e.svc.CreateDomain(t.Context(), registrarNamed(t, e.svc, "b"), registry.DomainCreate{Name: "kitab.in", AuthInfo: "Auth-Info-0001-strong"}); err != nil {
				t.Fatal(err)
			}
			for _, h := range hostile {
				qe, pe := url.QueryEscape(h), url.PathEscape(h)
				// transfers, authInfo, poll (issue 23)
				send("POST", "/v1/domains/"+pe+"/transfer", e.tokenA, `{"auth_info":"Auth-Info-0001-strong"}`)
				tb, _ := json.Marshal(map[string]any{"auth_info": h, "period": 1})
				send("POST", "/v1/domains/kitab.in/transfer", e.tokenA, string(tb))
				send("GET", "/v1/domains/"+pe+"/transfer", e.tokenA, "")
				send("POST", "/v1/domains/"+pe+"/transfer/approve", e.tokenA, "")
				send("POST", "/v1/domains/kitab.in/transfer/"+pe, e.tokenA, "")
				tb, _ = json.Marshal(map[string]string{"auth_info": h})
				send("PUT", "/v1/domains/"+pe+"/auth-info", e.tokenA, string(tb))
				send("PUT", "/v1/domains/kitab.in/auth-info", e.tokenB, string(tb))
				send("DELETE", "/v1/poll/"+pe, e.tokenA, "")
				send("GET", "/v1/check?name="+qe, "", "")
				send("GET", "/v1/check?name=kitab.in&lang="+qe, "", "")
				send("GET", "/v1/analyze?label="+qe+"&zone=in", "", "")
				send("GET", "/v1/analyze?label=kitab&zone="+qe, "", "")
				send("GET", "/v1/analyze?label=kitab&zone=in&lang="+qe, "", "")
				send("GET", "/v1/domains/"+pe, "", "")
				send("DELETE", "/v1/domains/"+pe, e.tokenA, "")
				body, _ := json.Marshal(map[string]string{"name": h})
				send("POST", "/v1/domains", e.tokenA, string(body))
				body, _ = json.Marshal(map[string]string{"name": "kitab.in", "lang": h})
				send("POST", "/v1/domains", e.tokenA, string(body))
				send("POST", "/v1/domains", e.tokenA, `{"name":"`+h+`"}`) // raw, not JSON-escaped
				send("GET", "/v1/audit?name="+qe, e.tokenA, "")
				send("GET", "/v1/audit?action="+qe+"&since="+qe, e.tokenA, "")
				send("GET", "/v1/domains", h, "")
				send("GET", "/v1/"+pe, "", "")
			}
			if strings.Contains(logs.String(), "level=ERROR") {
				t.Errorf("errors logged:\n%.2000s", logs.String())
			}
			if n := e.svc.AuditFailures(); n != 0 {
				t.Errorf("%d audit writes failed", n)
			}
			t.Logf("%d hostile requests (%d inputs), none a 5xx", cases, len(hostile))
		})
	}
}

// FuzzPaths: no name in a path, and no audit filter, gives a 5xx.
func FuzzPaths(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	svc := registrytest.SQLiteServiceWith(f, registrytest.Exempt(registry.ServiceOptions{}, "http", ""))
	_, token, _ := svc.AddRegistrar(t0, "fuzz")
	h := httpapi.New(svc, httpapi.Options{RateLimit: 1e9, RateBurst: 1e9, PublicRate: -1, AuthFailRate: -1})
	f.Fuzz(func(t *testing.T, name string) {
		for _, tc := range []struct{ method, target string }{
			{"GET", "/v1/domains/" + url.PathEscape(name)},
			{"DELETE", "/v1/domains/" + url.PathEscape(name)},
			{"GET", "/v1/audit?name=" + url.QueryEscape(name) + "&action=" + url.QueryEscape(name)},
			{"GET", "/v1/audit?since=" + url.QueryEscape(name)},
		} {
			req, err := http.NewRequest(tc.method, "http://x"+tc.target, nil)
			if err != nil {
				continue
			}
			req.Header.Set("Authorization", "Bearer "+token)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("%s %q: %d %s", tc.method, tc.target, rec.Code, rec.Body)
			}
		}
	})
}

var t0 = context.Background()
