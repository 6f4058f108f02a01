// Command fidelity writes docs/fidelity.md: for each language, how the
// policy judges a corpus of real words (../shared/corpora/<tag>.txt, kept
// outside the repository for their licenses), and for each group of
// refusals whether it is the policy speaking or a bug (the judgments are
// docs/fidelity-notes.txt).
//
//	go run ./internal/cmd/fidelity -corpora ../shared/corpora -out docs/fidelity.md
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/akshara-idn/akshara"

	"github.com/akshara-idn/akshara/internal/inputdir"
)

type group struct {
	code     akshara.Code
	count    int
	examples []string
}

type stats struct {
	lang                       *akshara.Language
	words, accepted            int
	scriptOnly, scriptAccepted int // words of the script's letters and marks only
	scriptLangRules            int // of those, accepted with no minimum length (the language's own rules)
	groups                     map[akshara.Code]*group
}

func main() {
	corpora := flag.String("corpora", "", "folder of <tag>.txt word lists (required; for example ../shared/corpora)")
	notesFile := flag.String("notes", "docs/fidelity-notes.txt", "judgments of the refusal groups")
	out := flag.String("out", "docs/fidelity.md", "report to write")
	examples := flag.Int("examples", 4, "examples per group")
	flag.Parse()
	if err := inputdir.Require("corpora", *corpora, "the folder of the word lists TAG.txt"); err != nil {
		log.Fatal(err)
	}

	notes, err := readNotes(*notesFile)
	if err != nil {
		log.Fatal(err)
	}
	langs, err := akshara.Languages()
	if err != nil {
		log.Fatal(err)
	}
	var all []*stats
	for _, l := range langs {
		st, err := measure(l, filepath.Join(*corpora, l.Tag+".txt"), *examples)
		if err != nil {
			log.Fatal(err)
		}
		all = append(all, st)
	}
	var b strings.Builder
	writeReport(&b, all, notes)
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%d languages)\n", *out, len(all))
}

// readNotes reads "TAG CODE judgment" lines ("TAG SUMMARY text" is printed
// under the language's heading).
func readNotes(file string) (map[string]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	notes := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want TAG CODE judgment", file, n)
		}
		if _, ok := akshara.ParseCode(f[1]); !ok && f[1] != "SUMMARY" {
			return nil, fmt.Errorf("%s:%d: unknown code %q", file, n, f[1])
		}
		notes[f[0]+" "+f[1]] = strings.TrimSpace(f[2])
	}
	return notes, sc.Err()
}

// scriptOnly reports whether every code point of the NFC word is a letter
// or mark of the language's script (or a code point of its repertoire,
// such as U+02BC).
func scriptOnly(l *akshara.Language, w string, table *unicode.RangeTable) bool {
	for _, r := range norm.NFC.String(w) {
		if l.Class(r) != akshara.NoClass {
			continue
		}
		// The Arabic harakat (U+064B..U+065F, U+0670) have the script
		// property Inherited, but they are the Arabic script's marks.
		harakat := (r >= 0x064B && r <= 0x065F) || r == 0x0670
		if !(unicode.IsLetter(r) || unicode.IsMark(r)) || !(unicode.Is(table, r) || harakat && table == unicode.Arabic) {
			return false
		}
	}
	return true
}

var scriptTables = map[string]*unicode.RangeTable{
	"Beng": unicode.Bengali, "Deva": unicode.Devanagari, "Gujr": unicode.Gujarati, "Guru": unicode.Gurmukhi,
	"Knda": unicode.Kannada, "Mlym": unicode.Malayalam, "Orya": unicode.Oriya, "Taml": unicode.Tamil, "Telu": unicode.Telugu,
	"Arab": unicode.Arabic, "Olck": unicode.Ol_Chiki, "Mtei": unicode.Meetei_Mayek,
}

