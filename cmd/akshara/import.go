package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

func init() {
	register(&command{name: "import", order: 55, summary: "bulk import existing registrations into a zone (docs/import.md)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdImport(args, stdout, stderr)
		}})
}

const importUsage = `usage: akshara import [-db FILE | -dsn DSN] -zone ZONE [-registrar NAME] [-contacts FILE] [-contacts-exempt] [-conflicts exempt|refuse] [-allow-invalid] [-allow-reserved] [-create-registrars] FILE

Imports existing registrations into a zone: one name per line, or CSV
name,registrar[,lang[,created[,expires]]] with an optional header line
(docs/import.md); a name without an expiry date never expires until given one.
The zone's required contacts bind an import as they bind a create: with a
header, the columns registrant, admin, tech and billing name each name's
contacts, created first from -contacts FILE (CSV or TSV with a header: id,
registrar, name, org, street, city, sp, pc, cc, voice, email, auth_info, …);
a name without a required one is refused (CONTACT_REQUIRED) unless
-contacts-exempt is given. With -conflicts refuse, a name whose conflict set
meets another registrar's name is refused (CONFLICT) instead of exempted.
Every name is judged by the policy like a create: a valid name that conflicts
with nothing is registered; one that conflicts with a registered or earlier
name is kept, exempted with it; one the policy refuses is counted by rule code
and not imported (kept as legacy with -allow-invalid); one whose conflict set
meets a label the registry operator reserved (akshara reserve add) is refused
with RESERVED, as a create is (imported like any other with -allow-reserved).
Names are written in
batches, one transaction each, with a checkpoint: an interrupted import is
resumed by running it again, and running it twice changes nothing. Into a
zone whose family holds nothing yet, on SQLite, the import is built instead:
the whole file judged and decided first, then written in one transaction
with the indexes built after the rows (several times faster; interrupted, it
keeps nothing; -batched writes batches there too).

Exit status: 0 if every name was imported (or was there already), 1 if some
were refused, 2 on a usage, registrar or I/O error.

Flags:
`

