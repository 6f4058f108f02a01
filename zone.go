package akshara

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Zone conflict relation (docs/variants.md, "The zone relation"). In a
// zone, a label's conflict set does not depend on the language its
// registrant names: it is generated with the union of the variant tables
// of all the zone's languages of the label's script (variant tables are
// determined by the script, v1.8 §4.9), and a generated variant counts
// when at least one of the zone's languages accepts it. In a zone of more
// than one script it also holds the label's cross-script twins (Twins).
// Two labels of a zone conflict when their zone conflict sets intersect:
// intersection is symmetric, and neither set depends on a language, so
// neither does the relation.

// MaxZoneConflictSet bounds the labels of a zone conflict set (the
// candidates generated, before the validity filter). A label whose set
// would be larger is refused with VARIANT_LIMIT: its own language's
// VARIANT_LIMIT still applies first.
const MaxZoneConflictSet = 1024

// maxTwins bounds the cross-script twins generated per script.
const maxTwins = 64

// ZoneRelation computes conflict sets in a zone. It is safe for concurrent
// use.
type ZoneRelation struct {
	langs   []*Language
	scripts map[string]*zoneScript // by ISO 15924 code
	twins   bool                   // more than one script (Latin included)
	ldh     bool                   // plain LDH labels are a script of the zone: Latn
}

// Latn is the script code of plain lowercase LDH labels in a zone that
// takes them (WithLDH): the homoglyph table's Latin members (ᱛ = o) make
// twins between them and the zone's Indic labels (issue 25).
const Latn = "Latn"

// WithLDH returns the relation of the same languages in a zone that also
// takes plain LDH labels (the zones file's `ldh`): a Latin label's
// conflict set holds its twins in the zone's scripts, and an Indic
// label's its Latin twins, under the homoglyph table's Latin rows.
func (z *ZoneRelation) WithLDH() *ZoneRelation {
	c := *z
	c.ldh = true
	c.twins = len(z.scripts) > 0
	return &c
}

// ldhLabel reports whether s is a plain LDH label: lowercase letters,
// digits and hyphens, no hyphen first or last, none in the third and
// fourth places (RFC 5891), and at least one letter.
func ldhLabel(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' || (len(s) >= 4 && s[2:4] == "--") {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9', c == '-':
		default:
			return false
		}
	}
	return letter
}

type zoneScript struct {
	code  string
	table *unicode.RangeTable
	langs []*Language // the zone's languages of the script, in its order
	index variantIndex
}

// NewZoneRelation returns the relation of a zone that takes the languages
// with these tags (unknown tags are an error).
func NewZoneRelation(tags []string) (*ZoneRelation, error) {
	return NewZoneRelationWith(tags, Lookup)
}

// NewZoneRelationWith is NewZoneRelation with the languages lookup finds
// (such as a set where one language file was edited).
func NewZoneRelationWith(tags []string, lookup func(string) (*Language, error)) (*ZoneRelation, error) {
	return NewFamilyRelation(tags, nil, lookup)
}

// NewFamilyRelation returns the relation of a zone family (docs/variants.md,
// "Zone families"): the zone relation of the union of its members'
// languages (tags, without repeats), whose variant tables are also united
// with the family's own rows (extra: the Root Zone LGR variants that tell
// its TLDs apart). A row's script is its first member's.
func NewFamilyRelation(tags []string, extra [][]string, lookup func(string) (*Language, error)) (*ZoneRelation, error) {
	z := &ZoneRelation{scripts: map[string]*zoneScript{}}
	for _, t := range tags {
		l, err := lookup(t)
		if err != nil {
			return nil, err
		}
		z.langs = append(z.langs, l)
		zs := z.scripts[l.Script]
		if zs == nil {
			si, ok := scripts[l.Script]
			if !ok {
				return nil, fmt.Errorf("akshara: language %s has unknown script %s", l.Tag, l.Script)
			}
			zs = &zoneScript{code: l.Script, table: si.table}
			z.scripts[l.Script] = zs
		}
		zs.langs = append(zs.langs, l)
	}
	own := map[string][][]string{}
	for _, row := range extra {
		sc := ScriptOf(row[0])
		if z.scripts[sc] == nil || len(row) < 2 {
			return nil, fmt.Errorf("akshara: family variant row %q: not a row of a script of the languages %v", row, tags)
		}
		own[sc] = append(own[sc], row)
	}
	for _, zs := range z.scripts {
		rows := own[zs.code]
		var nulls []rune
		for _, l := range zs.langs {
			rows = append(rows, l.variants...)
			nulls = append(nulls, l.nulls...)
		}
		slices.Sort(nulls)
		zs.index = newVariantIndex(mergeRows(rows), slices.Compact(nulls))
	}
	z.twins = len(z.scripts) > 1
	return z, nil
}

