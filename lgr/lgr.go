// Package lgr writes akshara's language policies as RFC 7940 Label
// Generation Rulesets (LGRs), the XML format of the IANA IDN table
// repository and ICANN's LGR tools, and reads and evaluates LGRs: the
// subset of RFC 7940 the exports use (classes by tag, code point list and
// set operators; rules made of sequences, choices, counts, start, end,
// anchors and look-around; when and not-when context rules; actions with
// match and not-match). docs/lgr.md says what maps to what.
//
// The exports of the embedded languages are generated into this directory
// (go generate) and served by Handler.
package lgr

//go:generate go run ../cmd/akshara lgr -all -date 2026-11-23 -out .

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// LGR is a parsed Label Generation Ruleset, ready to judge labels.
type LGR struct {
	Version      string   // meta version
	Date         string   // meta date
	Languages    []string // meta language tags
	Unicode      string   // meta unicode-version
	Description  string   // meta description
	repertoire   map[string]*repElem
	maxSeq       int // longest repertoire sequence, in code points
	classDefs    map[string]*element
	classes      map[string]*cset
	ruleDefs     map[string]*element
	rules        map[string]*pat
	ruleNames    []string // in document order
	classNames   []string // in document order
	actions      []action
	resolving    map[string]bool
	elementOrder []*repElem
}

// repElem is one repertoire element: a code point or a sequence.
type repElem struct {
	cps           []rune
	when, notWhen string
	tags          []string
	vars          []variant
	line          int
}

type variant struct {
	cps           []rune
	typ           string
	when, notWhen string
}

// action is one action of the rules section, in order.
type action struct {
	disp      string
	match     string // rule that must match, or
	notMatch  string // rule that must not match
	variants  string // "any-variant", "all-variants" or "only-variants" ("" if none)
	types     []string
	comment   string
	unchecked bool // only variant labels can trigger it
}

// Parse reads an LGR document.
func Parse(data []byte) (*LGR, error) {
	root, err := parseXML(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("lgr: %v", err)
	}
	g, err := load(root)
	if err != nil {
		return nil, fmt.Errorf("lgr: %v", err)
	}
	return g, nil
}

