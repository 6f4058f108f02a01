package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/internal/logrl"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newStoreEnv is newEnv on a given service.
func newStoreEnv(t *testing.T, svc *registry.Service, o httpapi.Options) *env {
	t.Helper()
	ctx := context.Background()
	_, a, err := svc.AddRegistrar(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	_, b, _ := svc.AddRegistrar(ctx, "b")
	ts := httptest.NewServer(httpapi.New(svc, o))
	t.Cleanup(ts.Close)
	return &env{t, svc, ts.URL, a, b}
}

func auditCount(t *testing.T, svc *registry.Service, f registry.AuditFilter) []registry.AuditEntry {
	t.Helper()
	es, err := svc.Audit(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// TestHostileNames: F1, F2 and F4 of issue 10, on both stores. Before:
// PostgreSQL answered 500 to a NUL in /v1/domains/{name} and kept no
// audit record of refused creates with a NUL; a 60 KB name was stored
// whole in the audit log.
func TestHostileNames(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			var logs syncBuffer
			e := newStoreEnv(t, st.Service(t, registrytest.Exempt(registry.ServiceOptions{}, "http", "")), httpapi.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			huge := strings.Repeat("a", 60<<10) + ".in"
			for _, tc := range []struct {
				method, path, body string
				status             int
				code               string
			}{
				{"GET", "/v1/domains/ab%00c.in", "", 400, "BAD_NAME"},                  // F1, without a token
				{"GET", "/v1/domains/%E0%A4%95%00.in", "", 400, "BAD_NAME"},            // NUL after an IDN
				{"GET", q("ab\x00c.in", ""), "", 400, "BAD_NAME"},                      // check
				{"GET", "/v1/domains/" + url.PathEscape(huge), "", 400, "BAD_NAME"},    // F4
				{"DELETE", "/v1/domains/ab%00c.in", "", 400, "BAD_NAME"},               // refused, audited
				{"DELETE", "/v1/domains/" + url.PathEscape(huge), "", 400, "BAD_NAME"}, // F4: refused, audited short
				{"POST", "/v1/domains", `{"name":"x\u0000y.in"}`, 400, "BAD_NAME"},     // F2 ×3
				{"POST", "/v1/domains", `{"name":"x\u0000y.in"}`, 400, "BAD_NAME"},
				{"POST", "/v1/domains", `{"name":"x\u0000y.in"}`, 400, "BAD_NAME"},
				{"POST", "/v1/domains", `{"name":"x\u001by.in"}`, 400, "BAD_NAME"},
			} {
				var eb httpapi.ErrorBody
				r := e.do(tc.method, tc.path, e.tokenA, tc.body, &eb)
				if r.StatusCode != tc.status || eb.Code != tc.code {
					t.Errorf("%s %.60s %q: %d %s %q, want %d %s", tc.method, tc.path, tc.body, r.StatusCode, eb.Code, eb.Message, tc.status, tc.code)
				}
			}
			refused := auditCount(t, e.svc, registry.AuditFilter{Registrar: "a", Action: "create"})
			deletes := auditCount(t, e.svc, registry.AuditFilter{Registrar: "a", Action: "delete"})
			if len(refused) != 4 || len(deletes) != 2 {
				t.Errorf("%d refused creates and %d deletes audited, want 4 and 2", len(refused), len(deletes))
			}
			for _, a := range append(refused, deletes...) {
				if len(a.Name) > 256 || strings.ContainsRune(a.Name, 0) || a.Result != "BAD_NAME" {
					t.Errorf("audit record %.80q (%d bytes) %s", a.Name, len(a.Name), a.Result)
				}
			}
			if strings.Contains(logs.String(), "level=ERROR") {
				t.Errorf("hostile names logged errors:\n%.1000s", logs.String())
			}
			if n := e.svc.AuditFailures(); n != 0 {
				t.Errorf("%d audit writes failed", n)
			}
		})
	}
}

// TestRoutes: F5 (405 and 404 in JSON under /v1) and the inconsistencies
// of issue 10 (lang=auto, a lower-case bearer, EXISTS on a re-create).
func TestRoutes(t *testing.T) {
	e := newEnv(t, httpapi.Options{Page: http.NotFoundHandler()})
	for _, tc := range []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"PUT", "/v1/zones", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"TRACE", "/v1/domains", 405, "METHOD_NOT_ALLOWED", "GET, HEAD, POST"},
		{"POST", "/v1/domains/x.in", 405, "METHOD_NOT_ALLOWED", "GET, HEAD, PATCH, DELETE"},
		{"DELETE", "/v1/check", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"GET", "/v1/nope", 404, "NOT_FOUND", ""},
		{"GET", "/v1/", 404, "NOT_FOUND", ""},
		{"GET", "/v1/domains/", 404, "NOT_FOUND", ""},
		{"PATCH", "/v1/zones/x", 404, "NOT_FOUND", ""},
	} {
		var eb httpapi.ErrorBody
		r := e.do(tc.method, tc.path, "", "", &eb)
		if r.StatusCode != tc.status || eb.Code != tc.code || r.Header.Get("Allow") != tc.allow ||
			!strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s: %d %s Allow %q (%s), want %d %s Allow %q", tc.method, tc.path, r.StatusCode, eb.Code,
				r.Header.Get("Allow"), r.Header.Get("Content-Type"), tc.status, tc.code, tc.allow)
		}
	}

	var check registry.CheckResult
	if r := e.do("GET", q("कमल.भारत", "auto"), "", "", &check); r.StatusCode != 200 || check.Status != registry.Available || check.Lang != "hi" {
		t.Errorf("check lang=auto: %d %+v", r.StatusCode, check)
	}
	for _, scheme := range []string{"bearer", "BEARER", "Bearer"} {
		req, _ := http.NewRequest("GET", e.url+"/v1/domains", nil)
		req.Header.Set("Authorization", scheme+" "+e.tokenA)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("Authorization: %s TOKEN: %d, want 200", scheme, resp.StatusCode)
		}
	}
	if r := e.do("POST", "/v1/domains", e.tokenA, `{"name":"किताब.भारत"}`, nil); r.StatusCode != 201 {
		t.Fatalf("create: %d", r.StatusCode)
	}
	for _, tc := range []struct{ name, code string }{{"किताब.भारत", "EXISTS"}, {"कित्ताब.भारत", "CONFLICT"}} {
		var eb httpapi.ErrorBody
		r := e.do("POST", "/v1/domains", e.tokenB, `{"name":"`+tc.name+`"}`, &eb)
		if r.StatusCode != 409 || eb.Code != tc.code || eb.BlockedBy != "किताब.भारत" {
			t.Errorf("re-create %s: %d %+v, want 409 %s blocked by किताब.भारत", tc.name, r.StatusCode, eb, tc.code)
		}
	}
}

