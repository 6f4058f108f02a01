package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestRegistrarAddExitStatus: a refused name exits 1, a database that
// cannot be opened 2 (it exited 2 on every failure).
func TestRegistrarAddExitStatus(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	if _, errOut, code := runCLI(t, "", "registrar", "add", "-db", db, "bad\x01name"); code != exitInvalid || !strings.Contains(errOut, "BAD_NAME") {
		t.Errorf("registrar add with a control character: %d %q, want exit 1 and BAD_NAME", code, errOut)
	}
	if _, _, code := runCLI(t, "", "registrar", "add", "-db", filepath.Join(db, "no", "such", "dir.db"), "acme"); code != exitUsage {
		t.Errorf("registrar add into a database that cannot be opened: %d, want 2", code)
	}
}

// TestRegistrarCommands: add, list, revoke, rotate, and the audit log of
// it all (a failed add included).
func TestRegistrarCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	token, _, code := runCLI(t, "", "registrar", "add", "-db", db, "acme")
	if code != 0 || !strings.HasPrefix(token, "ak_") {
		t.Fatalf("registrar add: %q %d", token, code)
	}
	// A refusal exits 1, as every operator command's; 2 is for usage and
	// database errors.
	if _, errOut, code := runCLI(t, "", "registrar", "add", "-db", db, "acme"); code != exitInvalid || !strings.Contains(errOut, "EXISTS") {
		t.Errorf("registrar add again: %d %q, want exit 1 and EXISTS", code, errOut)
	}
	out, _, code := runCLI(t, "", "registrar", "list", "-db", db, "-json")
	var ri registry.RegistrarInfo
	if code != 0 || json.Unmarshal([]byte(out), &ri) != nil || ri.Name != "acme" || !ri.Revoked.IsZero() {
		t.Errorf("registrar list -json: %q %d", out, code)
	}
	if out, _, _ := runCLI(t, "", "registrar", "list", "-db", db); !strings.Contains(out, "NAME") || !strings.Contains(out, "acme") {
		t.Errorf("registrar list: %q", out)
	}
	authenticate := func(token string) error {
		store, err := sqlite.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		svc, _ := registry.NewServiceWith(context.Background(), store, registry.ServiceOptions{ContactsExempt: []string{""}})
		_, err = svc.Authenticate(context.Background(), strings.TrimSpace(token))
		return err
	}
	if err := authenticate(token); err != nil {
		t.Fatalf("the new token: %v", err)
	}
	if _, _, code := runCLI(t, "", "registrar", "revoke", "-db", db, "acme"); code != 0 {
		t.Fatalf("registrar revoke: %d", code)
	}
	if err := authenticate(token); err == nil {
		t.Error("a revoked token still works")
	}
	if _, _, code := runCLI(t, "", "registrar", "revoke", "-db", db, "nobody"); code != exitInvalid {
		t.Errorf("registrar revoke nobody: %d, want 1", code)
	}
	// issue 22: rotating a revoked registrar is refused and lifts nothing;
	// reinstate does, with a new token
	if out, stderr, code := runCLI(t, "", "registrar", "rotate", "-db", db, "acme"); code != exitInvalid || out != "" || !strings.Contains(stderr, "reinstate") {
		t.Errorf("registrar rotate of a revoked registrar: %q %q %d, want exit 1 pointing at reinstate", out, stderr, code)
	}
	if err := authenticate(token); err == nil {
		t.Error("rotate lifted the revocation: the old token works again")
	}
	if out, _, _ := runCLI(t, "", "registrar", "list", "-db", db); !strings.Contains(out, "acme") || strings.Contains(out, "acme  "+"-") {
		t.Errorf("registrar list after a refused rotation: acme is not revoked:\n%s", out)
	}
	if _, _, code := runCLI(t, "", "registrar", "reinstate", "-db", db, "nobody"); code != exitInvalid {
		t.Errorf("registrar reinstate nobody: %d, want 1", code)
	}
	newToken, _, code := runCLI(t, "", "registrar", "reinstate", "-db", db, "acme")
	if code != 0 || authenticate(newToken) != nil || newToken == token || authenticate(token) == nil {
		t.Errorf("registrar reinstate: %q %d", newToken, code)
	}
	rotated, _, code := runCLI(t, "", "registrar", "rotate", "-db", db, "acme")
	if code != 0 || authenticate(rotated) != nil || authenticate(newToken) == nil {
		t.Errorf("registrar rotate: %q %d", rotated, code)
	}
	if _, _, code := runCLI(t, "", "registrar", "frobnicate", "-db", db); code != exitUsage {
		t.Errorf("registrar frobnicate: %d, want 2", code)
	}

	out, _, code = runCLI(t, "", "audit-log", "-db", db)
	var actions []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e registry.AuditEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit-log line %q: %v", line, err)
		}
		actions = append(actions, e.Action+":"+e.Result)
	}
	want := "[registrar-add:ok registrar-add:EXISTS registrar-revoke:ok registrar-revoke:NOT_FOUND registrar-rotate:REVOKED registrar-reinstate:NOT_FOUND registrar-reinstate:ok registrar-rotate:ok]"
	if code != 0 || fmt.Sprint(actions) != want {
		t.Errorf("audit-log: %v (%d), want %s", actions, code, want)
	}
	for _, tc := range []struct {
		args []string
		n    int
	}{
		{[]string{"-action", "registrar-add"}, 2},
		{[]string{"-registrar", "nobody"}, 2},
		{[]string{"-since", "1h"}, 8},
		{[]string{"-until", "2000-01-01T00:00:00Z"}, 0},
		{[]string{"-limit", "2"}, 2},
		{[]string{"-name", "acme", "-action", "registrar-rotate"}, 2},
	} {
		out, _, code := runCLI(t, "", append([]string{"audit-log", "-db", db}, tc.args...)...)
		if n := strings.Count(out, "\n"); code != 0 || n != tc.n {
			t.Errorf("audit-log %v: %d lines (%d), want %d", tc.args, n, code, tc.n)
		}
	}
	if _, _, code := runCLI(t, "", "audit-log", "-db", db, "-since", "yesterday"); code != exitUsage {
		t.Errorf("audit-log -since yesterday: %d, want 2", code)
	}
}

