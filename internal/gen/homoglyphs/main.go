// Command homoglyphs derives the cross-script homoglyph table
// (homoglyphs/indic.txt) from its two sources, for pairs of the Indic
// scripts:
//
//   - the cross-script variants of ICANN's Root Zone LGR (RZ-LGR-5,
//     common LGR, RFC 7940 XML): `rz-lgr-5`;
//   - Unicode's confusables (UTS #39 confusables.txt): a source mapped to
//     a prototype, and two sources mapped to the same prototype: `uts39`.
//
// Where the sources agree (a pair in both) the row is kept. Where they
// disagree (a pair in one only) the two sequences are rendered with
// pango-view in the system's default fonts for each script (Debian
// fonts-indic: Lohit, Noto) and compared: the ink of each, cropped and
// scaled to 32×32, overlap as intersection over union; the row is kept
// when that is at least -keep, and written as a comment (dropped, with its
// score) otherwise. Every row records its sources and score. The kept
// rows are then closed (closeRows): a row that would make two sequences
// alike through a third, when those two are not a row (or are of one
// script), is dropped, best rows first. -close does only that, on the
// table as written; -measure DIR reports, over word lists, the pairs of
// labels the compiled-in table leaves alike through a third label without
// a conflict (a closed table leaves none).
//
//	go run ./internal/gen/homoglyphs -shared ../shared -out homoglyphs/indic.txt
//
// Without pango-view the disagreeing rows are left out, each commented
// `not rendered`.
package main

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/akshara-idn/akshara/internal/gen/pango"

	"github.com/akshara-idn/akshara/internal/inputdir"
)

var indic = []struct {
	code  string
	table *unicode.RangeTable
}{
	{"Deva", unicode.Devanagari}, {"Beng", unicode.Bengali}, {"Guru", unicode.Gurmukhi},
	{"Gujr", unicode.Gujarati}, {"Orya", unicode.Oriya}, {"Taml", unicode.Tamil},
	{"Telu", unicode.Telugu}, {"Knda", unicode.Kannada}, {"Mlym", unicode.Malayalam},
	// issue 25: the other left-to-right scripts of zone in. Neither source
	// pairs them with these scripts; their rows are reviewed renderings
	// (`review`, carried over from the table: reviewRows). Arabic is not
	// here: a label's twins map it letter by letter in logical order,
	// which for a right-to-left, joining script is not the order or the
	// shapes a reader sees (docs/variants.md).
	{"Olck", unicode.Ol_Chiki}, {"Mtei", unicode.Meetei_Mayek},
}

// scriptOf returns the one Indic script of every code point of s, or "".
func scriptOf(s string) string {
	sc := ""
	for _, r := range s {
		c := ""
		for _, in := range indic {
			if unicode.Is(in.table, r) {
				c = in.code
			}
		}
		if c == "" || (sc != "" && c != sc) {
			return ""
		}
		sc = c
	}
	return sc
}

func decode(hex string) string {
	var b strings.Builder
	for _, f := range strings.Fields(hex) {
		v, err := strconv.ParseUint(f, 16, 32)
		if err != nil {
			log.Fatalf("bad code point %q", f)
		}
		b.WriteRune(rune(v))
	}
	return b.String()
}

func hexOf(s string) string {
	var f []string
	for _, r := range s {
		f = append(f, fmt.Sprintf("%04X", r))
	}
	return strings.Join(f, " ")
}

type pair struct{ a, b string } // a < b

func mk(a, b string) pair {
	if b < a {
		a, b = b, a
	}
	return pair{a, b}
}

type lgrDoc struct {
	Chars []struct {
		CP   string `xml:"cp,attr"`
		Vars []struct {
			CP      string `xml:"cp,attr"`
			Type    string `xml:"type,attr"`
			Comment string `xml:"comment,attr"`
		} `xml:"var"`
	} `xml:"data>char"`
}