// TestContentLengthAndTransferEncoding: F8. A request with both headers
// is answered and its connection closed (RFC 9112 §6.1); before, it was
// kept open.
func TestContentLengthAndTransferEncoding(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second)) // a connection kept open fails, not hangs
	body := `{"name":"कमल.भारत"}`
	fmt.Fprintf(conn, "POST /v1/domains HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\nGET /v1/zones HTTP/1.1\r\nHost: x\r\n\r\n", e.tokenA, len(body), body)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if !resp.Close {
		t.Errorf("the answer does not close the connection (Connection: %q)", resp.Header.Get("Connection"))
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Errorf("the connection stayed open: the pipelined request got %q (%v)", rest, err)
	}
	// an ordinary request keeps its connection
	req, _ := http.NewRequest("GET", e.url+"/v1/zones", nil)
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.Close {
		t.Error("an ordinary request closed its connection")
	}
}

// TestRequestLog: a line per request with id, client, registrar, route,
// name, status and duration (before, the registrar was never named).
func TestRequestLog(t *testing.T) {
	var logs syncBuffer
	e := newEnv(t, httpapi.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	r := e.do("POST", "/v1/domains", e.tokenA, `{"name":"कमल.भारत"}`, nil)
	if r.StatusCode != 201 || r.Header.Get("X-Request-Id") == "" {
		t.Fatalf("create: %d, X-Request-Id %q", r.StatusCode, r.Header.Get("X-Request-Id"))
	}
	req, _ := http.NewRequest("GET", e.url+q("किताब.भारत", ""), nil)
	req.Header.Set("X-Request-Id", "proxy-42")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Request-Id") != "proxy-42" {
		t.Errorf("X-Request-Id %q, want the client's proxy-42", resp.Header.Get("X-Request-Id"))
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2:\n%s", len(lines), logs.String())
	}
	want := []map[string]any{
		{"id": r.Header.Get("X-Request-Id"), "client": "127.0.0.1", "registrar": "a", "route": "POST /v1/domains", "name": "कमल.भारत", "status": 201.0},
		{"id": "proxy-42", "client": "127.0.0.1", "route": "GET /v1/check", "name": "किताब.भारत", "status": 200.0},
	}
	for i, w := range want {
		for k, v := range w {
			if lines[i][k] != v {
				t.Errorf("line %d: %s = %v, want %v", i, k, lines[i][k], v)
			}
		}
		if _, ok := lines[i]["duration"]; !ok {
			t.Errorf("line %d has no duration", i)
		}
	}
	if _, ok := lines[1]["registrar"]; ok {
		t.Errorf("a public request names a registrar: %v", lines[1])
	}
}

