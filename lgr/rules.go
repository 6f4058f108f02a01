package lgr

import (
	"fmt"
	"strings"

	"github.com/akshara-idn/akshara"
)

// The language's context rules (languages/README.md: only-in, not-after,
// only-after, and vowel-conjuncts, which is "V H only in these") become
// whole-label rules that match a violation.

// item is one item of a context rule: a set of code points, or the start
// of the label.
type item struct {
	start bool
	set   []rune // sorted
	text  string // as written
}

// parseItems reads the items of one side of a rule, as context.go does.
func (x *exporter) parseItems(s string) ([]item, error) {
	var items []item
	for _, tok := range strings.Fields(s) {
		switch tok {
		case "^":
			items = append(items, item{start: true, text: tok})
			continue
		case "-":
			items = append(items, item{set: []rune{'-'}, text: tok})
			continue
		case "digit":
			items = append(items, item{set: []rune("0123456789"), text: tok})
			continue
		}
		if c, ok := classByName(tok); ok {
			items = append(items, item{set: x.members[c], text: tok})
			continue
		}
		for _, r := range tok {
			if x.class[r] == akshara.NoClass {
				return nil, fmt.Errorf("%q: U+%04X is not in the repertoire", s, r)
			}
			items = append(items, item{set: []rune{r}, text: string(r)})
		}
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("empty sequence")
	}
	return items, nil
}

func classByName(s string) (akshara.Class, bool) {
	for _, c := range letterClasses {
		if c.String() == s {
			return c, true
		}
	}
	return akshara.NoClass, false
}

// itemE is an item as a match operator.
func itemE(it item) *element {
	if it.start {
		return el("start")
	}
	if len(it.set) == 1 {
		return char(it.set[0])
	}
	if c, ok := classByName(it.text); ok {
		return cls(c)
	}
	switch it.text {
	case "digit":
		return clsName(tagDigit)
	}
	return setE(it.set, it.text)
}

type langRule struct {
	code, comment string
	ref           akshara.Ref
	pattern       *element
}

func (x *exporter) languageRules() ([]langRule, error) {
	var out []langRule
	rules := x.p.Rules
	if len(x.p.VowelConjuncts) > 0 {
		rules = append(rules, akshara.PolicyRule{Kind: "only-in", Code: akshara.Conjunct, Ref: x.p.VowelConjunctRef,
			Text: "V H : " + strings.Join(x.p.VowelConjuncts, " | "), Trigger: "V H", Contexts: x.p.VowelConjuncts})
	}
	for _, r := range rules {
		trigger, err := x.parseItems(r.Trigger)
		if err != nil {
			return nil, fmt.Errorf("rule %q: %v", r.Text, err)
		}
		var contexts [][]item
		for _, c := range r.Contexts {
			items, err := x.parseItems(c)
			if err != nil {
				return nil, fmt.Errorf("rule %q: %v", r.Text, err)
			}
			contexts = append(contexts, items)
		}
		var pattern *element
		switch r.Kind {
		case "not-after":
			var prev []*element
			for _, c := range contexts {
				prev = append(prev, itemE(c[0]))
			}
			pattern = seq(alt(prev...), itemE(trigger[0]))
		case "only-after":
			startOK := false
			var ok []rune
			for _, c := range contexts {
				if c[0].start {
					startOK = true
				} else {
					ok = append(ok, c[0].set...)
				}
			}
			var bad []*element
			if !startOK {
				bad = append(bad, el("start"))
			}
			bad = append(bad, setE(x.minus(ok), "not "+strings.Join(r.Contexts, " ")))
			pattern = seq(alt(bad...), itemE(trigger[0]))
		case "no-mix":
			// the trigger and one of the contexts both in the label
			var others []*element
			var otherSet []rune
			for _, c := range contexts {
				others = append(others, itemE(c[0]))
				otherSet = append(otherSet, c[0].set...)
			}
			both := x.intersect(trigger[0].set, otherSet)
			gap := repeat(el("any"), "0+")
			pattern = alt(seq(itemE(trigger[0]), gap, alt(others...)), seq(alt(others...), repeat(el("any"), "0+"), itemE(trigger[0])), setE(both, "in both"))
		case "only-in":
			pattern, err = x.onlyIn(trigger, contexts)
			if err != nil {
				return nil, fmt.Errorf("rule %q: %v", r.Text, err)
			}
		default:
			return nil, fmt.Errorf("rule %q: unknown kind %q", r.Text, r.Kind)
		}
		out = append(out, langRule{code: r.Code.String(), comment: r.Kind + " " + r.Text, ref: r.Ref, pattern: pattern})
	}
	return out, nil
}

// intersect is the code points in both a and b.
func (x *exporter) intersect(a, b []rune) []rune {
	in := map[rune]bool{}
	for _, r := range b {
		in[r] = true
	}
	var out []rune
	for _, r := range a {
		if in[r] {
			out = append(out, r)
		}
	}
	return out
}

// minus is the repertoire (with digits and hyphen) without rs.
func (x *exporter) minus(rs []rune) []rune {
	drop := map[rune]bool{}
	for _, r := range rs {
		drop[r] = true
	}
	var out []rune
	for _, r := range x.universe {
		if !drop[r] {
			out = append(out, r)
		}
	}
	return out
}