// TestReserveAndZoneCommands: reserved names and zones as data.
func TestReserveAndZoneCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	if out, errOut, code := runCLI(t, "", "reserve", "add", "-db", db, "-reason", "the registry's own", "xn--11b4aya5ed.xn--h2brj9c"); code != 0 || out != "reserved किताब.भारत\n" {
		t.Fatalf("reserve add: %q %q %d", out, errOut, code)
	}
	if _, errOut, code := runCLI(t, "", "reserve", "add", "-db", db, "क्अब.भारत"); code != exitInvalid || !strings.Contains(errOut, "INVALID_LABEL") {
		t.Errorf("reserve add invalid: %d %q", code, errOut)
	}
	if out, _, _ := runCLI(t, "", "reserve", "list", "-db", db); out != "किताब.भारत\tthe registry's own\n" {
		t.Errorf("reserve list: %q", out)
	}
	token, _, _ := runCLI(t, "", "registrar", "add", "-db", db, "acme")
	_ = token
	store, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := registry.NewServiceWith(context.Background(), store, registry.ServiceOptions{ContactsExempt: []string{""}})
	res, err := svc.Check(context.Background(), "कित्ताब.भारत", "hi")
	if err != nil || res.Status != registry.Reserved {
		t.Errorf("check of a variant of a reserved name: %+v %v", res, err)
	}
	store.Close()
	if _, _, code := runCLI(t, "", "reserve", "remove", "-db", db, "किताब.भारत"); code != 0 {
		t.Errorf("reserve remove: %d", code)
	}
	if out, _, _ := runCLI(t, "", "reserve", "list", "-db", db); out != "" {
		t.Errorf("reserve list after remove: %q", out)
	}

	out, _, code := runCLI(t, "", "zone", "add", "-db", db, "-langs", "hi, mr", "-ldh", "Test")
	var z registry.Zone
	if code != 0 || json.Unmarshal([]byte(out), &z) != nil || z.Name != "test" || len(z.Languages) != 2 || !z.LDH {
		t.Fatalf("zone add: %q %d", out, code)
	}
	if _, errOut, code := runCLI(t, "", "zone", "add", "-db", db, "-langs", "hi", "test"); code != exitInvalid || !strings.Contains(errOut, "EXISTS") {
		t.Errorf("zone add again: %d %q", code, errOut)
	}
	if _, _, code := runCLI(t, "", "zone", "add", "-db", db, "-langs", "xx", "other"); code != exitInvalid {
		t.Errorf("zone add with an unknown language: %d", code)
	}
	out, _, _ = runCLI(t, "", "zone", "list", "-db", db)
	if n := strings.Count(out, "\n"); n != len(registry.DefaultZones())+1 || !strings.Contains(out, `"name":"test"`) {
		t.Errorf("zone list: %d zones:\n%s", n, out)
	}
	if _, _, code := runCLI(t, "", "zone", "-db", db); code != exitUsage {
		t.Errorf("zone without a subcommand: %d", code)
	}
}