// mergeRows unites rows that share a member (the union of the tables is
// an equivalence: a sequence is in one row), members and rows sorted.
func mergeRows(rows [][]string) [][]string {
	parent := map[string]string{}
	var find func(string) string
	find = func(s string) string {
		p, ok := parent[s]
		if !ok || p == s {
			parent[s] = s
			return s
		}
		r := find(p)
		parent[s] = r
		return r
	}
	for _, row := range rows {
		for _, m := range row[1:] {
			a, b := find(row[0]), find(m)
			if a != b {
				parent[b] = a
			}
		}
		find(row[0])
	}
	classes := map[string][]string{}
	for m := range parent {
		r := find(m)
		classes[r] = append(classes[r], m)
	}
	var out [][]string
	for _, c := range classes {
		sort.Strings(c)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// ScriptOf returns the ISO 15924 code of the script of a label's first
// letter or mark of an Indic script, or "" (plain ASCII, other scripts).
func ScriptOf(label string) string {
	for _, r := range label {
		if r < utf8.RuneSelf {
			continue
		}
		for code, si := range scripts {
			if unicode.Is(si.table, r) {
				return code
			}
		}
		return ""
	}
	return ""
}

// Languages returns the zone's languages of a script, in the zone's order
// (all of them for script "").
func (z *ZoneRelation) Languages(script string) []*Language {
	if script == "" {
		return append([]*Language(nil), z.langs...)
	}
	if zs := z.scripts[script]; zs != nil {
		return append([]*Language(nil), zs.langs...)
	}
	return nil
}

// validIn reports whether a language of the script accepts label.
func (zs *zoneScript) validIn(label string) bool {
	for _, l := range zs.langs {
		if l.Valid(label) {
			return true
		}
	}
	return false
}

// ConflictSet returns the zone conflict set of a valid NFC U-label (the
// canonical form a language of the zone gave): the label, its variants
// under the zone's tables of its script that a language of the zone
// accepts, and in a zone of several scripts its cross-script twins;
// sorted. ok is false when the set would exceed MaxZoneConflictSet.
func (z *ZoneRelation) ConflictSet(ulabel string) (set []string, ok bool) {
	zs := z.scripts[ScriptOf(ulabel)]
	if zs == nil {
		set = []string{ulabel}
		if z.ldh && ldhLabel(ulabel) {
			set = append(set, z.Twins(ulabel)...)
			sort.Strings(set)
		}
		return set, true
	}
	seen := map[string]bool{ulabel: true}
	set = []string{ulabel}
	variants, ok := zs.variants(ulabel, seen)
	if !ok {
		return nil, false
	}
	set = append(set, variants...)
	if z.twins {
		set = append(set, z.Twins(ulabel)...)
	}
	sort.Strings(set)
	return set, true
}

// variants generates the label's variants under the script's merged table
// (as Language.Variants does with one table), adding to seen.
func (zs *zoneScript) variants(u string, seen map[string]bool) ([]string, bool) {
	if len(zs.index.rows) == 0 {
		return nil, true
	}
	rs := []rune(u)
	spans := zs.index.spans(rs, nil)
	if len(spans) == 0 {
		return nil, true
	}
	total := 1
	for _, sp := range spans {
		total *= len(zs.index.rows[sp.row])
		if total > MaxZoneConflictSet {
			return nil, false
		}
	}
	choice := make([]int, len(spans))
	var out []string
	var b strings.Builder
	bad := unnormalized(rs, spans, zs.index.rows)
	for more := true; more; more = next(choice, spans, zs.index.rows) {
		if bad != nil && bad.hit(choice) {
			continue
		}
		b.Reset()
		prev := 0
		for j, sp := range spans {
			b.WriteString(string(rs[prev:sp.start]))
			b.WriteString(zs.index.rows[sp.row][choice[j]])
			prev = sp.end
		}
		b.WriteString(string(rs[prev:]))
		v := b.String()
		if !seen[v] && zs.validIn(v) {
			out = append(out, v)
		}
		seen[v] = true
	}
	return out, true
}

// Twins returns the label's cross-script twins in the zone: for each other
// script of the zone, the labels that the homoglyph table maps it onto,
// akshara by akshara (every code point but digits and hyphens covered by a
// row), that a language of the zone of that script accepts; sorted. A zone
// of one script has none.
func (z *ZoneRelation) Twins(ulabel string) []string {
	if !z.twins {
		return nil
	}
	h, err := loadHomoglyphs()
	if err != nil {
		return nil
	}
	from := ScriptOf(ulabel)
	if from == "" {
		if !z.ldh || !ldhLabel(ulabel) {
			return nil
		}
		from = Latn
	}
	var out []string
	for code, zs := range z.scripts {
		if code == from {
			continue
		}
		for _, t := range h.images(ulabel, from, code, maxTwins) {
			if zs.validIn(t) {
				out = append(out, t)
			}
		}
	}
	if z.ldh && from != Latn {
		for _, t := range h.images(ulabel, from, Latn, maxTwins) {
			if ldhLabel(t) {
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out
}
