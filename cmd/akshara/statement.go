package main

// The registry's monthly papers (docs/billing.md): a registrar's
// statement with its GST tax invoice (CSV or PDF), and a zone's monthly
// transaction report (CSV).

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/akshara-idn/akshara/billing"
	"github.com/akshara-idn/akshara/registry"
)

func init() {
	register(&command{name: "statement", order: 59, summary: "a registrar's monthly statement and GST tax invoice (CSV or PDF)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdStatement(args, stdout, stderr)
		}})
	register(&command{name: "report", order: 60, summary: "monthly: a zone's monthly transaction report (CSV)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdReport(args, stdout, stderr)
		}})
}

const statementUsage = `usage: akshara statement [-db FILE | -dsn DSN] -registrar NAME -month YYYY-MM [-format csv|pdf] [-o FILE]

A registrar's month (in IST): the opening balance, every ledger entry,
the closing balance, and the GST tax invoice of the month's charges (the
registry's settings: akshara billing set; the registrar's GSTIN and
state: akshara account set). CSV to standard output, or a PDF (-format
pdf, -o FILE).

Flags:
`

func cmdStatement(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("statement", statementUsage, stderr)
	openStore := storeFlags(fs)
	reg := fs.String("registrar", "", "the registrar")
	month := fs.String("month", "", "the month, YYYY-MM (IST)")
	format := fs.String("format", "csv", "csv or pdf")
	out := fs.String("o", "", "write to `FILE` instead of standard output")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	m, err := billing.ParseMonth(*month)
	if *reg == "" || err != nil || (*format != "csv" && *format != "pdf") {
		fmt.Fprintln(stderr, "akshara statement: -registrar, -month YYYY-MM and -format csv|pdf")
		return exitUsage
	}
	return withService("statement", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		st, err := billing.NewStatement(ctx, svc, *reg, m, time.Now())
		if err != nil {
			return err
		}
		return writeOut(*out, stdout, func(w io.Writer) error {
			if *format == "pdf" {
				return st.PDF(w)
			}
			return st.CSV(w)
		})
	})
}

const reportUsage = `usage: akshara report monthly [-db FILE | -dsn DSN] -zone ZONE -month YYYY-MM [-o FILE]

A zone's month (in IST), a row per registrar and a TOTAL row, as CSV:
ICANN's transaction-report columns (total-domains, total-nameservers,
net-adds and net-renews by years, transfers gained and lost, deletes in
and after grace, restores, attempted adds) and the IDN policy's (creates
per language, creates refused as blocked variants, exempt creates, the
variants freed by the month's purges).

Flags:
`

func cmdReport(args []string, stdout, stderr io.Writer) int {
	_, rest, ok := subcommand(args, reportUsage, stderr, "monthly")
	if !ok {
		return exitUsage
	}
	fs := newFlags("report monthly", reportUsage, stderr)
	openStore := storeFlags(fs)
	zone := fs.String("zone", "", "the zone")
	month := fs.String("month", "", "the month, YYYY-MM (IST)")
	out := fs.String("o", "", "write to `FILE` instead of standard output")
	if status, ok := parseFlags(fs, rest, 0); !ok {
		return status
	}
	m, err := billing.ParseMonth(*month)
	if *zone == "" || err != nil {
		fmt.Fprintln(stderr, "akshara report monthly: -zone and -month YYYY-MM")
		return exitUsage
	}
	return withService("report", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		rep, err := billing.NewReport(ctx, svc, *zone, m)
		if err != nil {
			return err
		}
		return writeOut(*out, stdout, rep.CSV)
	})
}

// writeOut writes through f to the file (made anew) or to stdout.
func writeOut(file string, stdout io.Writer, f func(io.Writer) error) error {
	if file == "" {
		return f(stdout)
	}
	fh, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := f(fh); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