// TestBackupRestore: a backup taken while creates run is consistent, and
// restored (put in place of the database) it has every domain created
// before the backup began, each with its whole conflict set.
func TestBackupRestore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	r, _, _ := svc.AddRegistrar(ctx, "acme")
	hi := []string{"किताब", "कमल", "नमक", "सड़क", "कलम", "मकान", "बरतन"}
	var before []string
	for i := 0; i < 40; i++ {
		name := fmt.Sprintf("before-%d.in", i)
		if i < len(hi) {
			name = hi[i] + ".भारत"
		}
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: name}); err != nil {
			t.Fatal(err)
		}
		before = append(before, name)
	}
	// creates go on while the backup runs
	stop := make(chan struct{})
	var during atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: fmt.Sprintf("during-%d.in", i)}); err == nil {
				during.Add(1)
			}
		}
	}()
	backup := filepath.Join(dir, "backup.db")
	_, errOut, code := runCLI(t, "", "backup", "-db", db, backup)
	close(stop)
	wg.Wait()
	store.Close()
	if code != 0 {
		t.Fatalf("backup: %d %s", code, errOut)
	}
	if _, _, code := runCLI(t, "", "backup", "-db", db, backup); code != exitUsage {
		t.Errorf("backup over an existing file: %d, want 2", code)
	}

	// restore: the backup in place of the database
	restored := filepath.Join(dir, "restored.db")
	if err := os.Rename(backup, restored); err != nil {
		t.Fatal(err)
	}
	rs, err := sqlite.Open(ctx, restored)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	rsvc, _ := registry.NewServiceWith(ctx, rs, registry.ServiceOptions{ContactsExempt: []string{""}})
	for _, name := range before {
		if _, err := rsvc.Info(ctx, name); err != nil {
			t.Errorf("restored: %s: %v", name, err)
		}
	}
	if res, err := rsvc.Check(ctx, "कित्ताब.भारत", "hi"); err != nil || res.Status != registry.Blocked {
		t.Errorf("restored: the variant of किताब.भारत is %+v, %v; want blocked", res, err)
	}
	var domains, bare int
	rs.DB().QueryRow(`SELECT COUNT(*) FROM domains`).Scan(&domains)
	rs.DB().QueryRow(`SELECT COUNT(*) FROM domains d WHERE NOT EXISTS (SELECT 1 FROM blocks b WHERE b.domain_id = d.id)`).Scan(&bare)
	if domains < len(before) || bare != 0 {
		t.Errorf("restored: %d domains (%d without their conflict set), want at least %d", domains, bare, len(before))
	}
	t.Logf("backup during %d concurrent creates: %d domains restored", during.Load(), domains)
}