func main() {
	shared := flag.String("shared", "", "the shared reference directory, with refdata/ and unicode/ (required; for example ../shared)")
	out := flag.String("out", "homoglyphs/indic.txt", "the table to write")
	keepLGR := flag.Float64("keep-lgr", 0.55, "the rendering score (0..1) at which a pair only RZ-LGR-5 gives is kept")
	keepUTS := flag.Float64("keep-uts", 0.85, "the rendering score (0..1) at which a pair only UTS #39 gives is kept")
	flag.IntVar(&grid, "grid", grid, "the raster renderings are compared on (cells a side)")
	flag.IntVar(&radius, "radius", radius, "how many cells apart ink still counts as overlapping")
	score := flag.String("score", "", "print the rendering score of each pair A=B of this space-separated list, and stop")
	closeOnly := flag.Bool("close", false, "only close the relation of the table at -out as written (its recorded scores; nothing rendered), and stop")
	measureDir := flag.String("measure", "", "only report, over the word lists *.txt of this directory, the pairs of labels alike through a third label that do not conflict under the compiled-in table (zone in), and stop")
	verbose := flag.Bool("v", false, "with -measure: list the pairs")
	flag.Parse()
	if *measureDir != "" {
		measure(*measureDir, *verbose)
		return
	}
	if *closeOnly {
		closeFile(*out)
		return
	}
	if *score != "" {
		for _, p := range strings.Fields(*score) {
			a, b, _ := strings.Cut(p, "=")
			fmt.Printf("%s = %s   render=%.2f\n", a, b, overlap(a, b))
		}
		return
	}
	if err := inputdir.Require("shared", *shared, "the reference folder with refdata/icann-lgr-django and unicode/confusables.txt"); err != nil {
		log.Fatal(err)
	}

	sources := map[pair][]string{}
	add := func(a, b, src string) {
		sa, sb := scriptOf(a), scriptOf(b)
		if sa == "" || sb == "" || sa == sb {
			return
		}
		p := mk(a, b)
		for _, s := range sources[p] {
			if s == src {
				return
			}
		}
		sources[p] = append(sources[p], src)
	}

	lgrPath := filepath.Join(*shared, "refdata/icann-lgr-django/root-zone-lgr-5/lgr-5-common-26may22-en.xml")
	data, err := os.ReadFile(lgrPath)
	if err != nil {
		log.Fatal(err)
	}
	var doc lgrDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		log.Fatalf("%s: %v", lgrPath, err)
	}
	for _, c := range doc.Chars {
		for _, v := range c.Vars {
			add(decode(c.CP), decode(v.CP), "rz-lgr-5")
		}
	}

	confPath := filepath.Join(*shared, "unicode/confusables.txt")
	data, err = os.ReadFile(confPath)
	if err != nil {
		log.Fatal(err)
	}
	proto := map[string][]string{} // prototype -> sources
	for _, line := range strings.Split(strings.TrimPrefix(string(data), "\ufeff"), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Split(line, ";")
		if len(f) < 2 {
			continue
		}
		src, tgt := decode(f[0]), decode(f[1])
		add(src, tgt, "uts39")
		proto[tgt] = append(proto[tgt], src)
	}
	for _, srcs := range proto {
		for i := range srcs {
			for j := i + 1; j < len(srcs); j++ {
				add(srcs[i], srcs[j], "uts39")
			}
		}
	}

	var pairs []pair
	for p := range sources {
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].a != pairs[j].a {
			return pairs[i].a < pairs[j].a
		}
		return pairs[i].b < pairs[j].b
	})

	_, pangoErr := exec.LookPath("pango-view")
	var lines []string
	kept, dropped := 0, 0
	for _, p := range pairs {
		src := sources[p]
		sort.Strings(src)
		row := fmt.Sprintf("%s = %s   | %s = %s   § %s", p.a, p.b, hexOf(p.a), hexOf(p.b), strings.Join(src, " "))
		if len(src) == 2 {
			lines = append(lines, row)
			kept++
			continue
		}
		if pangoErr != nil {
			lines = append(lines, "# not rendered: "+row)
			dropped++
			continue
		}
		score := overlap(p.a, p.b)
		keep := *keepUTS
		if src[0] == "rz-lgr-5" {
			keep = *keepLGR
		}
		if score >= keep {
			lines = append(lines, fmt.Sprintf("%s render=%.2f", row, score))
			kept++
		} else {
			lines = append(lines, fmt.Sprintf("# dropped: %s render=%.2f", row, score))
			dropped++
		}
	}
	rev := reviewRows(*out)
	lines = append(lines, rev...)
	lines, open := closeRows(lines)
	kept -= open
	dropped += open
	var b bytes.Buffer
	b.WriteString(header)
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d rows kept, %d dropped (%d of them to close the relation), from %d candidate pairs", kept, dropped, open, len(pairs))
}