// TestClientLimits: the per-address limit of the public endpoints, and of
// failed authentications (a good token from that address waits too).
func TestClientLimits(t *testing.T) {
	e := newEnv(t, httpapi.Options{PublicRate: 1e-9, PublicBurst: 3, AuthFailRate: 1e-9, AuthFailBurst: 2})
	var got []int
	for i := 0; i < 4; i++ {
		got = append(got, e.do("GET", q("कमल.भारत", ""), "", "", nil).StatusCode)
	}
	if fmt.Sprint(got) != "[200 200 200 429]" {
		t.Errorf("public checks from one address: %v, want [200 200 200 429]", got)
	}
	got = nil
	for _, token := range []string{"bad", "worse", e.tokenA} {
		got = append(got, e.do("GET", "/v1/domains", token, "", nil).StatusCode)
	}
	if fmt.Sprint(got) != "[401 401 429]" {
		t.Errorf("authentications: %v, want [401 401 429]", got)
	}
}

// TestAuditEndpoint: GET /v1/audit gives a registrar its own records.
func TestAuditEndpoint(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.do("POST", "/v1/domains", e.tokenA, `{"name":"कमल.भारत"}`, nil)
	e.do("POST", "/v1/domains", e.tokenB, `{"name":"कमल.भारत"}`, nil)
	e.do("DELETE", "/v1/domains/"+url.PathEscape("कमल.भारत"), e.tokenA, "", nil)
	var es []registry.AuditEntry
	if r := e.do("GET", "/v1/audit", e.tokenA, "", &es); r.StatusCode != 200 {
		t.Fatalf("GET /v1/audit: %d", r.StatusCode)
	}
	var got []string
	for _, a := range es {
		got = append(got, a.Registrar+" "+a.Action+" "+a.Result)
	}
	if want := "[a registrar-add ok a create ok a delete ok purge at " + es[len(es)-1].At.Add(35*24*time.Hour).Format(time.RFC3339) + "]"; fmt.Sprint(got) != want {
		t.Errorf("a's audit records: %v, want %s", got, want)
	}
	for _, tc := range []struct {
		query string
		n     int
	}{
		{"?action=create", 1},
		{"?name=" + url.QueryEscape("कमल.भारत"), 2},
		{"?limit=1", 1},
		{fmt.Sprintf("?after=%d", es[0].ID), 2},
		{"?since=2000-01-01T00:00:00Z&until=2001-01-01T00:00:00Z", 0},
	} {
		es = nil
		if r := e.do("GET", "/v1/audit"+tc.query, e.tokenA, "", &es); r.StatusCode != 200 || len(es) != tc.n {
			t.Errorf("GET /v1/audit%s: %d, %d records, want %d", tc.query, r.StatusCode, len(es), tc.n)
		}
	}
	for _, bad := range []string{"?since=yesterday", "?limit=0", "?limit=5000", "?after=x"} {
		var eb httpapi.ErrorBody
		if r := e.do("GET", "/v1/audit"+bad, e.tokenA, "", &eb); r.StatusCode != 400 || eb.Code != "BAD_PARAM" {
			t.Errorf("GET /v1/audit%s: %d %s, want 400 BAD_PARAM", bad, r.StatusCode, eb.Code)
		}
	}
	if r := e.do("GET", "/v1/audit", "", "", nil); r.StatusCode != 401 {
		t.Errorf("GET /v1/audit without a token: %d", r.StatusCode)
	}
}

