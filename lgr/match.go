package lgr

import (
	"fmt"
	"strconv"
	"strings"
)

// A pat is a compiled rule: RFC 7940's match operators as a tree, matched
// by a backtracking matcher (Go's regexp has no look-around).
type op uint8

const (
	opSeq    op = iota // a rule: its children in order
	opChoice           // one of the children
	opChar             // a code point or sequence
	opClass            // one code point of a set
	opAny              // any one code point
	opStart            // the start of the label
	opEnd              // the end of the label
	opAnchor           // the code point (or sequence) the context rule is for
	opAhead            // look-ahead: the children match after here
	opBehind           // look-behind: the children match up to here
)

type pat struct {
	op       op
	cps      []rune
	set      *cset
	kids     []*pat
	min, max int // repetition; max < 0 is unbounded
	anchored bool
	// first, if not nil, holds every code point a match of the pattern
	// can begin with (a match always consumes one): the matcher skips the
	// pattern elsewhere.
	first *cset
}

// firstSet computes p.first from the pattern and its children.
func firstSet(p *pat) *cset {
	if p.min < 1 {
		return nil
	}
	switch p.op {
	case opChar:
		return newSet(p.cps[0]).frozen()
	case opClass:
		return p.set
	case opSeq:
		if len(p.kids) > 0 {
			return p.kids[0].first
		}
	case opChoice:
		u := newSet()
		for _, k := range p.kids {
			if k.first == nil {
				return nil
			}
			u = union(u, k.first)
		}
		return u.frozen()
	}
	return nil
}

// parseCount reads "n", "n+" or "n:m".
func parseCount(s string) (lo, hi int, err error) {
	bad := fmt.Errorf("count %q: want n, n+ or n:m", s)
	if strings.HasSuffix(s, "+") {
		n, err := strconv.Atoi(strings.TrimSuffix(s, "+"))
		if err != nil || n < 0 || n > 1000 {
			return 0, 0, bad
		}
		return n, -1, nil
	}
	a, b, isRange := strings.Cut(s, ":")
	lo, err = strconv.Atoi(a)
	if err != nil || lo < 0 || lo > 1000 {
		return 0, 0, bad
	}
	hi = lo
	if isRange {
		if hi, err = strconv.Atoi(b); err != nil || hi < lo || hi > 1000 {
			return 0, 0, bad
		}
	}
	return lo, hi, nil
}

// compile turns a rule element (or any match operator) into a pattern.
func (g *LGR) compile(e *element) (*pat, error) {
	p := &pat{min: 1, max: 1}
	errf := func(format string, args ...any) error {
		return fmt.Errorf("line %d: <%s>: %s", e.line, e.name, fmt.Sprintf(format, args...))
	}
	switch e.name {
	case "rule":
		if ref, ok := e.attr("by-ref"); ok {
			q, err := g.rule(ref)
			if err != nil {
				return nil, errf("%v", err)
			}
			p = &pat{op: opSeq, kids: []*pat{q}, min: 1, max: 1, anchored: q.anchored}
			break
		}
		p.op = opSeq
	case "choice":
		p.op = opChoice
	case "look-ahead":
		p.op = opAhead
	case "look-behind":
		p.op = opBehind
	case "char":
		cps, err := parseSequence(e.get("cp"))
		if err != nil {
			return nil, errf("%v", err)
		}
		p.op, p.cps = opChar, cps
	case "any":
		p.op = opAny
	case "start":
		p.op = opStart
	case "end":
		p.op = opEnd
	case "anchor":
		p.op, p.anchored = opAnchor, true
	default:
		if !setOps[e.name] {
			return nil, errf("not a match operator")
		}
		s, err := g.setOf(e)
		if err != nil {
			return nil, err
		}
		p.op, p.set = opClass, s.frozen()
	}
	if c, ok := e.attr("count"); ok {
		lo, hi, err := parseCount(c)
		if err != nil {
			return nil, errf("%v", err)
		}
		p.min, p.max = lo, hi
	}
	switch p.op {
	case opSeq, opChoice, opAhead, opBehind:
		if _, ref := e.attr("by-ref"); ref {
			break
		}
		for _, k := range e.kids {
			q, err := g.compile(k)
			if err != nil {
				return nil, err
			}
			p.anchored = p.anchored || q.anchored
			p.kids = append(p.kids, q)
		}
		if p.op == opChoice && len(p.kids) < 2 {
			return nil, errf("a choice needs two or more operators")
		}
		if p.op == opSeq && len(p.kids) == 0 {
			p.op = opChoice // an empty rule matches nothing (as in lgr-core)
		}
	default:
		if len(e.kids) > 0 && p.op != opClass {
			return nil, errf("has child elements")
		}
	}
	p.first = firstSet(p)
	return p, nil
}

