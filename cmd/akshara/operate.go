package main

// The registry operator's commands (docs/operations.md): registrar
// list|revoke|rotate, audit-log, reserve, zone and backup. Each opens the
// store, does one thing and closes it.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

func init() {
	register(&command{name: "audit-log", order: 52, summary: "print the registry's audit log as JSON lines, filtered",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdAuditLog(args, stdout, stderr)
		}})
	register(&command{name: "reserve", order: 53, summary: "add|remove|list: names held back per zone",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdReserve(args, stdout, stderr)
		}})
	register(&command{name: "zone", order: 54, summary: "list|add|export|publish|verify|follow|release: the zones of the registry and their DNS publication",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdZone(args, stdout, stderr)
		}})
	register(&command{name: "backup", order: 55, summary: "an online, consistent copy of a SQLite registry",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdBackup(args, stdout, stderr)
		}})
}

// withService opens the store, runs f on a service and closes the store;
// an error is printed as "akshara CMD: error" (exit 1 for a refusal by the
// registry, 2 for usage and I/O).
func withService(name string, open func(context.Context) (registry.Store, error), stderr io.Writer, f func(ctx context.Context, svc *registry.Service) error) int {
	return withServiceExempt(name, open, stderr, nil, f)
}

// withServiceExempt is withService with the zones' contact policy not
// binding the front ends exempt names (a command's -contacts-exempt).
func withServiceExempt(name string, open func(context.Context) (registry.Store, error), stderr io.Writer, exempt []string, f func(ctx context.Context, svc *registry.Service) error) int {
	ctx := context.Background()
	store, err := open(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "akshara %s: %v\n", name, err)
		return exitUsage
	}
	defer store.Close()
	svc, err := newServiceExempt(ctx, store, false, exempt) // a staging registry's clock where it is one (clock.go)
	if err == nil {
		err = f(ctx, svc)
	}
	if err != nil {
		fmt.Fprintf(stderr, "akshara %s: %v\n", name, err)
		var re *registry.Error
		if errors.As(err, &re) && re.Code != registry.CodeInternal {
			return exitInvalid
		}
		return exitUsage
	}
	return exitOK
}

// subcommand splits "cmd sub args": the subcommand must be one of subs.
func subcommand(args []string, usage string, stderr io.Writer, subs ...string) (string, []string, bool) {
	if len(args) > 0 {
		for _, s := range subs {
			if args[0] == s {
				return s, args[1:], true
			}
		}
	}
	fmt.Fprint(stderr, usage)
	return "", nil, false
}

const registrarOpsUsage = `usage: akshara registrar add|list|revoke|rotate|reinstate|abuse|allow|epp-password|epp-password-lifetime|epp-password-expire|epp-cert [-db FILE | -dsn DSN] [NAME]

  add NAME        create a registrar and print its API token (shown once)
  list            the registrars: id, name, created, revoked, domains (-json)
  revoke NAME     stop the registrar at once on every channel: its API token,
                  EPP logins, and its open EPP sessions (a running server
                  ends each at its next command, answering 2501); its
                  domains stay
  rotate NAME     give the registrar a new token (printed once); the old one
                  stops at once. A revoked registrar is refused (exit 1):
                  a rotation never lifts a revocation
  reinstate NAME  lift a revocation: the registrar may log in over EPP again
                  (same EPP password and certificate) and gets a new API
                  token (printed once); the token it had stays dead
  abuse [-email ADDRESS] [-phone +CC.NUMBER] NAME
                  record the registrar's abuse contact, which RDAP publishes
                  in the registrar entity of its domains and name servers
                  (role abuse; docs/rdap.md); a flag not given keeps its
                  value, an empty one removes it; with neither flag, print
                  it

  epp-password NAME and epp-cert NAME SHA256 set EPP credentials
  (akshara registrar epp-password -h); allow NAME CIDR… an address
  allow-list, epp-password-lifetime NAME LIFETIME and epp-password-expire
  NAME the EPP password's expiry (akshara registrar allow -h).

Every change, and every refused attempt, is recorded in the audit log with
its outcome (akshara audit-log -action registrar-revoke).
`

