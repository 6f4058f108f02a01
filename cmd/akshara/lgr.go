package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/lgr"
)

func init() {
	register(&command{name: "lgr", order: 40, summary: "write a language's policy as an RFC 7940 LGR (XML)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdLGR(args, stdout, stderr)
		}})
}

const lgrUsage = `usage: akshara lgr [-lang TAG | -langfile FILE] [-date YYYY-MM-DD]
       akshara lgr -all -out DIR [-date YYYY-MM-DD]

Writes the language's IDN policy as an RFC 7940 Label Generation Ruleset
(docs/lgr.md) to standard output; with -all, writes every language to
DIR/TAG.xml, and DIR/versions.txt, the ledger of their versions. The
exports of the embedded languages are committed under lgr/ (go generate
./lgr). The RFC 7940 version is an integer: the one in lgr/versions.txt
when the export is the published one but for it, the next one otherwise.

Exit status: 0 on success, 2 on a usage or I/O error.

Flags:
`

var datePattern = regexp.MustCompile(`^\d{4}-\d\d-\d\d$`)

func cmdLGR(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("lgr", lgrUsage, stderr)
	language := languageFlags(fs)
	all := fs.Bool("all", false, "write every language to -out DIR")
	out := fs.String("out", "", "with -all, the `DIR` to write TAG.xml files to")
	date := fs.String("date", time.Now().UTC().Format("2006-01-02"), "the LGR's date (meta/date)")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	if fs.NArg() > 0 || *all != (*out != "") || !datePattern.MatchString(*date) {
		fs.Usage()
		return exitUsage
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "akshara lgr: %v\n", err)
		return exitUsage
	}
	opts := lgr.Options{Date: *date}
	if *all {
		ls, err := akshara.Languages()
		if err != nil {
			return fail(err)
		}
		var entries []lgr.LedgerEntry
		for _, l := range ls {
			data, e, err := lgr.ExportVersioned(l, opts)
			if err != nil {
				return fail(err)
			}
			if err := os.WriteFile(filepath.Join(*out, l.Tag+".xml"), data, 0o644); err != nil {
				return fail(err)
			}
			entries = append(entries, e)
		}
		if err := os.WriteFile(filepath.Join(*out, "versions.txt"), lgr.FormatLedger(entries), 0o644); err != nil {
			return fail(err)
		}
		return exitOK
	}
	l, err := language()
	if err != nil {
		return fail(err)
	}
	if l == nil {
		return fail(fmt.Errorf("-lang auto names no one language"))
	}
	data, err := lgr.Export(l, opts)
	if err != nil {
		return fail(err)
	}
	if _, err := stdout.Write(data); err != nil {
		return fail(err)
	}
	return exitOK
}
