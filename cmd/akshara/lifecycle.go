package main

// The lifecycle's operator commands (docs/lifecycle.md): akshara
// lifecycle run (one pass of the worker serve runs in the background) and
// akshara status (the operator's server* statuses).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

func init() {
	register(&command{name: "lifecycle", order: 56, summary: "run: move domains through expiry, auto-renew, redemption and purge",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdLifecycle(args, stdout, stderr)
		}})
	register(&command{name: "status", order: 57, summary: "add|rem|show: the operator's server* statuses of a domain",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdStatus(args, stdout, stderr)
		}})
}

const lifecycleUsage = `usage: akshara lifecycle run [-db FILE | -dsn DSN] [-limit N]

Moves every domain whose time has come through its lifecycle, as the
worker of "akshara serve" does every -lifecycle-interval: purges due (the
domain deleted and its whole conflict set freed), redemption periods
ended, expiries (auto-renewed for a year, or deleted where the zone does
not auto-renew). Each step of each domain is one transaction on the
revision it was decided on: it is safe to run while servers run, and
on several servers at once; a crash loses no step half done. Prints what
it did as JSON.

Flags:
`

func cmdLifecycle(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "run" {
		fmt.Fprint(stderr, lifecycleUsage)
		return exitUsage
	}
	fs := newFlags("lifecycle run", lifecycleUsage, stderr)
	openStore := storeFlags(fs)
	limit := fs.Int("limit", 1000, "domains per round")
	if status, ok := parseFlags(fs, args[1:], 0); !ok {
		return status
	}
	return withService("lifecycle", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		ctx = registry.WithChannel(ctx, registry.Channel{Name: "cli"})
		rep, err := svc.RunLifecycle(ctx, *limit)
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(rep)
	})
}

const statusUsage = `usage: akshara status add|rem [-db FILE | -dsn DSN] [-reason TEXT] NAME STATUS...
       akshara status show [-db FILE | -dsn DSN] NAME

Sets (add) or removes (rem) the operator's statuses of a domain:
serverHold, serverUpdateProhibited, serverDeleteProhibited,
serverRenewProhibited, serverTransferProhibited (RFC 5731 §2.3). A
registrar sets the client* statuses over EPP <update> or the HTTP API.
The sponsor gets a change poll message (RFC 8590) saying what changed,
who (the operator) and why (-reason). The registry lock sets the server
statuses of a domain and its hosts with the registrant's confirmation:
akshara lock.
show prints the domain's statuses and lifecycle dates as JSON.

Flags:
`

func cmdStatus(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, statusUsage, stderr, "add", "rem", "show")
	if !ok {
		return exitUsage
	}
	fs := newFlags("status "+sub, statusUsage, stderr)
	openStore := storeFlags(fs)
	reason := fs.String("reason", "", "why (at most 32 characters): the sponsor's change poll message says it")
	if status, ok := parseFlags(fs, rest, 1); !ok {
		return status
	}
	if fs.NArg() < 1 || (sub != "show" && fs.NArg() < 2) {
		fmt.Fprint(stderr, statusUsage)
		return exitUsage
	}
	return withService("status", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		ctx = registry.WithChannel(ctx, registry.Channel{Name: "cli"})
		name := fs.Arg(0)
		var d *registry.Domain
		var err error
		switch sub {
		case "add":
			d, err = svc.UpdateDomain(ctx, nil, registry.DomainUpdate{Name: name, AddStatuses: fs.Args()[1:], Reason: *reason})
		case "rem":
			d, err = svc.UpdateDomain(ctx, nil, registry.DomainUpdate{Name: name, RemStatuses: fs.Args()[1:], Reason: *reason})
		default:
			d, err = svc.Info(ctx, name)
		}
		if err != nil {
			return err
		}
		out := map[string]any{"name": d.Name, "statuses": svc.Statuses(d), "created": d.Created, "expires": d.Expires}
		if !d.PurgeAt.IsZero() {
			out["purge_at"] = d.PurgeAt
		}
		fmt.Fprintln(stderr, "statuses of", d.Name+":", strings.Join(svc.Statuses(d), " "))
		return json.NewEncoder(stdout).Encode(out)
	})
}

// lifecycleWorker runs the lifecycle worker every interval until ctx ends
// (0: never). Several servers may run it on one database.
func lifecycleWorker(ctx context.Context, svc *registry.Service, log *slog.Logger, interval time.Duration) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		rep, err := svc.RunLifecycle(ctx, 0)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("lifecycle worker", "error", err)
		case rep != nil && *rep != (registry.LifecycleReport{}):
			log.Info("lifecycle worker", "auto_renewed", rep.AutoRenewed, "expired", rep.Expired, "redemption_ended", rep.Redeemed, "purged", rep.Purged)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