func measure(l *akshara.Language, file string, nExamples int) (*stats, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st := &stats{lang: l, groups: map[akshara.Code]*group{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		w := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(w) == "" {
			continue
		}
		st.words++
		res := l.CheckOptions(w, akshara.Options{Brief: true})
		only := scriptOnly(l, w, scriptTables[l.Script])
		if only {
			st.scriptOnly++
		}
		if res.Valid {
			st.accepted++
			if only {
				st.scriptAccepted++
				st.scriptLangRules++
			}
			continue
		}
		if only && l.CheckOptions(w, akshara.Options{Brief: true, MinLength: 1}).Valid {
			st.scriptLangRules++
		}
		seen := map[akshara.Code]bool{}
		for _, e := range res.Errors {
			if seen[e.Code] {
				continue
			}
			seen[e.Code] = true
			g := st.groups[e.Code]
			if g == nil {
				g = &group{code: e.Code}
				st.groups[e.Code] = g
			}
			g.count++
			if len(g.examples) < nExamples {
				g.examples = append(g.examples, w)
			}
		}
	}
	return st, sc.Err()
}

func pct(n, d int) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(n)/float64(d))
}

func writeReport(b *strings.Builder, all []*stats, notes map[string]string) {
	b.WriteString(`# Fidelity: the policy on real words

Generated by ` + "`go run ./internal/cmd/fidelity -corpora ../shared/corpora -out docs/fidelity.md`" + `
from the word lists of ` + "`../shared/corpora`" + ` (dictionaries, spell-checkers, translations; not
in this repository, for their licenses) and the judgments in
` + "`docs/fidelity-notes.txt`" + `. Do not edit by hand.

Columns: **accepted**: share of all words the language's policy accepts, with the .in
minimum length of 3 code points; **script-only**: words made only of letters and marks
of the language's script (no digits, punctuation, ZWJ/ZWNJ or other scripts), and the
share of them accepted; **language rules**: the same words with no minimum length (the
3-character minimum is the .in registry's rule, docs/policy.md §4, not the language's).
Target (issue 3): at least 98% of script-only words accepted for every corpus of more
than 10,000 words; the last column says whether the language's rules meet it.

| language | words | accepted | script-only words | accepted | language rules | ≥ 98% |
|---|---:|---:|---:|---:|---:|---|
`)
	for _, st := range all {
		target := "–"
		if st.words > 10000 {
			target = "no"
			if float64(st.scriptLangRules) >= 0.98*float64(st.scriptOnly) {
				target = "yes"
			}
		}
		fmt.Fprintf(b, "| %s (%s) | %d | %s | %d | %s | %s | %s |\n", st.lang.Tag, st.lang.Name, st.words,
			pct(st.accepted, st.words), st.scriptOnly, pct(st.scriptAccepted, st.scriptOnly), pct(st.scriptLangRules, st.scriptOnly), target)
	}
	b.WriteString("\nEach language's refusals follow, largest group first (a word counts once per rule it breaks).\n")
	for _, st := range all {
		fmt.Fprintf(b, "\n## %s: %s\n\n", st.lang.Tag, st.lang.Name)
		if sum := notes[st.lang.Tag+" SUMMARY"]; sum != "" {
			b.WriteString(sum + "\n\n")
		}
		var gs []*group
		for _, g := range st.groups {
			gs = append(gs, g)
		}
		sort.Slice(gs, func(i, j int) bool {
			if gs[i].count != gs[j].count {
				return gs[i].count > gs[j].count
			}
			return gs[i].code < gs[j].code
		})
		if len(gs) == 0 {
			b.WriteString("Every word accepted.\n")
			continue
		}
		b.WriteString("| rule | words | examples | judgment |\n|---|---:|---|---|\n")
		for _, g := range gs {
			note := notes[st.lang.Tag+" "+g.code.String()]
			if note == "" {
				if g.count*1000 >= st.words || g.count >= 20 {
					note = "**not judged yet**"
				} else {
					note = "small group"
				}
			}
			fmt.Fprintf(b, "| %s | %d | %s | %s |\n", g.code, g.count, strings.Join(g.examples, " "), note)
		}
	}
}