// maxSteps bounds the work of one label's evaluation, so that no rule can
// make Judge run away (backtracking is exponential at worst).
const maxSteps = 2_000_000

// matcher matches patterns against one label.
type matcher struct {
	rs        []rune
	anchor    int // position of the element a context rule is for; -1 for none
	anchorLen int
	steps     int
	exhausted bool
}

// search reports whether p matches somewhere in the label (a whole-label
// rule), and where the first match starts.
func (m *matcher) search(p *pat) (int, bool) {
	m.anchor = -1
	last := len(m.rs)
	if leads(p, opStart) {
		last = 0 // a rule that begins with <start/> can only match there
	}
	for s := 0; s <= last; s++ {
		if !m.may(p, s) {
			continue
		}
		if m.match(p, s, func(int) bool { return true }) {
			return s, true
		}
	}
	return 0, false
}

// context reports whether the context rule p holds for the element at
// [pos, pos+n). A rule without an anchor is evaluated as a whole-label rule.
func (m *matcher) context(p *pat, pos, n int) bool {
	if !p.anchored {
		_, ok := m.search(p)
		return ok
	}
	m.anchor, m.anchorLen = pos, n
	defer func() { m.anchor = -1 }()
	first := 0
	if leads(p, opBehind) || leads(p, opAnchor) {
		first = pos // zero-width look-behind, then the anchor: only at pos
	}
	for s := first; s <= pos; s++ {
		if m.match(p, s, func(int) bool { return true }) {
			return true
		}
	}
	return false
}

// leads reports whether p is a sequence whose first operator is o, once.
func leads(p *pat, o op) bool {
	return p.op == opSeq && p.min == 1 && p.max == 1 && len(p.kids) > 0 &&
		p.kids[0].op == o && p.kids[0].min == 1 && p.kids[0].max == 1
}

// match matches p, repeated as its count says, at pos and calls k with
// each end position until k returns true.
func (m *matcher) match(p *pat, pos int, k func(int) bool) bool {
	if p.min == 1 && p.max == 1 {
		return m.one(p, pos, k)
	}
	return m.repeat(p, pos, 0, k)
}

func (m *matcher) repeat(p *pat, pos, i int, k func(int) bool) bool {
	if i >= p.min && k(pos) {
		return true
	}
	if p.max >= 0 && i >= p.max {
		return false
	}
	return m.one(p, pos, func(end int) bool {
		if end == pos && i >= p.min {
			return false // an empty repetition adds nothing
		}
		return m.repeat(p, end, i+1, k)
	})
}

func (m *matcher) one(p *pat, pos int, k func(int) bool) bool {
	if m.steps++; m.steps > maxSteps {
		m.exhausted = true
	}
	if m.exhausted {
		return false
	}
	n := len(m.rs)
	switch p.op {
	case opChar:
		if pos+len(p.cps) > n {
			return false
		}
		for i, r := range p.cps {
			if m.rs[pos+i] != r {
				return false
			}
		}
		return k(pos + len(p.cps))
	case opClass:
		return pos < n && p.set.has(m.rs[pos]) && k(pos+1)
	case opAny:
		return pos < n && k(pos+1)
	case opStart:
		return pos == 0 && k(pos)
	case opEnd:
		return pos == n && k(pos)
	case opAnchor:
		return m.anchor >= 0 && pos == m.anchor && k(pos+m.anchorLen)
	case opChoice:
		for _, q := range p.kids {
			if m.may(q, pos) && m.match(q, pos, k) {
				return true
			}
		}
		return false
	case opSeq:
		return m.seq(p.kids, pos, k)
	case opAhead:
		if m.seq(p.kids, pos, func(int) bool { return true }) {
			return k(pos)
		}
		return false
	case opBehind:
		for s := pos; s >= 0; s-- {
			if m.seq(p.kids, s, func(end int) bool { return end == pos }) {
				return k(pos)
			}
		}
		return false
	}
	return false
}

// may reports whether p can match at pos, by its first code point.
func (m *matcher) may(p *pat, pos int) bool {
	return p.first == nil || (pos < len(m.rs) && p.first.has(m.rs[pos]))
}

func (m *matcher) seq(ps []*pat, pos int, k func(int) bool) bool {
	if len(ps) == 0 {
		return k(pos)
	}
	return m.match(ps[0], pos, func(end int) bool { return m.seq(ps[1:], end, k) })
}