func cmdImport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("import", importUsage, stderr)
	openStore := storeFlags(fs)
	zone := fs.String("zone", "", "the `ZONE` to import into (required), such as भारत or in")
	registrar := fs.String("registrar", "", "the registrar `NAME` of lines that name none")
	allowInvalid := fs.Bool("allow-invalid", false, "keep names the policy refuses, as legacy with their rule codes")
	allowReserved := fs.Bool("allow-reserved", false, "import names the registry operator reserved (or variants of them) instead of refusing them with RESERVED")
	createRegs := fs.Bool("create-registrars", false, "create the registrars the file names that do not exist (their tokens are printed once)")
	contactsFile := fs.String("contacts", "", "create the contacts of contacts `FILE` (CSV or TSV with a header) first, each as its registrar; the names file's registrant, admin, tech and billing columns name them (docs/import.md, Contacts)")
	contactsExempt := fs.Bool("contacts-exempt", false, "import names without the contacts the zone requires (an explicit exemption: WHOIS and RDAP show them without a registrant)")
	conflicts := fs.String("conflicts", registry.ImportConflictsExempt, "a name whose conflict set meets a registered or earlier name: exempt (kept, exempted with it) or refuse (refused with CONFLICT if that name is another registrar's; the same registrar's are exempted)")
	restart := fs.Bool("restart", false, "walk the whole file again instead of resuming after the last committed batch")
	batched := fs.Bool("batched", false, "write in batches even into a zone that holds nothing yet (where the import is otherwise built in one transaction, on SQLite): slower, but an interrupted import keeps its committed batches")
	batch := fs.Int("batch", 0, "names per transaction (0: the store's default, on SQLite 25,000, or 50,000 for a file of 16 MiB or more; 10,000 on PostgreSQL)")
	workers := fs.Int("workers", 0, "goroutines judging names (0: one per core)")
	refusedFile := fs.String("refused", "", "write the lines not imported (refused, duplicates) as JSON lines to `FILE`")
	asJSON := fs.Bool("json", false, "write the summary as JSON")
	noProgress := fs.Bool("no-progress", false, "never show a progress bar")
	if status, ok := parseFlags(fs, args, 1); !ok {
		return status
	}
	if *zone == "" || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "akshara import: -zone and exactly one FILE are required")
		fs.Usage()
		return exitUsage
	}
	path := fs.Arg(0)
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "akshara import: %v\n", err)
		return exitUsage
	}
	if *conflicts != registry.ImportConflictsExempt && *conflicts != registry.ImportConflictsRefuse {
		fmt.Fprintf(stderr, "akshara import: -conflicts %q: exempt or refuse\n", *conflicts)
		return exitUsage
	}
	if *contactsFile != "" {
		if _, err := os.Stat(*contactsFile); err != nil {
			fmt.Fprintf(stderr, "akshara import: -contacts: %v\n", err)
			return exitUsage
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	store, err := openStore(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "akshara import: opening the store: %v\n", err)
		return exitUsage
	}
	defer store.Close()
	svc, err := newService(ctx, store) // a staging registry's clock where it is one (clock.go)
	if err != nil {
		fmt.Fprintf(stderr, "akshara import: %v\n", err)
		return exitUsage
	}

	opts := registry.ImportOptions{Zone: *zone, Registrar: *registrar, AllowInvalid: *allowInvalid, AllowReserved: *allowReserved, CreateRegistrars: *createRegs,
		Restart: *restart, Batched: *batched, BatchSize: *batch, Workers: *workers, Progress: &registry.ImportProgress{},
		ContactsExempt: *contactsExempt, Conflicts: *conflicts}
	if *contactsFile != "" {
		opts.Contacts = func() (io.ReadCloser, error) { return os.Open(*contactsFile) }
	}
	if *refusedFile != "" {
		f, err := os.Create(*refusedFile)
		if err != nil {
			fmt.Fprintf(stderr, "akshara import: %v\n", err)
			return exitUsage
		}
		w := bufio.NewWriter(f)
		defer func() { w.Flush(); f.Close() }()
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		opts.Refused = func(r registry.ImportRefusal) { enc.Encode(r) }
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	// the stages of a built import, timed to a tenth of a second
	var stages []registry.ImportStage
	wg.Add(1)
	go func() {
		defer wg.Done()
		stages = watchStages(opts.Progress, done)
	}()
	if !*noProgress && isTerminal(stderr) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			showImportProgress(stderr, opts.Progress, done)
		}()
	}
	open := func() (io.ReadCloser, error) { return os.Open(path) }
	start := time.Now()
	sum, err := svc.Import(ctx, open, opts)
	if sum != nil {
		sum.SetElapsed(time.Since(start))
	}
	close(done)
	wg.Wait()
	if sum != nil && sum.Built {
		sum.Stages = stages
	}
	if sum != nil {
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			enc.Encode(sum)
		} else {
			writeImportSummary(stdout, sum)
		}
	}
	switch {
	case errors.Is(err, context.Canceled) && sum != nil && sum.Built:
		fmt.Fprintln(stderr, "akshara import: interrupted; nothing was written (an import into an empty zone is one transaction): run the same command again to start over, or give -batched")
		return exitUsage
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "akshara import: interrupted; the batches committed are kept: run the same command again to resume")
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "akshara import: %v\n", err)
		return exitUsage
	case sum.Refused > 0 || sum.ContactsRefused > 0:
		return exitInvalid
	}
	return exitOK
}

// watchStages times the stages of a built import (ImportProgress.Stage)
// until done.
func watchStages(p *registry.ImportProgress, done <-chan struct{}) []registry.ImportStage {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	out := []registry.ImportStage{{Stage: "reading and judging"}}
	start := time.Now()
	var last *string
	look := func() {
		if st := p.Stage.Load(); st != last && st != nil {
			last = st
			out[len(out)-1].Elapsed = time.Since(start)
			start = time.Now()
			out = append(out, registry.ImportStage{Stage: *st})
		}
	}
	for {
		select {
		case <-tick.C:
			look()
		case <-done:
			look()
			// the last stage ("done") is the reporting of refusals
			out[len(out)-1].Elapsed = time.Since(start)
			return out
		}
	}
}

