package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/akshara-idn/akshara/escrow"
	"github.com/akshara-idn/akshara/registry"
)

func init() {
	register(&command{name: "escrow", order: 58, summary: "deposit|verify|restore: registry data escrow (RFC 8909/9022, docs/escrow.md)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdEscrow(args, stdout, stderr)
		}})
}

const escrowUsage = `usage: akshara escrow deposit|verify|restore …

  deposit [-db FILE | -dsn DSN] -type FULL [-watermark RFC3339] -o DIR [-plain]
        write a deposit of the registry at the watermark (default: now) into DIR
  verify [-schema] FILE…
        check deposits as an escrow agent does: complete, valid under the
        schemas (-schema: with xmllint), every reference held, counts equal
  restore [-db FILE | -dsn DSN] DEPOSIT…
        verify, then write the deposit into an empty registry (one
        transaction); the report lists legacy names, exemptions and every
        disagreement of the recomputed conflict sets with the deposit's NNDN
`

func cmdEscrow(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, escrowUsage, stderr, "deposit", "verify", "restore")
	if !ok {
		return exitUsage
	}
	switch sub {
	case "deposit":
		fs := newFlags("escrow deposit", escrowUsage, stderr)
		openStore := storeFlags(fs)
		typ := fs.String("type", "FULL", "deposit `TYPE`: FULL")
		wm := fs.String("watermark", "", "the deposit's watermark (`RFC3339`; default now)")
		out := fs.String("o", ".", "write into `DIR`")
		name := fs.String("name", "akshara", "the deposit's `NAME` in its file names")
		base := fs.String("lgr-base", "", "the `URL` the language tables are published under (/lgr/TAG.xml)")
		fs.Bool("plain", true, "write the XML unencrypted (encryption is not built yet)")
		if status, ok := parseFlags(fs, rest, 0); !ok {
			return status
		}
		at := time.Now().UTC()
		if *wm != "" {
			t, err := time.Parse(time.RFC3339, *wm)
			if err != nil {
				fmt.Fprintf(stderr, "akshara escrow deposit: -watermark: %v\n", err)
				return exitUsage
			}
			at = t
		}
		return withService("escrow deposit", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
			res, err := escrow.Deposit(ctx, svc, escrow.Options{Type: *typ, Watermark: at, Dir: *out, Name: *name, LGRBase: *base})
			if err != nil {
				return err
			}
			return json.NewEncoder(stdout).Encode(res)
		})
	case "verify":
		fs := newFlags("escrow verify", escrowUsage, stderr)
		schema := fs.Bool("schema", true, "validate against the schemas with xmllint")
		if status, ok := parseFlags(fs, rest, 1); !ok {
			return status
		}
		o := escrow.VerifyOptions{}
		if *schema {
			p, err := exec.LookPath("xmllint")
			if err != nil {
				fmt.Fprintln(stderr, "akshara escrow verify: xmllint not found (Debian libxml2-utils); -schema=false skips the schema check")
				return exitUsage
			}
			o.Xmllint = p
		}
		status := exitOK
		for _, f := range fs.Args() {
			v, err := escrow.Verify(f, o)
			if err != nil {
				fmt.Fprintf(stderr, "akshara escrow verify: %v\n", err)
				status = exitInvalid
				continue
			}
			fmt.Fprintf(stdout, "%s: ok (%s, schema %v)\n", f, v.Type, v.Schema)
		}
		return status
	default: // restore
		fs := newFlags("escrow restore", escrowUsage, stderr)
		openStore := storeFlags(fs)
		if status, ok := parseFlags(fs, rest, 1); !ok {
			return status
		}
		if fs.NArg() != 1 {
			fmt.Fprintln(stderr, "akshara escrow restore: one FULL deposit (DIFF deposits are not built yet)")
			return exitUsage
		}
		return withService("escrow restore", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
			rep, err := escrow.Restore(ctx, svc, fs.Arg(0), escrow.VerifyOptions{})
			if err != nil {
				return err
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		})
	}
}