const header = `# Cross-script homoglyphs of the Indic scripts (docs/variants.md,
# "Cross-script lookalikes"). Generated by internal/gen/homoglyphs from:
#   rz-lgr-5  ICANN Root Zone LGR 5, common LGR (lgr-5-common-26may22-en.xml),
#             cross-script variants ("Cross-script homoglyph", type blocked)
#   uts39     Unicode confusables.txt (UTS #39): a character and its
#             prototype, or two characters with the same prototype
# A row both sources give is kept. A row one source gives is rendered
# (pango-view, font "Sans 64": fontconfig picks Lohit/Noto of Debian's
# fonts-indic for each script) and scored, render=: each one's ink, cropped
# and scaled to 32x32, within one cell of the other's ink (the smaller
# share). The score separates poorly on its own (क and ਕ, which no source
# calls alike, score 0.75), so the bar depends on the source: a row only
# RZ-LGR-5 gives (reviewed pair by pair by the script Generation Panels)
# is kept at 0.55, a row only UTS #39 gives (mostly signs and digits that
# share a prototype) at 0.85. Rows below the bar are comments, dropped.
# The kept rows are then closed (issue 21): two sequences that look like a
# third must be a row themselves, so every group of rows joined by shared
# members is a clique of distinct scripts. Rows are taken best first
# (letters before native digits, which every language refuses; both
# sources; the higher score); a row that would relate two sequences of one
# script, or two that are not a row, is dropped and says which.
# Review: a row can be removed or added by hand; say why in a comment.
# Rows no source gives (Ol Chiki and Meetei Mayek, which neither source
# pairs with another script of zone in; issue 25) are found by rendering
# every letter against every letter of the other scripts, kept at the
# UTS #39 bar (0.85) when the images, looked at, agree: source 'review'.
# A regeneration keeps them and their '# review:' comments (at the end).
#
# Format: TEXT = TEXT | CODE POINTS = CODE POINTS § SOURCES [render=SCORE]
# Each member is one or more code points of one script; the two members
# of a row are of different scripts. Marks are written bare.

`

// reviewRows returns the lines of the table at path that no source gives
// and a regeneration must keep: rows of source `review` (a pair found by
// rendering, scored at least the UTS #39 bar and looked at, issue 25) and
// the `# review:` comments that say why, in their order.
func reviewRows(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "# review:") || (!strings.HasPrefix(l, "#") && strings.Contains(l, "§ review")) {
			out = append(out, l)
		}
	}
	return out
}

// overlap renders a and b and compares their ink, each cropped to its
// bounding box and scaled to a grid×grid raster: the share of each one's
// ink that lies within -radius cells (one) of the other's ink, the smaller of the
// two. (Plain intersection over union punishes thin strokes a cell apart,
// which a reader does not see.)
func overlap(a, b string) float64 {
	ia, ib := ink(a), ink(b)
	if ia == nil || ib == nil {
		return 0
	}
	return min(near(ia, ib), near(ib, ia))
}

