package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestJSONLogsEveryLine (issue 22): with -json-logs every line the server
// writes is a JSON object, on standard output (the listening addresses) as
// on standard error, net/http's TLS handshake errors included; and an EPP
// refusal names the registrar once.
func TestJSONLogsEveryLine(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeCert(t, certFile, keyFile)
	if _, stderr, code := runCLI(t, "", "registrar", "add", "-db", db, "gamma"); code != exitOK {
		t.Fatalf("registrar add: %s", stderr)
	}
	if _, stderr, code := runCLI(t, "secret12\n", "registrar", "epp-password", "-db", db, "gamma"); code != exitOK {
		t.Fatalf("epp-password: %s", stderr)
	}
	cmd := exec.Command(os.Args[0], "serve", "-json-logs", "-addr", "127.0.0.1:0", "-db", db, "-tls-cert", certFile, "-tls-key", keyFile,
		"-epp", "127.0.0.1:0", "-metrics-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1")
	stdout, _ := cmd.StdoutPipe()
	var stderr lockedBuffer // written by exec's goroutine, read here
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var outLines []string
	var httpsURL, eppAddr string
	sc := bufio.NewScanner(stdout)
	for len(outLines) < 3 && sc.Scan() { // listening on, EPP on, metrics on
		outLines = append(outLines, sc.Text())
		var rec struct{ Msg, URL, Addr string }
		json.Unmarshal(sc.Bytes(), &rec)
		switch rec.Msg {
		case "listening on":
			httpsURL = rec.URL
		case "EPP on":
			eppAddr = rec.Addr
		}
	}
	if !strings.HasPrefix(httpsURL, "https://") || eppAddr == "" {
		t.Fatalf("server output %q\n%s", outLines, stderr.String())
	}
	// plain HTTP to the HTTPS port: net/http logs a TLS handshake error
	c, err := net.Dial("tcp", strings.TrimPrefix(httpsURL, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	c.Read(make([]byte, 512))
	c.Close()
	// an EPP refusal of a logged-in registrar
	e := dialEPP(t, eppAddr)
	if r := e.login("gamma"); !strings.Contains(r, `code="1000"`) {
		t.Fatalf("login: %s", r)
	}
	if r := e.do(`<renew><domain:renew xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>x.भारत</domain:name></domain:renew></renew>`); !strings.Contains(r, `code="2`) {
		t.Fatalf("a command answered %s; want a refusal", r)
	}
	e.conn.Close()
	// the handshake error is logged from the server's goroutine: wait for
	// it (bounded), then stop the server and read everything
	for i := 0; i < 100 && !strings.Contains(stderr.String(), "TLS handshake error"); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	for sc.Scan() {
		outLines = append(outLines, sc.Text())
	}
	cmd.Wait()

	for _, l := range outLines {
		if !json.Valid([]byte(l)) {
			t.Errorf("standard output line is not JSON: %q", l)
		}
	}
	var handshake, refusal bool
	for _, l := range strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Errorf("standard error line is not JSON: %q", l)
			continue
		}
		if k := duplicateKey(l); k != "" {
			t.Errorf("key %q twice in %s", k, l)
		}
		msg, _ := rec["msg"].(string)
		if strings.Contains(msg, "TLS handshake error") {
			handshake = true
		}
		if msg == "epp: command refused" {
			refusal = true
			if n := strings.Count(l, `"registrar":`); n != 1 || rec["registrar"] != "gamma" {
				t.Errorf("EPP refusal names the registrar %d times: %s", n, l)
			}
		}
	}
	if !handshake || !refusal {
		t.Errorf("the log has no TLS handshake error (%v) or EPP refusal (%v):\n%s", handshake, refusal, stderr.String())
	}
}

// duplicateKey returns a top-level key that occurs twice in a JSON object,
// or "".
func duplicateKey(line string) string {
	d := json.NewDecoder(strings.NewReader(line))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		k, _ := tok.(string)
		if seen[k] {
			return k
		}
		seen[k] = true
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return ""
		}
	}
	return ""
}

// lockedBuffer is a bytes.Buffer safe to write and read at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
