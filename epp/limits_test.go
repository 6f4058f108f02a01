package epp_test

import (
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
)

// dialFrom connects from a loopback address of the test's choice
// (127.0.0.2: another client than 127.0.0.1) and reads the first frame.
func (e *env) dialFrom(t *testing.T, local string) (*client, string) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	conn, err := tls.DialWithDialer(d, "tcp", e.addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &client{e: e, t: t, conn: conn}
	first, err := c.read()
	if err != nil {
		t.Fatalf("first frame from %s: %v", local, err)
	}
	return c, first
}

// TestUnauthenticatedFlood: issue 21 item 2. One address that opens as
// many sessions as the server has, and never logs in, gets 2502 beyond
// its own cap; a registrar from elsewhere still logs in and works.
func TestUnauthenticatedFlood(t *testing.T) {
	t.Parallel()
	e := newEnv(t, epp.Options{MaxSessions: 8, MaxSessionsPerAddr: 4})
	refused := 0
	for i := 0; i < 8; i++ {
		_, first := e.dialFrom(t, "127.0.0.1")
		switch {
		case code(first) == 2502:
			refused++
		case !strings.Contains(first, "<greeting>"):
			t.Fatalf("session %d: %s", i, first)
		}
	}
	if refused != 4 {
		t.Errorf("%d of 8 sessions from one address refused, want 4", refused)
	}
	c, first := e.dialFrom(t, "127.0.0.2")
	if !strings.Contains(first, "<greeting>") {
		t.Fatalf("a registrar from another address during the flood: %s", first)
	}
	c.login("acme", "secret12")
	if r := c.do(domainCmd("check", kitab)); code(r) != 1000 {
		t.Errorf("a check during the flood: %s", r)
	}
}

// TestLoginTimeout: a session that does not log in within LoginTimeout
// is closed (its slot freed), however long the idle timeout; one that
// logs in stays.
func TestLoginTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, epp.Options{LoginTimeout: 2 * time.Second, IdleTimeout: time.Hour})
	quiet := e.dial()
	chatty := e.dial() // a hello keeps no session alive before login
	for i := 0; i < 3; i++ {
		if r := chatty.do(head + `<hello/></epp>`); !strings.Contains(r, "<greeting>") {
			t.Fatalf("hello: %s", r)
		}
	}
	in := e.dial()
	in.login("acme", "secret12")
	if !serverClosed(quiet) {
		t.Error("a session that never logged in is open")
	}
	if !serverClosed(chatty) {
		t.Error("a session that only said hello is open")
	}
	if r := in.do(domainCmd("check", kitab)); code(r) != 1000 {
		t.Errorf("the logged-in session after the login timeout: %s", r)
	}
}

// TestRegistrarSessionCap: a login beyond MaxSessionsPerRegistrar is
// answered 2502 and closed; another registrar is not affected, and a
// session ended frees its place.
func TestRegistrarSessionCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, epp.Options{MaxSessionsPerRegistrar: 2})
	a := e.dial()
	a.login("acme", "secret12")
	e.dial().login("acme", "secret12")
	third := e.dial()
	if r := third.do(loginFrame("acme", "secret12", "")); code(r) != 2502 || !strings.Contains(r, "acme has 2 sessions") {
		t.Errorf("a third session of acme: %s", r)
	}
	if !third.closed() {
		t.Error("the refused session is open")
	}
	e.dial().login("other", "secret34")
	if n := e.srv.RegistrarSessions(registrarID(t, e, "acme")); n != 2 {
		t.Errorf("%d sessions of acme in the table, want 2", n)
	}
	a.do(cmd(`<logout/>`))
	a.closed()
	for i := 0; ; i++ { // the server forgets the session as it ends it
		if e.srv.RegistrarSessions(registrarID(t, e, "acme")) == 1 {
			break
		}
		if i == 500 {
			t.Fatal("the ended session is still counted")
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.dial().login("acme", "secret12")
}

// serverClosed reports whether the server closed the connection within 10
// s (client.closed counts a read that times out as closed).
func serverClosed(c *client) bool {
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := c.conn.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

func registrarID(t *testing.T, e *env, name string) int64 {
	t.Helper()
	rs, err := e.svc.Registrars(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Name == name {
			return r.ID
		}
	}
	t.Fatalf("no registrar %s", name)
	return 0
}

// TestCommandRate: issue 21 item 8. A registrar over its command rate
// (here a burst of 2, then one a thousand seconds: the third command
// would wait past the command timeout) is answered 2502 and closed,
// counted over all its sessions; another registrar is not limited.
func TestCommandRate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, epp.Options{CommandRate: 0.001, CommandBurst: 2})
	a, b := e.dial(), e.dial()
	a.login("acme", "secret12")
	b.login("acme", "secret12")
	if r := a.do(domainCmd("check", kitab)); code(r) != 1000 {
		t.Fatalf("first command: %s", r)
	}
	if r := b.do(domainCmd("check", kitab)); code(r) != 1000 {
		t.Fatalf("second command: %s", r)
	}
	if r := a.do(domainCmd("check", kitab)); code(r) != 2502 || !strings.Contains(r, "too many commands for registrar acme") {
		t.Errorf("a command over the rate: %s", r)
	}
	if !a.closed() {
		t.Error("the session over the rate is open")
	}
	o := e.dial()
	o.login("other", "secret34")
	for i := 0; i < 2; i++ {
		if r := o.do(domainCmd("check", kitab)); code(r) != 1000 {
			t.Errorf("another registrar: %s", r)
		}
	}
}