// TestDiskFull: F7. With the SQLite database unable to grow (its page
// limit reached: SQLITE_FULL, as on a full disk) creates answer 503
// UNAVAILABLE, /readyz fails while /healthz stays up, and the error log is
// rate-limited with a count of what it suppressed.
func TestDiskFull(t *testing.T) {
	svc := registrytest.SQLiteServiceWith(t, registrytest.Exempt(registry.ServiceOptions{}, "http", ""))
	var logs syncBuffer
	lh := logrl.New(slog.NewTextHandler(&logs, nil), 1e-9, 5)
	e := newStoreEnv(t, svc, httpapi.Options{Logger: slog.New(lh), RateLimit: 1e9, RateBurst: 1e9})
	get := func(path string) int { return e.do("GET", path, "", "", nil).StatusCode }
	if s := get("/readyz"); s != 200 {
		t.Fatalf("/readyz before: %d", s)
	}
	db := svc.Store().(*sqlstore.Store).DB()
	db.SetMaxOpenConns(1) // one connection, so the pragma below holds for every statement
	var pages int
	if err := db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	var statuses = map[int]int{}
	for i := 0; i < 200; i++ {
		var eb httpapi.ErrorBody
		r := e.do("POST", "/v1/domains", e.tokenA, fmt.Sprintf(`{"name":"example-%d.in"}`, i), &eb)
		statuses[r.StatusCode]++
		if r.StatusCode != 201 && (eb.Code != "UNAVAILABLE" || r.Header.Get("Retry-After") == "") {
			t.Fatalf("create %d while full: %d %s, Retry-After %q", i, r.StatusCode, eb.Code, r.Header.Get("Retry-After"))
		}
	}
	if statuses[503] == 0 {
		t.Fatalf("no create failed with the database full: %v", statuses)
	}
	// /readyz caches its answer for a second: wait for a fresh one
	var ready int
	for i := 0; i < 100; i++ {
		if ready = get("/readyz"); ready == 503 {
			break
		}
		e.do("GET", "/healthz", "", "", nil)
		sleep()
	}
	if ready != 503 || get("/healthz") != 200 {
		t.Errorf("while full: /readyz %d (want 503), /healthz %d (want 200)", ready, get("/healthz"))
	}
	n := strings.Count(logs.String(), "level=ERROR")
	if n > 5 || lh.Suppressed() == 0 {
		t.Errorf("%d error lines, %d suppressed; want at most 5 and some suppressed", n, lh.Suppressed())
	}
	t.Logf("database full: creates %v; %d error lines logged, %d suppressed", statuses, n, lh.Suppressed())
	if _, err := db.Exec(`PRAGMA max_page_count = 1000000`); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100 && ready != 200; i++ {
		sleep()
		ready = get("/readyz")
	}
	if ready != 200 {
		t.Errorf("/readyz after space came back: %d", ready)
	}
	if r := e.do("POST", "/v1/domains", e.tokenA, `{"name":"after-the-fault.in"}`, nil); r.StatusCode != 201 {
		t.Errorf("create after space came back: %d", r.StatusCode)
	}
}