// near is the share of x's ink within two cells of y's ink.
func near(x, y []bool) float64 {
	r := radius
	n, hit := 0, 0
	for i, v := range x {
		if !v {
			continue
		}
		n++
		gx, gy := i%grid, i/grid
	search:
		for dy := -r; dy <= r; dy++ {
			for dx := -r; dx <= r; dx++ {
				px, py := gx+dx, gy+dy
				if px >= 0 && py >= 0 && px < grid && py < grid && y[py*grid+px] {
					hit++
					break search
				}
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(hit) / float64(n)
}

var (
	grid   = 32
	radius = 1
)

// ink renders s (a mark on a dotted circle would add the circle's ink to
// both sides alike, so marks are rendered alone) and returns its ink on a
// grid×grid raster.
func ink(s string) []bool {
	in, err := pango.Render(s, "Sans 64", 4)
	if err != nil {
		log.Print(err)
	}
	if in == nil {
		return nil
	}
	box := in.Box
	out := make([]bool, grid*grid)
	for gy := 0; gy < grid; gy++ {
		for gx := 0; gx < grid; gx++ {
			x := box.Min.X + gx*box.Dx()/grid
			y := box.Min.Y + gy*box.Dy()/grid
			out[gy*grid+gx] = in.Dark(x, y)
		}
	}
	return out
}

// closeRows makes the kept rows of a table (lines without '#') a closed
// relation: every group of rows joined by shared members is a clique of
// members of distinct scripts, so that two sequences that look like a
// third look like each other (issue 21, item 4). Rows are taken best
// first (letters before digits, which no label has; both sources; the
// higher rendering score; file order);
// a row that would join two groups is kept only when every pair of
// members across them is itself a kept row of different scripts (then
// those rows are kept with it), and otherwise becomes a comment that says
// which two sequences it would have related. It returns the lines and how
// many rows it dropped.
func closeRows(lines []string) ([]string, int) {
	type row struct {
		a, b  string
		both  bool
		digit bool // a member is a digit: never in a label, so last
		score float64
		line  int
	}
	var rows []row
	byPair := map[pair]int{} // candidate rows, by pair
	for i, l := range lines {
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			continue
		}
		text, _, _ := strings.Cut(l, "|")
		a, b, _ := strings.Cut(text, "=")
		r := row{a: strings.TrimSpace(a), b: strings.TrimSpace(b), score: 1, line: i}
		_, src, _ := strings.Cut(l, "§")
		for _, f := range strings.Fields(src) {
			if v, ok := strings.CutPrefix(f, "render="); ok {
				r.score, _ = strconv.ParseFloat(v, 64)
			}
		}
		r.both = strings.Contains(src, "rz-lgr-5") && strings.Contains(src, "uts39")
		r.digit = strings.IndexFunc(r.a+r.b, unicode.IsDigit) >= 0
		byPair[mk(r.a, r.b)] = len(rows)
		rows = append(rows, r)
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		x, y := rows[order[i]], rows[order[j]]
		if x.digit != y.digit {
			return !x.digit
		}
		if x.both != y.both {
			return x.both
		}
		return x.score > y.score
	})
	group := map[string][]string{} // member -> the members of its group
	members := func(s string) []string {
		if g, ok := group[s]; ok {
			return g
		}
		return []string{s}
	}
	kept := make([]bool, len(rows))
	why := map[int]string{}
	for _, i := range order {
		r := rows[i]
		if kept[i] {
			continue
		}
		ga, gb := members(r.a), members(r.b)
		var need []int
		for _, x := range ga {
			for _, y := range gb {
				if scriptOf(x) == scriptOf(y) {
					why[i] = fmt.Sprintf("%s and %s, of one script", x, y)
					break
				}
				j, ok := byPair[mk(x, y)]
				if !ok || why[j] != "" {
					why[i] = fmt.Sprintf("%s and %s, which are not a row", x, y)
					break
				}
				need = append(need, j)
			}
			if why[i] != "" {
				break
			}
		}
		if why[i] != "" {
			continue
		}
		for _, j := range need {
			kept[j] = true
		}
		g := append(append([]string(nil), ga...), gb...)
		for _, m := range g {
			group[m] = g
		}
	}
	out := append([]string(nil), lines...)
	n := 0
	for i, r := range rows {
		if !kept[i] {
			out[r.line] = fmt.Sprintf("# dropped: %s (not closed: it would relate %s)", lines[r.line], why[i])
			n++
		}
	}
	return out, n
}

// closeFile applies closeRows to a table as written (its header and
// comments kept): the rows' scores are the recorded ones, so nothing is
// rendered again.
func closeFile(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	lines, n := closeRows(lines)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%s: %d rows dropped to close the relation", path, n)
}
