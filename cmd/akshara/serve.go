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
	"strings"
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
	register(&command{name: "registrar", order: 50, summary: "add|list|revoke|rotate|reinstate|abuse|allow|epp-password|epp-password-lifetime|epp-password-expire|epp-cert: registrars, API tokens, abuse contacts, address allow-lists and EPP credentials",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			if len(args) > 0 && (args[0] == "epp-password" || args[0] == "epp-cert") {
				return cmdRegistrarEPP(args[0], args[1:], stdin, stdout, stderr) // epp.go
			}
			if len(args) > 0 && accessSubcommands[args[0]] {
				return cmdRegistrarAccess(args[0], args[1:], stdout, stderr) // access.go
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

const serveUsage = `usage: akshara serve [-addr ADDR] [-db FILE | -dsn DSN] [-tls-cert FILE -tls-key FILE] [-epp ADDR [-epp-cert FILE -epp-key FILE]] [-whois ADDR] [-staging [-clock-offset OFFSET]]

Runs the registry: the HTTP API (docs/registry.md, /openapi.yaml), RDAP
at /rdap/ (docs/rdap.md), the web page at /, and with -epp the EPP server
(docs/epp.md), and with -whois WHOIS (RFC 3912, docs/whois.md; rate-limited
per client address by -whois-rate and -whois-burst, and at most
-whois-max-conns-per-addr connections of an address at once). The store is the
SQLite file -db (default akshara.db in the working directory, created on
first start with the default zones) or, with -dsn, PostgreSQL (with
-replica-dsn a hot standby answers the reads: docs/replicas.md). With -tls-cert and -tls-key it serves HTTPS (TLS 1.2 or
later; SIGHUP reloads the certificate). Stops gracefully on SIGINT or SIGTERM, finishing the requests in
flight. /healthz is liveness, /readyz readiness (the database takes a
write), /metrics Prometheus (docs/operations.md). With -staging it is a
staging (OT&E) server: the registry's clock runs ahead of real time by
the offset the database keeps (akshara clock advance; docs/operations.md,
Staging), and every answer says so. With -dns-update it publishes the
zones -dns-zone names continuously, by DNS UPDATE signed with -dns-tsig
to the hidden primary (docs/delegation.md, Continuous publication; one
process publishes among several on one database).

Environment (each sets the flag beside it; a flag given wins):

  AKSHARA_ADDR             -addr
  AKSHARA_DB               -db
  AKSHARA_DSN              -dsn
  AKSHARA_REPLICA_DSN      -replica-dsn
  AKSHARA_TLS_CERT         -tls-cert
  AKSHARA_TLS_KEY          -tls-key
  AKSHARA_TRUSTED_PROXIES  -trusted-proxies
  AKSHARA_METRICS_ADDR     -metrics-addr
  AKSHARA_EPP              -epp
  AKSHARA_EPP_CERT         -epp-cert
  AKSHARA_EPP_KEY          -epp-key
  AKSHARA_EPP_CLIENT_CA    -epp-client-ca
  AKSHARA_WHOIS            -whois
  AKSHARA_BASE_URL         -base-url
  AKSHARA_DNS_UPDATE       -dns-update
  AKSHARA_DNS_TSIG         -dns-tsig
  AKSHARA_DNS_ZONE         -dns-zone

deploy/akshara.env sets them for deploy/akshara.service.

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
	return storeFlagsWith(fs, nil)
}

// storeFlagsWith is storeFlags for a command that also takes PostgreSQL
// options (pgFlags): they apply with -dsn, and -replica-dsn needs it.
func storeFlagsWith(fs *flag.FlagSet, o *postgres.Options) func(ctx context.Context) (registry.Store, error) {
	db := fs.String("db", envOr("AKSHARA_DB", "akshara.db"), "SQLite database `FILE` (the embedded default)")
	dsn := fs.String("dsn", os.Getenv("AKSHARA_DSN"), "PostgreSQL `DSN` (postgres://user@host:5432/db); overrides -db")
	return func(ctx context.Context) (registry.Store, error) {
		if *dsn != "" {
			if o != nil {
				return postgres.OpenWith(ctx, *dsn, *o)
			}
			return postgres.Open(ctx, *dsn)
		}
		if o != nil && o.ReplicaDSN != "" {
			return nil, fmt.Errorf("-replica-dsn is a PostgreSQL standby: it needs -dsn")
		}
		return sqlite.Open(ctx, *db)
	}
}

// pgFlags adds serve's PostgreSQL options: a read replica and the retry
// budget (docs/replicas.md).
func pgFlags(fs *flag.FlagSet) *postgres.Options {
	o := &postgres.Options{}
	fs.StringVar(&o.ReplicaDSN, "replica-dsn", os.Getenv("AKSHARA_REPLICA_DSN"), "PostgreSQL hot standby `DSN` that answers checks, infos, RDAP and WHOIS (docs/replicas.md); needs -dsn")
	fs.DurationVar(&o.MaxLag, "replica-max-lag", postgres.DefaultMaxLag, "a standby further behind the primary than this is not read (the primary answers)")
	fs.DurationVar(&o.RetryBudget, "retry-budget", 40*time.Second, "how long a request rides out a database fault before UNAVAILABLE: longer than a failover (a standby promoted in 30 s: 31 s requests, docs/replicas.md)")
	return o
}

// contactsExemptList reads -contacts-exempt: front ends the zones' contact
// policy does not bind (docs/contacts.md, "Front ends").
func contactsExemptList(v string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(v, ",") {
		switch f = strings.TrimSpace(f); f {
		case "":
		case "http", "epp", "cli":
			out = append(out, f)
		default:
			return nil, fmt.Errorf("-contacts-exempt: unknown front end %q (http, epp, cli)", f)
		}
	}
	return out, nil
}

func cmdServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("serve", serveUsage, stderr)
	addr := fs.String("addr", envOr("AKSHARA_ADDR", "127.0.0.1:8080"), "listen `ADDRESS`")
	openStore := storeFlagsWith(fs, pgFlags(fs))
	reqTimeout := fs.Duration("request-timeout", 10*time.Second, "bound on an HTTP request's work: a request older than this during a database failover is answered 503 UNAVAILABLE; set it above -retry-budget to ride a failover out (docs/replicas.md)")
	jsonLogs := fs.Bool("json-logs", false, "write every line as JSON: the logs (net/http's messages included) on standard error, the listening addresses on standard output")
	rateLimit := fs.Float64("rate", 50, "requests per second per registrar")
	lifeEvery := fs.Duration("lifecycle-interval", time.Minute, "run the lifecycle worker (expiry, auto-renew, redemption, purge; docs/lifecycle.md) this often; 0: never (run akshara lifecycle run instead)")
	cdsEvery := fs.Duration("cds-interval", 0, "scan the children's CDS (-cds-zone; docs/dnssec.md) this often; 0: never (run akshara dnssec scan instead)")
	cdsSet := addCDSFlags(fs, "cds-") // dnssec.go
	o := serveFlags(fs)
	startEPP := eppFlags(fs) // epp.go
	startWHOIS := whoisFlags(fs)
	stage := stagingFlags(fs) // clock.go
	exempt := fs.String("contacts-exempt", "", "front ends (`LIST`, comma-separated: http, epp, cli) whose domain creates and updates the zones' contact policy (zones file `contacts`) does not bind; empty: it binds every front end (docs/contacts.md)")
	dnsf := addDNSFlags(fs) // zonefollow.go: continuous publication (docs/delegation.md)
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	exemptList, err := contactsExemptList(*exempt)
	if err != nil {
		fmt.Fprintf(stderr, "akshara serve: %v\n", err)
		return exitUsage
	}
	var handler slog.Handler = slog.NewTextHandler(stderr, nil)
	if *jsonLogs {
		handler = slog.NewJSONHandler(stderr, nil)
	}
	limited := logrl.New(handler, o.errorLogRate, o.errorLogBurst)
	log := slog.New(limited)
	// With -json-logs every line is JSON: net/http's own messages (TLS
	// handshake errors, …) go through the handler, as does anything
	// written with the standard log package, and the lines on standard
	// output are JSON records too (announcer).
	o.errorLog = slog.NewLogLogger(limited, slog.LevelWarn)
	ann := announcer{w: stdout}
	if *jsonLogs {
		ann.json = slog.New(slog.NewJSONHandler(stdout, nil))
		prev := slog.Default()
		slog.SetDefault(log)
		defer slog.SetDefault(prev)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	store, err := openStore(ctx)
	if err != nil {
		log.Error("opening the store", "error", err)
		return exitUsage
	}
	defer store.Close()
	clock, clockAtLeast, err := stage.clock(ctx, store)
	if err != nil {
		log.Error("starting the registry", "error", err)
		return exitUsage
	}
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{Clock: clock, ContactsExempt: exemptList})
	if err != nil {
		log.Error("starting the registry", "error", err)
		return exitUsage
	}
	if len(exemptList) > 0 {
		log.Warn("the zones' contact policy does not bind these front ends (-contacts-exempt)", "front_ends", strings.Join(exemptList, ","))
	}
	if err := stage.start(ctx, svc, clockAtLeast, log); err != nil {
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
	pub, err := dnsf.publisher(svc, log)
	if err != nil {
		log.Error("starting", "error", err)
		return exitUsage
	}
	if pub != nil {
		metrics.MustRegister(pub.Collectors()...)
	}
	baseURL, err := o.base()
	if err != nil {
		log.Error("starting", "error", err)
		return exitUsage
	}
	mounts := map[string]http.Handler{"GET /lgr/": lgr.Handler()} // the RFC 7940 exports (docs/lgr.md)
	// RDAP is served as the API's public endpoints are (rate limit, timeout, log, metrics)
	api := httpapi.New(svc, httpapi.Options{Logger: log, RateLimit: *rateLimit, RequestTimeout: *reqTimeout, Page: web.Handler(), Mount: mounts, Public: rdapMount(svc, baseURL, o.searchRate), Metrics: metrics,
		PublicRate: o.publicRate, AuthFailBurst: o.authFailBurst, TrustedProxies: proxies, PrivateMetrics: o.metricsAddr != "",
		Collectors: []prometheus.Collector{prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "akshara_log_errors_suppressed_total", Help: "Error log lines dropped by the log rate limit."},
			func() float64 { return float64(limited.Suppressed()) })}})
	srv := httpapi.NewHTTPServer(*addr, api)
	srv.WriteTimeout = max(srv.WriteTimeout, *reqTimeout+5*time.Second) // the answer to a request that waited
	srv.ErrorLog = o.errorLog
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
	ann.say(fmt.Sprintf("listening on %s://%s", scheme, ln.Addr()), "listening on", "url", fmt.Sprintf("%s://%s", scheme, ln.Addr()))
	stopEPP, err := startEPP(ctx, svc, log, ann, metrics)
	if err != nil {
		ln.Close()
		log.Error("starting EPP", "error", err)
		return exitUsage
	}
	defer stopEPP()
	stopWHOIS, err := startWHOIS(ctx, svc, log, ann, metrics)
	if err != nil {
		ln.Close()
		log.Error("starting WHOIS", "error", err)
		return exitUsage
	}
	defer stopWHOIS()
	if pub != nil {
		go pub.Run(ctx) // zonefollow.go, dnspub
		log.Info("publishing continuously", "zones", *dnsf.zones, "primary", *dnsf.server, "holder", pub.Holder())
	}
	go lifecycleWorker(ctx, svc, log, *lifeEvery)        // lifecycle.go
	cdsWorker(ctx, svc, cdsSet, *cdsEvery, metrics, log) // dnssec.go
	go svc.RunTransferWorker(ctx, time.Minute)           // pending transfers past their period (docs/registry.md)
	go func() { errc <- srv.Serve(ln) }()
	if msrv != nil {
		log.Info("serving metrics", "addr", maddr)
		ann.say("metrics on http://"+maddr, "metrics on", "url", "http://"+maddr)
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

// announcer writes the lines that say where the server listens to
// standard output (tests and scripts read them): as text, "listening on
// http://…", or with -json-logs as JSON records, as every line is then.
type announcer struct {
	w    io.Writer
	json *slog.Logger // nil: text
}

func (a announcer) say(text, msg string, args ...any) {
	if a.json != nil {
		a.json.Info(msg, args...)
		return
	}
	fmt.Fprintln(a.w, text)
}

const registrarUsage = `usage: akshara registrar add [-db FILE | -dsn DSN] NAME

Creates a registrar and prints its API token, once: only its hash is
stored. Use it as "Authorization: Bearer TOKEN".

Flags:
`

func cmdRegistrar(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "add" {
		return cmdRegistrarOps(args, stdout, stderr) // operate.go (and the usage of them all)
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