// TestMetrics: the runtime, process and pool collectors, and operations by
// result.
func TestMetrics(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.do("POST", "/v1/domains", e.tokenA, `{"name":"कमल.भारत"}`, nil)
	e.do("POST", "/v1/domains", e.tokenA, `{"name":"कमल.भारत"}`, nil)
	e.do("GET", q("कमल.भारत", ""), "", "", nil)
	e.do("DELETE", "/v1/domains/x.in", e.tokenA, "", nil)
	resp, err := http.Get(e.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`akshara_registry_operations_total{op="create",result="ok"} 1`,
		`akshara_registry_operations_total{op="create",result="EXISTS"} 1`,
		`akshara_registry_operations_total{op="check",result="registered"} 1`,
		`akshara_registry_operations_total{op="delete",result="NOT_FOUND"} 1`,
		`akshara_http_request_duration_seconds_bucket{route="POST /v1/domains"`,
		`akshara_audit_write_failures_total 0`,
		`akshara_db_retries_total 0`,
		`go_goroutines`,
		`process_resident_memory_bytes`,
		`go_sql_open_connections{db_name="akshara"}`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
}

func sleep() { <-time.After(50 * time.Millisecond) }

// TestTrustedProxies: behind a trusted proxy the client is the last
// untrusted address of X-Forwarded-For (limits and logs); from anyone else
// the header is ignored.
func TestTrustedProxies(t *testing.T) {
	for _, tc := range []struct {
		trusted []string
		xff     []string
		want    string
	}{
		{nil, []string{"203.0.113.7"}, "127.0.0.1"},
		{[]string{"127.0.0.1/32"}, []string{"203.0.113.7"}, "203.0.113.7"},
		{[]string{"127.0.0.1/32"}, []string{"1.2.3.4, 203.0.113.7"}, "203.0.113.7"},
		{[]string{"127.0.0.1/32", "10.0.0.0/8"}, []string{"198.51.100.1", "203.0.113.7, 10.1.2.3"}, "203.0.113.7"},
		{[]string{"127.0.0.1/32"}, []string{"bogus, 203.0.113.7"}, "203.0.113.7"},
		{[]string{"127.0.0.1/32"}, []string{"203.0.113.7, bogus"}, "127.0.0.1"},
		{[]string{"127.0.0.1/32"}, nil, "127.0.0.1"},
		{[]string{"127.0.0.1/32"}, []string{"::ffff:203.0.113.9"}, "203.0.113.9"},
		{[]string{"192.0.2.0/24"}, []string{"203.0.113.7"}, "127.0.0.1"},
	} {
		var logs syncBuffer
		var prefixes []netip.Prefix
		for _, p := range tc.trusted {
			prefixes = append(prefixes, netip.MustParsePrefix(p))
		}
		e := newEnv(t, httpapi.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), TrustedProxies: prefixes})
		req, _ := http.NewRequest("GET", e.url+"/v1/zones", nil)
		for _, v := range tc.xff {
			req.Header.Add("X-Forwarded-For", v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var line map[string]any
		json.Unmarshal([]byte(logs.String()), &line)
		if line["client"] != tc.want {
			t.Errorf("trusted %v, X-Forwarded-For %q: client %v, want %s", tc.trusted, tc.xff, line["client"], tc.want)
		}
	}
	// the per-address limit follows the forwarded address
	e := newEnv(t, httpapi.Options{PublicRate: 1e-9, PublicBurst: 1, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	for i, tc := range []struct {
		xff  string
		want int
	}{{"203.0.113.1", 200}, {"203.0.113.1", 429}, {"203.0.113.2", 200}} {
		req, _ := http.NewRequest("GET", e.url+"/v1/zones", nil)
		req.Header.Set("X-Forwarded-For", tc.xff)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("request %d from %s: %d, want %d", i, tc.xff, resp.StatusCode, tc.want)
		}
	}
}

// TestMetricsMethodsBounded: issue 21 item 3. Every request method a
// client invents is one label value of the request counter, "OTHER", not
// a series of its own: 40 made-up methods on a route and on the catch-all
// add no more than one series each.
func TestMetricsMethodsBounded(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	for i := 0; i < 40; i++ {
		for _, path := range []string{"/v1/zones", "/v1/nothing-here"} {
			req, _ := http.NewRequest(fmt.Sprintf("X%dMETHOD", i), e.url+path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	resp, err := http.Get(e.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	methods := map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "akshara_http_requests_total{") {
			continue
		}
		_, rest, _ := strings.Cut(line, `method="`)
		m, _, _ := strings.Cut(rest, `"`)
		methods[m] = true
	}
	for m := range methods {
		switch m {
		case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE", "OTHER":
		default:
			t.Errorf("a series for method %q", m)
		}
	}
	if !methods["OTHER"] {
		t.Errorf("the made-up methods are not counted as OTHER: %v", methods)
	}
}
