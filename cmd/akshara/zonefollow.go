package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/akshara-idn/akshara/dnspub"
	"github.com/akshara-idn/akshara/registry"
)

// Continuous publication (issue 37; docs/delegation.md): akshara serve
// -dns-update … publishes beside serving, akshara zone follow … in a
// process of its own; both drain the DNS outbox to the primary by RFC 2136
// UPDATE (package dnspub). akshara zone release lets the change guard's
// held drops go.

// dnsFlags are the publisher's flags, shared by serve and zone follow.
type dnsFlags struct {
	server, tsig, zones *string
	interval            *time.Duration
	ttl, floor          *int
	maxDrop             *float64
}

func addDNSFlags(fs *flag.FlagSet) *dnsFlags {
	return &dnsFlags{
		server:   fs.String("dns-update", os.Getenv("AKSHARA_DNS_UPDATE"), "publish continuously: send the zones' changes by DNS UPDATE (RFC 2136) to the primary `HOST:PORT` (docs/delegation.md)"),
		tsig:     fs.String("dns-tsig", os.Getenv("AKSHARA_DNS_TSIG"), "sign the UPDATEs with the TSIG key `NAME:hmac-sha256:BASE64SECRET` (RFC 8945)"),
		zones:    fs.String("dns-zone", os.Getenv("AKSHARA_DNS_ZONE"), "the `ZONE[,ZONE…]` to publish (names or A-labels)"),
		interval: fs.Duration("dns-interval", time.Second, "publish the changes this often"),
		ttl:      fs.Int("dns-ttl", 3600, "the TTL of every record, `SECONDS` (as zone export's -ttl)"),
		floor:    fs.Int("guard-floor", 100, "the change guard never holds back a batch dropping this many delegations or fewer; -1: no guard"),
		maxDrop:  fs.Float64("guard-max-drop", 10, "the change guard holds back a batch's drops above -guard-floor when they are more than `PERCENT` of the zone's delegations"),
	}
}

// publisher makes the publisher the flags describe; nil, nil when
// -dns-update is not given.
func (f *dnsFlags) publisher(svc *registry.Service, log *slog.Logger) (*dnspub.Publisher, error) {
	if *f.server == "" {
		if *f.zones != "" || *f.tsig != "" {
			return nil, errors.New("-dns-zone and -dns-tsig need -dns-update HOST:PORT")
		}
		return nil, nil
	}
	if _, _, err := net.SplitHostPort(*f.server); err != nil {
		return nil, fmt.Errorf("-dns-update %q: want HOST:PORT", *f.server)
	}
	var zones []string
	for _, z := range strings.Split(*f.zones, ",") {
		if z = strings.TrimSpace(z); z != "" {
			zones = append(zones, z)
		}
	}
	if len(zones) == 0 {
		return nil, errors.New("-dns-update needs -dns-zone ZONE[,ZONE…]")
	}
	if *f.maxDrop < 0 || *f.maxDrop > 100 || *f.interval <= 0 {
		return nil, errors.New("-guard-max-drop is 0 to 100 and -dns-interval positive")
	}
	o := dnspub.Options{Server: *f.server, Zones: zones, Interval: *f.interval, TTL: *f.ttl,
		GuardFloor: *f.floor, GuardMaxDrop: *f.maxDrop / 100, Logger: log}
	if *f.tsig != "" {
		k, err := parseTSIG(*f.tsig) // zoneverify.go
		if err != nil {
			return nil, errors.New(strings.Replace(err.Error(), "-tsig", "-dns-tsig", 1))
		}
		o.Key = &dnspub.Key{Name: k.name, Alg: k.alg, Secret: k.secret}
	}
	return dnspub.New(svc, o)
}

const zoneFollowUsage = `usage: akshara zone follow [-db FILE | -dsn DSN] -dns-update HOST:PORT
         -dns-tsig NAME:hmac-sha256:BASE64SECRET -dns-zone ZONE[,ZONE…]
         [-dns-interval 1s] [-guard-floor N] [-guard-max-drop PERCENT]
         [-metrics-addr HOST:PORT]

Publishes the zones continuously, in a process of its own (akshara serve
-dns-update does the same beside serving): every -dns-interval the
changes the registry's commands recorded are sent to the primary by DNS
UPDATE (RFC 2136) signed with TSIG. One publisher acts among several
processes on one database (a lease); the others stand by and take over
within seconds. Runs until SIGINT or SIGTERM (docs/delegation.md).

Flags:
`

// cmdZoneFollow runs akshara zone follow.
func cmdZoneFollow(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("zone follow", zoneFollowUsage, stderr)
	openStore := storeFlags(fs)
	df := addDNSFlags(fs)
	metricsAddr := fs.String("metrics-addr", "", "serve the publisher's Prometheus metrics on `HOST:PORT` (/metrics)")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	if *df.server == "" {
		fmt.Fprintln(stderr, "akshara zone follow: -dns-update HOST:PORT and -dns-zone ZONE are required")
		return exitUsage
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return withServiceCtx(ctx, "zone follow", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		p, err := df.publisher(svc, log)
		if err != nil {
			return err
		}
		if *metricsAddr != "" {
			reg := prometheus.NewRegistry()
			reg.MustRegister(p.Collectors()...)
			ln, err := net.Listen("tcp", *metricsAddr)
			if err != nil {
				return err
			}
			mux := http.NewServeMux()
			mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
			srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
			go srv.Serve(ln)
			defer srv.Close()
			fmt.Fprintf(stdout, "metrics on http://%s\n", ln.Addr())
		}
		fmt.Fprintf(stdout, "publishing %s to %s as %s\n", *df.zones, *df.server, p.Holder())
		return p.Run(ctx)
	})
}

// withServiceCtx is withService with a context of the caller's.
func withServiceCtx(ctx context.Context, name string, open func(context.Context) (registry.Store, error), stderr io.Writer, f func(ctx context.Context, svc *registry.Service) error) int {
	return withService(name, open, stderr, func(_ context.Context, svc *registry.Service) error { return f(ctx, svc) })
}

// cmdZoneRelease runs akshara zone release: the zone's changes the guard
// held are published by the next round, without the guard.
func cmdZoneRelease(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("zone release", zoneUsage, stderr)
	openStore := storeFlags(fs)
	zone := fs.String("zone", "", "the `ZONE` whose held changes go")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	return withService("zone release", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		if *zone == "" {
			return registry.Errorf(registry.CodeBadName, "-zone is required")
		}
		n, err := svc.ReleaseDNS(ctx, *zone)
		if err == nil {
			fmt.Fprintf(stdout, "released %d held changes of %s\n", n, *zone)
		}
		return err
	})
}
