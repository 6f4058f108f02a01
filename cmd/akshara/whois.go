package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/whois"
)

// whoisFlags adds -whois, -whois-rate, -whois-burst and -whois-timeout to
// serve; the function it returns starts the WHOIS server (if -whois is
// set) and returns a function that stops it. docs/whois.md.
func whoisFlags(fs *flag.FlagSet) func(ctx context.Context, svc *registry.Service, log *slog.Logger, ann announcer, metrics prometheus.Registerer) (func(), error) {
	addr := fs.String("whois", os.Getenv("AKSHARA_WHOIS"), "serve WHOIS (RFC 3912) on `ADDRESS`, such as :43 (off by default)")
	perSecond := fs.Float64("whois-rate", 5, "WHOIS queries per second allowed from one client address (negative: no limit)")
	burst := fs.Int("whois-burst", 20, "WHOIS queries one client address may send at once before -whois-rate applies")
	timeout := fs.Duration("whois-timeout", 10*time.Second, "time a WHOIS client has to send its query line")
	return func(ctx context.Context, svc *registry.Service, log *slog.Logger, ann announcer, metrics prometheus.Registerer) (func(), error) {
		if *addr == "" {
			return func() {}, nil
		}
		rate := *perSecond
		if rate == 0 {
			rate = -1 // 0 would mean the package default; the flag says no queries at all is not useful
		}
		srv, err := whois.New(svc, whois.Options{Logger: log, Metrics: metrics, RateLimit: rate, RateBurst: *burst, ReadTimeout: *timeout})
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return nil, err
		}
		log.Info("serving WHOIS", "addr", ln.Addr().String(), "rate", *perSecond, "burst", *burst)
		ann.say(fmt.Sprintf("WHOIS on %s", ln.Addr()), "WHOIS on", "addr", ln.Addr().String())
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, whois.ErrServerClosed) {
				log.Error("WHOIS", "error", err)
			}
		}()
		return func() { srv.Close() }, nil
	}
}
