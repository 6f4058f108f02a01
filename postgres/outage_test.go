package postgres_test

import (
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/internal/loopback"
	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// cutProxy forwards TCP connections to target until cut, which closes the
// listener and every connection: from the store's side, the database is
// gone (connections broken, new ones refused), as in an outage.
type cutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	t.Cleanup(p.cut)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, d)
			p.mu.Unlock()
			go func() { io.Copy(d, c); d.Close() }()
			go func() { io.Copy(c, d); c.Close() }()
		}
	}()
	return p
}

func (p *cutProxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestOutageUnavailable: issue 21 item 9. PostgreSQL gone for longer than
// the retry budget is UNAVAILABLE (HTTP 503 with Retry-After, EPP 2400
// with the message), not INTERNAL (500), for every kind of call,
// an EPP login's included.
func TestOutageUnavailable(t *testing.T) {
	dsn := pgtest.DSN(t)
	u, _ := url.Parse(dsn)
	proxy := newCutProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	ctx := t.Context()
	store, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	r, token, err := svc.AddRegistrar(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.SetEPPPassword(ctx, "alpha", "secret12"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "किताब.भारत", Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
	t.Cleanup(ts.Close)

	// EPP: a session logged in before the outage, and one that logs in during it
	eppAddr := serveEPP(t, svc)
	in := dialEPP(t, eppAddr)
	if r := in.do(t, eppLogin); !strings.Contains(r, `<result code="1000">`) {
		t.Fatalf("EPP login: %s", r)
	}
	late := dialEPP(t, eppAddr)

	// a short budget: the outage outlasts it at once
	store.SetRetry(sqlstore.Retry{Attempts: 5, Base: time.Millisecond, Max: 5 * time.Millisecond, Budget: 200 * time.Millisecond})
	proxy.cut()

	for what, r := range map[string]string{
		"check": in.do(t, `<?xml version="1.0" encoding="UTF-8"?><epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><check><domain:check xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>कमलनयन.भारत</domain:name></domain:check></check><clTRID>T-1</clTRID></command></epp>`),
		"login": late.do(t, eppLogin),
	} {
		if !strings.Contains(r, `<result code="2400">`) || !strings.Contains(r, "cannot be reached now; retry later") {
			t.Errorf("EPP %s during the outage: want 2400 saying so, got %s", what, r)
		}
	}

	calls := []struct {
		name string
		f    func() error
	}{
		{"check", func() error { _, err := svc.Check(ctx, "कमलनयन.भारत", "hi"); return err }},
		{"authenticate", func() error { _, err := svc.Authenticate(ctx, token); return err }},
		{"EPP login", func() error { _, err := svc.EPPLogin(ctx, "alpha", "secret12", ""); return err }},
		{"info", func() error { _, err := svc.Info(ctx, "कमलनयन.भारत"); return err }},
		{"list", func() error { _, err := svc.List(ctx, r); return err }},
		{"create", func() error {
			_, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "outage.in"})
			return err
		}},
		{"delete", func() error {
			return registrytest.Err(svc.DeleteDomain(ctx, r, registry.DomainDelete{Name: "किताब.भारत"}))
		}},
		{"audit", func() error { _, err := svc.Audit(ctx, registry.AuditFilter{Limit: 5}); return err }},
		{"ready", func() error { return svc.Ready(ctx) }},
	}
	for _, c := range calls {
		err := c.f()
		if code := registry.CodeOf(err); code != registry.CodeUnavailable {
			t.Errorf("%s during the outage: %s (%v), want UNAVAILABLE", c.name, code, err)
			continue
		}
		if info := registry.InfoOf(registry.CodeOf(err)); info.HTTP != 503 || info.EPP != 2400 {
			t.Errorf("UNAVAILABLE maps to HTTP %d, EPP %d", info.HTTP, info.EPP)
		}
		var re *registry.Error
		if !errors.As(err, &re) || !strings.Contains(re.Message, "retry later") {
			t.Errorf("%s: the message does not tell the client to come back: %v", c.name, err)
		}
	}

	// the HTTP API: 503 UNAVAILABLE, Retry-After
	req, _ := http.NewRequest("POST", ts.URL+"/v1/domains", strings.NewReader(`{"name":"outage2.in"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body httpapi.ErrorBody
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 503 || body.Code != registry.CodeUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a create over HTTP during the outage: %d %+v (Retry-After %q)", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
}

const eppLogin = `<?xml version="1.0" encoding="UTF-8"?><epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><login><clID>alpha</clID><pw>secret12</pw>` +
	`<options><version>1.0</version><lang>en</lang></options><svcs><objURI>urn:ietf:params:xml:ns:domain-1.0</objURI></svcs></login><clTRID>T-0</clTRID></command></epp>`

// serveEPP serves EPP for svc on loopback and returns the address.
func serveEPP(t *testing.T, svc *registry.Service) string {
	cert, _, err := epp.SelfSigned("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := epp.New(svc, epp.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})
	if err != nil {
		t.Fatal(err)
	}
	return loopback.Serve(t, srv)
}

type eppConn struct{ c *tls.Conn }

// dialEPP connects and reads the greeting.
func dialEPP(t *testing.T, addr string) *eppConn {
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	e := &eppConn{c}
	e.read(t)
	return e
}

func (e *eppConn) read(t *testing.T) string {
	e.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	var h [4]byte
	if _, err := io.ReadFull(e.c, h[:]); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, binary.BigEndian.Uint32(h[:])-4)
	if _, err := io.ReadFull(e.c, b); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (e *eppConn) do(t *testing.T, frame string) string {
	b := binary.BigEndian.AppendUint32(nil, uint32(4+len(frame)))
	if _, err := e.c.Write(append(b, frame...)); err != nil {
		t.Fatal(err)
	}
	return e.read(t)
}
