package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/internal/logrl"
	"github.com/akshara-idn/akshara/lgr"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
	"github.com/akshara-idn/akshara/web"
)

func init() {
	register(&command{name: "registrar", order: 50, summary: "add|list|revoke|rotate|epp-password|epp-cert: registrars, API tokens and EPP credentials",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			if len(args) > 0 && (args[0] == "epp-password" || args[0] == "epp-cert") {
				return cmdRegistrarEPP(args[0], args[1:], stdin, stdout, stderr) // epp.go
			}
			return cmdRegistrar(args, stdout, stderr)
		}})
}

func init() {
	register(&command{name: "serve", order: 40, summary: "run the registry (HTTP API and web page; SQLite by default)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdServe(args, stdout, stderr)
		}})
}

const serveUsage = `usage: akshara serve [-addr ADDR] [-db FILE | -dsn DSN] [-tls-cert FILE -tls-key FILE] [-epp ADDR [-epp-cert FILE -epp-key FILE]]

Runs the registry: the HTTP API (docs/registry.md, /openapi.yaml), RDAP
at /rdap/ (docs/rdap.md), the web page at /, and with -epp the EPP server
(docs/epp.md). The store is the SQLite file -db (default akshara.db in the
working directory, created on first start with the default zones) or, with
-dsn, PostgreSQL. With -tls-cert and -tls-key it serves HTTPS (TLS 1.2 or
later; SIGHUP reloads the certificate). Stops gracefully on SIGINT or SIGTERM, finishing the requests in
flight. /healthz is liveness, /readyz readiness (the database takes a
write), /metrics Prometheus (docs/operations.md).

Environment: AKSHARA_ADDR, AKSHARA_DB, AKSHARA_DSN, AKSHARA_TLS_CERT,
AKSHARA_TLS_KEY, AKSHARA_BASE_URL (flags win).

Flags:
`

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// storeFlags adds -db and -dsn; the function it returns opens the store.
func storeFlags(fs *flag.FlagSet) func(ctx context.Context) (registry.Store, error) {
	db := fs.String("db", envOr("AKSHARA_DB", "akshara.db"), "SQLite database `FILE` (the embedded default)")
	dsn := fs.String("dsn", os.Getenv("AKSHARA_DSN"), "PostgreSQL `DSN` (postgres://user@host:5432/db); overrides -db")
	return func(ctx context.Context) (registry.Store, error) {
		if *dsn != "" {
			return postgres.Open(ctx, *dsn)
		}
		return sqlite.Open(ctx, *db)
	}
}

func cmdServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("serve", serveUsage, stderr)
	addr := fs.String("addr", envOr("AKSHARA_ADDR", "127.0.0.1:8080"), "listen `ADDRESS`")
	openStore := storeFlags(fs)
	jsonLogs := fs.Bool("json-logs", false, "write logs as JSON")
	rateLimit := fs.Float64("rate", 50, "requests per second per registrar")
	o := serveFlags(fs)
	startEPP := eppFlags(fs) // epp.go
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	var handler slog.Handler = slog.NewTextHandler(stderr, nil)
	if *jsonLogs {
		handler = slog.NewJSONHandler(stderr, nil)
	}
	limited := logrl.New(handler, o.errorLogRate, o.errorLogBurst)
	log := slog.New(limited)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	store, err := openStore(ctx)
	if err != nil {
		log.Error("opening the store", "error", err)
		return exitUsage
	}
	defer store.Close()
	svc, err := registry.NewService(ctx, store)
	if err != nil {
		log.Error("starting the registry", "error", err)
		return exitUsage
	}
	if rep := svc.Recomputed(); rep != nil && rep.From != rep.To {
		log.Info("conflict sets recomputed", "from", rep.From, "to", rep.To, "domains", rep.Domains, "changed", rep.Changed, "exempted_pairs", len(rep.Exempted))
		for _, p := range rep.Exempted {
			log.Warn("domains conflict under the new relation: both kept, exempted", "first", p[0], "second", p[1])
		}
	}
	svc.SetLogger(log)
	proxies, err := o.proxies()
	if err != nil {
		log.Error("starting", "error", err)
		return exitUsage
	}
	// one Prometheus registry for the HTTP API and EPP, with the runtime,
	// process and database pool collectors
	metrics := prometheus.NewRegistry()
	metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if db, ok := store.(interface{ DB() *sql.DB }); ok {
		metrics.MustRegister(collectors.NewDBStatsCollector(db.DB(), "akshara"))
	}
	baseURL, err := o.base()
	if err != nil {
		log.Error("starting", "error", err)
		return exitUsage
	}
	mounts := map[string]http.Handler{"GET /lgr/": lgr.Handler()} // the RFC 7940 exports (docs/lgr.md)
	// RDAP is served as the API's public endpoints are (rate limit, timeout, log, metrics)
	api := httpapi.New(svc, httpapi.Options{Logger: log, RateLimit: *rateLimit, Page: web.Handler(), Mount: mounts, Public: rdapMount(svc, baseURL), Metrics: metrics,
		PublicRate: o.publicRate, AuthFailBurst: o.authFailBurst, TrustedProxies: proxies, PrivateMetrics: o.metricsAddr != "",
		Collectors: []prometheus.Collector{prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "akshara_log_errors_suppressed_total", Help: "Error log lines dropped by the log rate limit."},
			func() float64 { return float64(limited.Suppressed()) })}})
	srv := httpapi.NewHTTPServer(*addr, api)
	ln, scheme, err := o.listen(*addr, srv)
	if err != nil {
		log.Error("listening", "addr", *addr, "error", err)
		return exitUsage
	}
	errc := make(chan error, 2)
	msrv, maddr, err := o.serveMetrics(api, errc)
	if err != nil {
		ln.Close()
		log.Error("listening", "error", err)
		return exitUsage
	}
	o.reloadOnHangup(ctx, log)
	log.Info("serving", "addr", ln.Addr().String(), "zones", len(svc.Zones()), "tls", scheme == "https", "max_conns", o.maxConns)
	fmt.Fprintf(stdout, "listening on %s://%s\n", scheme, ln.Addr())
	stopEPP, err := startEPP(ctx, svc, log, stdout, metrics)
	if err != nil {
		ln.Close()
		log.Error("starting EPP", "error", err)
		return exitUsage
	}
	defer stopEPP()
	go func() { errc <- srv.Serve(ln) }()
	if msrv != nil {
		log.Info("serving metrics", "addr", maddr)
		fmt.Fprintf(stdout, "metrics on http://%s\n", maddr)
		defer msrv.Close()
	}
	select {
	case err := <-errc:
		log.Error("serving", "error", err)
		return exitUsage
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("shutting down", "error", err)
		return exitUsage
	}
	log.Info("stopped")
	return exitOK
}

const registrarUsage = `usage: akshara registrar add [-db FILE | -dsn DSN] NAME

Creates a registrar and prints its API token, once: only its hash is
stored. Use it as "Authorization: Bearer TOKEN".

Flags:
`

func cmdRegistrar(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "add" {
		return cmdRegistrarOps(args, stdout, stderr) // operate.go (and the usage of all four)
	}
	fs := newFlags("registrar add", registrarUsage, stderr)
	openStore := storeFlags(fs)
	if status, ok := parseFlags(fs, args[1:], 1); !ok {
		return status
	}
	// The same exit status as the other operator commands (withService):
	// 1 when the registry refuses (a taken or malformed name), 2 when the
	// database cannot be opened or fails.
	return withService("registrar", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		r, token, err := svc.AddRegistrar(ctx, fs.Arg(0))
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "registrar %q created (id %d); its API token, shown this once:\n", r.Name, r.ID)
		fmt.Fprintln(stdout, token)
		return nil
	})
}
