// Command bench runs akshara and its peers side by side on the same labels
// and prints ratios, so that every performance figure of the README can be
// measured again with one command:
//
//	go run ./bench                      # the Hindi mix of testdata/bench
//	go run -tags libidn2 ./bench        # with libidn2 through cgo (libidn2-dev)
//	go run ./bench -markdown            # the README's tables
//	go run ./bench -corpus ../shared/corpora/ne.txt -lang ne
//
// The peers, each over the same labels, in rounds that interleave them (so
// that a loaded machine slows them alike): a loop that only decodes the
// labels' UTF-8 (the floor), akshara's Valid and Check, x/net/idna's
// Registration.ToASCII in process, and libidn2's idn2_register_u8 (through
// cgo with -tags libidn2; else the idn2 command over the valid labels, its
// start-up time subtracted, since the command stops at the first invalid
// label). It also runs audit with -lang TAG and -lang auto over the labels
// repeated. Each figure is the median of the rounds; ratios are to Valid.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/audit"
	"github.com/akshara-idn/akshara/internal/benchdata"
)

// peer is one implementation under measurement. run checks every label
// and returns how many it accepts; it may do all the work in one call (a
// C loop) so that the crossing is not what is measured.
type peer struct {
	name  string
	note  string
	run   func(labels []string) int
	timed func(labels []string) (int, time.Duration) // instead of run: a peer that times itself
	valid bool                                       // measured over the valid labels only
}

// buildTags is how the command was built, for the tables' heading.
var buildTags = ""

// extraPeers are added by other files of the command (libidn2).
var extraPeers []func(mix, valid []string) (peer, bool)

type result struct {
	peer
	nsPerLabel []float64
	allocs     float64
	accepted   int
}

