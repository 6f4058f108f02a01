package main

// The registry lock's and the maintenance windows' operator commands
// (issue 38; docs/lifecycle.md "Registry lock", docs/epp.md
// "Maintenance"): akshara lock enrol|confirm|lock|unlock, akshara
// maintenance add|change|cancel|list.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

func init() {
	register(&command{name: "lock", order: 58, summary: "enrol|confirm|lock|unlock: the registry lock, confirmed by the registrant's one-time code",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdLock(args, stdout, stderr)
		}})
	register(&command{name: "maintenance", order: 59, summary: "add|change|cancel|list: maintenance windows, announced to every registrar (RFC 9167)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdMaintenance(args, stdout, stderr)
		}})
}

const lockUsage = `usage: akshara lock enrol [-db FILE | -dsn DSN] [-issuer NAME] CONTACT
       akshara lock confirm [-db FILE | -dsn DSN] CONTACT CODE
       akshara lock lock [-db FILE | -dsn DSN] NAME CODE
       akshara lock unlock [-db FILE | -dsn DSN] [-relock DURATION] NAME CODE

The registry lock (docs/lifecycle.md, "Registry lock"). enrol makes a new
TOTP secret (RFC 6238) for a registrant contact and prints its otpauth URI:
give it to the registrant (a QR code of it for an authenticator app), out
of band. confirm verifies it with the registrant's first code. lock sets
serverUpdateProhibited, serverDeleteProhibited and serverTransferProhibited
on the domain and its subordinate hosts, with a current code of the
domain's registrant; unlock lifts them for -relock (default 1h, at most
720h), after which the lifecycle worker locks the domain again. Every step
is audited; the sponsor gets a change poll message of the operator's lock
and unlock. A registrar asks for them over the HTTP API with the same code.

Flags:
`

func cmdLock(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, lockUsage, stderr, "enrol", "confirm", "lock", "unlock")
	if !ok {
		return exitUsage
	}
	fs := newFlags("lock "+sub, lockUsage, stderr)
	openStore := storeFlags(fs)
	issuer := fs.String("issuer", "akshara", "enrol: the registry's name in the otpauth URI")
	relock := fs.Duration("relock", registry.DefaultRelock, "unlock: how long until the relock")
	min := 2
	if sub == "enrol" {
		min = 1
	}
	if status, ok := parseFlags(fs, rest, min); !ok {
		return status
	}
	return withService("lock", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		ctx = registry.WithChannel(ctx, registry.Channel{Name: "cli"})
		switch sub {
		case "enrol":
			uri, err := svc.EnrolLock(ctx, fs.Arg(0), *issuer)
			if err != nil {
				return err
			}
			fmt.Fprintln(stderr, "give the registrant this URI out of band, then confirm with its first code (akshara lock confirm)")
			fmt.Fprintln(stdout, uri)
			return nil
		case "confirm":
			if err := svc.ConfirmLockEnrolment(ctx, fs.Arg(0), fs.Arg(1)); err != nil {
				return err
			}
			fmt.Fprintln(stderr, "the lock secret of contact", fs.Arg(0), "is verified")
			return nil
		}
		req := registry.DomainLockRequest{Name: fs.Arg(0), Code: fs.Arg(1), RelockAfter: *relock}
		var d *registry.Domain
		var err error
		if sub == "lock" {
			d, err = svc.LockDomain(ctx, nil, req)
		} else {
			d, err = svc.UnlockDomain(ctx, nil, req)
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(stderr, "statuses of", d.Name+":", strings.Join(svc.Statuses(d), " "))
		return json.NewEncoder(stdout).Encode(map[string]any{"name": d.Name, "statuses": svc.Statuses(d)})
	})
}

const maintenanceUsage = `usage: akshara maintenance add [-db FILE | -dsn DSN] -start TIME -end TIME -system NAME[:IMPACT[:HOST]]... [flags]
       akshara maintenance change [-db FILE | -dsn DSN] -id ID [the flags of add]
       akshara maintenance cancel [-db FILE | -dsn DSN] ID
       akshara maintenance list [-db FILE | -dsn DSN]

Maintenance windows (RFC 9167; docs/epp.md, "Maintenance"): add announces
one, change replaces its details, cancel withdraws it; each queues a poll
message to every registrar (<maint:infData> with its pollType create,
update or delete) and registrars read them with <maint:info>. TIME is
RFC 3339 (2031-03-01T02:00:00Z); IMPACT is full (the default), partial or
none. Prints the window (or the list) as JSON.

Flags:
`

// systemsFlag reads -system NAME[:IMPACT[:HOST]], repeated.
type systemsFlag []registry.MaintenanceSystem

func (s *systemsFlag) String() string { return fmt.Sprint(*s) }
func (s *systemsFlag) Set(v string) error {
	parts := strings.SplitN(v, ":", 3)
	sy := registry.MaintenanceSystem{Name: parts[0], Impact: "full"}
	if len(parts) > 1 && parts[1] != "" {
		sy.Impact = parts[1]
	}
	if len(parts) > 2 {
		sy.Host = parts[2]
	}
	*s = append(*s, sy)
	return nil
}

func cmdMaintenance(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, maintenanceUsage, stderr, "add", "change", "cancel", "list")
	if !ok {
		return exitUsage
	}
	fs := newFlags("maintenance "+sub, maintenanceUsage, stderr)
	openStore := storeFlags(fs)
	id := fs.String("id", "", "change: the window's id")
	name := fs.String("name", "", "a name for the window")
	start := fs.String("start", "", "when it starts (RFC 3339)")
	end := fs.String("end", "", "when it ends (RFC 3339)")
	reason := fs.String("reason", "planned", "planned or emergency")
	env := fs.String("environment", "production", "production, ote, staging or dev")
	desc := fs.String("description", "", "what is done")
	detail := fs.String("detail", "", "a URL with more")
	tlds := fs.String("tlds", "", "the zones it touches, comma-separated (none: all)")
	conn := fs.Bool("connection", false, "registrars must reconnect")
	impl := fs.Bool("implementation", false, "registrars must change their implementation")
	var systems systemsFlag
	fs.Var(&systems, "system", "a system it touches: NAME[:IMPACT[:HOST]] (repeat)")
	min := 0
	if sub == "cancel" {
		min = 1
	}
	if status, ok := parseFlags(fs, rest, min); !ok {
		return status
	}
	window := func() (registry.Maintenance, error) {
		m := registry.Maintenance{ID: *id, Name: *name, Systems: systems, Environment: *env, Reason: *reason, Detail: *detail,
			Description: *desc, Connection: *conn, Implementation: *impl}
		var err error
		if m.Start, err = time.Parse(time.RFC3339, *start); err != nil {
			return m, fmt.Errorf("-start: %w", err)
		}
		if m.End, err = time.Parse(time.RFC3339, *end); err != nil {
			return m, fmt.Errorf("-end: %w", err)
		}
		if *tlds != "" {
			m.TLDs = strings.Split(*tlds, ",")
		}
		return m, nil
	}
	return withService("maintenance", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		ctx = registry.WithChannel(ctx, registry.Channel{Name: "cli"})
		var out any
		var err error
		switch sub {
		case "list":
			out, err = svc.Maintenances(ctx)
		case "cancel":
			out, err = svc.CancelMaintenance(ctx, fs.Arg(0))
		default:
			m, werr := window()
			if werr != nil {
				return werr
			}
			if sub == "add" {
				out, err = svc.CreateMaintenance(ctx, m)
			} else {
				out, err = svc.UpdateMaintenance(ctx, m)
			}
		}
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(out)
	})
}
