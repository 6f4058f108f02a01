package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/term"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/rdap"
	"github.com/akshara-idn/akshara/registry"
)

// eppFlags adds -epp, -epp-cert, -epp-key, -epp-client-ca, the session
// caps (-epp-max-sessions, -epp-reserved-sessions, -epp-max-sessions-per-addr,
// -epp-max-sessions-per-registrar), -epp-login-timeout, -epp-rate and
// -epp-command-timeout to
// serve; the function it returns starts the EPP
// server (if -epp is set) and returns a function that stops it.
func eppFlags(fs *flag.FlagSet) func(ctx context.Context, svc *registry.Service, log *slog.Logger, ann announcer, metrics prometheus.Registerer) (func(), error) {
	addr := fs.String("epp", os.Getenv("AKSHARA_EPP"), "serve EPP (RFC 5730-5734, TLS) on `ADDRESS`, such as :700")
	certFile := fs.String("epp-cert", os.Getenv("AKSHARA_EPP_CERT"), "EPP server certificate `FILE` (PEM); without it a self-signed one is made at start")
	keyFile := fs.String("epp-key", os.Getenv("AKSHARA_EPP_KEY"), "EPP server key `FILE` (PEM)")
	clientCA := fs.String("epp-client-ca", os.Getenv("AKSHARA_EPP_CLIENT_CA"), "require EPP clients to present a certificate signed by a CA of `FILE` (PEM)")
	maxSessions := fs.Int("epp-max-sessions", 128, "most concurrent EPP sessions")
	reserved := fs.Int("epp-reserved-sessions", -1, "of -epp-max-sessions, the slots held for the addresses registrars use (logged in from lately, or in an allow-list): a connection from another address is refused while only they are free (-1: a quarter of -epp-max-sessions; 0: none)")
	perAddr := fs.Int("epp-max-sessions-per-addr", 16, "most EPP sessions of one client address, logged in or not (0: no cap)")
	perRegistrar := fs.Int("epp-max-sessions-per-registrar", 16, "most logged-in EPP sessions of one registrar (0: no cap)")
	loginTimeout := fs.Duration("epp-login-timeout", 10*time.Second, "close an EPP session that has not logged in this long after connecting")
	commandRate := fs.Float64("epp-rate", 50, "EPP commands per second per registrar, over all its sessions (burst twice that; 0: no limit)")
	commandTimeout := fs.Duration("epp-command-timeout", 10*time.Second, "bound on the registry's work on one EPP command (and on its wait for the registrar's rate): a command still running is answered 2400, one that would wait longer 2502")
	return func(ctx context.Context, svc *registry.Service, log *slog.Logger, ann announcer, metrics prometheus.Registerer) (func(), error) {
		if *addr == "" {
			return func() {}, nil
		}
		if *commandTimeout <= 0 {
			return nil, fmt.Errorf("-epp-command-timeout %v: a positive duration, such as 10s", *commandTimeout)
		}
		cfg := &tls.Config{}
		switch {
		case *certFile != "" || *keyFile != "":
			cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
			if err != nil {
				return nil, fmt.Errorf("-epp-cert/-epp-key: %w", err)
			}
			cfg.Certificates = []tls.Certificate{cert}
		default:
			host, _, _ := net.SplitHostPort(*addr)
			cert, fp, err := epp.SelfSigned("localhost", "127.0.0.1", "::1", host)
			if err != nil {
				return nil, err
			}
			cfg.Certificates = []tls.Certificate{cert}
			log.Warn("EPP: using a self-signed certificate (development only: give -epp-cert and -epp-key)", "sha256", fp)
		}
		if *clientCA != "" {
			pem, err := os.ReadFile(*clientCA)
			if err != nil {
				return nil, fmt.Errorf("-epp-client-ca: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("-epp-client-ca: no certificate in %s", *clientCA)
			}
			cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
		}
		noCap := func(n int) int { // the flags' 0 is "no cap", the Options' -1
			if n <= 0 {
				return -1
			}
			return n
		}
		rate, burst := *commandRate, int(2**commandRate)
		if rate <= 0 {
			rate = -1
		}
		res := *reserved // the flag's -1 is the Options' default (0), its 0 the Options' none (-1)
		switch {
		case res < 0:
			res = 0
		case res == 0:
			res = -1
		}
		srv, err := epp.New(svc, epp.Options{Logger: log, TLS: cfg, MaxSessions: *maxSessions, ReservedSessions: res, Metrics: metrics,
			MaxSessionsPerAddr: noCap(*perAddr), MaxSessionsPerRegistrar: noCap(*perRegistrar),
			LoginTimeout: *loginTimeout, CommandRate: rate, CommandBurst: max(burst, 1), CommandTimeout: *commandTimeout})
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return nil, err
		}
		log.Info("serving EPP", "addr", ln.Addr().String())
		ann.say(fmt.Sprintf("EPP on %s (TLS)", ln.Addr()), "EPP on", "addr", ln.Addr().String(), "tls", true)
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, epp.ErrServerClosed) {
				log.Error("EPP", "error", err)
			}
		}()
		return func() { srv.Close() }, nil
	}
}

