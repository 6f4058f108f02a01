package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/whois"
)

// whoisFlags adds -whois, -whois-rate, -whois-burst, -whois-timeout and
// -whois-max-conns-per-addr to serve; the function it returns starts the WHOIS server (if -whois is
// set) and returns a function that stops it. docs/whois.md.
func whoisFlags(fs *flag.FlagSet) func(ctx context.Context, svc *registry.Service, log *slog.Logger, ann announcer, metrics prometheus.Registerer) (func(), error) {
	addr := fs.String("whois", os.Getenv("AKSHARA_WHOIS"), "serve WHOIS (RFC 3912) on `ADDRESS`, such as :43 (off by default)")
	perSecond := fs.Float64("whois-rate", 5, "WHOIS queries per second allowed from one client address (negative: no limit)")
	burst := fs.Int("whois-burst", 20, "WHOIS queries one client address may send at once before -whois-rate applies")
	timeout := fs.Duration("whois-timeout", 10*time.Second, "time a WHOIS client has to send its query line")
	perAddr := fs.Int("whois-max-conns-per-addr", 16, "at most `N` WHOIS connections at once from one client address (more are refused with a line; 0: no cap)")
	return func(ctx context.Context, svc *registry.Service, log *slog.Logger, ann announcer, metrics prometheus.Registerer) (func(), error) {
		if *addr == "" {
			return func() {}, nil
		}
		rate := *perSecond
		if rate == 0 {
			rate = -1 // 0 would mean the package default; the flag says no queries at all is not useful
		}
		maxPerAddr := *perAddr
		if maxPerAddr <= 0 {
			maxPerAddr = -1 // 0 would mean the package default
		}
		var notices []string
		if _, ok := svc.Staging(); ok { // a staging server's answers say so (clock.go)
			first, rest, _ := strings.Cut(registry.StagingNotice, ": ")
			notices = []string{first + ":", rest}
		}
		srv, err := whois.New(svc, whois.Options{Logger: log, Metrics: metrics, RateLimit: rate, RateBurst: *burst, ReadTimeout: *timeout, MaxConnsPerAddr: maxPerAddr, Notices: notices})
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return nil, err
		}
		log.Info("serving WHOIS", "addr", ln.Addr().String(), "rate", *perSecond, "burst", *burst, "max_conns_per_addr", *perAddr)
		ann.say(fmt.Sprintf("WHOIS on %s", ln.Addr()), "WHOIS on", "addr", ln.Addr().String())
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, whois.ErrServerClosed) {
				log.Error("WHOIS", "error", err)
			}
		}()
		return func() { srv.Close() }, nil
	}
}
