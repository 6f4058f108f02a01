package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestRegistrarEPPPassword: the password is read from standard input,
// checked against the schema's limits, and logs in; epp-cert pins a
// fingerprint.
func TestRegistrarEPPPassword(t *testing.T) {
	db := t.TempDir() + "/r.db"
	if _, stderr, code := runCLI(t, "", "registrar", "add", "-db", db, "acme"); code != exitOK {
		t.Fatalf("registrar add: %d %s", code, stderr)
	}
	tests := []struct {
		stdin string
		args  []string
		code  int
	}{
		{"short\n", []string{"epp-password", "-db", db, "acme"}, exitUsage},
		{"", []string{"epp-password", "-db", db, "acme"}, exitUsage},
		{"secret12\n", []string{"epp-password", "-db", db, "nobody"}, exitUsage},
		{"secret12\n", []string{"epp-password", "-db", db}, exitUsage},
		{"secret12\n", []string{"epp-password", "-db", db, "acme"}, exitOK},
		{"", []string{"epp-cert", "-db", db, "acme", "zz"}, exitUsage},
		{"", []string{"epp-cert", "-db", db, "acme", strings.Repeat("AB:", 31) + "AB"}, exitOK},
	}
	for _, tt := range tests {
		if _, stderr, code := runCLI(t, tt.stdin, append([]string{"registrar"}, tt.args...)...); code != tt.code {
			t.Errorf("registrar %v (stdin %q): exit %d, want %d (%s)", tt.args, tt.stdin, code, tt.code, stderr)
		}
	}
	// issue 22: every attempt is in the audit log with its outcome
	out, _, _ := runCLI(t, "", "audit-log", "-db", db, "-registrar", "")
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e registry.AuditEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit-log line %q: %v", line, err)
		}
		if e.Action != "registrar-add" {
			got = append(got, e.Registrar+" "+e.Action+":"+e.Result)
		}
	}
	if want := "[acme epp-password:BAD_NAME acme epp-password:BAD_NAME nobody epp-password:NOT_FOUND acme epp-password:ok acme epp-cert:BAD_NAME acme epp-cert:ok]"; fmt.Sprint(got) != want {
		t.Errorf("audit-log: %v\nwant %s", got, want)
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.EPPLogin(ctx, "acme", "secret12", strings.Repeat("ab", 32)); err != nil {
		t.Errorf("login with the password set and the pinned certificate: %v", err)
	}
	if _, err := svc.EPPLogin(ctx, "acme", "secret12", ""); err == nil {
		t.Error("login without the pinned certificate")
	}
}

// TestServeEPP runs "akshara serve -epp" in a child process: a greeting
// over TLS (self-signed), a login with the password set by the CLI, a
// check; and RDAP on the HTTP address.
func TestServeEPP(t *testing.T) {
	db := t.TempDir() + "/r.db"
	if _, stderr, code := runCLI(t, "", "registrar", "add", "-db", db, "acme"); code != exitOK {
		t.Fatalf("registrar add: %s", stderr)
	}
	if _, stderr, code := runCLI(t, "secret12\n", "registrar", "epp-password", "-db", db, "acme"); code != exitOK {
		t.Fatalf("epp-password: %s", stderr)
	}
	cmd := exec.Command(os.Args[0], "serve", "-addr", "127.0.0.1:0", "-epp", "127.0.0.1:0", "-db", db)
	cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1")
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	httpLine, _ := out.ReadString('\n')
	eppLine, _ := out.ReadString('\n')
	httpURL := strings.TrimSpace(strings.TrimPrefix(httpLine, "listening on "))
	eppAddr, ok := strings.CutSuffix(strings.TrimSpace(strings.TrimPrefix(eppLine, "EPP on ")), " (TLS)")
	if !strings.HasPrefix(httpURL, "http://") || !ok {
		t.Fatalf("server output %q %q\n%s", httpLine, eppLine, stderr.String())
	}
	conn, err := tls.Dial("tcp", eppAddr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	read := func() string {
		var h [4]byte
		if _, err := io.ReadFull(conn, h[:]); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, binary.BigEndian.Uint32(h[:])-4)
		if _, err := io.ReadFull(conn, b); err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	send := func(x string) string {
		b := binary.BigEndian.AppendUint32(nil, uint32(4+len(x)))
		if _, err := conn.Write(append(b, x...)); err != nil {
			t.Fatal(err)
		}
		return read()
	}
	if g := read(); !strings.Contains(g, "<svID>akshara</svID>") {
		t.Fatalf("greeting: %s", g)
	}
	const e = `<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command>`
	if r := send(e + `<login><clID>acme</clID><pw>secret12</pw><options><version>1.0</version><lang>en</lang></options><svcs><objURI>urn:ietf:params:xml:ns:domain-1.0</objURI></svcs></login></command></epp>`); !strings.Contains(r, `code="1000"`) {
		t.Fatalf("login: %s", r)
	}
	if r := send(e + `<check><domain:check xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>किताब.भारत</domain:name></domain:check></check></command></epp>`); !strings.Contains(r, `avail="1"`) {
		t.Errorf("check: %s", r)
	}
	resp, err := http.Get(httpURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(metrics), `akshara_epp_commands_total{code="1000",command="login",object="none"} 1`) {
		t.Errorf("/metrics has no EPP login:\n%s", metrics)
	}
	resp, err = http.Get(httpURL + "/rdap/help")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/rdap+json" {
		t.Errorf("/rdap/help: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	cmd.Process.Kill()
	cmd.Wait() // stderr is complete
	if !strings.Contains(stderr.String(), "self-signed") {
		t.Errorf("the self-signed certificate's fingerprint is not logged:\n%s", stderr.String())
	}
}
