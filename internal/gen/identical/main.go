// Command identical looks for sequences of a script that render the same:
// candidates for the policy's second type of variant, "owing to Unicode
// permitting more than one manner of inputting a given character or a
// string of characters" (seed 000). For each script it renders, with
// pango-view in the system's fonts (Debian fonts-indic), the aksharas a
// consonant, a vowel or both can make with one or two signs of the
// repertoires of the script's languages (C M, C M D, C M B, C D, C B, V, V D,
// V B), each inside a label the language accepts, and prints the groups
// whose ink is the same (exactly, or within -tolerance of the pixels).
//
//	go run ./internal/gen/identical [-font 'Sans 48'] [-tolerance 0.01]
//
// Its output is a report to review: a pair found here goes into a
// language file's variant table by hand, with its justification.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"log"
	"sort"
	"strings"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/internal/gen/pango"
)

func main() {
	font := flag.String("font", "Sans 48", "the pango font description")
	tol := flag.Float64("tolerance", 0.01, "share of differing pixels still counted as the same rendering")
	only := flag.String("script", "", "only this script (ISO 15924)")
	pairs := flag.String("pairs", "", "only compare these space-separated pairs A=B, and stop")
	flag.Parse()
	if *pairs != "" {
		for _, p := range strings.Fields(*pairs) {
			a, b, _ := strings.Cut(p, "=")
			ia, ib := render(a, *font), render(b, *font)
			if ia == nil || ib == nil {
				fmt.Printf("%s = %s   not rendered\n", a, b)
				continue
			}
			fmt.Printf("%s = %s   %dx%d %dx%d differing pixels %.4f\n", a, b, ia.w, ia.h, ib.w, ib.h, ia.diff(ib))
		}
		return
	}
	langs, err := akshara.Languages()
	if err != nil {
		log.Fatal(err)
	}
	byScript := map[string][]*akshara.Language{}
	for _, l := range langs {
		byScript[l.Script] = append(byScript[l.Script], l)
	}
	var scripts []string
	for s := range byScript {
		if *only == "" || s == *only {
			scripts = append(scripts, s)
		}
	}
	sort.Strings(scripts)
	for _, sc := range scripts {
		ls := byScript[sc]
		cands := candidates(ls)
		type rendered struct {
			text string
			img  *ink
		}
		var rs []rendered
		for _, c := range cands {
			if im := render(c, *font); im != nil {
				rs = append(rs, rendered{c, im})
			}
		}
		fmt.Printf("== %s: %d aksharas rendered\n", sc, len(rs))
		for i := range rs {
			for j := i + 1; j < len(rs); j++ {
				if d := rs[i].img.diff(rs[j].img); d <= *tol {
					fmt.Printf("%s = %s   | %s = %s   differing pixels %.4f\n", rs[i].text, rs[j].text, hexOf(rs[i].text), hexOf(rs[j].text), d)
				}
			}
		}
	}
}

func hexOf(s string) string {
	var f []string
	for _, r := range s {
		f = append(f, fmt.Sprintf("%04X", r))
	}
	return strings.Join(f, " ")
}

// candidates lists the aksharas to render: a plain consonant and a plain
// vowel of the script with one or two signs, each accepted by one of the
// languages inside a label.
func candidates(ls []*akshara.Language) []string {
	class := map[rune]akshara.Class{}
	for _, l := range ls {
		for _, m := range l.Repertoire() {
			if _, ok := class[m.Rune]; !ok {
				class[m.Rune] = m.Class
			}
		}
	}
	var cons, vowels, matras, signs []string
	for r, c := range class {
		switch c {
		case akshara.C:
			cons = append(cons, string(r))
		case akshara.V:
			vowels = append(vowels, string(r))
		case akshara.M:
			matras = append(matras, string(r))
		case akshara.D, akshara.B:
			signs = append(signs, string(r))
		}
	}
	for _, s := range [][]string{cons, vowels, matras, signs} {
		sort.Strings(s)
	}
	base := cons[0]
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if seen[s] {
			return
		}
		seen[s] = true
		for _, l := range ls {
			if l.Valid(base + s + base) {
				out = append(out, s)
				return
			}
		}
	}
	for _, m := range matras {
		add(base + m)
		for _, d := range signs {
			add(base + m + d)
		}
	}
	for _, d := range signs {
		add(base + d)
	}
	for _, v := range vowels {
		add(v)
		for _, d := range signs {
			add(v + d)
		}
	}
	return out
}

// ink is a rendering cropped to its ink.
type ink struct {
	w, h int
	px   []bool
	sum  [32]byte
}

// diff is the share of the ink (of either) that differs, at the best
// alignment of the two within four pixels each way.
func (a *ink) diff(b *ink) float64 {
	if a.sum == b.sum {
		return 0
	}
	if abs(a.w-b.w) > 4 || abs(a.h-b.h) > 4 {
		return 1
	}
	at := func(m *ink, x, y int) bool {
		return x >= 0 && y >= 0 && x < m.w && y < m.h && m.px[y*m.w+x]
	}
	best := 1.0
	for dy := -4; dy <= 4; dy++ {
		for dx := -4; dx <= 4; dx++ {
			n, union := 0, 0
			for y := -4; y < max(a.h, b.h)+4; y++ {
				for x := -4; x < max(a.w, b.w)+4; x++ {
					p, q := at(a, x, y), at(b, x+dx, y+dy)
					if p != q {
						n++
					}
					if p || q {
						union++
					}
				}
			}
			if union > 0 {
				best = min(best, float64(n)/float64(union))
			}
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func render(s, font string) *ink {
	in, err := pango.Render(s, font, 8)
	if err != nil {
		log.Print(err)
	}
	if in == nil {
		return nil
	}
	box := in.Box
	im := &ink{w: box.Dx(), h: box.Dy()}
	var raw []byte
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			d := in.Dark(x, y)
			im.px = append(im.px, d)
			if d {
				raw = append(raw, 1)
			} else {
				raw = append(raw, 0)
			}
		}
	}
	im.sum = sha256.Sum256(raw)
	return im
}
