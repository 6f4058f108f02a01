package lgr

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// cset is a set of code points: the listed ones, or with neg every code
// point but the listed ones (a complement).
type cset struct {
	m   map[rune]bool
	neg bool
	// bits is m as a bitmap from lo, for matching (see frozen); nil if
	// not built.
	lo   rune
	bits []uint64
}

func newSet(rs ...rune) *cset {
	s := &cset{m: map[rune]bool{}}
	for _, r := range rs {
		s.m[r] = true
	}
	return s
}

func (s *cset) has(r rune) bool {
	if s.bits != nil {
		i := r - s.lo
		in := i >= 0 && int(i>>6) < len(s.bits) && s.bits[i>>6]&(1<<(i&63)) != 0
		return in != s.neg
	}
	return s.m[r] != s.neg
}

// frozen returns the set with a bitmap for has, when its code points span
// at most 64K (a script block or a few); otherwise the set itself.
func (s *cset) frozen() *cset {
	if len(s.m) == 0 {
		return s
	}
	lo, hi := rune(0x10FFFF), rune(0)
	for r := range s.m {
		lo, hi = min(lo, r), max(hi, r)
	}
	if hi-lo >= 1<<16 {
		return s
	}
	f := &cset{m: s.m, neg: s.neg, lo: lo, bits: make([]uint64, (hi-lo)/64+1)}
	for r := range s.m {
		i := r - lo
		f.bits[i>>6] |= 1 << (i & 63)
	}
	return f
}

func (s *cset) complement() *cset { return &cset{m: s.m, neg: !s.neg} }

func union(a, b *cset) *cset {
	out := &cset{m: map[rune]bool{}}
	switch {
	case !a.neg && !b.neg:
		for r := range a.m {
			out.m[r] = true
		}
		for r := range b.m {
			out.m[r] = true
		}
	case a.neg && b.neg: // ¬x ∪ ¬y = ¬(x ∩ y)
		out.neg = true
		for r := range a.m {
			if b.m[r] {
				out.m[r] = true
			}
		}
	default: // ¬x ∪ y = ¬(x − y)
		if b.neg {
			a, b = b, a
		}
		out.neg = true
		for r := range a.m {
			if !b.m[r] {
				out.m[r] = true
			}
		}
	}
	return out
}

func intersection(a, b *cset) *cset {
	return union(a.complement(), b.complement()).complement()
}

func difference(a, b *cset) *cset { return intersection(a, b.complement()) }

func symmetricDifference(a, b *cset) *cset {
	return union(difference(a, b), difference(b, a))
}

// parseCodePoint reads a code point written as 4 to 6 hex digits.
func parseCodePoint(s string) (rune, error) {
	if len(s) < 4 || len(s) > 6 {
		return 0, fmt.Errorf("code point %q: want 4 to 6 hex digits", s)
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil || v > 0x10FFFF || strings.ToUpper(s) != s {
		return 0, fmt.Errorf("code point %q: want 4 to 6 upper-case hex digits up to 10FFFF", s)
	}
	return rune(v), nil
}

// parseSequence reads "0915 094D 0937".
func parseSequence(s string) ([]rune, error) {
	fs := strings.Fields(s)
	if len(fs) == 0 {
		return nil, fmt.Errorf("empty code point sequence")
	}
	return parseCodePoints(fs)
}

// parseVariantSequence is parseSequence for a variant mapping, where the
// empty sequence is a null variant (RFC 7940 §5.3.5).
func parseVariantSequence(s string) ([]rune, error) {
	fs := strings.Fields(s)
	if len(fs) == 0 && strings.TrimSpace(s) == "" {
		return []rune{}, nil
	}
	return parseCodePoints(fs)
}

func parseCodePoints(fs []string) ([]rune, error) {
	rs := make([]rune, len(fs))
	for i, f := range fs {
		r, err := parseCodePoint(f)
		if err != nil {
			return nil, err
		}
		rs[i] = r
	}
	return rs, nil
}

// maxShorthand bounds the code points one class text may list.
const maxShorthand = 1 << 20

// parseShorthand reads a class's text: "0915 0916-0939".
func parseShorthand(s string) (*cset, error) {
	out := newSet()
	n := 0
	for _, f := range strings.Fields(s) {
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := parseCodePoint(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = parseCodePoint(hi); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("range %s: last before first", f)
			}
		}
		if n += int(b-a) + 1; n > maxShorthand {
			return nil, fmt.Errorf("class lists more than %d code points", maxShorthand)
		}
		for r := a; r <= b; r++ {
			out.m[r] = true
		}
	}
	return out, nil
}

// shorthand writes a finite set as RFC 7940 class text, ranges joined.
func shorthand(rs []rune) string {
	rs = append([]rune(nil), rs...)
	sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	var parts []string
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, hex(rs[i]))
		case j == i+1:
			parts = append(parts, hex(rs[i]), hex(rs[j]))
		default:
			parts = append(parts, hex(rs[i])+"-"+hex(rs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, " ")
}

func hex(r rune) string { return fmt.Sprintf("%04X", r) }

func hexSeq(rs []rune) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = hex(r)
	}
	return strings.Join(parts, " ")
}
