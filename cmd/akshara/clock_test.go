package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestStagingServer (issue 34 item 14), on both stores, each command a
// process of its own as an operator runs them: a production server
// refuses -clock-offset, and the clock of a production database cannot be
// moved without -staging (exit 2). "serve -staging -clock-offset 1d"
// greets as a staging server one day ahead; a registrar creates and
// deletes a domain; "akshara clock advance -staging 36d", run beside the
// server, moves the registry's time past the redemption and pending
// delete periods; the server follows and its own lifecycle worker purges
// the domain, nobody touching the database. Every EPP greeting, HTTP
// answer and RDAP answer says it is a staging server; a server started
// without -staging refuses the staging database; the clock does not go
// back (-clock-offset 10d after 37d: exit 2); the moves are audited.
func TestStagingServer(t *testing.T) {
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
			if out, code := child("", []string{"registrar", "add"}, "acme"); code != exitOK {
				t.Fatalf("registrar add: %s", out)
			}
			if out, code := child("secret12\n", []string{"registrar", "epp-password"}, "acme"); code != exitOK {
				t.Fatalf("epp-password: %s", out)
			}
			// production refuses the staging flags
			if out, code := child("", []string{"serve"}, "-addr", "127.0.0.1:0", "-clock-offset", "30d"); code != exitUsage || !strings.Contains(out, "needs -staging") {
				t.Errorf("serve -clock-offset without -staging: exit %d, want %d\n%s", code, exitUsage, out)
			}
			if out, code := child("", []string{"clock", "advance"}, "30d"); code != exitUsage || !strings.Contains(out, "give -staging") {
				t.Errorf("clock advance without -staging: exit %d, want %d\n%s", code, exitUsage, out)
			}
			if out, code := child("", []string{"clock", "show"}); code != exitOK || !strings.Contains(out, `"staging":false`) {
				t.Errorf("clock show of a production database: exit %d\n%s", code, out)
			}
			if out, code := child("", []string{"serve"}, "-staging", "-addr", "127.0.0.1:0", "-clock-offset", "-1d"); code != exitUsage {
				t.Errorf("serve -clock-offset -1d: exit %d, want %d\n%s", code, exitUsage, out)
			}

			httpURL, eppAddr := serveStaging(t, store, "-staging", "-clock-offset", "1d", "-lifecycle-interval", "100ms")
			c := dialEPP(t, eppAddr)
			if g := c.hello(); !strings.Contains(g, "<svID>akshara (staging, clock +1d)</svID>") {
				t.Errorf("greeting: %s", g)
			}
			if r := c.login("acme"); !strings.Contains(r, `code="1000"`) {
				t.Fatalf("login: %s", r)
			}
			const name = "किताब.भारत"
			if r := c.create(name); !strings.Contains(r, `code="1000"`) {
				t.Fatalf("create: %s", r)
			}
			c.deleteDomain(name)
			// a production server refuses the staging database
			if out, code := child("", []string{"serve"}, "-addr", "127.0.0.1:0"); code != exitUsage || !strings.Contains(out, "staging registry's") || !strings.Contains(out, "+1d") {
				t.Errorf("serve without -staging on the staging database: exit %d, want %d\n%s", code, exitUsage, out)
			}
			out, code := child("", []string{"clock", "advance"}, "-staging", "36d")
			var got struct {
				Staging bool
				Offset  string
				Now     time.Time
			}
			if err := json.Unmarshal([]byte(out), &got); code != exitOK || err != nil || !got.Staging || got.Offset != "+37d" || got.Now.Sub(time.Now().Add(37*24*time.Hour)).Abs() > time.Minute {
				t.Fatalf("clock advance: exit %d, %+v %v\n%s", code, got, err, out)
			}
			// the server follows; its worker purges
			deadline := time.Now().Add(30 * time.Second)
			for {
				r := c.do(`<info><domain:info ` + eppDomainNS + `><domain:name>` + name + `</domain:name></domain:info></info>`)
				if strings.Contains(r, `code="2303"`) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the domain is not purged 30 s after the clock moved 36 days: %s", r)
				}
				time.Sleep(100 * time.Millisecond)
			}
			if g := c.hello(); !strings.Contains(g, "<svID>akshara (staging, clock +37d)</svID>") {
				t.Errorf("greeting after the advance: %s", g)
			}
			// the sponsor's queue: the end of the redemption (RFC 8590's
			// change data), then the purge (RFC 5731's panData)
			r := c.do(`<poll op="req"/>`)
			if m := regexp.MustCompile(`<msgQ count="\d+" id="(\d+)">`).FindStringSubmatch(r); m != nil && strings.Contains(r, `op="redemptionEnd"`) {
				c.do(`<poll op="ack" msgID="` + m[1] + `"/>`)
				r = c.do(`<poll op="req"/>`)
			}
			if !strings.Contains(r, `code="1301"`) || !strings.Contains(r, "<domain:panData") {
				t.Errorf("poll after the purge: %s", r)
			}
			// the HTTP API and RDAP say so
			for _, path := range []string{"/v1/zones", "/rdap/help", "/rdap/domain/" + name, "/nope"} {
				resp, err := http.Get(httpURL + path)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				h := resp.Header.Get("Akshara-Staging")
				if !strings.HasPrefix(h, "offset=+37d; now=") {
					t.Errorf("GET %s: Akshara-Staging %q", path, h)
				}
				if strings.HasPrefix(path, "/rdap/") && !strings.Contains(string(body), `"title":"Staging registry"`) {
					t.Errorf("GET %s: no staging notice\n%s", path, body)
				}
			}
			// the clock does not go back
			if out, code := child("", []string{"serve"}, "-staging", "-addr", "127.0.0.1:0", "-clock-offset", "10d"); code != exitUsage || !strings.Contains(out, "does not go back") {
				t.Errorf("serve -staging -clock-offset 10d after +37d: exit %d, want %d\n%s", code, exitUsage, out)
			}
			out, _ = child("", []string{"audit-log"}, "-registrar", "operator")
			if !strings.Contains(out, `"result":"ok +1d (was +0s)"`) || !strings.Contains(out, `"result":"ok +37d (was +1d)"`) || !strings.Contains(out, `"result":"CLOCK_BACKWARDS"`) {
				t.Errorf("audit-log of the clock:\n%s", out)
			}
		})
	}
}

