package akshara

import (
	"fmt"
	"strings"
)

// Context rules are the restrictions of docs/policy.md §5 that depend on a
// character's neighbours: "ऱ only in ऱ्य and ऱ्ह", "tippi only after a
// consonant …", "addak not after a halant …". They are data (only-in,
// not-after, only-after and vowel-conjuncts in a language file) checked by
// one engine after the grammar.

type itemKind uint8

const (
	itemRune   itemKind = iota // one code point
	itemClass                  // any code point of a class
	itemStart                  // the start of the label (^)
	itemHyphen                 // a hyphen
	itemDigit                  // an ASCII digit
)

type item struct {
	kind  itemKind
	r     rune
	class Class
}

type ruleKind uint8

const (
	ruleOnlyIn ruleKind = iota
	ruleNotAfter
	ruleOnlyAfter
	ruleNoMix // the trigger and a context must not both be in the label
)

var ruleKindNames = map[string]ruleKind{"only-in": ruleOnlyIn, "not-after": ruleNotAfter, "only-after": ruleOnlyAfter, "no-mix": ruleNoMix}

type contextRule struct {
	kind     ruleKind
	code     Code
	ref      Ref
	line     int
	text     string
	trigger  []item   // only-in: the sequence; not-after, only-after: the one target
	contexts [][]item // only-in: the permitted contexts; otherwise the single-item predecessors
	offsets  [][]int  // only-in: where trigger stands inside each context
}

// parseItems reads "H ਯ", "ऱ्य", "^", "digit": a class letter, ^, - and
// digit are items of their own; any other token is literal text, one item
// per code point.
func parseItems(s string) ([]item, error) {
	var items []item
	for _, tok := range strings.Fields(s) {
		switch tok {
		case "^":
			items = append(items, item{kind: itemStart})
			continue
		case "-":
			items = append(items, item{kind: itemHyphen})
			continue
		case "digit":
			items = append(items, item{kind: itemDigit})
			continue
		}
		if c, ok := parseClass(tok); ok {
			items = append(items, item{kind: itemClass, class: c})
			continue
		}
		if isASCII(tok) {
			return nil, fmt.Errorf("unknown item %q (want a class letter, ^, -, digit or text of the script)", tok)
		}
		for _, r := range tok {
			items = append(items, item{kind: itemRune, r: r})
		}
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("empty sequence")
	}
	return items, nil
}

// parseContextRule reads "TRIGGER : CONTEXT | CONTEXT ...".
func parseContextRule(kind ruleKind, code Code, ref Ref, line int, text string) (contextRule, error) {
	cr := contextRule{kind: kind, code: code, ref: ref, line: line, text: text}
	lhs, rhs, ok := strings.Cut(text, ":")
	if !ok {
		return cr, fmt.Errorf("want \"TRIGGER : CONTEXT | CONTEXT ...\"")
	}
	var err error
	if cr.trigger, err = parseItems(lhs); err != nil {
		return cr, err
	}
	for _, c := range strings.Split(rhs, "|") {
		items, err := parseItems(c)
		if err != nil {
			return cr, err
		}
		cr.contexts = append(cr.contexts, items)
	}
	switch kind {
	case ruleOnlyIn:
		for _, it := range cr.trigger {
			if it.kind == itemStart {
				return cr, fmt.Errorf("^ cannot be part of an only-in trigger")
			}
		}
	default:
		if len(cr.trigger) != 1 || cr.trigger[0].kind == itemStart {
			return cr, fmt.Errorf("the target must be one character or class")
		}
		for _, c := range cr.contexts {
			if len(c) != 1 {
				return cr, fmt.Errorf("each preceding item must be one character, class, ^, - or digit")
			}
		}
	}
	return cr, nil
}

// locate finds where the trigger stands in each context of an only-in
// rule; a class item of the trigger stands for a character of that class.
func (l *Language) locate(cr *contextRule) error {
	covers := func(t, c item) bool {
		switch {
		case t == c:
			return true
		case t.kind == itemClass && c.kind == itemRune:
			return l.class[c.r] == t.class
		}
		return false
	}
	cr.offsets = nil
	for i, c := range cr.contexts {
		var offs []int
		for o := 0; o+len(cr.trigger) <= len(c); o++ {
			all := true
			for j, t := range cr.trigger {
				all = all && covers(t, c[o+j])
			}
			if all {
				offs = append(offs, o)
			}
		}
		if len(offs) == 0 {
			return fmt.Errorf("context %d does not contain the trigger", i+1)
		}
		cr.offsets = append(cr.offsets, offs)
	}
	return nil
}

// matches reports whether it matches the label's code point at p (p == -1
// is the start of the label).
func (l *Language) matches(it item, rs []rune, p int) bool {
	if p < 0 || p >= len(rs) {
		return it.kind == itemStart && p == -1
	}
	r := rs[p]
	switch it.kind {
	case itemRune:
		return r == it.r
	case itemClass:
		return l.classOf(r) == it.class
	case itemHyphen:
		return r == '-'
	case itemDigit:
		return r >= '0' && r <= '9'
	}
	return false
}

func (l *Language) matchSeq(items []item, rs []rune, p int) bool {
	for i, it := range items {
		if !l.matches(it, rs, p+i) {
			return false
		}
	}
	return true
}