// cmdRegistrarOps runs registrar list|revoke|rotate|reinstate (add is in
// serve.go).
func cmdRegistrarOps(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, registrarOpsUsage, stderr, "list", "revoke", "rotate", "reinstate", "abuse")
	if !ok {
		return exitUsage
	}
	fs := newFlags("registrar "+sub, registrarOpsUsage, stderr)
	openStore := storeFlags(fs)
	jsonOut := fs.Bool("json", false, "list: JSON lines")
	abuseEmail := fs.String("email", "", "abuse: the abuse contact's email `ADDRESS`")
	abusePhone := fs.String("phone", "", "abuse: the abuse contact's telephone `NUMBER` (+CC.NUMBER, such as +91.1123456789)")
	if status, ok := parseFlags(fs, rest, subcommandArgs(sub)); !ok {
		return status
	}
	return withService("registrar", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		switch sub {
		case "revoke":
			if err := svc.RevokeRegistrar(ctx, fs.Arg(0)); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "registrar %q revoked: its token and EPP logins no longer work, and its open EPP sessions end at their next command\n", fs.Arg(0))
		case "rotate":
			token, err := svc.RotateToken(ctx, fs.Arg(0))
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "registrar %q has a new API token, shown this once (the old one no longer works):\n", fs.Arg(0))
			fmt.Fprintln(stdout, token)
		case "abuse":
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			pr, err := svc.PublicRegistrar(ctx, fs.Arg(0))
			if err != nil {
				return err
			}
			a := pr.Abuse
			if !set["email"] && !set["phone"] {
				if a.IsZero() {
					fmt.Fprintf(stdout, "registrar %q has no abuse contact\n", pr.Name)
				} else {
					fmt.Fprintf(stdout, "email: %s\nphone: %s\n", a.Email, a.Phone)
				}
				return nil
			}
			if set["email"] {
				a.Email = *abuseEmail
			}
			if set["phone"] {
				a.Phone = *abusePhone
			}
			if err := svc.SetRegistrarAbuse(ctx, pr.Name, a); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "registrar %q: abuse contact recorded (email %q, phone %q); RDAP shows it in the registrar entity\n", pr.Name, a.Email, a.Phone)
		case "reinstate":
			token, err := svc.ReinstateRegistrar(ctx, fs.Arg(0))
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "registrar %q reinstated: it may log in over EPP again; its new API token, shown this once (the one of before the revocation stays dead):\n", fs.Arg(0))
			fmt.Fprintln(stdout, token)
		case "list":
			rs, err := svc.Registrars(ctx)
			if err != nil {
				return err
			}
			if *jsonOut {
				enc := json.NewEncoder(stdout)
				enc.SetEscapeHTML(false)
				for _, r := range rs {
					if err := enc.Encode(r); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tCREATED\tREVOKED\tDOMAINS")
			for _, r := range rs {
				revoked := "-"
				if !r.Revoked.IsZero() {
					revoked = r.Revoked.Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\n", r.ID, r.Name, r.Created.Format(time.RFC3339), revoked, r.Domains)
			}
			return tw.Flush()
		}
		return nil
	})
}

const auditLogUsage = `usage: akshara audit-log [-db FILE | -dsn DSN] [-registrar NAME] [-name NAME]
       [-action ACTION] [-since TIME] [-until TIME] [-after ID] [-limit N]

Prints the audit log, oldest first, one JSON object a line:
{"id", "at", "registrar", "action", "name", "result"}. Actions: create,
delete, registrar-add, registrar-revoke, registrar-rotate,
registrar-reinstate, registrar-abuse, epp-password, epp-cert, reaudit-apply. TIME is RFC 3339
(2026-01-02T15:04:05Z) or a duration before now (24h). -after ID continues
from a record id (for paging or following).

Flags:
`

// parseWhen reads an RFC 3339 time or a duration before now.
func parseWhen(v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time nor a duration such as 24h", v)
	}
	return t, nil
}

