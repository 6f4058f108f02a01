package main

// The child DS automation's operator command (issue 37; docs/dnssec.md):
// akshara dnssec scan, one pass of the CDS scanner that serve runs every
// -cds-interval.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/akshara-idn/akshara/cds"
	"github.com/akshara-idn/akshara/registry"
)

func init() {
	register(&command{name: "dnssec", order: 62, summary: "scan: the children's CDS/CDNSKEY (RFC 7344, 8078) turned into DS records after an acceptance period",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdDNSSEC(args, stdout, stderr)
		}})
}

const dnssecUsage = `usage: akshara dnssec scan [-db FILE | -dsn DSN] -zone ZONE[,ZONE...] [-bootstrap]
         [-scans N] [-age DURATION] [-bootstrap-age DURATION] [-ns HOST=ADDR:PORT]...

One pass of the CDS scanner (docs/dnssec.md), as "akshara serve
-cds-interval" runs it: for each published delegation with DS records (and,
with -bootstrap, each without), every address of every name server is asked
for the child's DNSKEY, CDS and CDNSKEY records; they must agree and
validate (the CDS set signed by the child's DNSKEY set, itself signed by a
key the current DS names; with no DS, by the key the CDS names). A request
seen by -scans scans over at least -age (-bootstrap-age for a domain
without DS) replaces the domain's DS records, or removes them (CDS
"0 0 0 00", RFC 8078 §4); the sponsor gets a change poll message. Prints
one JSON line per domain scanned.

Flags:
`

// cdsSettings are the scanner's flags, shared by dnssec scan and serve.
type cdsSettings struct {
	zones     string
	bootstrap bool
	acc       registry.CDSAcceptance
	ns        nsMap
	timeout   time.Duration
	parallel  int
}

// nsMap is -ns HOST=ADDR:PORT, repeated: where to ask a name server
// (instead of its glue or the system's resolver).
type nsMap map[string][]string

func (m nsMap) String() string { return fmt.Sprint(map[string][]string(m)) }
func (m nsMap) Set(v string) error {
	host, addr, ok := strings.Cut(v, "=")
	if !ok || host == "" || !strings.Contains(addr, ":") {
		return fmt.Errorf("-ns %q: want HOST=ADDR:PORT", v)
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	m[host] = append(m[host], addr)
	return nil
}

func addCDSFlags(fs *flag.FlagSet, prefix string) *cdsSettings {
	s := &cdsSettings{ns: nsMap{}}
	def := registry.DefaultCDSAcceptance
	fs.StringVar(&s.zones, prefix+"zone", "", "the `ZONE`s (comma separated) whose children are scanned")
	fs.BoolVar(&s.bootstrap, prefix+"bootstrap", false, "scan the delegations without DS records too: a CDS validated by its own key, accepted after -"+prefix+"bootstrap-age (RFC 8078 §3.3)")
	fs.IntVar(&s.acc.Scans, prefix+"scans", def.Scans, "scans that must see the same request before it is applied")
	fs.DurationVar(&s.acc.Age, prefix+"age", def.Age, "how long the same request must have been seen before it is applied")
	fs.DurationVar(&s.acc.BootstrapAge, prefix+"bootstrap-age", def.BootstrapAge, "the same, for a domain without DS records")
	fs.Var(s.ns, prefix+"ns", "ask name server HOST at `HOST=ADDR:PORT` (repeatable; default: the glue, else the system's resolver, port 53)")
	fs.DurationVar(&s.timeout, prefix+"timeout", 5*time.Second, "bound on each query of a child's name server")
	fs.IntVar(&s.parallel, prefix+"parallel", 16, "children asked at once")
	return s
}

// scanners makes a scanner per zone.
func (s *cdsSettings) scanners(svc *registry.Service, m *cds.Metrics, log *slog.Logger) []*cds.Scanner {
	var out []*cds.Scanner
	for _, z := range strings.Split(s.zones, ",") {
		if z = strings.TrimSpace(z); z == "" {
			continue
		}
		sc := &cds.Scanner{Service: svc, Zone: z, Accept: s.acc, Bootstrap: s.bootstrap, Timeout: s.timeout, Parallel: s.parallel, Metrics: m, Log: log}
		if len(s.ns) > 0 {
			ns := s.ns
			sc.Resolve = func(ctx context.Context, host string, glue []string) ([]string, error) {
				if a, ok := ns[strings.ToLower(host)]; ok {
					return a, nil
				}
				return cds.DefaultResolver(ctx, host, glue)
			}
		}
		out = append(out, sc)
	}
	return out
}

func cmdDNSSEC(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, dnssecUsage, stderr, "scan")
	if !ok {
		return exitUsage
	}
	fs := newFlags("dnssec "+sub, dnssecUsage, stderr)
	openStore := storeFlags(fs)
	set := addCDSFlags(fs, "")
	if status, ok := parseFlags(fs, rest, 0); !ok {
		return status
	}
	if strings.TrimSpace(set.zones) == "" {
		fmt.Fprintln(stderr, "akshara dnssec scan: -zone is required")
		return exitUsage
	}
	return withService("dnssec scan", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		ctx = registry.WithChannel(ctx, registry.Channel{Name: "cli"})
		enc := json.NewEncoder(stdout)
		for _, sc := range set.scanners(svc, nil, nil) {
			res, err := sc.Scan(ctx)
			for _, r := range res {
				line := map[string]any{"zone": sc.Zone, "domain": r.Name}
				if r.Err != nil {
					line["error"] = r.Err.Error()
				} else {
					line["outcome"] = r.Outcome.Outcome
					if r.Outcome.Reason != "" {
						line["reason"] = r.Outcome.Reason
					}
					if r.Outcome.Outcome == registry.CDSPending {
						line["seen"], line["since"] = r.Outcome.Seen, r.Outcome.Since
					}
					line["ds"] = r.Outcome.DS
				}
				if err := enc.Encode(line); err != nil {
					return err
				}
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// cdsWorker runs the CDS scanners of serve's -cds-* flags every interval
// (none for 0), their counters in reg.
func cdsWorker(ctx context.Context, svc *registry.Service, set *cdsSettings, interval time.Duration, reg prometheus.Registerer, log *slog.Logger) {
	if interval <= 0 || strings.TrimSpace(set.zones) == "" {
		return
	}
	m := cds.NewMetrics(reg)
	for _, sc := range set.scanners(svc, m, log) {
		go sc.Run(registry.WithChannel(ctx, registry.Channel{Name: "cds"}), interval)
	}
}