// checkContexts applies the language's context rules to the code points
// rs of an NFC label and calls report for each violation (code, position);
// report returns false to stop.
func (l *Language) checkContexts(rs []rune, report func(*contextRule, int) bool) {
	for ri := range l.contexts {
		cr := &l.contexts[ri]
		for p := range rs {
			if !l.matchSeq(cr.trigger, rs, p) {
				continue
			}
			bad := false
			switch cr.kind {
			case ruleOnlyIn:
				bad = true
				for ci, c := range cr.contexts {
					for _, o := range cr.offsets[ci] {
						if l.matchSeq(c, rs, p-o) {
							bad = false
						}
					}
				}
			case ruleNotAfter, ruleOnlyAfter:
				found := false
				for _, c := range cr.contexts {
					found = found || l.matches(c[0], rs, p-1)
				}
				bad = found == (cr.kind == ruleNotAfter)
			case ruleNoMix:
				// Reported at the later of the two letters.
				if q, found := l.findAny(cr.contexts, rs); found {
					bad = true
					if q > p {
						if !report(cr, q) {
							return
						}
						continue
					}
				}
			}
			if bad && !report(cr, p+len(cr.trigger)-1) {
				return
			}
		}
	}
}

// findAny returns the first position of rs where one of the single-item
// contexts matches.
func (l *Language) findAny(contexts [][]item, rs []rune) (int, bool) {
	for q := range rs {
		for _, c := range contexts {
			if l.matches(c[0], rs, q) {
				return q, true
			}
		}
	}
	return 0, false
}

// ruleBroken reports whether the rule's trigger stands at rs[p] and its
// context is wrong there (for no-mix, whether the label mixes: checkContexts
// may report that at the other letter). It is checkContexts' test, for the
// verdict-only path; TestFastPath and TestCheckMatchesReference hold the
// two to each other.
func (l *Language) ruleBroken(cr *contextRule, rs []rune, p int) bool {
	if !l.matchSeq(cr.trigger, rs, p) {
		return false
	}
	switch cr.kind {
	case ruleOnlyIn:
		for ci, c := range cr.contexts {
			for _, o := range cr.offsets[ci] {
				if l.matchSeq(c, rs, p-o) {
					return false
				}
			}
		}
		return true
	case ruleNotAfter, ruleOnlyAfter:
		found := false
		for _, c := range cr.contexts {
			found = found || l.matches(c[0], rs, p-1)
		}
		return found == (cr.kind == ruleNotAfter)
	case ruleNoMix:
		_, found := l.findAny(cr.contexts, rs)
		return found
	}
	return false
}

// contextsOK is checkContexts for the verdict-only path. It tries at each
// position only the rules whose trigger can start with the code point
// there (rulesAt).
func (l *Language) contextsOK(u string) bool {
	var buf [MaxALabelLength + 1]rune
	n := 0
	for _, r := range u {
		if n == len(buf) {
			return false // too long to be valid anyway
		}
		buf[n] = r
		n++
	}
	rs := buf[:n]
	for p, r := range rs {
		var rules []uint16
		switch off := r - l.block; {
		case off >= 0 && off < 128:
			rules = l.rulesAt[off]
		case r >= '0' && r <= '9':
			rules = l.rulesAt[128]
		case r == '-':
			rules = l.rulesAt[129]
		default:
			rules = l.rulesAnywhere
		}
		for _, ri := range rules {
			if l.ruleBroken(&l.contexts[ri], rs, p) {
				return false
			}
		}
	}
	return true
}

// indexRules fills rulesAt: for each block offset (128 digits, 129
// hyphen), the context rules whose trigger may start there.
func (l *Language) indexRules() {
	for ri, cr := range l.contexts {
		l.rulesAnywhere = append(l.rulesAnywhere, uint16(ri))
		first := cr.trigger[0]
		for o := 0; o < 130; o++ {
			var r rune
			switch o {
			case 128:
				r = '0'
			case 129:
				r = '-'
			default:
				r = l.block + rune(o)
			}
			var may bool
			switch first.kind {
			case itemRune:
				may = first.r == r
			case itemClass:
				may = o < 128 && l.class[r] == first.class
			case itemHyphen:
				may = o == 129
			case itemDigit:
				may = o == 128
			}
			if may {
				l.rulesAt[o] = append(l.rulesAt[o], uint16(ri))
			}
		}
	}
}

// startsTrigger reports whether a context rule's trigger may start with r.
func (l *Language) startsTrigger(r rune) bool {
	for _, cr := range l.contexts {
		switch first := cr.trigger[0]; first.kind {
		case itemRune:
			if first.r == r {
				return true
			}
		case itemClass:
			if l.class[r] == first.class {
				return true
			}
		}
	}
	return false
}

// markTriggers records the block code points that can start a context
// rule's trigger, so the verdict-only path runs the rules only when needed.
func (l *Language) markTriggers() {
	for _, cr := range l.contexts {
		first := cr.trigger[0]
		for r, c := range l.class {
			if (first.kind == itemRune && first.r == r) || (first.kind == itemClass && first.class == c) {
				if off := r - l.block; off >= 0 && off < 128 {
					l.trigger[off] = true
				} else {
					l.extraTrigger = true
				}
			}
		}
		if first.kind == itemHyphen || first.kind == itemDigit {
			l.asciiTrigger = true
		}
	}
}