// onlyIn writes "TRIGGER only inside one of CONTEXTS" as the pattern of a
// violation: the trigger, with around it, for every context and every
// place the trigger stands in it, one position where the context fails.
// Conditions at one position combine, so the pattern is a choice of
// sequences, each position a class (or the start or end of the label).
func (x *exporter) onlyIn(trigger []item, contexts [][]item) (*element, error) {
	for _, it := range trigger {
		if it.start {
			return nil, fmt.Errorf("^ in an only-in trigger")
		}
	}
	covers := func(t, c item) bool { // every code point of t is in c
		in := map[rune]bool{}
		for _, r := range c.set {
			in[r] = true
		}
		for _, r := range t.set {
			if !in[r] {
				return false
			}
		}
		return true
	}
	sameItem := func(t, c item) bool {
		// context.go's locate: the same item, or a class item of the
		// trigger standing for a code point of that class.
		if t.text == c.text {
			return true
		}
		_, isClass := classByName(t.text)
		return isClass && len(c.set) == 1 && covers(c, t)
	}
	// literal: at position rel (relative to the trigger's first code
	// point), the code point is not in set.
	type literal struct {
		rel int
		set []rune
	}
	var clauses [][]literal // each clause: one context at one offset fails
	for _, c := range contexts {
		for _, it := range c {
			if it.start {
				return nil, fmt.Errorf("^ in an only-in context")
			}
		}
		for o := 0; o+len(trigger) <= len(c); o++ {
			all := true
			for j, t := range trigger {
				all = all && sameItem(t, c[o+j])
			}
			if !all {
				continue
			}
			var clause []literal
			for j, it := range c {
				rel := j - o
				if rel >= 0 && rel < len(trigger) && covers(trigger[rel], it) {
					continue // matched by the trigger already: cannot fail
				}
				clause = append(clause, literal{rel, it.set})
			}
			if len(clause) == 0 {
				return nil, nil // the trigger is always in this context: the rule never fires
			}
			clauses = append(clauses, clause)
		}
	}
	// Disjunctive normal form: one literal from each clause.
	type term map[int]map[rune]bool // position -> forbidden code points
	terms := []term{{}}
	for _, cl := range clauses {
		var next []term
		for _, t := range terms {
			for _, lit := range cl {
				nt := term{}
				for p, s := range t {
					nt[p] = map[rune]bool{}
					for r := range s {
						nt[p][r] = true
					}
				}
				if nt[lit.rel] == nil {
					nt[lit.rel] = map[rune]bool{}
				}
				for _, r := range lit.set {
					nt[lit.rel][r] = true
				}
				next = append(next, nt)
			}
		}
		if terms = next; len(terms) > 512 {
			return nil, fmt.Errorf("too many combinations of contexts")
		}
	}
	var alts []*element
	seen := map[string]bool{}
	for _, t := range terms {
		lo, hi := 0, len(trigger)-1
		for p := range t {
			lo, hi = min(lo, p), max(hi, p)
		}
		allowed := map[int][]rune{}
		possible := true
		for p := lo; p <= hi; p++ {
			base := x.universe
			if p >= 0 && p < len(trigger) {
				base = trigger[p].set
			}
			var a []rune
			for _, r := range base {
				if !t[p][r] {
					a = append(a, r)
				}
			}
			if len(a) == 0 && p >= 0 && p < len(trigger) {
				possible = false
			}
			allowed[p] = a
		}
		if !possible {
			continue
		}
		pos := func(p int) *element {
			if p >= 0 && p < len(trigger) && t[p] == nil {
				return itemE(trigger[p])
			}
			if t[p] == nil {
				return el("any")
			}
			return setE(allowed[p], "")
		}
		// Left of the trigger: the label starts somewhere in the window,
		// or the whole window is inside the label.
		var left *element
		if lo < 0 {
			var opts []*element
			for s := lo; s <= 0; s++ {
				var parts []*element
				if s > lo {
					parts = append(parts, el("start"))
				}
				ok := true
				for p := s; p < 0; p++ {
					e := pos(p)
					ok = ok && e != nil
					parts = append(parts, e)
				}
				if ok {
					opts = append(opts, seq(parts...))
				}
			}
			left = alt(opts...)
		}
		var mid []*element
		for p := 0; p < len(trigger); p++ {
			mid = append(mid, pos(p))
		}
		var right *element
		if hi >= len(trigger) {
			var opts []*element
			for e := len(trigger); e <= hi+1; e++ {
				var parts []*element
				ok := true
				for p := len(trigger); p < e; p++ {
					pe := pos(p)
					ok = ok && pe != nil
					parts = append(parts, pe)
				}
				if e <= hi {
					parts = append(parts, el("end"))
				}
				if ok {
					opts = append(opts, seq(parts...))
				}
			}
			right = alt(opts...)
		}
		e := seq(append(append([]*element{left}, mid...), right)...)
		var key strings.Builder
		e.write(&key, 0)
		if !seen[key.String()] {
			seen[key.String()] = true
			alts = append(alts, e)
		}
	}
	return alt(alts...), nil
}
