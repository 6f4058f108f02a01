package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

type env struct {
	t      *testing.T
	svc    *registry.Service
	url    string
	tokenA string
	tokenB string
}

func newEnv(t *testing.T, o httpapi.Options) *env {
	t.Helper()
	ctx := context.Background()
	svc := registrytest.SQLiteServiceWith(t, registrytest.Exempt(registry.ServiceOptions{}, "http", ""))
	_, a, _ := svc.AddRegistrar(ctx, "a")
	_, b, _ := svc.AddRegistrar(ctx, "b")
	ts := httptest.NewServer(httpapi.New(svc, o))
	t.Cleanup(ts.Close)
	return &env{t, svc, ts.URL, a, b}
}

// do sends a request and decodes a JSON answer into out (if not nil).
func (e *env) do(method, path, token, body string, out any) *http.Response {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			e.t.Fatalf("%s %s: not JSON: %s", method, path, data)
		}
	}
	return resp
}

func q(name, lang string) string {
	return "/v1/check?name=" + url.QueryEscape(name) + "&lang=" + url.QueryEscape(lang)
}

func TestAPI(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	var check registry.CheckResult
	if r := e.do("GET", q("किताब.भारत", "hi"), "", "", &check); r.StatusCode != 200 || check.Status != registry.Available {
		t.Fatalf("check: %d %+v", r.StatusCode, check)
	}
	var d registry.Domain
	r := e.do("POST", "/v1/domains", e.tokenA, `{"name":"किताब.भारत","lang":"hi"}`, &d)
	if r.StatusCode != 201 || d.Name != "किताब.भारत" || r.Header.Get("Location") != "/v1/domains/xn--11b4aya5ed.xn--h2brj9c" {
		t.Fatalf("create: %d %+v %s", r.StatusCode, d, r.Header.Get("Location"))
	}
	for _, tt := range []struct {
		name, status, blocker string
	}{
		{"किताब.भारत", "registered", ""},
		{"कित्ताब.भारत", "blocked", "किताब.भारत"},
		{"xn--11b4aa6a3fd3h.xn--h2brj9c", "blocked", "किताब.भारत"},
		{"कमल.भारत", "available", ""},
		{"क्अब.भारत", "invalid", ""},
	} {
		var c registry.CheckResult
		e.do("GET", q(tt.name, "hi"), "", "", &c)
		if string(c.Status) != tt.status || c.BlockedBy != tt.blocker {
			t.Errorf("check %s: %s by %q, want %s by %q", tt.name, c.Status, c.BlockedBy, tt.status, tt.blocker)
		}
	}
	var eb httpapi.ErrorBody
	if r := e.do("POST", "/v1/domains", e.tokenB, `{"name":"कित्ताब.भारत","lang":"hi"}`, &eb); r.StatusCode != 409 || eb.Code != "CONFLICT" || eb.BlockedBy != "किताब.भारत" {
		t.Errorf("conflict: %d %+v", r.StatusCode, eb)
	}
	eb = httpapi.ErrorBody{}
	if r := e.do("POST", "/v1/domains", e.tokenB, `{"name":"क्अब.भारत","lang":"hi"}`, &eb); r.StatusCode != 422 || eb.Code != "INVALID_LABEL" || len(eb.Errors) == 0 || eb.Errors[0].Code.String() != "HALANT_FOLLOWER" {
		t.Errorf("invalid: %d %+v", r.StatusCode, eb)
	}
	var info registry.Domain
	if r := e.do("GET", "/v1/domains/xn--11b4aya5ed.xn--h2brj9c", "", "", &info); r.StatusCode != 200 || info.Registrar != "a" || len(info.Blocks) != 2 {
		t.Errorf("info: %d %+v", r.StatusCode, info)
	}
	var mine []registry.Domain
	if e.do("GET", "/v1/domains", e.tokenB, "", &mine); len(mine) != 0 {
		t.Errorf("b sees %v as its own", mine)
	}
	if e.do("GET", "/v1/domains", e.tokenA, "", &mine); len(mine) != 1 {
		t.Errorf("a's list %v", mine)
	}
	eb = httpapi.ErrorBody{}
	if r := e.do("DELETE", "/v1/domains/"+url.PathEscape("किताब.भारत"), e.tokenB, "", &eb); r.StatusCode != 403 || eb.Code != "FORBIDDEN" {
		t.Errorf("b deletes a's: %d %+v", r.StatusCode, eb)
	}
	// a delete outside add grace: accepted, the domain in redemption,
	// its conflict set still held (issue 23)
	if r := e.do("DELETE", "/v1/domains/"+url.PathEscape("किताब.भारत"), e.tokenA, "", nil); r.StatusCode != 202 {
		t.Errorf("delete: %d", r.StatusCode)
	}
	if r := e.do("DELETE", "/v1/domains/"+url.PathEscape("किताब.भारत"), e.tokenA, "", &eb); r.StatusCode != 409 || eb.Code != registry.CodeStatusProhibits {
		t.Errorf("delete again: %d %+v", r.StatusCode, eb)
	}
	check = registry.CheckResult{}
	if e.do("GET", q("कित्ताब.भारत", "hi"), "", "", &check); check.Status != registry.Blocked || check.HolderState != registry.StatusRedemptionPeriod || check.FreesAt.IsZero() {
		t.Errorf("after delete: %s %q %v", check.Status, check.HolderState, check.FreesAt)
	}
}