func cmdAuditLog(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("audit-log", auditLogUsage, stderr)
	openStore := storeFlags(fs)
	var f registry.AuditFilter
	fs.StringVar(&f.Registrar, "registrar", "", "only this registrar's records")
	fs.StringVar(&f.Name, "name", "", "only records of this name (as recorded)")
	fs.StringVar(&f.Action, "action", "", "only this action")
	since := fs.String("since", "", "records at or after `TIME`")
	until := fs.String("until", "", "records before `TIME`")
	fs.Int64Var(&f.AfterID, "after", 0, "records after this record `ID`")
	fs.IntVar(&f.Limit, "limit", 0, "at most `N` records (0: all)")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	now := time.Now()
	var err error
	if f.Since, err = parseWhen(*since, now); err == nil {
		f.Until, err = parseWhen(*until, now)
	}
	if err != nil {
		fmt.Fprintf(stderr, "akshara audit-log: %v\n", err)
		return exitUsage
	}
	return withService("audit-log", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		es, err := svc.Audit(ctx, f)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		for _, e := range es {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return nil
	})
}

const reserveUsage = `usage: akshara reserve add|remove|list [-db FILE | -dsn DSN] [flags] [NAME]

  add NAME [-reason TEXT]  hold label.zone back: checks answer "reserved",
                           creates are refused with RESERVED (the name and
                           every name of its conflict set)
  remove NAME              release it
  list [-zone ZONE]        the reserved names (-json: JSON lines)

NAME is label.zone in any form (U-labels, A-labels); it is stored canonical.
A name registered before it was reserved stays registered.
`

func cmdReserve(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, reserveUsage, stderr, "add", "remove", "list")
	if !ok {
		return exitUsage
	}
	fs := newFlags("reserve "+sub, reserveUsage, stderr)
	openStore := storeFlags(fs)
	reason := fs.String("reason", "", "add: why the name is reserved")
	zone := fs.String("zone", "", "list: only this zone")
	jsonOut := fs.Bool("json", false, "list: JSON lines")
	if status, ok := parseFlags(fs, rest, subcommandArgs(sub)); !ok {
		return status
	}
	return withService("reserve", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		switch sub {
		case "add":
			r, err := svc.Reserve(ctx, fs.Arg(0), *reason)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "reserved %s.%s\n", r.Label, r.Zone)
		case "remove":
			if err := svc.Unreserve(ctx, fs.Arg(0)); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "released %s\n", fs.Arg(0))
		case "list":
			rs, err := svc.ReservedNames(ctx, *zone)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(stdout)
			enc.SetEscapeHTML(false)
			for _, r := range rs {
				if *jsonOut {
					if err := enc.Encode(r); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(stdout, "%s.%s\t%s\n", r.Label, r.Zone, r.Reason)
			}
		}
		return nil
	})
}

const zoneUsage = `usage: akshara zone list|add|export|publish|verify|follow|release [-db FILE | -dsn DSN] [flags] [ZONE]

  list                               the zones, one JSON object a line
  add ZONE -langs TAG,TAG [-ldh]     add a zone (a running server takes it
                                     on its next start)
  export -zone ZONE -ns NS,NS [-serial N] [-mname HOST] [-rname MAILBOX]
         [-ttl SECONDS] [-o FILE]    write the zone as an RFC 1035 master
                                     file (SOA, the zone's own NS, then NS,
                                     DS and glue of every domain with name
                                     servers; docs/delegation.md): the same
                                     data gives the same bytes
  publish -zone ZONE -ns NS,NS -o FILE [-knotc SOCKET | -reload CMD]
         [-max-drop PERCENT] [-force]
                                     write the zone file atomically with a
                                     serial above the old file's, then have
                                     Knot reload it; refused (exit 1) when
                                     more than -max-drop (10) percent of the
                                     old file's delegations would go
  verify -zone ZONE -server HOST[:PORT]
                                     transfer the zone (AXFR, by kdig) and
                                     list every NS, DS and glue record that
                                     differs from the registry's ("- " the
                                     registry's, "+ " the server's); exit 1
                                     when any does
  follow -dns-update HOST:PORT -dns-tsig NAME:ALG:SECRET -dns-zone ZONE[,ZONE…]
         [-dns-interval 1s] [-guard-floor N] [-guard-max-drop PERCENT]
                                     publish continuously: the registry's
                                     changes sent to the primary by DNS
                                     UPDATE (RFC 2136) every -dns-interval
                                     (as akshara serve -dns-update does)
  release -zone ZONE                 let the change guard's held drops go

The built-in zones are created on first start; more are data in the
store, added here.
`

