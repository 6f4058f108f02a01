package main

import (
	"bufio"
	"crypto/tls"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/pgtest"
)

// TestRevokeEndsEPPSessions (issue 22): "akshara registrar revoke", run as
// its own process against the database of a running "akshara serve -epp",
// ends the registrar's open EPP session at its next command (2501, the
// connection closed, the command not done) and refuses its new logins
// (2200); "registrar reinstate" lets it log in again. On both stores.
func TestRevokeEndsEPPSessions(t *testing.T) {
	for _, st := range []struct {
		name  string
		store func(t *testing.T) []string
	}{
		{"sqlite", func(t *testing.T) []string { return []string{"-db", t.TempDir() + "/r.db"} }},
		{"postgres", func(t *testing.T) []string { return []string{"-dsn", pgtest.DSN(t)} }},
	} {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			store := st.store(t)
			// child runs "akshara CMD SUB [store flags] ARGS" as a process
			child := func(stdin string, cmdSub []string, args ...string) (string, int) {
				t.Helper()
				cmd := exec.Command(os.Args[0], append(append(cmdSub, store...), args...)...)
				cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1")
				cmd.Stdin = strings.NewReader(stdin)
				out, err := cmd.CombinedOutput()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				return string(out), code
			}
			for _, name := range []string{"gamma", "delta"} {
				if out, code := child("", []string{"registrar", "add"}, name); code != exitOK {
					t.Fatalf("registrar add %s: %s", name, out)
				}
				if out, code := child("secret12\n", []string{"registrar", "epp-password"}, name); code != exitOK {
					t.Fatalf("epp-password %s: %s", name, out)
				}
			}
			eppAddr := serveEPP(t, store...)
			gamma := dialEPP(t, eppAddr)
			delta := dialEPP(t, eppAddr)
			if r := gamma.login("gamma"); !strings.Contains(r, `code="1000"`) {
				t.Fatalf("login gamma: %s", r)
			}
			if r := delta.login("delta"); !strings.Contains(r, `code="1000"`) {
				t.Fatalf("login delta: %s", r)
			}
			if r := gamma.create("कमल.भारत"); !strings.Contains(r, `code="1000"`) {
				t.Fatalf("create before the revocation: %s", r)
			}

			if out, code := child("", []string{"registrar", "revoke"}, "gamma"); code != exitOK {
				t.Fatalf("registrar revoke gamma: %s", out)
			}
			if r := gamma.create("किताब.भारत"); !strings.Contains(r, `code="2501"`) || !strings.Contains(r, "revoked") {
				t.Errorf("create in gamma's session after the revocation: %s; want 2501 naming the revocation", r)
			}
			if !gamma.closed() {
				t.Error("gamma's session stays open after the revocation")
			}
			if r := delta.create("किताब.भारत"); !strings.Contains(r, `code="1000"`) {
				t.Errorf("delta's create after gamma's revocation: %s", r)
			}
			again := dialEPP(t, eppAddr)
			if r := again.login("gamma"); !strings.Contains(r, `code="2200"`) {
				t.Errorf("login of revoked gamma: %s; want 2200", r)
			}
			if out, code := child("", []string{"registrar", "rotate"}, "gamma"); code != exitInvalid {
				t.Errorf("registrar rotate of revoked gamma: exit %d, want 1: %s", code, out)
			}
			if out, code := child("", []string{"registrar", "reinstate"}, "gamma"); code != exitOK {
				t.Fatalf("registrar reinstate gamma: %s", out)
			}
			back := dialEPP(t, eppAddr)
			if r := back.login("gamma"); !strings.Contains(r, `code="1000"`) {
				t.Errorf("login of reinstated gamma: %s", r)
			}
			out, _ := child("", []string{"audit-log"}, "-registrar", "gamma")
			var actions []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				for _, a := range []string{"registrar-revoke", "registrar-rotate", "registrar-reinstate"} {
					if strings.Contains(l, `"action":"`+a+`"`) {
						actions = append(actions, a+":"+l[strings.Index(l, `"result":`):])
					}
				}
			}
			if got := strings.Join(actions, " "); got != `registrar-revoke:"result":"ok"} registrar-rotate:"result":"REVOKED"} registrar-reinstate:"result":"ok"}` {
				t.Errorf("audit of gamma: %s", got)
			}
		})
	}
}