// TestBadInput: every bad input is a 4xx with a stable code, never a 5xx.
func TestBadInput(t *testing.T) {
	e := newEnv(t, httpapi.Options{MaxBody: 1024})
	tests := []struct {
		method, path, token, body string
		status                    int
		code                      string
	}{
		{"GET", "/v1/check", "", "", 400, "BAD_NAME"},
		{"GET", "/v1/check?name=%FF.%E0%A4", "", "", 400, "BAD_UTF8"},
		{"GET", q("किताब.xyz", ""), "", "", 400, "UNKNOWN_ZONE"},
		{"GET", q("किताब", ""), "", "", 400, "BAD_NAME"},
		{"GET", q("किताब.भारत", "xx"), "", "", 400, "UNKNOWN_LANGUAGE"},
		{"GET", q("किताब.भारत", "ta"), "", "", 400, "UNKNOWN_LANGUAGE"},
		{"GET", q(strings.Repeat("क", 2000)+".भारत", ""), "", "", 400, "BAD_NAME"},
		{"POST", "/v1/domains", "", `{"name":"किताब.भारत"}`, 401, "UNAUTHORIZED"},
		{"POST", "/v1/domains", "nope", `{"name":"किताब.भारत"}`, 401, "UNAUTHORIZED"},
		{"POST", "/v1/domains", "A", `{"name":`, 400, "BAD_JSON"},
		{"POST", "/v1/domains", "A", `{"name":"किताब.भारत","x":1}`, 400, "BAD_JSON"},
		{"POST", "/v1/domains", "A", `{"name":"किताब.भारत"} {}`, 400, "BAD_JSON"},
		{"POST", "/v1/domains", "A", "{\"name\":\"\xff.भारत\"}", 400, "BAD_UTF8"},
		{"POST", "/v1/domains", "A", `{"name":"` + strings.Repeat("क", 2000) + `"}`, 413, "TOO_LARGE"},
		{"POST", "/v1/domains", "A", `{"lang":"hi"}`, 400, "BAD_NAME"},
		{"POST", "/v1/domains", "A", `[]`, 400, "BAD_JSON"},
		{"GET", "/v1/domains/" + url.PathEscape("कमल.भारत"), "", "", 404, "NOT_FOUND"},
		{"DELETE", "/v1/domains/x.y", "A", "", 400, "UNKNOWN_ZONE"},
	}
	for _, tt := range tests {
		token := tt.token
		if token == "A" {
			token = e.tokenA
		}
		var eb httpapi.ErrorBody
		r := e.do(tt.method, tt.path, token, tt.body, &eb)
		if r.StatusCode != tt.status || eb.Code != tt.code || eb.Message == "" {
			t.Errorf("%s %.60s %.40q: %d %s %q, want %d %s", tt.method, tt.path, tt.body, r.StatusCode, eb.Code, eb.Message, tt.status, tt.code)
		}
		if httpapi.StatusOf(tt.code) != tt.status {
			t.Errorf("StatusOf(%s) = %d, want %d", tt.code, httpapi.StatusOf(tt.code), tt.status)
		}
	}
}

