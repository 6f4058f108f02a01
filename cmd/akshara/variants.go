package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/akshara-idn/akshara"
)

func init() {
	register(&command{name: "variants", order: 20, summary: "list the variants of labels (homographs that conflict with them)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdVariants(args, stdin, stdout, stderr)
		}})
}

const variantsUsage = `usage: akshara variants [-lang TAG|auto] [-json] [LABEL ...]

Lists the variants of each LABEL (docs/policy.md §6): the labels the language's
variant table makes of it, that the language accepts. With no LABEL, reads
one label per line from standard input, like check.

Without -lang (or with -lang auto) each label's language is detected as
"check -lang auto" does: the first language of the label's script that
accepts it (Hindi first among the Devanagari languages), or for a label no
language accepts, the most permissive language of its script.

Text output: one line per label, tab-separated:
  LABEL  LANG  VARIANT (A-LABEL)  VARIANT (A-LABEL) ...
  LABEL  LANG  invalid: CODE@POS ...
JSON output (-json): one object per label with input, lang, ulabel,
variants (array of objects with ulabel and alabel) and errors.

Exit status: 0 if every label is valid, 1 if any is invalid, 2 on a usage
or I/O error.

Flags:
`

type variantJSON struct {
	ULabel string `json:"ulabel"`
	ALabel string `json:"alabel"`
}

type variantsResult struct {
	Input    string           `json:"input"`
	Lang     string           `json:"lang"`
	ULabel   string           `json:"ulabel"`
	Variants []variantJSON    `json:"variants"`
	Errors   []*akshara.Error `json:"errors"`
}

func cmdVariants(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("variants", variantsUsage, stderr)
	language := languageFlags(fs)
	// without -lang, each label's language is detected (-lang auto)
	lang := fs.Lookup("lang")
	lang.DefValue = "auto"
	lang.Value.Set("auto")
	asJSON := fs.Bool("json", false, "write one JSON object per label")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	l, err := language() // nil: detected for each label
	if err != nil {
		fmt.Fprintf(stderr, "akshara variants: %v\n", err)
		return exitUsage
	}
	w := bufio.NewWriterSize(stdout, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	status := exitOK
	emit := func(label string) error {
		l := l
		if l == nil { // detected: the language of check -lang auto's result
			d, err := akshara.Detect(label)
			if err != nil {
				return err
			}
			if l, err = akshara.Lookup(d.Result.Lang); err != nil {
				return err
			}
		}
		res := l.Check(label)
		out := variantsResult{Input: label, Lang: l.Tag, ULabel: res.ULabel, Variants: []variantJSON{}, Errors: res.Errors}
		if !res.Valid {
			status = exitInvalid
		}
		for _, v := range l.Variants(label) {
			out.Variants = append(out.Variants, variantJSON{v, l.Check(v).ALabel})
		}
		if *asJSON {
			return enc.Encode(out)
		}
		var b strings.Builder
		b.WriteString(printable(label) + "\t" + l.Tag)
		if !res.Valid {
			b.WriteString("\tinvalid:")
			for _, e := range res.Errors {
				fmt.Fprintf(&b, " %s@%d", e.Code, e.Pos)
			}
		}
		for _, v := range out.Variants {
			fmt.Fprintf(&b, "\t%s (%s)", v.ULabel, v.ALabel)
		}
		b.WriteByte('\n')
		_, err := io.WriteString(w, b.String())
		return err
	}
	return runLabels("variants", fs.Args(), stdin, w, stderr, emit, &status)
}
