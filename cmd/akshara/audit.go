package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/akshara-idn/akshara/audit"
)

func init() {
	register(&command{name: "audit", order: 30, summary: "summarize a large list of labels (all cores, bounded memory)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdAudit(args, stdin, stdout, stderr)
		}})
}

const auditUsage = `usage: akshara audit [-lang TAG|auto] [-json] [-workers N] [-examples N] FILE ...

Checks every label of the files (one label per line; "-" is standard input;
blank lines skipped, CRLF accepted) on every core, in bounded memory, and
prints a summary: labels, valid, invalid by rule code with examples, elapsed
time and labels per second. A progress bar is shown on the terminal when the
input is large and the output is not redirected.

Exit status: 0 if every label is valid, 1 if any is invalid, 2 on a usage
or I/O error.

Flags:
`

// progressThreshold is the input size from which a progress bar is shown.
const progressThreshold = 8 << 20

func cmdAudit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("audit", auditUsage, stderr)
	language := languageFlags(fs)
	asJSON := fs.Bool("json", false, "write the summary as JSON")
	workers := fs.Int("workers", 0, "goroutines checking labels (0: one per core)")
	examples := fs.Int("examples", 3, "example labels kept per rule code")
	noProgress := fs.Bool("no-progress", false, "never show a progress bar")
	if status, ok := parseFlags(fs, args, 1); !ok {
		return status
	}
	opts := audit.Options{Workers: *workers, Examples: *examples}
	var err error
	if opts.Lang, err = language(); err != nil {
		fmt.Fprintf(stderr, "akshara audit: %v\n", err)
		return exitUsage
	}

	// Open every input first: a missing file is an error before any work.
	var readers []io.Reader
	var total int64
	for _, name := range fs.Args() {
		if name == "-" {
			readers = append(readers, stdin)
			total = -1
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "akshara audit: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && total >= 0 {
			total += fi.Size()
		}
		readers = append(readers, f)
	}
	// Files are joined line-wise: a file without a final newline does not
	// run into the next one.
	var parts []io.Reader
	for i, r := range readers {
		if i > 0 {
			parts = append(parts, strings.NewReader("\n"))
		}
		parts = append(parts, r)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var prog audit.Progress
	done := make(chan struct{})
	var wg sync.WaitGroup
	if !*noProgress && isTerminal(stderr) && isTerminal(stdout) && (total < 0 || total >= progressThreshold) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			showProgress(stderr, &prog, total, done)
		}()
	}
	sum, err := audit.Run(ctx, io.MultiReader(parts...), opts, &prog)
	close(done)
	wg.Wait()
	if err != nil {
		fmt.Fprintf(stderr, "akshara audit: %v\n", err)
		return exitUsage
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(sum)
	} else {
		err = writeSummary(stdout, sum)
	}
	if err != nil {
		fmt.Fprintf(stderr, "akshara audit: %v\n", err)
		return exitUsage
	}
	if sum.Invalid > 0 {
		return exitInvalid
	}
	return exitOK
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// showProgress redraws one line on the terminal until done.
func showProgress(w io.Writer, p *audit.Progress, total int64, done <-chan struct{}) {
	start := time.Now()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	draw := func() {
		labels, bytes := p.Labels.Load(), p.Bytes.Load()
		rate := float64(labels) / time.Since(start).Seconds()
		if total > 0 {
			frac := float64(bytes) / float64(total)
			if frac > 1 {
				frac = 1
			}
			const width = 30
			n := int(frac * width)
			fmt.Fprintf(w, "\r[%s%s] %3.0f%%  %s labels  %s/s\x1b[K", strings.Repeat("=", n), strings.Repeat(" ", width-n), frac*100, human(float64(labels)), human(rate))
		} else {
			fmt.Fprintf(w, "\r%s labels  %s/s\x1b[K", human(float64(labels)), human(rate))
		}
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

func human(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1fG", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fk", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}

func writeSummary(w io.Writer, s *audit.Summary) error {
	pct := func(n int64) float64 {
		if s.Labels == 0 {
			return 0
		}
		return 100 * float64(n) / float64(s.Labels)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "language\t%s\n", s.Lang)
	fmt.Fprintf(tw, "labels\t%d\n", s.Labels)
	fmt.Fprintf(tw, "valid\t%d\t(%.2f%%)\n", s.Valid, pct(s.Valid))
	fmt.Fprintf(tw, "invalid\t%d\t(%.2f%%)\n", s.Invalid, pct(s.Invalid))
	for _, c := range s.ByCode {
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", c.Code, c.Count, strings.Join(c.Examples, "  "))
	}
	if len(s.ByLang) > 0 {
		fmt.Fprintf(tw, "accepted by\t\n")
		for _, l := range s.ByLang {
			fmt.Fprintf(tw, "  %s\t%d\t(%.2f%%)\n", l.Lang, l.Valid, pct(l.Valid))
		}
	}
	fmt.Fprintf(tw, "elapsed\t%.3fs\t(%s labels/s)\n", s.Elapsed.Seconds(), human(s.Rate))
	return tw.Flush()
}