// rdapMount is what serve mounts on the HTTP API for RDAP (as public
// endpoints), its links built from baseURL (-base-url), its searches
// limited to searchRate a second per client address (-rdap-search-rate),
// the client as the API sees it (behind a trusted proxy, the address it
// forwards for); a staging server's answers carry a notice that says so
// (the offset is in the Akshara-Staging header of every answer).
func rdapMount(svc *registry.Service, baseURL string, searchRate float64) map[string]http.Handler {
	if searchRate <= 0 {
		searchRate = -1 // no limit
	}
	o := rdap.Options{BaseURL: baseURL, SearchRate: searchRate, ClientAddr: httpapi.ClientAddr}
	if _, ok := svc.Staging(); ok {
		o.Notices = []rdap.Notice{{Title: "Staging registry", Description: []string{registry.StagingNotice,
			"How far ahead of real time its clock runs, and the registry's time, are in the " + httpapi.StagingHeader + " header of every answer."}}}
	}
	return map[string]http.Handler{rdap.Prefix: rdap.Handler(svc, o)}
}

const eppPasswordUsage = `usage: akshara registrar epp-password [-db FILE | -dsn DSN] NAME
       akshara registrar epp-cert [-db FILE | -dsn DSN] NAME SHA256

epp-password sets registrar NAME's EPP password (6 to 128 characters; one
longer than 16, the EPP schema's <pw>, logs in through RFC 8807's
<loginSec:pw>), read from standard input (one line; on a terminal,
without echo). Only a salted argon2id hash is stored. A registrar may also
change it at EPP login with <newPW> or <loginSec:newPW>. Its lifetime:
akshara registrar epp-password-lifetime -h.

epp-cert pins the SHA-256 fingerprint (hex, colons allowed) of the client
certificate registrar NAME must present at EPP login; "" unpins.

Both are recorded in the audit log (actions epp-password and epp-cert)
with their outcome, refusals included.

Flags:
`

// cmdRegistrarEPP runs "registrar epp-password" and "registrar epp-cert".
func cmdRegistrarEPP(sub string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("registrar "+sub, eppPasswordUsage, stderr)
	openStore := storeFlags(fs)
	min := 1
	if sub == "epp-cert" {
		min = 2
	}
	if status, ok := parseFlags(fs, args, min); !ok {
		return status
	}
	name := fs.Arg(0)
	// The password is checked by the registry, so that a refused one is
	// recorded in the audit log as every attempt is (issue 22).
	var secret string
	var readErr error
	if sub == "epp-password" {
		secret, readErr = readPassword(stdin, stderr)
	}
	ctx := context.Background()
	store, err := openStore(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "akshara registrar %s: %v\n", sub, err)
		return exitUsage
	}
	defer store.Close()
	svc, err := newService(ctx, store) // a staging registry's clock where it is one (clock.go)
	if err != nil {
		fmt.Fprintf(stderr, "akshara registrar %s: %v\n", sub, err)
		return exitUsage
	}
	if sub == "epp-password" {
		err = svc.SetEPPPassword(ctx, name, secret) // "" after a read error: refused (BAD_NAME) and recorded
		if readErr != nil {
			err = readErr
		}
	} else {
		err = svc.SetEPPCertificate(ctx, name, fs.Arg(1))
	}
	if err != nil {
		fmt.Fprintf(stderr, "akshara registrar %s: %v\n", sub, err)
		return exitUsage
	}
	if sub == "epp-password" {
		fmt.Fprintf(stdout, "EPP password of registrar %q set\n", name)
	} else {
		fmt.Fprintf(stdout, "EPP client certificate of registrar %q pinned\n", name)
	}
	return exitOK
}

// readPassword reads one line: from a terminal without echo, otherwise
// as it comes (a pipe, a file).
func readPassword(stdin io.Reader, stderr io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stderr, "EPP password (6 to 128 characters): ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		return string(b), err
	}
	line, err := bufio.NewReader(io.LimitReader(stdin, 1024)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("no password on standard input")
	}
	return line, nil
}
