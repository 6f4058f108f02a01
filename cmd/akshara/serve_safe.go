package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/net/netutil"

	"github.com/akshara-idn/akshara/httpapi"
)

// serveOptions are serve's flags for serving safely (docs/operations.md).
type serveOptions struct {
	tlsCert, tlsKey string
	maxConns        int
	maxConnsPerAddr int
	publicRate      float64
	searchRate      float64
	authFailBurst   int
	errorLogRate    float64
	errorLogBurst   int
	trustedProxies  string
	metricsAddr     string
	errorLog        *log.Logger // net/http's messages (serve sets it)
	baseURL         string

	cert atomic.Pointer[tls.Certificate] // the certificate served, reloaded on SIGHUP
}

func serveFlags(fs *flag.FlagSet) *serveOptions {
	o := &serveOptions{}
	fs.StringVar(&o.tlsCert, "tls-cert", os.Getenv("AKSHARA_TLS_CERT"), "serve HTTPS with this certificate chain `FILE` (PEM)")
	fs.StringVar(&o.tlsKey, "tls-key", os.Getenv("AKSHARA_TLS_KEY"), "and this private key `FILE` (PEM)")
	fs.IntVar(&o.maxConns, "max-conns", 1024, "at most `N` connections at once (more wait to be accepted)")
	fs.IntVar(&o.maxConnsPerAddr, "max-conns-per-addr", 64, "at most `N` connections at once from one client address (more are closed at once; trusted proxies are exempt; 0: no cap)")
	fs.Float64Var(&o.publicRate, "public-rate", 100, "requests per second per client address to the public endpoints (burst twice that)")
	fs.Float64Var(&o.searchRate, "rdap-search-rate", 5, "RDAP domain searches per second per client address (burst four times that; 0: no limit)")
	fs.IntVar(&o.authFailBurst, "auth-failures", 10, "failed authentications per client address before it must wait (refilled at 10 a minute)")
	fs.Float64Var(&o.errorLogRate, "error-log-rate", 10, "error log lines per second at most (a burst of 100; the rest are counted)")
	fs.StringVar(&o.trustedProxies, "trusted-proxies", os.Getenv("AKSHARA_TRUSTED_PROXIES"), "reverse proxies (comma-separated `CIDRs` or addresses) whose X-Forwarded-For names the client")
	fs.StringVar(&o.metricsAddr, "metrics-addr", os.Getenv("AKSHARA_METRICS_ADDR"), "serve /metrics (and /healthz, /readyz) on this private `ADDRESS` only, not on -addr")
	fs.StringVar(&o.baseURL, "base-url", os.Getenv("AKSHARA_BASE_URL"), "the public `URL` clients reach the server at (such as https://rdap.example.in), which RDAP's links are built from; default the address a request came in on")
	o.errorLogBurst = 100
	return o
}

// base checks -base-url: an http or https URL with a host, nothing after
// its path.
func (o *serveOptions) base() (string, error) {
	if o.baseURL == "" {
		return "", nil
	}
	u, err := url.Parse(o.baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("-base-url %q: an http:// or https:// URL with a host, such as https://rdap.example.in", o.baseURL)
	}
	return strings.TrimSuffix(o.baseURL, "/"), nil
}

// proxies parses -trusted-proxies.
func (o *serveOptions) proxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(o.trustedProxies, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("-trusted-proxies: %q is not an address or CIDR", f)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("-trusted-proxies: %q is not an address or CIDR", f)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// listen opens the listening socket: capped at maxConns connections, and
// TLS (1.2 or later) when a certificate is given. It returns the scheme.
func (o *serveOptions) listen(addr string, srv *http.Server) (net.Listener, string, error) {
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return nil, "", errors.New("-tls-cert and -tls-key go together")
	}
	if o.maxConns < 1 {
		return nil, "", fmt.Errorf("-max-conns %d: at least 1", o.maxConns)
	}
	var cfg *tls.Config
	if o.tlsCert != "" {
		if err := o.reloadCert(); err != nil {
			return nil, "", err
		}
		cfg = &tls.Config{
			GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return o.cert.Load(), nil },
			MinVersion:     tls.VersionTLS12,
			NextProtos:     []string{"h2", "http/1.1"},
		}
		srv.TLSConfig = cfg
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	if o.maxConnsPerAddr > 0 {
		proxies, err := o.proxies()
		if err != nil {
			ln.Close()
			return nil, "", err
		}
		ln = &perAddrListener{Listener: ln, max: o.maxConnsPerAddr, exempt: proxies, n: map[netip.Addr]int{}}
	}
	ln = netutil.LimitListener(ln, o.maxConns)
	if cfg != nil {
		return tls.NewListener(ln, cfg), "https", nil
	}
	return ln, "http", nil
}

// reloadCert reads the certificate and key files; the new pair is served
// to the next handshakes. On an error the old pair stays.
func (o *serveOptions) reloadCert() error {
	cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
	if err != nil {
		return fmt.Errorf("loading the TLS certificate: %w", err)
	}
	o.cert.Store(&cert)
	return nil
}

// reloadOnHangup reloads the certificate on each SIGHUP (a renewed
// certificate without a restart) until ctx ends.
func (o *serveOptions) reloadOnHangup(ctx context.Context, log *slog.Logger) {
	if o.tlsCert == "" {
		return
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				if err := o.reloadCert(); err != nil {
					log.Error("SIGHUP: the old certificate stays", "error", err)
					continue
				}
				log.Info("SIGHUP: TLS certificate reloaded", "cert", o.tlsCert)
			}
		}
	}()
}

// serveMetrics serves the metrics, /healthz and /readyz on -metrics-addr
// (plain HTTP: a private address, for the monitoring system). It returns
// the server (nil without -metrics-addr) and its address.
func (o *serveOptions) serveMetrics(api *httpapi.Server, errc chan<- error) (*http.Server, string, error) {
	if o.metricsAddr == "" {
		return nil, "", nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", api.MetricsHandler())
	mux.Handle("GET /healthz", api)
	mux.Handle("GET /readyz", api)
	srv := httpapi.NewHTTPServer(o.metricsAddr, mux)
	srv.ErrorLog = o.errorLog
	ln, err := net.Listen("tcp", o.metricsAddr)
	if err != nil {
		return nil, "", fmt.Errorf("-metrics-addr: %w", err)
	}
	go func() { errc <- srv.Serve(ln) }()
	return srv, ln.Addr().String(), nil
}

// perAddrListener closes a connection from an address that has max open
// already (one client cannot take all of -max-conns with slow or idle
// connections), except from a trusted proxy, whose connections are many
// clients'.
type perAddrListener struct {
	net.Listener
	max    int
	exempt []netip.Prefix
	mu     sync.Mutex
	n      map[netip.Addr]int
}

func (l *perAddrListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
		if err != nil {
			return c, nil
		}
		a := ap.Addr().Unmap()
		exempt := false
		for _, p := range l.exempt {
			if p.Contains(a) {
				exempt = true
			}
		}
		if exempt {
			return c, nil
		}
		l.mu.Lock()
		if l.n[a] >= l.max {
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.n[a]++
		l.mu.Unlock()
		return &countedConn{Conn: c, release: func() {
			l.mu.Lock()
			if l.n[a]--; l.n[a] <= 0 {
				delete(l.n, a)
			}
			l.mu.Unlock()
		}}, nil
	}
}

// countedConn releases its place in perAddrListener's count once, when
// closed.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
