package main

// The operator's commands on registrar accounts, prices and the
// registry's billing settings (docs/billing.md): account
// credit|adjust|show|entries|reconcile|set, price set|list, billing
// set|show. Each opens the store, does one thing (one transaction with
// its audit record) and closes it.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

func init() {
	register(&command{name: "account", order: 56, summary: "credit|adjust|show|entries|reconcile|set: registrars' prepaid accounts",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdAccount(args, stdout, stderr)
		}})
	register(&command{name: "price", order: 57, summary: "set|list: the zones' price lists",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdPrice(args, stdout, stderr)
		}})
	register(&command{name: "billing", order: 58, summary: "set|show: the registry's billing settings (GSTIN, state, GST rate)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdBilling(args, stdout, stderr)
		}})
}

const accountUsage = `usage: akshara account credit|adjust|show|entries|reconcile|set [-db FILE | -dsn DSN] [flags] ARGS

  credit REGISTRAR AMOUNT   add a payment received to the registrar's prepaid
                            account (AMOUNT in rupees: 1000 or 1000.50)
  adjust REGISTRAR AMOUNT   a correction, of either sign (-250.00), never
                            taking the balance below the credit limit
  show REGISTRAR            the account as one JSON object: balance (rupees,
                            a string such as "500.00"), credit_limit,
                            low_balance, currency, gstin, state
  entries REGISTRAR         the ledger, oldest first, one JSON object a line
                            (-after ID, -limit N, -since, -until)
  reconcile                 prove every balance is the sum of its ledger,
                            its chain of balances unbroken, every debit and
                            refund tied to its command's audit record; exit
                            1 if any account disagrees
  set REGISTRAR             the account's settings: -credit-limit AMOUNT
                            (postpaid), -low-balance AMOUNT (a poll message
                            when a charge takes the balance below it),
                            -gstin, -state (two-digit GST state code),
                            -legal-name

Every change is recorded in the audit log (akshara audit-log -action
account-credit).

Flags:
`

func cmdAccount(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, accountUsage, stderr, "credit", "adjust", "show", "entries", "reconcile", "set")
	if !ok {
		return exitUsage
	}
	fs := newFlags("account "+sub, accountUsage, stderr)
	openStore := storeFlags(fs)
	note := fs.String("note", "", "credit, adjust: a note kept with the entry (a payment's reference)")
	after := fs.Int64("after", 0, "entries: the entries after this `ID`")
	limit := fs.Int("limit", 0, "entries: at most `N` (0: all)")
	since := fs.String("since", "", "entries: from this RFC 3339 time")
	until := fs.String("until", "", "entries: before this RFC 3339 time")
	jsonOut := fs.Bool("json", false, "reconcile: JSON lines")
	credit := fs.String("credit-limit", "", "set: the credit limit in rupees (0: prepaid)")
	low := fs.String("low-balance", "", "set: the low-balance threshold in rupees (0: none)")
	gstin := fs.String("gstin", "\x00", "set: the registrar's GSTIN")
	state := fs.String("state", "\x00", "set: the registrar's GST state code (29, 07, …)")
	legal := fs.String("legal-name", "\x00", "set: the registrar's legal name, on its invoices")
	want := map[string]int{"credit": 2, "adjust": 2, "show": 1, "entries": 1, "reconcile": 0, "set": 1}[sub]
	if status, ok := parseFlags(fs, rest, want); !ok {
		return status
	}
	exit := exitOK
	status := withService("account", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		ctx = registry.WithChannel(ctx, registry.Channel{Name: "cli"})
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		switch sub {
		case "credit", "adjust":
			v := fs.Arg(1)
			if v == "--" && fs.NArg() > 2 {
				v = fs.Arg(2)
			}
			amount, err := registry.ParseMoney(v)
			if err != nil {
				return err
			}
			kind := registry.EntryCredit
			if sub == "adjust" {
				kind = registry.EntryAdjustment
			}
			e, err := svc.Credit(ctx, fs.Arg(0), amount, kind, *note)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "%s: ₹%s %s (entry %d); the balance is ₹%s\n", e.Registrar, e.Amount, kind, e.ID, e.Balance)
			return enc.Encode(e)
		case "show":
			a, err := svc.AccountOf(ctx, fs.Arg(0))
			if err != nil {
				return err
			}
			return enc.Encode(a)
		case "entries":
			r, err := svc.AccountOf(ctx, fs.Arg(0))
			if err != nil {
				return err
			}
			f := registry.LedgerFilter{RegistrarID: r.RegistrarID, AfterID: *after, Limit: *limit}
			now := time.Now()
			if f.Since, err = parseWhen(*since, now); err != nil {
				return err
			}
			if f.Until, err = parseWhen(*until, now); err != nil {
				return err
			}
			es, err := svc.Ledger(ctx, f)
			if err != nil {
				return err
			}
			for _, e := range es {
				if err := enc.Encode(e); err != nil {
					return err
				}
			}
			return nil
		case "reconcile":
			rs, err := svc.Reconcile(ctx)
			if err != nil {
				return err
			}
			bad := 0
			tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
			if !*jsonOut {
				fmt.Fprintln(tw, "REGISTRAR\tBALANCE\tLEDGER\tENTRIES\tBROKEN\tUNLINKED\tOK")
			}
			for _, r := range rs {
				if !r.OK() {
					bad++
				}
				if *jsonOut {
					if err := enc.Encode(struct {
						registry.Reconciliation
						OK bool `json:"ok"`
					}{r, r.OK()}); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%v\n", r.Registrar, r.Balance, r.LedgerSum, r.Entries, r.Broken, r.Unlinked, r.OK())
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if bad > 0 {
				fmt.Fprintf(stderr, "akshara account reconcile: %d of %d accounts disagree with their ledgers\n", bad, len(rs))
				exit = exitInvalid
				return nil
			}
			fmt.Fprintf(stderr, "%d accounts agree with their ledgers\n", len(rs))
		case "set":
			var set registry.AccountSettings
			for _, m := range []struct {
				v   string
				dst **registry.Money
			}{{*credit, &set.CreditLimit}, {*low, &set.LowBalance}} {
				if m.v == "" {
					continue
				}
				a, err := registry.ParseMoney(m.v)
				if err != nil {
					return err
				}
				*m.dst = &a
			}
			for _, s := range []struct {
				v   *string
				dst **string
			}{{gstin, &set.GSTIN}, {state, &set.State}, {legal, &set.LegalName}} {
				if *s.v != "\x00" {
					*s.dst = s.v
				}
			}
			a, err := svc.SetAccount(ctx, fs.Arg(0), set)
			if err != nil {
				return err
			}
			return enc.Encode(a)
		}
		return nil
	})
	if status != exitOK {
		return status
	}
	return exit
}

