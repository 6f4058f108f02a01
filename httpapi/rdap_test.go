package httpapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/rdap"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestRDAPUnderTheAPI: issue 21 item 7. RDAP mounted as a public
// endpoint is under the per-address rate limit (429 in RDAP's own error
// form, with Retry-After), the request log and the metrics; its self
// link is built from the configured base URL, or the address the request
// came in on, never from the Host header.
func TestRDAPUnderTheAPI(t *testing.T) {
	var logs syncBuffer
	svc := registrytest.SQLiteServiceWith(t, registrytest.Exempt(registry.ServiceOptions{}, "http", ""))
	for _, base := range []string{"", "https://rdap.example.in"} {
		api := httpapi.New(svc, httpapi.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), PublicRate: 0.001, PublicBurst: 3,
			Public: map[string]http.Handler{rdap.Prefix: rdap.Handler(svc, rdap.Options{BaseURL: base})}})
		ts := httptest.NewServer(api)
		defer ts.Close()
		get := func(path string) (*http.Response, map[string]any) {
			t.Helper()
			req, _ := http.NewRequest("GET", ts.URL+path, nil)
			req.Host = "evil.example"
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var doc map[string]any
			json.NewDecoder(resp.Body).Decode(&doc)
			return resp, doc
		}
		resp, doc := get("/rdap/help")
		if resp.StatusCode != 200 {
			t.Fatalf("help: %d", resp.StatusCode)
		}
		b, _ := json.Marshal(doc)
		want := ts.URL + "/rdap/help"
		if base != "" {
			want = base + "/rdap/help"
		}
		if strings.Contains(string(b), "evil.example") || !strings.Contains(string(b), `"href":"`+want+`"`) {
			t.Errorf("base %q: the self link is not %s: %s", base, want, b)
		}
		get("/rdap/help")
		get("/rdap/help")
		resp, doc = get("/rdap/help") // the fourth: over the burst of 3
		if resp.StatusCode != 429 || resp.Header.Get("Content-Type") != rdap.ContentType || doc["errorCode"] != 429.0 || resp.Header.Get("Retry-After") == "" {
			t.Errorf("over the public rate: %d %s %v (Retry-After %q)", resp.StatusCode, resp.Header.Get("Content-Type"), doc, resp.Header.Get("Retry-After"))
		}
		mresp, err := http.Get(ts.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		metrics, _ := io.ReadAll(mresp.Body)
		mresp.Body.Close()
		if !strings.Contains(string(metrics), `akshara_http_requests_total{method="GET",route="/rdap/",status="429"} 1`) {
			t.Errorf("no RDAP series in the metrics")
		}
	}
	if !strings.Contains(logs.String(), `"route":"/rdap/"`) || !strings.Contains(logs.String(), `"status":429`) {
		t.Errorf("RDAP requests are not in the request log:\n%s", logs.String())
	}
}
