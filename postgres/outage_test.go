package postgres_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
)

// tcpProxy forwards loopback connections to a PostgreSQL server until
// down is called: then it closes every connection and refuses new ones,
// as a database that is down (or failing over) does.
type tcpProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln}
	t.Cleanup(p.down)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

func (p *tcpProxy) down() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestOutageIsUnavailable: a database down for longer than the retry
// budget is UNAVAILABLE — HTTP 503 with Retry-After and a message that
// says to retry, EPP 2400 with the same — not 500 INTERNAL (issue 21
// item 9).
func TestOutageIsUnavailable(t *testing.T) {
	dsn := pgtest.DSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newTCPProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	ctx := t.Context()
	store, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := registry.NewService(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	r, token, err := svc.AddRegistrar(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Create(ctx, r, "किताब.भारत", "hi"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
	defer srv.Close()

	store.SetRetry(sqlstore.Retry{Attempts: 1000, Base: 5 * time.Millisecond, Max: 50 * time.Millisecond, Budget: 300 * time.Millisecond})
	proxy.down()

	if _, err := svc.Info(ctx, "किताब.भारत"); registry.CodeOf(err) != registry.CodeUnavailable {
		t.Errorf("info with the database down: %v (code %s), want %s", err, registry.CodeOf(err), registry.CodeUnavailable)
	}
	if _, err := svc.Create(ctx, r, "कमल.भारत", "hi"); registry.CodeOf(err) != registry.CodeUnavailable {
		t.Errorf("create with the database down: %v (code %s), want %s", err, registry.CodeOf(err), registry.CodeUnavailable)
	}
	if _, err := svc.EPPLogin(ctx, "alpha", "secret12", ""); registry.CodeOf(err) != registry.CodeUnavailable {
		t.Errorf("EPP login with the database down: %v (code %s), want %s (EPP %d)", err, registry.CodeOf(err), registry.CodeUnavailable, registry.InfoOf(registry.CodeUnavailable).EPP)
	}
	for _, req := range []struct{ method, path, body string }{
		{"GET", "/v1/domains/" + url.PathEscape("किताब.भारत"), ""},
		{"POST", "/v1/domains", `{"name":"कमल.भारत","lang":"hi"}`},
		{"GET", "/v1/domains", ""},
	} {
		hr, _ := http.NewRequest(req.method, srv.URL+req.path, strings.NewReader(req.body))
		hr.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		var body httpapi.ErrorBody
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || body.Code != registry.CodeUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s %s with the database down: %d %s %q (Retry-After %q), want 503 %s", req.method, req.path, resp.StatusCode, body.Code, body.Message, resp.Header.Get("Retry-After"), registry.CodeUnavailable)
		}
		if !strings.Contains(body.Message, "retry") {
			t.Errorf("%s %s: the message %q does not say to retry", req.method, req.path, body.Message)
		}
	}
	if registry.InfoOf(registry.CodeUnavailable).EPP != 2400 {
		t.Errorf("UNAVAILABLE maps to EPP %d, want 2400", registry.InfoOf(registry.CodeUnavailable).EPP)
	}
}
