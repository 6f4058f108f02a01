package akshara

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"golang.org/x/text/unicode/runenames"
)

// readLGR reads testdata/lgr/<script>.txt (made by internal/gen/lgrsets
// from ICANN's reference LGRs): for each code point, the LGRs that have it.
func readLGR(t *testing.T, script string) map[rune]string {
	t.Helper()
	f, err := os.Open("testdata/lgr/" + script + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[rune]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		cp, flags, _ := strings.Cut(line, " ")
		r, err := parseCodePoint(cp)
		if err != nil {
			t.Fatal(err)
		}
		m[r] = flags
	}
	return m
}

// TestLGRCrossCheck compares each language's repertoire with its script's
// Root Zone LGR (rz) and second-level reference LGR (sl). Every code point
// in one and not the other must be justified in the language file's
// lgr-cross-check section, and every justification must name a real
// difference. Run with -v for the report.
func TestLGRCrossCheck(t *testing.T) {
	langs, err := Languages()
	if err != nil {
		t.Fatal(err)
	}
	// ICANN has no LGR for these scripts (issue 13): their tables are
	// derived from CLDR and the Unicode Standard alone, and their files
	// have no lgr-cross-check section.
	noLGR := map[string]bool{"Olck": true, "Mtei": true}
	for _, l := range langs {
		if noLGR[l.Script] {
			if len(l.spec.lgrNotes) > 0 {
				t.Errorf("%s: script %s has no ICANN LGR, but the file has an lgr-cross-check section", l.Tag, l.Script)
			}
			t.Logf("%s: %d code points; ICANN has no LGR for the %s script", l.Tag, len(l.Repertoire()), l.Script)
			continue
		}
		lgr := readLGR(t, l.Script)
		diff := map[rune]string{}
		for _, m := range l.Repertoire() {
			flags := lgr[m.Rune]
			switch {
			case flags == "":
				diff[m.Rune] = "in " + l.Tag + ", in neither LGR"
			case !strings.Contains(flags, "sl"):
				diff[m.Rune] = "in " + l.Tag + ", not in the second-level LGR"
			case !strings.Contains(flags, "rz"):
				diff[m.Rune] = "in " + l.Tag + ", not in the root zone LGR"
			}
		}
		for r, flags := range lgr {
			if l.Class(r) == NoClass {
				diff[r] = "in the LGR (" + flags + "), not in " + l.Tag
			}
		}
		var cps []rune
		for r := range diff {
			cps = append(cps, r)
		}
		sort.Slice(cps, func(i, j int) bool { return cps[i] < cps[j] })
		var report strings.Builder
		for _, r := range cps {
			why, ok := l.spec.lgrNotes[r]
			if code, ref, refused := l.refusedBy(r); refused && !ok {
				why, ok = "refused as "+code.String()+" ("+string(ref)+")", true
			}
			if !ok {
				t.Errorf("%s: U+%04X %c %s: %s — not justified in lgr-cross-check", l.Tag, r, r, runenames.Name(r), diff[r])
				continue
			}
			fmt.Fprintf(&report, "\n  U+%04X %c %-40s %s: %s", r, r, runenames.Name(r), diff[r], why)
		}
		for r := range l.spec.lgrNotes {
			if _, real := diff[r]; !real {
				t.Errorf("%s: lgr-cross-check lists U+%04X, which is no difference from the LGRs", l.Tag, r)
			}
		}
		t.Logf("%s: %d code points, %d differences from the %s LGRs%s", l.Tag, len(l.Repertoire()), len(cps), l.Script, report.String())
	}
}
