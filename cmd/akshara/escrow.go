package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

  deposit [-db FILE | -dsn DSN] -type FULL|DIFF [-watermark RFC3339] -o DIR
          (-encrypt-to AGENT.asc -sign-with REGISTRY.sec.asc | -plain)
        write a deposit of the registry at the watermark (default: now) into
        DIR: NAME_DATE_full_Sn_R0.xml and its .rep.xml report, and sealed as
        Specification 2 asks, .ryde (tar, compressed, encrypted to the agent)
        and .sig (signed by the registry); -plain keeps the XML alone
  verify [-schema] [-verify-with REGISTRY.asc -decrypt-with AGENT.sec.asc] DIR|FILE…
        check deposits as an escrow agent does: the signature, complete,
        valid under the schemas (-schema: with xmllint), every reference
        held, counts equal (a DIR: every .xml and .ryde deposit in it)
  restore [-db FILE | -dsn DSN] [-verify-with … -decrypt-with …] DIR|DEPOSIT…
        verify, then write the deposit into an empty registry (one
        transaction); the report lists legacy names, exemptions and every
        disagreement of the recomputed conflict sets with the deposit's NNDN

  Each shows its progress on standard error: a line redrawn on a terminal,
  elsewhere (a timer's journal) a line every 10 s; -no-progress: none.
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
		typ := fs.String("type", "FULL", "deposit `TYPE`: FULL or DIFF (what changed since the last deposit)")
		wm := fs.String("watermark", "", "the deposit's watermark (`RFC3339`; default now)")
		out := fs.String("o", ".", "write into `DIR`")
		name := fs.String("name", "", "the deposits' `NAME` in their file names (default: each zone family's first TLD, A-label)")
		base := fs.String("lgr-base", "", "the `URL` the language tables are published under (/lgr/TAG.xml)")
		plain := fs.Bool("plain", false, "keep the XML alone: no .ryde and .sig (tests, drills)")
		encryptTo := fs.String("encrypt-to", "", "the escrow agent's OpenPGP public key `FILE`")
		signWith := fs.String("sign-with", "", "the registry's OpenPGP private key `FILE` (no passphrase)")
		noProgress := progressFlag(fs)
		if status, ok := parseFlags(fs, rest, 0); !ok {
			return status
		}
		if !*plain && (*encryptTo == "" || *signWith == "") {
			fmt.Fprintln(stderr, "akshara escrow deposit: -encrypt-to and -sign-with are required (or -plain)")
			return exitUsage
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
			prog := &escrow.Progress{}
			stop := showEscrowProgress(stderr, "escrow deposit", prog, *noProgress)
			deps, err := escrow.Deposit(ctx, svc, escrow.Options{Type: *typ, Watermark: at, Dir: *out, Name: *name, LGRBase: *base, Progress: prog})
			stop()
			if err != nil {
				return err
			}
			for _, res := range deps {
				if *plain {
					continue
				}
				to, err := escrow.ReadKeys(*encryptTo)
				if err != nil {
					return err
				}
				sign, err := escrow.ReadKeys(*signWith)
				if err != nil {
					return err
				}
				if res.Sealed, res.Signature, err = escrow.Seal(res.File, to, sign); err != nil {
					return err
				}
			}
			return json.NewEncoder(stdout).Encode(deps)
		})
	case "verify":
		fs := newFlags("escrow verify", escrowUsage, stderr)
		schema := fs.Bool("schema", true, "validate against the schemas with xmllint")
		keys := sealFlags(fs)
		noProgress := progressFlag(fs)
		if status, ok := parseFlags(fs, rest, 1); !ok {
			return status
		}
		o := escrow.VerifyOptions{Progress: &escrow.Progress{}}
		if *schema {
			p, err := exec.LookPath("xmllint")
			if err != nil {
				fmt.Fprintln(stderr, "akshara escrow verify: xmllint not found (Debian libxml2-utils); -schema=false skips the schema check")
				return exitUsage
			}
			o.Xmllint = p
		}
		files, err := depositFiles(fs.Args())
		if err != nil {
			fmt.Fprintf(stderr, "akshara escrow verify: %v\n", err)
			return exitUsage
		}
		status := exitOK
		stop := showEscrowProgress(stderr, "escrow verify", o.Progress, *noProgress)
		defer stop()
		for _, f := range files {
			v, err := keys.verify(f, o)
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
		keys := sealFlags(fs)
		noProgress := progressFlag(fs)
		if status, ok := parseFlags(fs, rest, 1); !ok {
			return status
		}
		files, err := depositFiles(fs.Args())
		if err != nil {
			fmt.Fprintf(stderr, "akshara escrow restore: %v\n", err)
			return exitUsage
		}
		return withService("escrow restore", openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
			var paths []string
			for _, f := range files {
				path, cleanup, err := keys.open(f)
				if err != nil {
					return err
				}
				defer cleanup()
				paths = append(paths, path)
			}
			prog := &escrow.Progress{}
			stop := showEscrowProgress(stderr, "escrow restore", prog, *noProgress)
			rep, err := escrow.Restore(ctx, svc, paths, escrow.VerifyOptions{Progress: prog})
			stop()
			if err != nil {
				return err
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		})
	}
}

