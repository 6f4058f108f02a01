package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/akshara-idn/akshara"
)

func init() {
	register(&command{name: "check", order: 10, summary: "check labels against a language's IDN policy",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdCheck(args, stdin, stdout, stderr)
		}})
}

const checkUsage = `usage: akshara check [-lang TAG | -lgr FILE.xml] [-json] [LABEL ...]

Checks each LABEL (a U-label or an xn-- A-label) against the IDN policy of
the language TAG. With no LABEL, reads one label per line from standard
input (blank lines are skipped, CRLF line ends are accepted).

Text output: one line per label, tab-separated:
  LABEL  valid    LANG  A-LABEL  SYLLABLES
  LABEL  invalid  LANG  CODE@POS message [; CODE@POS message ...]
JSON output (-json): one object per label, in input order (docs/cli.md).
With -lgr, the labels are judged by an RFC 7940 LGR instead (docs/lgr.md):
  LABEL  valid    LANG  DISPOSITION  [variants=V1,V2,...]
  LABEL  invalid  LANG  RULE@POS message

Exit status: 0 if every label is valid, 1 if any is invalid, 2 on a usage
or I/O error.

Flags:
`

func cmdCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("check", checkUsage, stderr)
	language := languageFlags(fs)
	asJSON := fs.Bool("json", false, "write one JSON object per label")
	lgrFile := fs.String("lgr", "", "judge by the RFC 7940 LGR in `FILE.xml` instead of the policy (docs/lgr.md)")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	if *lgrFile != "" {
		return checkLGR(*lgrFile, *asJSON, fs.Args(), stdin, stdout, stderr)
	}
	l, err := language()
	if err != nil {
		fmt.Fprintf(stderr, "akshara check: %v\n", err)
		return exitUsage
	}
	// check returns the result for a label, and with -lang auto the
	// languages that accept it.
	check := func(label string) (*akshara.Result, []string, error) {
		if l != nil {
			return l.Check(label), nil, nil
		}
		d, err := akshara.Detect(label)
		if err != nil {
			return nil, nil, err
		}
		return d.Result, d.Langs, nil
	}

	w := bufio.NewWriterSize(stdout, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	status := exitOK
	emit := func(label string) error {
		res, langs, err := check(label)
		if err != nil {
			return err
		}
		if !res.Valid {
			status = exitInvalid
		}
		variants := []string{}
		if res.Valid {
			variants = labelVariants(l, langs, res.ULabel)
		}
		if *asJSON {
			if l == nil {
				return enc.Encode(autoResult{res, langs, variants})
			}
			return enc.Encode(checkResult{res, variants})
		}
		line := textLine(res)
		if res.Valid && l == nil {
			line = strings.TrimSuffix(line, "\n") + "\tlangs=" + strings.Join(langs, ",") + "\n"
		}
		if len(variants) > 0 {
			line = strings.TrimSuffix(line, "\n") + "\tvariants=" + strings.Join(variants, ",") + "\n"
		}
		_, err = io.WriteString(w, line)
		return err
	}

	return runLabels("check", fs.Args(), stdin, w, stderr, emit, &status)
}

// runLabels calls emit for each label argument, or with none for each line
// of stdin, then flushes w; it returns the exit status.
func runLabels(cmd string, labels []string, stdin io.Reader, w *bufio.Writer, stderr io.Writer, emit func(string) error, status *int) int {
	var err error
	if len(labels) > 0 {
		for _, label := range labels {
			if err = emit(label); err != nil {
				break
			}
		}
	} else {
		err = eachLine(stdin, w, emit)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "akshara %s: %v\n", cmd, err)
		return exitUsage
	}
	return *status
}

// eachLine calls f for every non-blank line of r, without its line end
// (LF or CRLF). Output is flushed whenever more input must be waited for,
// so an interactive user sees each answer at once.
func eachLine(r io.Reader, w *bufio.Writer, f func(string) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		if br.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			if strings.TrimSpace(line) != "" {
				if ferr := f(line); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// textLine renders a result as one tab-separated line.
func textLine(res *akshara.Result) string {
	var b strings.Builder
	b.WriteString(printable(res.Input))
	if res.Valid {
		b.WriteString("\tvalid\t" + res.Lang + "\t")
		if res.ALabel != "" {
			b.WriteString(res.ALabel)
		} else {
			b.WriteString("-")
		}
		b.WriteString("\t" + strings.Join(res.Syllables, "·"))
		if res.Normalized {
			b.WriteString("\t(normalized to NFC: " + res.ULabel + ")")
		}
	} else {
		b.WriteString("\tinvalid\t" + res.Lang + "\t")
		for i, e := range res.Errors {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s@%d %s", e.Code, e.Pos, e.Message)
		}
	}
	b.WriteByte('\n')
	return b.String()
}

// printable replaces tabs, line ends and invalid UTF-8 in a label so that
// the text output stays one line per label.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return '�'
		}
		return r
	}, strings.ToValidUTF8(s, "�"))
}

// checkResult is the JSON of check: the result, and the label's variants
// (for a valid label).
type checkResult struct {
	*akshara.Result
	Variants []string `json:"variants"`
}

// autoResult is the JSON of -lang auto: the result, every language that
// accepts the label, and its variants in all of them.
type autoResult struct {
	*akshara.Result
	Langs    []string `json:"langs"`
	Variants []string `json:"variants"`
}

// labelVariants returns the variants of a valid label in l, or with -lang
// auto (l == nil) in every language that accepts it, sorted.
func labelVariants(l *akshara.Language, langs []string, ulabel string) []string {
	if l != nil {
		return append([]string{}, l.Variants(ulabel)...)
	}
	seen := map[string]bool{}
	out := []string{}
	for _, tag := range langs {
		vl, err := akshara.Lookup(tag)
		if err != nil {
			continue
		}
		for _, v := range vl.Variants(ulabel) {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out
}
