package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

func init() {
	register(&command{name: "transfers", order: 57, summary: "policy|approve-due: a zone's transfer and lock periods; approve due transfers now",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdTransfers(args, stdout, stderr)
		}})
}

const transfersUsage = `usage: akshara transfers policy|approve-due [-db FILE | -dsn DSN] [flags]

  policy [-zone ZONE [-period DUR] [-lock DUR]]
        print a zone's transfer period (after which the registry approves a
        pending transfer itself; default 5d) and lock period (after a create
        or a transfer, when the domain cannot be transferred; default 60d),
        one line a zone: without -zone, every zone's; with -period or -lock
        (which need -zone), set them first. DUR is 5d, 36h, 0, …
  approve-due
        approve every pending transfer whose period has passed, now (what
        "akshara serve" does every minute; safe beside running servers)
`

// parseDays reads a duration that may be in days (5d) or Go's form (36h).
func parseDays(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

func cmdTransfers(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, transfersUsage, stderr, "policy", "approve-due")
	if !ok {
		return exitUsage
	}
	fs := newFlags("transfers "+sub, transfersUsage, stderr)
	openStore := storeFlags(fs)
	zone := fs.String("zone", "", "policy: the zone (none: every zone)")
	period := fs.String("period", "", "policy: set the transfer period")
	lock := fs.String("lock", "", "policy: set the lock period")
	if status, ok := parseFlags(fs, rest, 0); !ok {
		return status
	}
	if sub == "policy" && *zone == "" && (*period != "" || *lock != "") {
		fmt.Fprintln(stderr, "akshara transfers policy: -period and -lock set one zone's policy: give its -zone")
		return exitUsage
	}
	ctx := registry.WithChannel(context.Background(), registry.Channel{Name: "cli"})
	return withService("transfers", openStore, stderr, func(_ context.Context, svc *registry.Service) error {
		switch sub {
		case "policy":
			if *zone == "" {
				// every zone's policy, in the registry's order of zones
				for _, z := range svc.Zones() {
					p, l, err := svc.TransferPolicy(ctx, z.Name)
					if err != nil {
						return err
					}
					fmt.Fprintf(stdout, "%s\ttransfer period %s\tlock period %s\n", z.Name, days(p), days(l))
				}
				return nil
			}
			p, l, err := svc.TransferPolicy(ctx, *zone)
			if err != nil {
				return err
			}
			if *period != "" || *lock != "" {
				if *period != "" {
					if p, err = parseDays(*period); err != nil {
						return registry.Errorf(registry.CodeBadName, "-period: %v", err)
					}
				}
				if *lock != "" {
					if l, err = parseDays(*lock); err != nil {
						return registry.Errorf(registry.CodeBadName, "-lock: %v", err)
					}
				}
				if err := svc.SetTransferPolicy(ctx, *zone, p, l); err != nil {
					return err
				}
			}
			fmt.Fprintf(stdout, "%s\ttransfer period %s\tlock period %s\n", *zone, days(p), days(l))
		case "approve-due":
			n, err := svc.ApproveDueTransfers(ctx, 0)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "approved %d transfers\n", n)
		}
		return nil
	})
}

// days renders a duration in days when it is whole days.
func days(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	return d.String()
}