const priceUsage = `usage: akshara price set -zone ZONE -command create|renew|autorenew|transfer|restore
                         -years N -amount AMOUNT [-from RFC3339] [-label LABEL]
       akshara price list [-zone ZONE] [-json]

A price is in rupees (AMOUNT: 450 or 450.50) for a command and a period in
years, in force from -from (default: now) until a later price of the same
zone, command, years and label. A command uses the price in force at its
transaction's time; a period without a price of its own costs the 1-year
price times its years; an auto-renewal without one costs a renewal's. A
family's first zone prices the whole family (a zone's own price comes
first). -label gives one name (a premium name) a price of its own. A zone
without a price list charges nothing.

Flags:
`

func cmdPrice(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, priceUsage, stderr, "set", "list")
	if !ok {
		return exitUsage
	}
	fs := newFlags("price "+sub, priceUsage, stderr)
	openStore := storeFlags(fs)
	zone := fs.String("zone", "", "the `ZONE` (U-label or A-label)")
	cmd := fs.String("command", "", "set: create, renew, autorenew, transfer or restore")
	years := fs.Int("years", 1, "set: the period in years it prices")
	amount := fs.String("amount", "", "set: the price in rupees")
	from := fs.String("from", "", "set: when it takes effect (RFC 3339; default now)")
	label := fs.String("label", "", "set: a premium name's label (the price is for it alone)")
	jsonOut := fs.Bool("json", false, "list: JSON lines")
	if status, ok := parseFlags(fs, rest, 0); !ok {
		return status
	}
	if sub == "set" && (*zone == "" || *cmd == "" || *amount == "") {
		fmt.Fprintln(stderr, "akshara price set: -zone, -command and -amount are required")
		return exitUsage
	}
	return withService("price", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		ctx = registry.WithChannel(ctx, registry.Channel{Name: "cli"})
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		switch sub {
		case "set":
			a, err := registry.ParseMoney(*amount)
			if err != nil {
				return err
			}
			p := registry.Price{Zone: *zone, Command: *cmd, Years: *years, Amount: a, Label: *label}
			if *from != "" {
				if p.From, err = time.Parse(time.RFC3339Nano, *from); err != nil {
					return registry.Errorf(registry.CodeBadStatus, "-from %q is not an RFC 3339 time (2026-04-01T00:00:00+05:30)", *from)
				}
			}
			out, err := svc.SetPrice(ctx, p)
			if err != nil {
				return err
			}
			return enc.Encode(out)
		case "list":
			ps, err := svc.Prices(ctx, *zone)
			if err != nil {
				return err
			}
			if *jsonOut {
				for _, p := range ps {
					if err := enc.Encode(p); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "ZONE\tCOMMAND\tYEARS\tLABEL\tAMOUNT\tFROM")
			for _, p := range ps {
				l := p.Label
				if l == "" {
					l = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Zone, p.Command, strconv.Itoa(p.Years), l, p.Amount, p.From.Format(time.RFC3339))
			}
			return tw.Flush()
		}
		return nil
	})
}

const billingUsage = `usage: akshara billing set [-db FILE | -dsn DSN] KEY VALUE
       akshara billing show

The registry's billing settings, on its GST tax invoices (akshara
statement): name, address, gstin, state (the two-digit GST state code),
gst_rate (percent; 18 if unset), invoice_prefix.

Flags:
`

func cmdBilling(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, billingUsage, stderr, "set", "show")
	if !ok {
		return exitUsage
	}
	fs := newFlags("billing "+sub, billingUsage, stderr)
	openStore := storeFlags(fs)
	want := 0
	if sub == "set" {
		want = 2
	}
	if status, ok := parseFlags(fs, rest, want); !ok {
		return status
	}
	return withService("billing", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		ctx = registry.WithChannel(ctx, registry.Channel{Name: "cli"})
		if sub == "set" {
			if err := svc.SetBillingSetting(ctx, fs.Arg(0), fs.Arg(1)); err != nil {
				return err
			}
		}
		m, err := svc.BillingSettings(ctx)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(m)
	})
}