// Read reads an LGR document from r.
func Read(r io.Reader) (*LGR, error) {
	data, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

func load(root *element) (*LGR, error) {
	if root.name != "lgr" {
		return nil, fmt.Errorf("the root element is <%s>, want <lgr>", root.name)
	}
	g := &LGR{
		repertoire: map[string]*repElem{}, classDefs: map[string]*element{}, classes: map[string]*cset{},
		ruleDefs: map[string]*element{}, rules: map[string]*pat{}, resolving: map[string]bool{},
	}
	var data, rules *element
	for _, k := range root.kids {
		switch k.name {
		case "meta":
			g.loadMeta(k)
		case "data":
			data = k
		case "rules":
			rules = k
		default:
			return nil, fmt.Errorf("line %d: unknown element <%s> in <lgr>", k.line, k.name)
		}
	}
	if data == nil {
		return nil, errors.New("no <data> section")
	}
	if err := g.loadData(data); err != nil {
		return nil, err
	}
	if rules != nil {
		if err := g.loadRules(rules); err != nil {
			return nil, err
		}
	}
	// Every rule a repertoire element names must exist and compile.
	for _, e := range g.elementOrder {
		names := []string{e.when, e.notWhen}
		for _, v := range e.vars {
			names = append(names, v.when, v.notWhen)
		}
		for _, name := range names {
			if name == "" {
				continue
			}
			if _, err := g.rule(name); err != nil {
				return nil, fmt.Errorf("line %d: %v", e.line, err)
			}
		}
	}
	return g, nil
}

func (g *LGR) loadMeta(m *element) {
	for _, k := range m.kids {
		switch k.name {
		case "version":
			g.Version = strings.TrimSpace(k.text)
		case "date":
			g.Date = strings.TrimSpace(k.text)
		case "language":
			g.Languages = append(g.Languages, strings.TrimSpace(k.text))
		case "unicode-version":
			g.Unicode = strings.TrimSpace(k.text)
		case "description":
			g.Description = k.text
		}
	}
}

func (g *LGR) addElement(e *repElem) error {
	key := string(e.cps)
	if _, dup := g.repertoire[key]; dup {
		return fmt.Errorf("line %d: %s is listed twice", e.line, hexSeq(e.cps))
	}
	g.repertoire[key] = e
	g.elementOrder = append(g.elementOrder, e)
	if len(e.cps) > g.maxSeq {
		g.maxSeq = len(e.cps)
	}
	return nil
}

func (g *LGR) loadData(data *element) error {
	for _, k := range data.kids {
		base := repElem{when: k.get("when"), notWhen: k.get("not-when"), tags: strings.Fields(k.get("tag")), line: k.line}
		switch k.name {
		case "char":
			cps, err := parseSequence(k.get("cp"))
			if err != nil {
				return fmt.Errorf("line %d: %v", k.line, err)
			}
			e := base
			e.cps = cps
			for _, v := range k.kids {
				if v.name != "var" {
					return fmt.Errorf("line %d: unknown element <%s> in <char>", v.line, v.name)
				}
				cp, ok := v.attr("cp")
				if !ok {
					return fmt.Errorf("line %d: a <var> needs cp", v.line)
				}
				vcps, err := parseVariantSequence(cp)
				if err != nil {
					return fmt.Errorf("line %d: %v", v.line, err)
				}
				e.vars = append(e.vars, variant{cps: vcps, typ: v.get("type"), when: v.get("when"), notWhen: v.get("not-when")})
			}
			if err := g.addElement(&e); err != nil {
				return err
			}
		case "range":
			lo, err := parseCodePoint(k.get("first-cp"))
			if err != nil {
				return fmt.Errorf("line %d: %v", k.line, err)
			}
			hi, err := parseCodePoint(k.get("last-cp"))
			if err != nil {
				return fmt.Errorf("line %d: %v", k.line, err)
			}
			if hi < lo || hi-lo > 0x10000 {
				return fmt.Errorf("line %d: bad range %04X..%04X", k.line, lo, hi)
			}
			for r := lo; r <= hi; r++ {
				e := base
				e.cps = []rune{r}
				if err := g.addElement(&e); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("line %d: unknown element <%s> in <data>", k.line, k.name)
		}
	}
	return nil
}

var setOps = map[string]bool{"class": true, "complement": true, "union": true, "intersection": true, "difference": true, "symmetric-difference": true}

func (g *LGR) loadRules(rules *element) error {
	for _, k := range rules.kids {
		switch {
		case setOps[k.name]:
			name := k.get("name")
			if name == "" {
				return fmt.Errorf("line %d: a class in <rules> needs a name", k.line)
			}
			if g.classDefs[name] != nil || g.ruleDefs[name] != nil {
				return fmt.Errorf("line %d: the name %q is used twice", k.line, name)
			}
			g.classDefs[name] = k
			g.classNames = append(g.classNames, name)
		case k.name == "rule":
			name := k.get("name")
			if name == "" {
				return fmt.Errorf("line %d: a rule in <rules> needs a name", k.line)
			}
			if g.classDefs[name] != nil || g.ruleDefs[name] != nil {
				return fmt.Errorf("line %d: the name %q is used twice", k.line, name)
			}
			g.ruleDefs[name] = k
			g.ruleNames = append(g.ruleNames, name)
		case k.name == "action":
			a := action{disp: k.get("disp"), match: k.get("match"), notMatch: k.get("not-match"), comment: k.get("comment")}
			if a.disp == "" {
				return fmt.Errorf("line %d: an action needs disp", k.line)
			}
			for _, t := range []string{"any-variant", "all-variants", "only-variants"} {
				if v, ok := k.attr(t); ok {
					a.variants, a.types = t, strings.Fields(v)
					a.unchecked = true
				}
			}
			for _, name := range []string{a.match, a.notMatch} {
				if name == "" {
					continue
				}
				if _, err := g.rule(name); err != nil {
					return fmt.Errorf("line %d: %v", k.line, err)
				}
			}
			g.actions = append(g.actions, a)
		default:
			return fmt.Errorf("line %d: unknown element <%s> in <rules>", k.line, k.name)
		}
	}
	for _, name := range g.classNames {
		if _, err := g.class(name); err != nil {
			return err
		}
	}
	for _, name := range g.ruleNames {
		if _, err := g.rule(name); err != nil {
			return err
		}
	}
	return nil
}

// class resolves a named class.
func (g *LGR) class(name string) (*cset, error) {
	if s, ok := g.classes[name]; ok {
		return s, nil
	}
	def, ok := g.classDefs[name]
	if !ok {
		return nil, fmt.Errorf("no class named %q", name)
	}
	if g.resolving["class:"+name] {
		return nil, fmt.Errorf("class %q refers to itself", name)
	}
	g.resolving["class:"+name] = true
	defer delete(g.resolving, "class:"+name)
	s, err := g.setOf(def)
	if err != nil {
		return nil, err
	}
	g.classes[name] = s
	return s, nil
}

// setOf evaluates a class element or set operator.
func (g *LGR) setOf(e *element) (*cset, error) {
	if e.name == "class" {
		if ref, ok := e.attr("by-ref"); ok {
			return g.class(ref)
		}
		if tag, ok := e.attr("from-tag"); ok {
			s := newSet()
			for _, re := range g.elementOrder {
				if len(re.cps) == 1 && contains(re.tags, tag) {
					s.m[re.cps[0]] = true
				}
			}
			return s, nil
		}
		if p, ok := e.attr("property"); ok {
			// General categories only, from Go's Unicode tables (whose
			// version may differ from the LGR's unicode-version).
			cat, isGC := strings.CutPrefix(p, "gc:")
			table := unicode.Categories[cat]
			if !isGC || table == nil {
				return nil, fmt.Errorf("line %d: class by Unicode property %q is outside the subset this reader evaluates (gc: only)", e.line, p)
			}
			s := newSet()
			for _, r16 := range table.R16 {
				for r := rune(r16.Lo); r <= rune(r16.Hi); r += rune(r16.Stride) {
					s.m[r] = true
				}
			}
			for _, r32 := range table.R32 {
				for r := rune(r32.Lo); r <= rune(r32.Hi); r += rune(r32.Stride) {
					s.m[r] = true
				}
			}
			return s, nil
		}
		s, err := parseShorthand(e.text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", e.line, err)
		}
		return s, nil
	}
	var sets []*cset
	for _, k := range e.kids {
		if !setOps[k.name] {
			return nil, fmt.Errorf("line %d: <%s> inside <%s>", k.line, k.name, e.name)
		}
		s, err := g.setOf(k)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	switch {
	case e.name == "complement" && len(sets) == 1:
		return sets[0].complement(), nil
	case e.name == "difference" && len(sets) == 2:
		return difference(sets[0], sets[1]), nil
	case e.name == "symmetric-difference" && len(sets) == 2:
		return symmetricDifference(sets[0], sets[1]), nil
	case (e.name == "union" || e.name == "intersection") && len(sets) >= 2:
		out := sets[0]
		for _, s := range sets[1:] {
			if e.name == "union" {
				out = union(out, s)
			} else {
				out = intersection(out, s)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("line %d: <%s> with %d operands", e.line, e.name, len(sets))
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// rule resolves a named rule into a pattern.
func (g *LGR) rule(name string) (*pat, error) {
	if p, ok := g.rules[name]; ok {
		return p, nil
	}
	def, ok := g.ruleDefs[name]
	if !ok {
		return nil, fmt.Errorf("no rule named %q", name)
	}
	if g.resolving["rule:"+name] {
		return nil, fmt.Errorf("rule %q refers to itself", name)
	}
	g.resolving["rule:"+name] = true
	defer delete(g.resolving, "rule:"+name)
	p, err := g.compile(def)
	if err != nil {
		return nil, err
	}
	g.rules[name] = p
	return p, nil
}

// Verdict is an LGR's judgement of one label.
type Verdict struct {
	Label       string `json:"label"`
	Valid       bool   `json:"valid"`       // the disposition allows registration
	Disposition string `json:"disposition"` // "valid", "invalid", "blocked", ...
	// Rule is what decided an invalid or blocked label: the name of the
	// rule (a failed when or not-when context rule, or the rule of the
	// action that triggered), or "not-in-repertoire".
	Rule string `json:"rule,omitempty"`
	Pos  int    `json:"pos"` // code point index where the rule applies
}

// NotInRepertoire is Verdict.Rule for a label with a code point (or
// sequence) outside the LGR's repertoire.
const NotInRepertoire = "not-in-repertoire"

// LabelTooLong is Verdict.Rule for a label longer than Judge evaluates
// (maxLabel code points; no DNS label comes near).
const LabelTooLong = "label-too-long"

// maxLabel bounds the labels Judge evaluates, in code points.
const maxLabel = 256

// Judge evaluates the label (a U-label, taken as given: no normalization,
// no A-label decoding) as RFC 7940 §8 describes for an original label:
// every code point must be covered by the repertoire, every element's
// when/not-when context rule must hold, and the first action that triggers
// gives the disposition ("valid" if none does). Actions triggered by
// variant types concern variant labels and are not evaluated.
func (g *LGR) Judge(label string) Verdict {
	v := Verdict{Label: label, Disposition: "invalid"}
	if !utf8.ValidString(label) {
		v.Rule = NotInRepertoire
		return v
	}
	rs := []rune(label)
	if len(rs) > maxLabel {
		v.Rule, v.Pos = LabelTooLong, maxLabel
		return v
	}
	elems, bad := g.cover(rs)
	if bad >= 0 {
		v.Rule, v.Pos = NotInRepertoire, bad
		return v
	}
	m := &matcher{rs: rs}
	for _, a := range elems {
		if a.e.when != "" && !m.context(g.rules[a.e.when], a.pos, len(a.e.cps)) {
			v.Rule, v.Pos = a.e.when, a.pos
			return v
		}
		if a.e.notWhen != "" && m.context(g.rules[a.e.notWhen], a.pos, len(a.e.cps)) {
			v.Rule, v.Pos = a.e.notWhen, a.pos
			return v
		}
	}
	v.Disposition = "valid"
	for _, a := range g.actions {
		if a.unchecked {
			continue
		}
		switch {
		case a.match != "":
			pos, ok := m.search(g.rules[a.match])
			if !ok {
				continue
			}
			v.Rule, v.Pos = a.match, pos
		case a.notMatch != "":
			if _, ok := m.search(g.rules[a.notMatch]); ok {
				continue
			}
			v.Rule = a.notMatch
		}
		v.Disposition = a.disp
		break
	}
	if m.exhausted {
		v.Disposition, v.Rule, v.Pos = "invalid", "evaluation-limit", 0
	}
	v.Valid = v.Disposition != "invalid" && v.Disposition != "blocked"
	if v.Valid {
		v.Rule = ""
	}
	return v
}

// at is a repertoire element at a position of a label.
type at struct {
	e   *repElem
	pos int
}

// cover covers the label with repertoire elements, longest first; bad is
// the position of the first code point no element covers, or -1.
func (g *LGR) cover(rs []rune) (elems []at, bad int) {
	for i := 0; i < len(rs); {
		var found *repElem
		for n := min(g.maxSeq, len(rs)-i); n >= 1; n-- {
			if e, ok := g.repertoire[string(rs[i:i+n])]; ok {
				found = e
				break
			}
		}
		if found == nil {
			return nil, i
		}
		elems = append(elems, at{found, i})
		i += len(found.cps)
	}
	return elems, -1
}

// RuleNames returns the names of the LGR's rules in document order.
func (g *LGR) RuleNames() []string { return append([]string(nil), g.ruleNames...) }

// Repertoire returns the repertoire's code points and sequences, sorted.
func (g *LGR) Repertoire() [][]rune {
	var out [][]rune
	for _, e := range g.elementOrder {
		out = append(out, append([]rune(nil), e.cps...))
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i]) < string(out[j]) })
	return out
}
