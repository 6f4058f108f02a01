package lgr

import (
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// VariantLabel is one variant label an LGR generates, with its disposition.
type VariantLabel struct {
	Label       string `json:"label"`
	Disposition string `json:"disposition"`
	Rule        string `json:"rule,omitempty"` // the rule of the action that decided, if any
}

// maxVariants bounds the variant labels Variants generates for one label.
const maxVariants = 4096

// Variants generates the variant labels of label (RFC 7940 §8.2): the
// label is covered by repertoire elements as Judge covers it, each element
// is kept or replaced by each of its variant mappings whose when/not-when
// rule holds in the original label, and every combination but the label
// itself is a variant label. A variant label that is not NFC (a mapping
// before a mark it composes with) is taken in NFC, as a registry
// normalizes input; one with a code point outside the repertoire is
// invalid. Each gets its disposition from the actions
// (§8.3), with the set of variant types it was made with. At most
// maxVariants are made; the result is sorted by label.
func (g *LGR) Variants(label string) []VariantLabel {
	if !utf8.ValidString(label) {
		return nil
	}
	rs := []rune(label)
	if len(rs) > maxLabel {
		return nil
	}
	type option struct {
		cps []rune
		typ string // "" keeps the original element
	}
	var slots [][]option
	m := &matcher{rs: rs}
	for i := 0; i < len(rs); {
		var found *repElem
		for n := min(g.maxSeq, len(rs)-i); n >= 1; n-- {
			if e, ok := g.repertoire[string(rs[i:i+n])]; ok {
				found = e
				break
			}
		}
		if found == nil {
			return nil
		}
		opts := []option{{cps: found.cps}}
		for _, v := range found.vars {
			if v.when != "" && !m.context(g.rules[v.when], i, len(found.cps)) {
				continue
			}
			if v.notWhen != "" && m.context(g.rules[v.notWhen], i, len(found.cps)) {
				continue
			}
			opts = append(opts, option{cps: v.cps, typ: v.typ})
		}
		slots = append(slots, opts)
		i += len(found.cps)
	}
	var out []VariantLabel
	seen := map[string]bool{label: true}
	steps := m.steps // one budget of matcher steps for all the variants
	choice := make([]int, len(slots))
	for {
		// advance the counter; the first combination (all kept) is the label
		i := 0
		for ; i < len(choice); i++ {
			if choice[i]++; choice[i] < len(slots[i]) {
				break
			}
			choice[i] = 0
		}
		if i == len(choice) || len(out) >= maxVariants {
			break
		}
		var b strings.Builder
		types := map[string]bool{}
		all := true // every element was mapped (only-variants)
		for j, c := range choice {
			o := slots[j][c]
			b.WriteString(string(o.cps))
			if o.typ != "" {
				types[o.typ] = true
			} else if c == 0 {
				all = false
			}
		}
		v := b.String()
		if !norm.NFC.IsNormalString(v) {
			// a mapping before a mark it composes with: the U-label is
			// the NFC form, as a registry normalizes input
			v = norm.NFC.String(v)
		}
		if seen[v] {
			continue
		}
		seen[v] = true
		vl, used, exhausted := g.variantDisposition(v, types, all, steps)
		out = append(out, vl)
		if steps = used; exhausted {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// variantDisposition applies the actions to a variant label made with the
// variant types in types.
func (g *LGR) variantDisposition(label string, types map[string]bool, onlyMapped bool, steps int) (VariantLabel, int, bool) {
	vl := VariantLabel{Label: label, Disposition: "valid"}
	rs := []rune(label)
	if _, bad := g.cover(rs); bad >= 0 {
		vl.Disposition, vl.Rule = "invalid", NotInRepertoire
		return vl, steps, false
	}
	m := &matcher{rs: rs, steps: steps}
	for _, a := range g.actions {
		rule := ""
		switch {
		case a.match != "":
			if _, ok := m.search(g.rules[a.match]); !ok {
				continue
			}
			rule = a.match
		case a.notMatch != "":
			if _, ok := m.search(g.rules[a.notMatch]); ok {
				continue
			}
			rule = a.notMatch
		}
		subset := len(types) > 0
		any := false
		for t := range types {
			if contains(a.types, t) {
				any = true
			} else {
				subset = false
			}
		}
		switch a.variants {
		case "any-variant":
			if !any {
				continue
			}
		case "all-variants":
			if !subset {
				continue
			}
		case "only-variants":
			if !subset || !onlyMapped {
				continue
			}
		}
		vl.Disposition, vl.Rule = a.disp, rule
		break
	}
	if m.exhausted {
		vl.Disposition, vl.Rule = "invalid", "evaluation-limit"
	}
	return vl, m.steps, m.exhausted
}
