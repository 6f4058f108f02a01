package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
)

func init() {
	register(&command{name: "reaudit", order: 56, summary: "judge every registered domain again under the current data (docs/import.md)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdReaudit(args, stdout, stderr)
		}})
}

const reauditUsage = `usage: akshara reaudit [-db FILE | -dsn DSN] [-langfile FILE ...] [-apply]

Judges every registered domain again under the current policy data (the
language files, zones file and homoglyph table compiled in, with the
-langfile replacements) and writes, as JSON lines on standard output, each
domain that has become invalid (with rule codes), newly conflicts with
another (with whom) or whose conflict set changed; a summary goes to
standard error. With -apply, the new conflict sets and exemptions (domains
that now conflict are kept, exempted with each other), data versions and
legacy codes are recorded, in one transaction per zone that holds creates
and deletes off from before it reads the zone until it commits (it may run
beside a serving registry; docs/import.md), rewriting only the sets that
changed, and the audit log gets a reaudit-apply record naming the data
version and conflict relation applied.

-apply takes only data this binary carries: a -langfile whose content
differs from the compiled-in file of its language is refused with -apply
(exit 2), since a server built without it would judge new names by other
data and recompute the conflict sets back at its next start. Use
-langfile without -apply to see what an edit would do; to apply it, build
the binary with the edited file (languages/) and run reaudit -apply with
that binary, or simply start its server.

The Go heap is held to a soft limit of 512 MiB (GOMEMLIMIT, if set, is
taken instead): the re-audit's memory does not grow with the zone, only
with the domains a change concerns, and the limit keeps the collector from
letting the heap reach twice that.

Exit status: 0 if nothing changed, 1 if some domain is listed, 2 on a usage
or store error.

Flags:
`

// langFiles is a repeatable -langfile flag.
type langFiles []string

func (l *langFiles) String() string     { return strings.Join(*l, ",") }
func (l *langFiles) Set(v string) error { *l = append(*l, v); return nil }

func cmdReaudit(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("reaudit", reauditUsage, stderr)
	openStore := storeFlags(fs)
	var files langFiles
	fs.Var(&files, "langfile", "judge with the language `FILE` instead of the compiled-in file of its language (repeatable)")
	apply := fs.Bool("apply", false, "record the new conflict sets, exemptions and data versions")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	opts, foreign, err := reauditData(files)
	if err != nil {
		fmt.Fprintf(stderr, "akshara reaudit: %v\n", err)
		return exitUsage
	}
	if *apply && len(foreign) > 0 {
		fmt.Fprintf(stderr, "akshara reaudit: -apply refused: %s differs from the data compiled into this binary (policy data %s); "+
			"a server of this binary would judge by its own data and recompute the conflict sets back at its next start. "+
			"Run without -apply to see what the file would change; to apply it, build akshara with it (languages/) and run reaudit -apply with that binary\n",
			strings.Join(foreign, ", "), akshara.DataVersions().Policy)
		return exitUsage
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(reauditMemoryLimit))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	store, err := openStore(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "akshara reaudit: opening the store: %v\n", err)
		return exitUsage
	}
	defer store.Close()
	svc, err := registry.NewServiceWith(ctx, store, opts)
	if err != nil {
		fmt.Fprintf(stderr, "akshara reaudit: %v\n", err)
		return exitUsage
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	sum, err := svc.Reaudit(ctx, *apply, func(f *registry.ReauditFinding) error { return enc.Encode(f) })
	if err != nil {
		fmt.Fprintf(stderr, "akshara reaudit: %v\n", err)
		return exitUsage
	}
	tw := tabwriter.NewWriter(stderr, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "data version\t%s\n", sum.DataVersion)
	fmt.Fprintf(tw, "domains\t%d\n", sum.Domains)
	fmt.Fprintf(tw, "invalid\t%d\n", sum.Invalid)
	for _, c := range sum.ByCode {
		fmt.Fprintf(tw, "  %s\t%d\n", c.Code, c.Count)
	}
	fmt.Fprintf(tw, "newly conflicting\t%d\n", sum.Conflicting)
	fmt.Fprintf(tw, "conflict set changed\t%d\n", sum.Changed)
	if sum.Applied {
		fmt.Fprintf(tw, "applied\tyes\n")
	} else {
		fmt.Fprintf(tw, "applied\tno (-apply records the new sets)\n")
	}
	tw.Flush()
	if sum.Invalid+sum.Conflicting+sum.Changed > 0 {
		return exitInvalid
	}
	return exitOK
}

// reauditMemoryLimit is the soft limit of the Go heap during a re-audit
// (runtime/debug.SetMemoryLimit) unless GOMEMLIMIT is set: what the
// re-audit holds is mostly without pointers (label bytes, fingerprints,
// numbers), cheap to collect, and at 10 M domains under a data change
// that made 1.8 M of them conflict the collector otherwise let the heap
// reach about twice the live one (1,057 MB peak RSS for the report).
const reauditMemoryLimit = 512 << 20

// reauditData is the service's data: the compiled-in languages with the
// -langfile replacements, and the version of that set; foreign lists the
// files whose content is not the compiled-in file of their language.
func reauditData(files []string) (opts registry.ServiceOptions, foreign []string, err error) {
	if len(files) == 0 {
		return registry.ServiceOptions{NoRecompute: true}, nil, nil
	}
	data := akshara.DataFiles()
	repl := map[string]*akshara.Language{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return registry.ServiceOptions{}, nil, err
		}
		l, err := akshara.LoadLanguage(f, b)
		if err != nil {
			return registry.ServiceOptions{}, nil, err
		}
		if _, err := akshara.Lookup(l.Tag); err != nil {
			return registry.ServiceOptions{}, nil, fmt.Errorf("%s: language %s is not one of the compiled-in languages: %w", f, l.Tag, err)
		}
		repl[strings.ToLower(l.Tag)] = l
		key := "languages/" + l.Tag + ".lang"
		if !bytes.Equal(data[key], b) {
			foreign = append(foreign, f)
		}
		data[key] = b
	}
	return registry.ServiceOptions{
		NoRecompute: true,
		DataVersion: akshara.VersionsOf(data).Policy,
		Lookup: func(tag string) (*akshara.Language, error) {
			if l := repl[strings.ToLower(tag)]; l != nil {
				return l, nil
			}
			return akshara.Lookup(tag)
		},
	}, foreign, nil
}

var _ flag.Value = (*langFiles)(nil)
