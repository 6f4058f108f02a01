package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/akshara-idn/akshara"
)

func init() {
	register(&command{name: "langs", order: 60, summary: "list the languages with a policy",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdLangs(args, stdout, stderr)
		}})
}

// langInfo is one row of `akshara langs`.
type langInfo struct {
	Tag        string `json:"tag"`
	Name       string `json:"name"`
	Native     string `json:"native"`
	Script     string `json:"script"`
	Repertoire int    `json:"repertoire"`
	K          int    `json:"k"`
	CcTLD      string `json:"cctld"`
	CcTLDA     string `json:"cctld_alabel"`
}

func cmdLangs(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("langs", "usage: akshara langs [-json]\n\nLists every language with a policy: tag, name, script, repertoire size, k, ccTLD.\n\nFlags:\n", stderr)
	asJSON := fs.Bool("json", false, "write a JSON array")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	langs, err := akshara.Languages()
	if err != nil {
		fmt.Fprintf(stderr, "akshara langs: %v\n", err)
		return exitUsage
	}
	rows := make([]langInfo, 0, len(langs))
	for _, l := range langs {
		row := langInfo{Tag: l.Tag, Name: l.Name, Native: l.Native, Script: l.Script,
			Repertoire: len(l.Repertoire()), K: l.K, CcTLD: l.CcTLD}
		if l.CcTLD != "" {
			row.CcTLDA = l.Check(l.CcTLD).ALabel
		}
		rows = append(rows, row)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			fmt.Fprintf(stderr, "akshara langs: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TAG\tNAME\tSCRIPT\tREPERTOIRE\tK\tCCTLD")
	for _, r := range rows {
		cctld := "–" // Ol Chiki and Meetei Mayek have no ccTLD of their own
		if r.CcTLD != "" {
			cctld = r.CcTLD + " (" + r.CcTLDA + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", r.Tag, r.Name, r.Script, r.Repertoire, r.K, cctld)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(stderr, "akshara langs: %v\n", err)
		return exitUsage
	}
	return exitOK
}