func TestRateLimit(t *testing.T) {
	e := newEnv(t, httpapi.Options{RateLimit: 0.001, RateBurst: 2})
	var statuses []int
	for i := 0; i < 3; i++ {
		statuses = append(statuses, e.do("GET", "/v1/domains", e.tokenA, "", nil).StatusCode)
	}
	r := e.do("GET", "/v1/domains", e.tokenA, "", nil)
	if statuses[0] != 200 || statuses[1] != 200 || statuses[2] != 429 || r.Header.Get("Retry-After") == "" {
		t.Errorf("statuses %v, Retry-After %q", statuses, r.Header.Get("Retry-After"))
	}
	if s := e.do("GET", "/v1/domains", e.tokenB, "", nil).StatusCode; s != 200 {
		t.Errorf("another registrar is limited too: %d", s)
	}
}

func TestOperational(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.do("GET", q("किताब.भारत", "hi"), "", "", nil)
	for path, want := range map[string]string{
		"/healthz":      "ok",
		"/metrics":      `akshara_http_requests_total{method="GET",route="GET /v1/check",status="200"} 1`,
		"/openapi.yaml": "openapi: 3.0.3",
		"/v1/zones":     `"name":"भारत"`,
	} {
		resp, err := http.Get(e.url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d, no %q in %.300s", path, resp.StatusCode, want, body)
		}
	}
	spec, _ := os.ReadFile("openapi.yaml")
	resp, _ := http.Get(e.url + "/openapi.yaml")
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(spec, served) {
		t.Errorf("the served OpenAPI document is not openapi.yaml")
	}
}

// TestGracefulShutdown: Shutdown waits for a request in flight.
func TestGracefulShutdown(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		io.WriteString(w, "done")
	})
	svc := registrytest.SQLiteServiceWith(t, registrytest.Exempt(registry.ServiceOptions{}, "http", ""))
	srv := httpapi.NewHTTPServer("127.0.0.1:0", httpapi.New(svc, httpapi.Options{Page: page}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	var wg sync.WaitGroup
	var body string
	wg.Add(1)
	go func() {
		defer wg.Done()
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			body = string(b)
			resp.Body.Close()
		}
	}()
	<-started
	shut := make(chan error)
	go func() { shut <- srv.Shutdown(context.Background()) }()
	select {
	case <-shut:
		t.Fatal("Shutdown returned with a request in flight")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if body != "done" {
		t.Errorf("the request in flight got %q", body)
	}
}

// FuzzCheck: no input to check or create gives a 5xx.
func FuzzAPI(f *testing.F) {
	for _, s := range []string{"किताब.भारत", "xn--11b4aya5ed.xn--h2brj9c", "\xff", "a.in", "..", "क्.in", ""} {
		f.Add(s, "hi")
	}
	ctx := context.Background()
	svc := registrytest.SQLiteServiceWith(f, registrytest.Exempt(registry.ServiceOptions{}, "http", ""))
	_, token, _ := svc.AddRegistrar(ctx, "fuzz")
	h := httpapi.New(svc, httpapi.Options{RateLimit: 1e9, RateBurst: 1e9, PublicRate: -1, AuthFailRate: -1})
	f.Fuzz(func(t *testing.T, name, lang string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", q(name, lang), nil))
		if rec.Code >= 500 {
			t.Fatalf("check %q %q: %d %s", name, lang, rec.Code, rec.Body)
		}
		body, _ := json.Marshal(map[string]string{"name": name, "lang": lang})
		req := httptest.NewRequest("POST", "/v1/domains", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("create %q %q: %d %s", name, lang, rec.Code, rec.Body)
		}
	})
}
