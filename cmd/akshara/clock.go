package main

// Staging (issue 34 item 14; docs/operations.md, Staging): a staging or
// OT&E registry moves its clock ahead of real time so that registrars can
// rehearse redemption, purge and transfer auto-approval without anyone
// editing the database. The offset lives in the database's settings
// (registry/staging.go): serve -staging follows it, akshara clock advance
// moves it, and every operator command on a staging database reads the
// registry's time with it.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

func init() {
	register(&command{name: "clock", order: 58, summary: "show|advance: a staging registry's clock (how far ahead of real time it runs)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdClock(args, stdout, stderr)
		}})
}

// stagingFollow is how often a staging server reads the clock's offset
// from the database.
const stagingFollow = time.Second

// newService makes an operator command's service: on a staging
// registry's database, with its clock (the offset it keeps), so that the
// command reads the same time as the servers.
func newService(ctx context.Context, store registry.Store) (*registry.Service, error) {
	return newServiceStaging(ctx, store, false)
}

// newServiceStaging is newService, on a staging clock even where the
// database keeps no offset yet when staging is set (akshara clock
// advance makes it a staging registry's).
func newServiceStaging(ctx context.Context, store registry.Store, staging bool) (*registry.Service, error) {
	return newServiceExempt(ctx, store, staging, nil)
}

// newServiceExempt is newServiceStaging whose contact policy does not bind
// the front ends exempt names (ServiceOptions.ContactsExempt: an explicit
// flag of the command, docs/contacts.md).
func newServiceExempt(ctx context.Context, store registry.Store, staging bool, exempt []string) (*registry.Service, error) {
	off, ok, err := registry.StoredClockOffset(ctx, store)
	if err != nil {
		return nil, err
	}
	if !ok && !staging {
		return registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: exempt})
	}
	return registry.NewServiceWith(ctx, store, registry.ServiceOptions{Clock: registry.NewStagingClock(registry.SystemClock{}, off), ContactsExempt: exempt})
}

// stagingOptions are serve's -staging and -clock-offset.
type stagingOptions struct {
	staging bool
	offset  string
}

func stagingFlags(fs *flag.FlagSet) *stagingOptions {
	o := &stagingOptions{}
	fs.BoolVar(&o.staging, "staging", false, "run as a staging (OT&E) server: the registry's clock runs ahead of real time by the offset the database keeps (akshara clock advance), and every answer says so (docs/operations.md, Staging). A database with an offset is refused without it")
	fs.StringVar(&o.offset, "clock-offset", "", "with -staging: move the staging clock to at least this `OFFSET` ahead of real time at start (30d, 36h, 1d12h); refused if it runs further already")
	return o
}

// clock returns serve's clock and the offset to move it to at start (0:
// none), or refuses: -clock-offset without -staging; a staging database
// served without -staging.
func (o *stagingOptions) clock(ctx context.Context, store registry.Store) (registry.Clock, time.Duration, error) {
	var atLeast time.Duration
	if o.offset != "" {
		if !o.staging {
			return nil, 0, errors.New("-clock-offset moves the clock of a staging server: it needs -staging (a production server's clock is the real time)")
		}
		d, err := registry.ParseOffset(o.offset)
		if err != nil {
			return nil, 0, fmt.Errorf("-clock-offset: %v", err)
		}
		atLeast = d
	}
	off, ok, err := registry.StoredClockOffset(ctx, store)
	if err != nil {
		return nil, 0, err
	}
	if !o.staging {
		if ok {
			return nil, 0, fmt.Errorf("this database is a staging registry's (its clock runs %s ahead of real time): serve it with -staging", registry.FormatOffset(off))
		}
		return nil, 0, nil
	}
	return registry.NewStagingClock(registry.SystemClock{}, off), atLeast, nil
}

