package akshara

import (
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The cross-script homoglyph table (homoglyphs/indic.txt; docs/variants.md,
// "Cross-script lookalikes"): rows of two code point sequences of different
// Indic scripts that look alike, each traced to its sources. A label's
// twins in another script are the labels it maps onto akshara by akshara:
// every code point (but ASCII digits and hyphens) inside a matched
// sequence, each replaced by a partner of the other script.

//go:embed homoglyphs/indic.txt
var homoglyphFile []byte

// HomoglyphRow is one row of the table.
type HomoglyphRow struct {
	A, B    string // the two sequences
	Sources string // the sources and the rendering score, as written
	Line    int
}

// Homoglyphs is a parsed homoglyph table.
type Homoglyphs struct {
	Rows []HomoglyphRow
	// by source script and target script: the sequences of the source
	// script with a partner in the target script, by first code point,
	// longest first, with their partners
	index map[[2]string]map[rune][]glyphSeq
}

type glyphSeq struct {
	runes    []rune
	partners []string
}

var homoglyphs struct {
	once sync.Once
	h    *Homoglyphs
	err  error
}

func loadHomoglyphs() (*Homoglyphs, error) {
	homoglyphs.once.Do(func() {
		homoglyphs.h, homoglyphs.err = ParseHomoglyphs("homoglyphs/indic.txt", homoglyphFile)
	})
	return homoglyphs.h, homoglyphs.err
}

// DefaultHomoglyphs returns the embedded table.
func DefaultHomoglyphs() (*Homoglyphs, error) { return loadHomoglyphs() }

// seqScript returns the one script of every code point of s, or "":
// an Indic script, or Latn for lowercase ASCII letters (the LDH labels of
// a zone that takes them).
func seqScript(s string) string {
	sc := ""
	for _, r := range s {
		c := ScriptOf(string(r))
		if r >= 'a' && r <= 'z' {
			c = Latn
		}
		if c == "" || (sc != "" && c != sc) {
			return ""
		}
		sc = c
	}
	return sc
}

// ParseHomoglyphs parses a homoglyph table: lines
// `TEXT = TEXT | HEX ... = HEX ... § SOURCES`, `#` comments.
func ParseHomoglyphs(name string, data []byte) (*Homoglyphs, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not UTF-8", name)
	}
	h := &Homoglyphs{index: map[[2]string]map[rune][]glyphSeq{}}
	seen := map[[2]string]bool{}
	for n, line := range strings.Split(string(data), "\n") {
		errf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n+1, fmt.Sprintf(format, args...))
		}
		if strings.HasPrefix(strings.TrimSpace(line), "#") || strings.TrimSpace(line) == "" {
			continue
		}
		body, sources, ok := strings.Cut(line, "§")
		if !ok || strings.TrimSpace(sources) == "" {
			return nil, errf("a row needs its sources after §")
		}
		text, hex, ok := strings.Cut(body, "|")
		if !ok {
			return nil, errf("want TEXT = TEXT | CODE POINTS = CODE POINTS § SOURCES")
		}
		ts, hs := strings.Split(text, "="), strings.Split(hex, "=")
		if len(ts) != 2 || len(hs) != 2 {
			return nil, errf("a row has two members")
		}
		var m [2]string
		for i := range ts {
			t := strings.TrimSpace(ts[i])
			var b strings.Builder
			for _, f := range strings.Fields(hs[i]) {
				v, err := strconv.ParseUint(f, 16, 32)
				if err != nil || v > utf8.MaxRune {
					return nil, errf("bad code point %q", f)
				}
				b.WriteRune(rune(v))
			}
			if t != b.String() || t == "" {
				return nil, errf("member %d: the text %q is not the code points %s", i+1, t, strings.TrimSpace(hs[i]))
			}
			m[i] = t
		}
		sa, sb := seqScript(m[0]), seqScript(m[1])
		if sa == "" || sb == "" {
			return nil, errf("each member must be of one Indic script, or lowercase Latin letters")
		}
		if sa == sb {
			return nil, errf("the members are both of script %s: a homoglyph row is cross-script (same-script rows are variants, in the language files)", sa)
		}
		if seen[[2]string{m[0], m[1]}] || seen[[2]string{m[1], m[0]}] {
			return nil, errf("row %s = %s is listed twice", m[0], m[1])
		}
		seen[[2]string{m[0], m[1]}] = true
		h.Rows = append(h.Rows, HomoglyphRow{A: m[0], B: m[1], Sources: strings.TrimSpace(sources), Line: n + 1})
		h.add(sa, sb, m[0], m[1])
		h.add(sb, sa, m[1], m[0])
	}
	for _, byFirst := range h.index {
		for _, seqs := range byFirst {
			sort.SliceStable(seqs, func(i, j int) bool { return len(seqs[i].runes) > len(seqs[j].runes) })
		}
	}
	return h, nil
}

func (h *Homoglyphs) add(from, to, a, b string) {
	k := [2]string{from, to}
	if h.index[k] == nil {
		h.index[k] = map[rune][]glyphSeq{}
	}
	rs := []rune(a)
	seqs := h.index[k][rs[0]]
	for i := range seqs {
		if string(seqs[i].runes) == a {
			seqs[i].partners = append(seqs[i].partners, b)
			sort.Strings(seqs[i].partners)
			return
		}
	}
	h.index[k][rs[0]] = append(seqs, glyphSeq{runes: rs, partners: []string{b}})
}

// Images returns the labels of script to that label (of script from)
// maps onto under the table, at most max of them, sorted: nil when some
// code point of the label (but ASCII digits and hyphens) is in no row with
// a partner of script to.
func (h *Homoglyphs) Images(label, from, to string, max int) []string {
	return h.images(label, from, to, max)
}

func (h *Homoglyphs) images(label, from, to string, max int) []string {
	byFirst := h.index[[2]string{from, to}]
	if byFirst == nil {
		return nil
	}
	rs := []rune(label)
	type piece struct {
		fixed    string
		partners []string
	}
	var pieces []piece
	total := 1
	for i := 0; i < len(rs); {
		if r := rs[i]; r == '-' || (r >= '0' && r <= '9') {
			pieces = append(pieces, piece{fixed: string(r)})
			i++
			continue
		}
		var found *glyphSeq
		for k, s := range byFirst[rs[i]] {
			if len(s.runes) <= len(rs)-i && equalRunes(rs[i:i+len(s.runes)], s.runes) {
				found = &byFirst[rs[i]][k]
				break
			}
		}
		if found == nil {
			return nil
		}
		pieces = append(pieces, piece{partners: found.partners})
		if total *= len(found.partners); total > max {
			total = max + 1
		}
		i += len(found.runes)
	}
	var out []string
	choice := make([]int, len(pieces))
	var b strings.Builder
	for {
		b.Reset()
		for j, p := range pieces {
			if p.partners == nil {
				b.WriteString(p.fixed)
			} else {
				b.WriteString(p.partners[choice[j]])
			}
		}
		out = append(out, b.String())
		if len(out) >= max {
			break
		}
		j := 0
		for ; j < len(pieces); j++ {
			if pieces[j].partners == nil {
				continue
			}
			choice[j]++
			if choice[j] < len(pieces[j].partners) {
				break
			}
			choice[j] = 0
		}
		if j == len(pieces) {
			break
		}
	}
	sort.Strings(out)
	return out
}
