package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/akshara-idn/akshara"
)

func init() {
	register(&command{name: "lint", order: 70, summary: "check a language file and run its examples",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdLint(args, stdout, stderr)
		}})
}

const lintUsage = `usage: akshara lint FILE.lang ...

Loads each language file as akshara would (checking it against the policy's
invariants), prints what it defines, and runs its examples. For linguists
and developers writing a new language file (languages/README.md).

Exit status: 0 if every file loads and every example passes, 1 if an
example fails, 2 if a file cannot be read or is refused.
`

func cmdLint(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("lint", lintUsage, stderr)
	if status, ok := parseFlags(fs, args, 1); !ok {
		return status
	}
	status := exitOK
	for _, file := range fs.Args() {
		l, err := loadLanguageFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "akshara lint: %v\n", err)
			status = exitUsage
			continue
		}
		byClass := map[akshara.Class]int{}
		for _, m := range l.Repertoire() {
			byClass[m.Class]++
		}
		var classes []string
		for c, n := range byClass {
			classes = append(classes, fmt.Sprintf("%v:%d", c, n))
		}
		sort.Strings(classes)
		exs := l.Examples()
		fails := l.CheckExamples()
		fmt.Fprintf(stdout, "%s: %s (%s), script %s, k=%d, ccTLD %s, %d code points [%s], %d variant rows, %d examples, %d failing\n",
			file, l.Tag, l.Name, l.Script, l.K, l.CcTLD, len(l.Repertoire()), strings.Join(classes, " "),
			len(l.VariantRows()), len(exs), len(fails))
		for _, f := range fails {
			fmt.Fprintf(stdout, "  FAIL %s\n", f)
			if status == exitOK {
				status = exitInvalid
			}
		}
	}
	return status
}

// loadLanguageFile loads a language file from disk (not the embedded set).
func loadLanguageFile(file string) (*akshara.Language, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return akshara.LoadLanguage(file, data)
}