// TestServeTLS: serve -tls-cert/-tls-key answers HTTPS; a half-given pair
// or no connection allowed is refused at start.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	pool := writeCert(t, certFile, keyFile)
	server, base := startServer(t, "-db", filepath.Join(dir, "r.db"), "-tls-cert", certFile, "-tls-key", keyFile)
	defer func() { server.Process.Signal(syscall.SIGTERM); server.Wait() }()
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("serving %s, want https", base)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, path := range []string{"/healthz", "/readyz", "/v1/zones", "/metrics"} {
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.TLS == nil {
			t.Errorf("GET %s: %d (TLS %v)", path, resp.StatusCode, resp.TLS != nil)
		}
	}
	// a renewed certificate, reloaded on SIGHUP without a restart
	pool2 := writeCert(t, certFile, keyFile)
	if err := server.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	client2 := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool2}}}
	var herr error
	for i := 0; i < 200; i++ { // until the signal is handled
		var resp *http.Response
		if resp, herr = client2.Get(base + "/healthz"); herr == nil {
			resp.Body.Close()
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if herr != nil {
		t.Errorf("after SIGHUP the renewed certificate is not served: %v", herr)
	}
	client = client2

	resp, err := client.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"akshara_log_errors_suppressed_total 0", "go_sql_open_connections", "process_open_fds"} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("serve's /metrics has no %s", want)
		}
	}
	for _, args := range [][]string{{"-tls-cert", certFile}, {"-max-conns", "0"}, {"-trusted-proxies", "10.0.0.0/8,nonsense"}, {"-base-url", "rdap.example.in"}} {
		_, errOut, code := runCLI(t, "", append([]string{"serve", "-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "r.db")}, args...)...)
		if code != exitUsage {
			t.Errorf("serve %v: %d %q, want 2", args, code, errOut)
		}
	}
}

// writeCert writes a self-signed certificate for 127.0.0.1 and returns a
// pool that trusts it.
func writeCert(t *testing.T, certFile, keyFile string) *x509.CertPool {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "akshara test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

// TestMaxConns: with -max-conns 1 a second connection is not served while
// the first is open, and is served once it closes.
func TestMaxConns(t *testing.T) {
	o := &serveOptions{maxConns: 1}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })}
	ln, scheme, err := o.listen("127.0.0.1:0", srv)
	if err != nil || scheme != "http" {
		t.Fatalf("listen: %v %s", err, scheme)
	}
	go srv.Serve(ln)
	defer srv.Close()
	first, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(first, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") // served, then held open (keep-alive)
	buf := make([]byte, 512)
	first.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := first.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "200 OK") {
		t.Fatalf("first connection: %q %v", buf[:n], err)
	}
	second, err := net.Dial("tcp", ln.Addr().String()) // the kernel accepts it; the server does not
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	fmt.Fprint(second, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	second.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, err := second.Read(buf); err == nil {
		t.Fatalf("a second connection was served beside the first: %q", buf[:n])
	}
	first.Close()
	second.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := second.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "200 OK") {
		t.Errorf("the second connection, after the first closed: %q %v", buf[:n], err)
	}
}

// TestServeMetricsAddr: with -metrics-addr the metrics are served there
// (with /healthz and /readyz), not on the public address.
func TestServeMetricsAddr(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	maddr := ln.Addr().String()
	ln.Close()
	server, base := startServer(t, "-db", filepath.Join(t.TempDir(), "r.db"), "-metrics-addr", maddr)
	defer func() { server.Process.Signal(syscall.SIGTERM); server.Wait() }()
	get := func(url string) (int, string) {
		t.Helper()
		var resp *http.Response
		var err error
		for i := 0; i < 100; i++ { // the metrics listener is up before "listening on" is printed
			if resp, err = http.Get(url); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(body)
	}
	if code, body := get("http://" + maddr + "/metrics"); code != 200 || !strings.Contains(body, "akshara_http_requests_total") && !strings.Contains(body, "go_goroutines") {
		t.Errorf("private /metrics: %d %.200s", code, body)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, _ := get("http://" + maddr + path); code != 200 {
			t.Errorf("private %s: %d", path, code)
		}
	}
	if code, _ := get(base + "/metrics"); code == 200 {
		t.Error("the public address still serves /metrics")
	}
	if code, _ := get(base + "/readyz"); code != 200 {
		t.Errorf("public /readyz: %d", code)
	}
}

// TestMaxConnsPerAddr: issue 21 item 8. One client holding idle
// connections up to -max-conns-per-addr gets no more (the next is closed
// at once), and does not fill -max-conns: a client at another address is
// served beside it.
func TestMaxConnsPerAddr(t *testing.T) {
	o := &serveOptions{maxConns: 3, maxConnsPerAddr: 2}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })}
	ln, _, err := o.listen("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	get := func(local string) (string, error) {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
		c, err := d.Dial("tcp", ln.Addr().String())
		if err != nil {
			return "", err
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") // served, then held open (keep-alive)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 512)
		n, err := c.Read(buf)
		return string(buf[:n]), err
	}
	for i := 0; i < 2; i++ {
		if got, err := get("127.0.0.1"); err != nil || !strings.Contains(got, "200 OK") {
			t.Fatalf("connection %d of the first client: %q %v", i, got, err)
		}
	}
	if got, err := get("127.0.0.1"); err == nil {
		t.Errorf("a third connection of one client was served: %q", got)
	}
	if got, err := get("127.0.0.2"); err != nil || !strings.Contains(got, "200 OK") {
		t.Errorf("another client beside the first's: %q %v", got, err)
	}
}