func cmdZone(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, zoneUsage, stderr, "list", "add", "export", "publish", "verify", "follow", "release")
	if !ok {
		return exitUsage
	}
	switch sub {
	case "follow":
		return cmdZoneFollow(rest, stdout, stderr) // zonefollow.go
	case "release":
		return cmdZoneRelease(rest, stdout, stderr) // zonefollow.go
	}
	if sub == "export" {
		return cmdZoneExport(rest, stdout, stderr) // zoneexport.go
	}
	if sub == "publish" {
		return cmdZonePublish(rest, stdout, stderr) // zonepublish.go
	}
	if sub == "verify" {
		return cmdZoneVerify(rest, stdout, stderr) // zoneverify.go
	}
	fs := newFlags("zone "+sub, zoneUsage, stderr)
	openStore := storeFlags(fs)
	langs := fs.String("langs", "", "add: the zone's languages, comma-separated (akshara langs)")
	ldh := fs.Bool("ldh", false, "add: the zone also takes plain ASCII letter-digit-hyphen labels")
	if status, ok := parseFlags(fs, rest, subcommandArgs(sub)); !ok {
		return status
	}
	return withService("zone", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		if sub == "add" {
			var tags []string
			for _, t := range strings.Split(*langs, ",") {
				if t = strings.TrimSpace(t); t != "" {
					tags = append(tags, t)
				}
			}
			z, err := registry.NewZone(fs.Arg(0), tags, *ldh)
			if err != nil {
				return err
			}
			if err := svc.AddZone(ctx, z); err != nil {
				return err
			}
			enc := json.NewEncoder(stdout)
			enc.SetEscapeHTML(false)
			return enc.Encode(z)
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		for _, z := range svc.Zones() {
			if err := enc.Encode(z); err != nil {
				return err
			}
		}
		return nil
	})
}

const backupUsage = `usage: akshara backup [-db FILE] OUT

Writes an online, consistent copy of the SQLite registry -db to the new
file OUT (SQLite's VACUUM INTO: one read transaction, while the server
keeps serving). Restore by stopping the server and putting OUT in place of
the database file. For PostgreSQL use pg_dump (docs/operations.md).

Flags:
`

func cmdBackup(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("backup", backupUsage, stderr)
	db := fs.String("db", envOr("AKSHARA_DB", "akshara.db"), "SQLite database `FILE`")
	dsn := fs.String("dsn", os.Getenv("AKSHARA_DSN"), "(PostgreSQL: refused; use pg_dump)")
	if status, ok := parseFlags(fs, args, 1); !ok {
		return status
	}
	if *dsn != "" {
		fmt.Fprintln(stderr, "akshara backup: for PostgreSQL use pg_dump -Fc (docs/operations.md)")
		return exitUsage
	}
	if _, err := os.Stat(*db); err != nil {
		fmt.Fprintf(stderr, "akshara backup: %v\n", err)
		return exitUsage
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, *db)
	if err != nil {
		fmt.Fprintf(stderr, "akshara backup: %v\n", err)
		return exitUsage
	}
	defer store.Close()
	start := time.Now()
	if err := sqlite.Backup(ctx, store, fs.Arg(0)); err != nil {
		fmt.Fprintf(stderr, "akshara backup: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "backed up %s to %s in %v\n", *db, fs.Arg(0), time.Since(start).Round(time.Millisecond))
	return exitOK
}

// subcommandArgs is how many arguments an operator subcommand needs: none
// for list, the name for the others.
func subcommandArgs(sub string) int {
	if sub == "list" {
		return 0
	}
	return 1
}