// showImportProgress redraws one line on the terminal until done.
func showImportProgress(w io.Writer, p *registry.ImportProgress, done <-chan struct{}) {
	start := time.Now()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	draw := func() {
		if st := p.Stage.Load(); st != nil {
			// a built import, after the file was read and judged
			fmt.Fprintf(w, "\r%s: %s of %s domains written\x1b[K", *st, human(float64(p.Written.Load())), human(float64(p.ToWrite.Load())))
			return
		}
		lines, bytes, total := p.Lines.Load(), p.Bytes.Load(), p.Total.Load()
		rate := float64(lines) / time.Since(start).Seconds()
		if total <= 0 {
			fmt.Fprintf(w, "\rreading the file...\x1b[K")
			return
		}
		frac := min(float64(bytes)/float64(total), 1)
		const width = 30
		n := int(frac * width)
		fmt.Fprintf(w, "\r[%s%s] %3.0f%%  %s names  %s/s\x1b[K", strings.Repeat("=", n), strings.Repeat(" ", width-n), frac*100, human(float64(lines)), human(rate))
	}
	for {
		select {
		case <-tick.C:
			draw()
		case <-done:
			draw()
			fmt.Fprint(w, "\n")
			return
		}
	}
}

func writeImportSummary(w io.Writer, s *registry.ImportSummary) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "zone\t%s\n", s.Zone)
	fmt.Fprintf(tw, "source\tsha256:%s\n", s.Source)
	fmt.Fprintf(tw, "data version\t%s\n", s.DataVersion)
	fmt.Fprintf(tw, "records\t%d\n", s.Records)
	if s.Skipped > 0 {
		fmt.Fprintf(tw, "skipped\t%d\t(committed by an earlier run: resumed after them)\n", s.Skipped)
	}
	fmt.Fprintf(tw, "registered\t%d\n", s.Registered)
	fmt.Fprintf(tw, "exempted\t%d\n", s.Exempted)
	fmt.Fprintf(tw, "legacy\t%d\n", s.Legacy)
	for _, c := range s.LegacyByCode {
		fmt.Fprintf(tw, "  %s\t%d\n", c.Code, c.Count)
	}
	fmt.Fprintf(tw, "duplicates\t%d\n", s.Duplicates)
	fmt.Fprintf(tw, "refused\t%d\n", s.Refused)
	for _, c := range s.RefusedByCode {
		fmt.Fprintf(tw, "  %s\t%d\n", c.Code, c.Count)
	}
	if s.ContactsCreated+s.ContactsExisting+s.ContactsRefused > 0 {
		fmt.Fprintf(tw, "contacts\t%d created, %d there already, %d refused\n", s.ContactsCreated, s.ContactsExisting, s.ContactsRefused)
	}
	if s.Linked > 0 {
		fmt.Fprintf(tw, "with contacts\t%d\n", s.Linked)
	}
	if s.WithoutExpiry > 0 {
		fmt.Fprintf(tw, "without expiry\t%d\t(imported with no expiry date: they never expire until given one)\n", s.WithoutExpiry)
	} else {
		fmt.Fprintf(tw, "without expiry\t0\n")
	}
	if len(s.RegistrarsCreated) > 0 {
		names := make([]string, 0, len(s.RegistrarsCreated))
		for n := range s.RegistrarsCreated {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(tw, "registrars created\t%d\t(API tokens, shown this once:)\n", len(names))
		for _, n := range names {
			fmt.Fprintf(tw, "  %s\t%s\n", n, s.RegistrarsCreated[n])
		}
	}
	if s.LookAhead != "" {
		fmt.Fprintf(tw, "look-ahead\t%s\n", s.LookAhead)
	}
	if s.ReferenceChecks != "" {
		fmt.Fprintf(tw, "reference checks\t%s\n", s.ReferenceChecks)
	}
	for _, st := range s.Stages {
		fmt.Fprintf(tw, "  %s\t%.1fs\n", st.Stage, st.Elapsed.Seconds())
	}
	how := fmt.Sprintf("%d batches", s.Batches)
	if s.Built {
		how = "built in one transaction: the zone held nothing"
	}
	fmt.Fprintf(tw, "elapsed\t%.3fs\t(%s names/s, %s)\n", s.Elapsed.Seconds(), human(s.Rate), how)
	tw.Flush()
}