func main() {
	words := flag.String("words", "testdata/bench/hi-words.txt", "the Hindi words the default mix is made from")
	corpus := flag.String("corpus", "", "a word list (one label a line) to measure instead of the Hindi mix")
	tag := flag.String("lang", "hi", "the language to check in")
	rounds := flag.Int("rounds", 5, "rounds (each runs every peer once over all labels)")
	minTime := flag.Duration("time", 200*time.Millisecond, "least time of a peer in a round (the labels are repeated)")
	auditReps := flag.Int("audit-repeat", 20, "how many times audit reads the labels")
	markdown := flag.Bool("markdown", false, "print the README's tables")
	corpora := flag.String("languages", "", "a directory of word lists TAG.txt: measure Valid against the UTF-8 decode loop in every language instead")
	flag.Parse()
	if *corpora != "" {
		languages(*corpora, *rounds, *minTime, *markdown)
		return
	}

	l, err := akshara.Lookup(*tag)
	if err != nil {
		fail(err)
	}
	var mix, valid []string
	source := ""
	if *corpus != "" {
		if mix, err = benchdata.Lines(*corpus); err != nil {
			fail(err)
		}
		source = fmt.Sprintf("%s (%d labels)", *corpus, len(mix))
	} else {
		if mix, _, err = benchdata.Hindi(*words); err != nil {
			fail(err)
		}
		source = fmt.Sprintf("%s mix (%d labels)", *words, len(mix))
	}
	for _, s := range mix {
		if l.Valid(s) {
			valid = append(valid, s)
		}
	}

	peers := []peer{
		{name: "UTF-8 decode loop", note: "the floor: decodes the labels and does nothing else", run: decodeAll},
		{name: "akshara Valid", note: "every rule, verdict only", run: func(ls []string) int { return count(ls, l.Valid) }},
		{name: "akshara Valid (valid labels)", run: func(ls []string) int { return count(ls, l.Valid) }, valid: true},
		{name: "akshara Check", note: "full diagnostics, A-label, syllables", run: func(ls []string) int {
			return count(ls, func(s string) bool { return l.Check(s).Valid })
		}},
		{name: "akshara Check (valid labels)", run: func(ls []string) int {
			return count(ls, func(s string) bool { return l.Check(s).Valid })
		}, valid: true},
		{name: "x/net/idna Registration.ToASCII", note: "IDNA2008 only, no language policy", run: func(ls []string) int {
			return count(ls, func(s string) bool { _, err := idna.Registration.ToASCII(s); return err == nil })
		}},
	}
	for _, add := range extraPeers {
		if p, ok := add(mix, valid); ok {
			peers = append(peers, p)
		}
	}

	results := make([]*result, len(peers))
	for i, p := range peers {
		results[i] = &result{peer: p}
	}
	for r := 0; r < *rounds; r++ {
		for _, res := range results {
			labels := mix
			if res.valid {
				labels = valid
			}
			var ns, allocs float64
			var accepted int
			if res.timed != nil {
				var d time.Duration
				accepted, d = res.timed(labels)
				ns = float64(d.Nanoseconds()) / float64(len(labels))
			} else {
				ns, allocs, accepted = measure(res.run, labels, *minTime)
			}
			res.nsPerLabel = append(res.nsPerLabel, ns)
			res.allocs, res.accepted = allocs, accepted
		}
	}
	base := median(results[1].nsPerLabel)

	auditRates := measureAudit(l, mix, *auditReps, *rounds)

	if *markdown {
		printMarkdown(source, len(mix), len(valid), results, base, auditRates, l.Tag)
		return
	}
	fmt.Printf("labels: %s, %d valid in %s; %d rounds; GOMAXPROCS %d; clock: %s\n", source, len(valid), l.Tag, *rounds, runtime.GOMAXPROCS(0), clockName)
	for _, res := range results {
		fmt.Printf("%-40s %9.1f ns/label  %6.2f× Valid  %5.2f allocs/label  accepts %d  rounds %s\n",
			res.name, median(res.nsPerLabel), median(res.nsPerLabel)/base, res.allocs, res.accepted, spread(res.nsPerLabel))
	}
	for _, a := range auditRates {
		fmt.Printf("%-40s %9.2f M labels/s  rounds %s\n", a.name, median(a.rates)/1e6, spread(a.rates))
	}
	if len(auditRates) == 2 {
		fmt.Printf("audit -lang auto / -lang %s: %.0f%%\n", l.Tag, 100*median(auditRates[1].rates)/median(auditRates[0].rates))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

var sink int

func decodeAll(ls []string) int {
	n := 0
	for _, s := range ls {
		for _, r := range s {
			sink += int(r)
		}
		n++
	}
	return n
}

func count(ls []string, f func(string) bool) int {
	n := 0
	for _, s := range ls {
		if f(s) {
			n++
		}
	}
	return n
}

// measure runs f over the labels until it has used minTime of CPU and
// returns the CPU time and allocations per label (Go allocations only).
// The CPU time includes the garbage collector's, on every thread.
func measure(f func([]string) int, labels []string, minTime time.Duration) (ns, allocs float64, accepted int) {
	if len(labels) == 0 {
		return 0, 0, 0
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := cpuTime()
	n := 0
	for cpuTime()-start < minTime || n == 0 {
		accepted = f(labels)
		n += len(labels)
	}
	elapsed := cpuTime() - start
	runtime.ReadMemStats(&after)
	return float64(elapsed.Nanoseconds()) / float64(n), float64(after.Mallocs-before.Mallocs) / float64(n), accepted
}

type auditRate struct {
	name  string
	rates []float64
}

// measureAudit runs audit over the labels repeated, in the language and in
// auto mode, on every core. The rate is labels per second of CPU time times
// the cores: what the run would do alone on the machine.
func measureAudit(l *akshara.Language, labels []string, reps, rounds int) []*auditRate {
	data := bytes.Repeat([]byte(strings.Join(labels, "\n")+"\n"), reps)
	lines := float64(len(labels) * reps)
	rates := []*auditRate{{name: "audit -lang " + l.Tag}, {name: "audit -lang auto"}}
	for r := 0; r < rounds; r++ {
		for i, o := range []audit.Options{{Lang: l}, {}} {
			start := cpuTime()
			if _, err := audit.Run(context.Background(), bytes.NewReader(data), o, nil); err != nil {
				fail(err)
			}
			cpu := (cpuTime() - start).Seconds()
			rates[i].rates = append(rates[i].rates, lines/cpu*float64(runtime.GOMAXPROCS(0)))
		}
	}
	return rates
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func spread(xs []float64) string {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return "-"
	}
	if s[0] > 1e5 {
		return fmt.Sprintf("%.2f–%.2f M", s[0]/1e6, s[len(s)-1]/1e6)
	}
	return fmt.Sprintf("%.1f–%.1f", s[0], s[len(s)-1])
}

func printMarkdown(source string, n, nValid int, results []*result, base float64, audits []*auditRate, tag string) {
	fmt.Printf("`go run %s./bench -markdown` on %s, %d of them valid in %s; %d cores; %s; median of the rounds:\n\n",
		buildTags, source, nValid, tag, runtime.GOMAXPROCS(0), clockName)
	fmt.Println("| path | ns/label | × Valid | allocs/label | |")
	fmt.Println("|---|---|---|---|---|")
	for _, res := range results {
		fmt.Printf("| %s | %.0f | %.2f | %.1f | %s |\n", res.name, median(res.nsPerLabel), median(res.nsPerLabel)/base, res.allocs, res.note)
	}
	fmt.Println()
	fmt.Println("| audit run (all cores, CPU time × cores) | M labels/s |")
	fmt.Println("|---|---|")
	for _, a := range audits {
		fmt.Printf("| `%s` | %.2f (%s) |\n", a.name, median(a.rates)/1e6, spread(a.rates))
	}
	if len(audits) == 2 {
		fmt.Printf("\n`-lang auto` runs at %.0f%% of `-lang %s`.\n", 100*median(audits[1].rates)/median(audits[0].rates), tag)
	}
}

// languages measures, for every language with a word list in dir, Valid
// and Check against the decode loop over the list.
// wordLists lists the languages that have a word list DIR/TAG.txt. A
// missing DIR, a file that is not a directory, or a DIR without any list is
// an error (issue 22: the command printed an empty table for a folder that
// did not exist).
func wordLists(dir string) ([]string, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("-languages %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("-languages %s: not a directory", dir)
	}
	var tags []string
	for _, tag := range akshara.Tags() {
		_, err := os.Stat(filepath.Join(dir, tag+".txt"))
		if errors.Is(err, fs.ErrNotExist) {
			continue // a language without a list is left out
		}
		if err != nil {
			return nil, err
		}
		tags = append(tags, tag)
	}
	if len(tags) == 0 {
		return nil, fmt.Errorf("-languages %s: no word list TAG.txt for any language (%s)", dir, strings.Join(akshara.Tags(), " "))
	}
	return tags, nil
}

func languages(dir string, rounds int, minTime time.Duration, markdown bool) {
	tags, err := wordLists(dir)
	if err != nil {
		fail(err)
	}
	if markdown {
		fmt.Printf("`go run ./bench -languages DIR -markdown`: every language's word list; %s, median of %d rounds:\n\n", clockName, rounds)
		fmt.Println("| language | words | decode ns/label | Valid ns/label | Valid ÷ decode | Valid allocs/label (valid NFC words) | Check ÷ Valid |")
		fmt.Println("|---|---|---|---|---|---|---|")
	}
	for _, tag := range tags {
		words, err := benchdata.Lines(filepath.Join(dir, tag+".txt"))
		if err != nil {
			fail(err)
		}
		l, err := akshara.Lookup(tag)
		if err != nil {
			fail(err)
		}
		var valid []string
		for _, w := range words {
			if l.Valid(w) && norm.NFC.IsNormalString(w) {
				valid = append(valid, w)
			}
		}
		var dec, val, chk []float64
		var allocs float64
		for r := 0; r < rounds; r++ {
			ns, _, _ := measure(decodeAll, words, minTime)
			dec = append(dec, ns)
			ns, _, _ = measure(func(ls []string) int { return count(ls, l.Valid) }, words, minTime)
			val = append(val, ns)
			ns, _, _ = measure(func(ls []string) int { return count(ls, func(s string) bool { return l.Check(s).Valid }) }, words, minTime)
			chk = append(chk, ns)
			_, allocs, _ = measure(func(ls []string) int { return count(ls, l.Valid) }, valid, minTime/4)
		}
		d, v, c := median(dec), median(val), median(chk)
		if markdown {
			fmt.Printf("| %s | %d | %.0f | %.0f | %.2f | %.2f | %.1f |\n", tag, len(words), d, v, v/d, allocs, c/v)
		} else {
			fmt.Printf("%-8s %7d words  decode %6.1f  Valid %6.1f ns/label  Valid/decode %.2f  allocs (valid NFC) %.2f  Check/Valid %.1f\n", tag, len(words), d, v, v/d, allocs, c/v)
		}
	}
}