// serveEPP starts "akshara serve -epp" in a child process and returns its
// EPP address.
func serveEPP(t *testing.T, store ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "-addr", "127.0.0.1:0", "-epp", "127.0.0.1:0"}, store...)...)
	cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1")
	stdout, _ := cmd.StdoutPipe()
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	out.ReadString('\n') // listening on
	line, _ := out.ReadString('\n')
	addr, ok := strings.CutSuffix(strings.TrimSpace(strings.TrimPrefix(line, "EPP on ")), " (TLS)")
	if !ok {
		t.Fatalf("server output %q\n%s", line, stderr.String())
	}
	return addr
}

// eppConn is a bare EPP client over TLS.
type eppConn struct {
	t       testing.TB
	conn    *tls.Conn
	contact string // the id of the logged-in registrar's contact
}

func dialEPP(t testing.TB, addr string) *eppConn {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &eppConn{t: t, conn: conn}
	if g := c.read(); !strings.Contains(g, "<greeting>") {
		t.Fatalf("greeting: %s", g)
	}
	return c
}

func (c *eppConn) read() string {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	var h [4]byte
	if _, err := io.ReadFull(c.conn, h[:]); err != nil {
		c.t.Fatalf("reading: %v", err)
	}
	b := make([]byte, binary.BigEndian.Uint32(h[:])-4)
	if _, err := io.ReadFull(c.conn, b); err != nil {
		c.t.Fatalf("reading: %v", err)
	}
	return string(b)
}

func (c *eppConn) do(x string) string {
	c.t.Helper()
	x = `<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command>` + x + `</command></epp>`
	b := binary.BigEndian.AppendUint32(nil, uint32(4+len(x)))
	c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.conn.Write(append(b, x...)); err != nil {
		c.t.Fatalf("writing: %v", err)
	}
	return c.read()
}

// login logs in and, when it succeeds, makes sure the registrar has the
// contact c-CLID that its creates name (the zones file requires a
// registrant, admin and tech contact: docs/contacts.md).
func (c *eppConn) login(clID string) string { return c.loginWith(clID, "") }

// loginWith is login with more of <svcs> (objURIs, then svcExtension).
func (c *eppConn) loginWith(clID, svcs string) string {
	r := c.do(`<login><clID>` + clID + `</clID><pw>secret12</pw><options><version>1.0</version><lang>en</lang></options><svcs><objURI>urn:ietf:params:xml:ns:domain-1.0</objURI><objURI>urn:ietf:params:xml:ns:contact-1.0</objURI>` + svcs + `</svcs></login>`)
	if strings.Contains(r, `code="1000"`) {
		c.contact = "c-" + clID
		cr := c.do(`<create><contact:create xmlns:contact="urn:ietf:params:xml:ns:contact-1.0"><contact:id>` + c.contact + `</contact:id><contact:postalInfo type="loc"><contact:name>राहुल</contact:name><contact:addr><contact:city>लखनऊ</contact:city><contact:cc>IN</contact:cc></contact:addr></contact:postalInfo><contact:email>r@example.in</contact:email><contact:authInfo><contact:pw>Contact-pw-1-strong</contact:pw></contact:authInfo></contact:create></create>`)
		if !strings.Contains(cr, `code="1000"`) && !strings.Contains(cr, `code="2302"`) {
			c.t.Fatalf("contact create: %s", cr)
		}
	}
	return r
}

func (c *eppConn) create(name string) string {
	return c.do(`<create><domain:create xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>` + name + `</domain:name><domain:registrant>` + c.contact + `</domain:registrant><domain:contact type="admin">` + c.contact + `</domain:contact><domain:contact type="tech">` + c.contact + `</domain:contact></domain:create></create>`)
}

// closed reports whether the server closed the connection.
func (c *eppConn) closed() bool {
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := c.conn.Read(make([]byte, 1))
	return err != nil
}