// sealKeys are the keys to open a sealed deposit (.ryde) with.
type sealKeys struct{ verifyWith, decryptWith *string }

func sealFlags(fs *flag.FlagSet) *sealKeys {
	return &sealKeys{
		verifyWith:  fs.String("verify-with", "", "the registry's OpenPGP public key `FILE` (a .ryde deposit's signature)"),
		decryptWith: fs.String("decrypt-with", "", "the escrow agent's OpenPGP private key `FILE` (to decrypt a .ryde deposit)"),
	}
}

// open returns the XML of a deposit: the file itself, or a .ryde's,
// its signature verified, decrypted into a temporary directory that
// cleanup removes.
func (k *sealKeys) open(path string) (string, func(), error) {
	if !strings.HasSuffix(path, ".ryde") {
		return path, func() {}, nil
	}
	if *k.verifyWith == "" || *k.decryptWith == "" {
		return "", nil, fmt.Errorf("%s: a sealed deposit needs -verify-with and -decrypt-with", path)
	}
	pub, err := escrow.ReadKeys(*k.verifyWith)
	if err != nil {
		return "", nil, err
	}
	sec, err := escrow.ReadKeys(*k.decryptWith)
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "akshara-escrow-")
	if err != nil {
		return "", nil, err
	}
	x, err := escrow.Open(path, pub, sec, dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return x, func() { os.RemoveAll(dir) }, nil
}

func (k *sealKeys) verify(path string, o escrow.VerifyOptions) (*escrow.Verification, error) {
	x, cleanup, err := k.open(path)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	return escrow.Verify(x, o)
}

// depositFiles expands directories into the deposits they hold: every
// .ryde, and every .xml but reports (.rep.xml) that has no .ryde beside it.
func depositFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		ents, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			n := e.Name()
			switch {
			case strings.HasSuffix(n, ".ryde"):
				out = append(out, filepath.Join(a, n))
			case strings.HasSuffix(n, ".xml") && !strings.HasSuffix(n, ".rep.xml") && !strings.HasPrefix(n, "."):
				if _, err := os.Stat(filepath.Join(a, strings.TrimSuffix(n, ".xml")+".ryde")); err != nil {
					out = append(out, filepath.Join(a, n))
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no deposit in %s", strings.Join(args, " "))
	}
	return out, nil
}

func progressFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("no-progress", false, "show no progress on standard error")
}

// escrowProgressEvery is how often a progress line is written where
// standard error is not a terminal (a timer's journal).
var escrowProgressEvery = 10 * time.Second

// showEscrowProgress shows p on w until the returned stop is called:
// on a terminal one line redrawn, elsewhere a line every
// escrowProgressEvery ("akshara escrow deposit: reading the registry:
// 1.2M objects in 1m10s, 17.6k/s") and the last stage's line at stop.
// Off: nothing, and stop does nothing.
func showEscrowProgress(w io.Writer, cmd string, p *escrow.Progress, off bool) (stop func()) {
	if off {
		return func() {}
	}
	tty := isTerminal(w)
	every := escrowProgressEvery
	if tty {
		every = 200 * time.Millisecond
	}
	line := func() string {
		stage, began := p.Stage()
		if stage == "" {
			return ""
		}
		n, took := p.Objects(), time.Since(began)
		return fmt.Sprintf("akshara %s: %s: %s objects in %s, %s/s", cmd, stage, human(float64(n)), took.Round(time.Second), human(float64(n)/max(took.Seconds(), 0.001)))
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(every)
		defer tick.Stop()
		drawn := false
		for {
			select {
			case <-tick.C:
				l := line()
				switch {
				case l == "":
				case tty:
					fmt.Fprintf(w, "\r%s\x1b[K", l)
					drawn = true
				default:
					fmt.Fprintln(w, l)
				}
			case <-done:
				switch l := line(); {
				case drawn:
					fmt.Fprint(w, "\n")
				case !tty && l != "":
					fmt.Fprintln(w, l) // the last stage's total
				}
				return
			}
		}
	}()
	var once bool
	return func() {
		if !once {
			once = true
			close(done)
			<-finished
		}
	}
}