// start moves a staging server's clock to the offset of -clock-offset and
// follows the database's offset until ctx ends; nothing for a production
// server.
func (o *stagingOptions) start(ctx context.Context, svc *registry.Service, atLeast time.Duration, log *slog.Logger) error {
	if !o.staging {
		return nil
	}
	if atLeast > 0 {
		cctx := registry.WithChannel(ctx, registry.Channel{Name: "cli"})
		if _, err := svc.MoveClock(cctx, registry.ClockChange{AtLeast: atLeast}); err != nil {
			return fmt.Errorf("-clock-offset: %w", err)
		}
	}
	off, _ := svc.Staging()
	log.Warn("STAGING server: the registry's clock runs ahead of real time (docs/operations.md, Staging)", "offset", registry.FormatOffset(off), "now", svc.Clock().Now().Format(time.RFC3339))
	go svc.FollowStagingClock(ctx, stagingFollow)
	return nil
}

const clockUsage = `usage: akshara clock show|advance [-db FILE | -dsn DSN] [-staging] [-run] [OFFSET]

A staging (OT&E) registry's clock runs ahead of real time by an offset the
database keeps, so that registrars can rehearse what takes weeks in
production: the end of a redemption period, a purge, a transfer approved
by the registry at the end of its period (docs/operations.md, Staging).

  show             the offset and the registry's time, as JSON ("staging":
                   false for a production database)
  advance OFFSET   move the clock ahead by OFFSET (30d, 36h, 1d12h; only
                   ahead: the registry's time never runs backwards). It
                   needs -staging, and marks the database as a staging
                   registry's: a server refuses to serve it without
                   -staging. Servers on the database (serve -staging)
                   follow within a second; their lifecycle and transfer
                   workers act at their next run. With -run, this command
                   runs both once at the new time. Recorded in the audit
                   log (action clock-advance)

Flags:
`

func cmdClock(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, clockUsage, stderr, "show", "advance")
	if !ok {
		return exitUsage
	}
	fs := newFlags("clock "+sub, clockUsage, stderr)
	openStore := storeFlags(fs)
	staging := fs.Bool("staging", false, "advance: this is a staging registry's database (required)")
	run := fs.Bool("run", false, "advance: then run the lifecycle worker and the approval of due transfers once, at the new time")
	min := 0
	if sub == "advance" {
		min = 1
	}
	if status, ok := parseFlags(fs, rest, min); !ok {
		return status
	}
	var by time.Duration
	if sub == "advance" {
		if !*staging {
			fmt.Fprintln(stderr, "akshara clock advance: refused: the clock of a production registry is the real time; give -staging to move a staging registry's clock")
			return exitUsage
		}
		d, err := registry.ParseOffset(fs.Arg(0))
		if err != nil {
			fmt.Fprintf(stderr, "akshara clock advance: %v\n", err)
			return exitUsage
		}
		by = d
	}
	ctx := context.Background()
	store, err := openStore(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "akshara clock %s: %v\n", sub, err)
		return exitUsage
	}
	defer store.Close()
	svc, err := newServiceStaging(ctx, store, sub == "advance")
	if err == nil {
		err = clockCommand(ctx, svc, sub, by, *run, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "akshara clock %s: %v\n", sub, err)
		var re *registry.Error
		if errors.As(err, &re) && re.Code != registry.CodeInternal {
			return exitInvalid // refused (CLOCK_BACKWARDS), as withService answers
		}
		return exitUsage
	}
	return exitOK
}

// clockCommand runs clock show or advance.
func clockCommand(ctx context.Context, svc *registry.Service, sub string, by time.Duration, run bool, stdout io.Writer) error {
	ctx = registry.WithChannel(ctx, registry.Channel{Name: "cli"})
	out := map[string]any{}
	if sub == "advance" {
		if _, err := svc.MoveClock(ctx, registry.ClockChange{By: by}); err != nil {
			return err
		}
		if run {
			rep, err := svc.RunLifecycle(ctx, 0)
			if err != nil {
				return err
			}
			n, err := svc.ApproveDueTransfers(ctx, 0)
			if err != nil {
				return err
			}
			out["lifecycle"], out["transfers_approved"] = rep, n
		}
	}
	off, ok := svc.Staging()
	out["staging"] = ok
	if ok {
		out["offset"], out["offset_seconds"] = registry.FormatOffset(off), int64(off/time.Second)
	}
	out["now"] = svc.Clock().Now().Format(time.RFC3339)
	return json.NewEncoder(stdout).Encode(out)
}
