package main

// The operator's commands of sessions and credentials (issue 38;
// docs/operations.md "Address allow-lists" and "EPP password lifetime"):
// registrar allow, epp-password-lifetime and epp-password-expire.

import (
	"context"
	"fmt"
	"io"

	"github.com/akshara-idn/akshara/registry"
)

// accessSubcommands are the registrar subcommands of this file.
var accessSubcommands = map[string]bool{"allow": true, "epp-password-lifetime": true, "epp-password-expire": true}

const accessUsage = `usage: akshara registrar allow [-db FILE | -dsn DSN] [-clear] NAME [CIDR…]
       akshara registrar epp-password-lifetime [-db FILE | -dsn DSN] NAME [LIFETIME|default]
       akshara registrar epp-password-lifetime [-db FILE | -dsn DSN] -registry [LIFETIME]
       akshara registrar epp-password-expire [-db FILE | -dsn DSN] NAME

allow sets registrar NAME's address allow-list: the CIDR prefixes (or
addresses) it may log in over EPP and use the HTTP API from, replacing the
list it had (at most 64; 0.0.0.0/0 and ::/0 are refused: that is no list).
-clear empties it: every address may (the default). Without CIDRs or
-clear it prints the list. A login from elsewhere is answered EPP 2501
(closing) and an API request 403, both ADDRESS_NOT_ALLOWED, after the
credentials; behind -trusted-proxy the client is the forwarded address.

epp-password-lifetime sets how long registrar NAME's EPP password lasts
after it is set: LIFETIME is days (90d), a duration (2160h) or never;
"default" follows the registry's lifetime, which -registry sets (none until
set). A login is warned 30, 7 and 1 days before the password expires, and
an expired one logs in only with a new password (<newPW>). Without
LIFETIME it prints the password's dates. A change of lifetime moves the
expiry of the password in force (the time it was set plus the lifetime).

epp-password-expire makes registrar NAME's EPP password expire now: its
next login must change it.

Each change, and each refused attempt, is recorded in the audit log
(actions registrar-allow, epp-password-lifetime, epp-password-expire).

Flags:
`

// cmdRegistrarAccess runs registrar allow, epp-password-lifetime and
// epp-password-expire.
func cmdRegistrarAccess(sub string, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("registrar "+sub, accessUsage, stderr)
	openStore := storeFlags(fs)
	clearList := fs.Bool("clear", false, "allow: empty the list (every address may)")
	whole := fs.Bool("registry", false, "epp-password-lifetime: the registry's lifetime, for the registrars without one of their own")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	if fs.NArg() < 1 && !(sub == "epp-password-lifetime" && *whole) {
		fs.Usage()
		return exitUsage
	}
	return withService("registrar "+sub, openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		switch sub {
		case "allow":
			return allow(ctx, svc, fs.Arg(0), fs.Args()[1:], *clearList, stdout)
		case "epp-password-expire":
			if err := svc.ExpireEPPPassword(ctx, fs.Arg(0)); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "EPP password of registrar %q expired: its next login must change it\n", fs.Arg(0))
			return nil
		}
		return lifetime(ctx, svc, *whole, fs.Args(), stdout)
	})
}

func allow(ctx context.Context, svc *registry.Service, name string, cidrs []string, clearList bool, stdout io.Writer) error {
	switch {
	case clearList && len(cidrs) > 0:
		return registry.Errorf(registry.CodeBadName, "-clear takes no CIDR")
	case clearList || len(cidrs) > 0:
		if err := svc.SetRegistrarAllowList(ctx, name, cidrs); err != nil {
			return err
		}
	}
	lists, err := svc.AllowLists(ctx)
	if err != nil {
		return err
	}
	l := lists[name]
	if len(l) == 0 {
		fmt.Fprintf(stdout, "registrar %q: every address (no allow-list)\n", name)
		return nil
	}
	fmt.Fprintf(stdout, "registrar %q: %s\n", name, registry.FormatAllowList(l))
	return nil
}

func lifetime(ctx context.Context, svc *registry.Service, whole bool, args []string, stdout io.Writer) error {
	if whole {
		if len(args) > 1 {
			return registry.Errorf(registry.CodeBadName, "-registry takes one LIFETIME")
		}
		if len(args) == 1 {
			if err := svc.SetEPPDefaultPasswordLifetimeText(ctx, args[0]); err != nil {
				return err
			}
		}
		d, err := svc.EPPDefaultPasswordLifetime(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "the registry's EPP password lifetime: %s\n", registry.FormatLifetime(d))
		return nil
	}
	name := args[0]
	if len(args) > 2 {
		return registry.Errorf(registry.CodeBadName, "one LIFETIME")
	}
	if len(args) == 2 {
		if err := svc.SetEPPPasswordLifetimeText(ctx, name, args[1]); err != nil {
			return err
		}
	}
	p, err := svc.EPPPasswordPolicyOf(ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "registrar %q: EPP password %s\n", name, p)
	return nil
}