// serveStaging starts "akshara serve -epp" with args in a child process
// and returns its HTTP URL and EPP address.
func serveStaging(t *testing.T, store []string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append(append([]string{"serve", "-addr", "127.0.0.1:0", "-epp", "127.0.0.1:0"}, store...), args...)...)
	cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1")
	stdout, _ := cmd.StdoutPipe()
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	line, _ := out.ReadString('\n')
	httpURL := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	line, _ = out.ReadString('\n')
	addr, ok := strings.CutSuffix(strings.TrimSpace(strings.TrimPrefix(line, "EPP on ")), " (TLS)")
	if !ok || !strings.HasPrefix(httpURL, "http://") {
		t.Fatalf("server output %q %q\n%s", httpURL, line, stderr.String())
	}
	return httpURL, addr
}

// hello sends <hello/> and returns the greeting.
func (c *eppConn) hello() string {
	c.t.Helper()
	x := `<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><hello/></epp>`
	b := binary.BigEndian.AppendUint32(nil, uint32(4+len(x)))
	c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.conn.Write(append(b, x...)); err != nil {
		c.t.Fatalf("writing: %v", err)
	}
	return c.read()
}

// TestClockAdvanceRun: "clock advance -staging -run" moves the clock and
// runs the lifecycle worker at the new time in the same command (a
// domain deleted is purged by it); an advance by nothing is refused
// (exit 1, CLOCK_BACKWARDS); "clock show" reads the offset back.
func TestClockAdvanceRun(t *testing.T) {
	db := t.TempDir() + "/r.db"
	ctx := t.Context()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{Contacts: registrytest.NoContacts()})
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "किताब.भारत", Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.DeleteDomain(ctx, r, registry.DomainDelete{Name: "किताब.भारत"}); err != nil {
		t.Fatal(err)
	}
	store.Close()
	out, stderr, code := runCLI(t, "", "clock", "advance", "-staging", "-run", "-db", db, "36d")
	var got struct {
		Staging   bool
		Offset    string
		Lifecycle registry.LifecycleReport
	}
	if err := json.Unmarshal([]byte(out), &got); code != exitOK || err != nil || !got.Staging || got.Offset != "+36d" || got.Lifecycle.Purged != 1 {
		t.Fatalf("clock advance -run: exit %d %+v %v\n%s%s", code, got, err, out, stderr)
	}
	if out, stderr, code := runCLI(t, "", "clock", "advance", "-staging", "-db", db, "0d"); code != exitInvalid || !strings.Contains(stderr, "CLOCK_BACKWARDS") {
		t.Errorf("clock advance 0d: exit %d, want %d\n%s%s", code, exitInvalid, out, stderr)
	}
	if out, _, code := runCLI(t, "", "clock", "show", "-db", db); code != exitOK || !strings.Contains(out, `"offset":"+36d"`) {
		t.Errorf("clock show: exit %d\n%s", code, out)
	}
}
