package akshara

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A language file is the policy of one language as data (languages/README.md
// describes the format). parseLangFile reads one into a langSpec; compile
// checks it against the policy's invariants and builds the fast tables.

// Ref is where a language file entry comes from in the policy documents,
// such as "§ 5 Consonants (C)".
type Ref string

type member struct {
	lo, hi rune
	name   string // the character name written in the file
	line   int
}

type classSpec struct {
	class   Class
	ref     Ref
	members []member
}

type refuseSpec struct {
	code    Code
	ref     Ref
	members []member
}

// Example is one of a policy document's examples, kept in the language file
// as a test vector.
type Example struct {
	Kind string // "valid", "invalid" or "akshara"
	Text string
	Want []WantError // for "invalid": the expected errors
	Ref  Ref
	Line int
}

// WantError is an expected error of an invalid example; Pos is -1 when the
// example does not fix the position.
type WantError struct {
	Code Code
	Pos  int
}

type langSpec struct {
	tag, name, native, script, source string
	k                                 int
	kRef                              Ref
	cctld                             string
	cctldRef                          Ref
	classes                           []classSpec
	nuktaAfter                        []member
	nuktaRef                          Ref
	signPairs                         []string
	refuse                            []refuseSpec
	variants                          [][]string
	variantsRef                       Ref
	nullVariants                      []member // null-variants: code points a variant may drop
	nullRef                           Ref
	varLimitUnit                      string // variant-limit: "aksharas" (the default) or "labels"
	varLimit                          int
	varLimitRef                       Ref
	examples                          []Example
	contexts                          []contextRule
	lgrNotes                          map[rune]string // lgr-cross-check: why the repertoire differs from an LGR
	vowelConjuncts                    []string
	vowelConjunctRef                  Ref
	digest                            string // SHA-256 of the file, hex
	grammar                           string // "syllable" (the default) or "alphabet"
	grammarRef                        Ref
	rtl                               bool // direction rtl: the Bidi rule of RFC 5893 applies
	directionRef                      Ref
	classWords                        map[Class]string // class-word: how messages name a class
}

type fileError struct {
	file string
	line int
	msg  string
}

func (e *fileError) Error() string { return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg) }

// splitRef splits "head § ref" into head and ref; refuse headers take free
// text after their code as the reference.
func splitRef(s string) (head string, ref Ref) {
	if i := strings.Index(s, "§"); i >= 0 {
		return strings.TrimSpace(s[:i]), Ref(strings.TrimSpace(s[i:]))
	}
	return strings.TrimSpace(s), ""
}

func parseLangFile(name string, data []byte) (*langSpec, error) {
	if !utf8.Valid(data) {
		return nil, &fileError{name, 0, "file is not UTF-8"}
	}
	sp := &langSpec{k: -1}
	errf := func(line int, format string, args ...any) error {
		return &fileError{name, line, fmt.Sprintf(format, args...)}
	}
	// section is the open block that indented member lines belong to.
	var section func(line int, text string) error

	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		raw := sc.Text()
		if i := strings.IndexByte(raw, '#'); i >= 0 {
			raw = raw[:i]
		}
		if strings.TrimSpace(raw) == "" {
			continue
		}
		if raw[0] == ' ' || raw[0] == '\t' {
			if section == nil {
				return nil, errf(lineNo, "indented line outside a section")
			}
			if err := section(lineNo, strings.TrimSpace(raw)); err != nil {
				return nil, err
			}
			continue
		}
		section = nil
		key, rest, _ := strings.Cut(strings.TrimSpace(raw), " ")
		rest = strings.TrimSpace(rest)
		switch key {
		case "language", "name", "native", "script", "source":
			v, _ := splitRef(rest)
			if key == "source" {
				v = rest
			}
			if v == "" {
				return nil, errf(lineNo, "%s: missing value", key)
			}
			switch key {
			case "language":
				sp.tag = v
			case "name":
				sp.name = v
			case "native":
				sp.native = v
			case "script":
				sp.script = v
			case "source":
				sp.source = v
			}
		case "k":
			v, ref := splitRef(rest)
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 8 {
				return nil, errf(lineNo, "k: want a number from 0 to 8, have %q", v)
			}
			sp.k, sp.kRef = n, ref
		case "cctld":
			v, ref := splitRef(rest)
			sp.cctld, sp.cctldRef = v, ref
		case "class":
			v, ref := splitRef(rest)
			cl, ok := parseClass(v)
			if !ok {
				return nil, errf(lineNo, "class: unknown class %q", v)
			}
			sp.classes = append(sp.classes, classSpec{class: cl, ref: ref})
			cs := &sp.classes[len(sp.classes)-1]
			section = func(line int, text string) error {
				m, err := parseMember(text, line, false)
				if err != nil {
					return errf(line, "%v", err)
				}
				cs.members = append(cs.members, m)
				return nil
			}
		case "nukta-after":
			_, ref := splitRef(rest)
			sp.nuktaRef = ref
			section = func(line int, text string) error {
				m, err := parseMember(text, line, false)
				if err != nil {
					return errf(line, "%v", err)
				}
				sp.nuktaAfter = append(sp.nuktaAfter, m)
				return nil
			}
		case "sign-pairs":
			v, _ := splitRef(rest)
			for _, p := range strings.Fields(v) {
				if p != "BD" && p != "BX" {
					return nil, errf(lineNo, "sign-pairs: want BD or BX, have %q", p)
				}
				sp.signPairs = append(sp.signPairs, p)
			}
		case "refuse":
			codeName, ref, _ := strings.Cut(rest, " ")
			code, ok := ParseCode(codeName)
			if !ok || code == OK {
				return nil, errf(lineNo, "refuse: unknown rule code %q", codeName)
			}
			sp.refuse = append(sp.refuse, refuseSpec{code: code, ref: Ref(strings.TrimSpace(ref))})
			rs := &sp.refuse[len(sp.refuse)-1]
			section = func(line int, text string) error {
				m, err := parseMember(text, line, true)
				if err != nil {
					return errf(line, "%v", err)
				}
				rs.members = append(rs.members, m)
				return nil
			}
		case "variants":
			_, sp.variantsRef = splitRef(rest)
			section = func(line int, text string) error {
				row, err := parseVariantRow(text)
				if err != nil {
					return errf(line, "%v", err)
				}
				sp.variants = append(sp.variants, row)
				return nil
			}
		case "null-variants":
			_, sp.nullRef = splitRef(rest)
			section = func(line int, text string) error {
				m, err := parseMember(text, line, false)
				if err != nil {
					return errf(line, "null-variants: %v", err)
				}
				sp.nullVariants = append(sp.nullVariants, m)
				return nil
			}
		case "variant-limit":
			v, ref := splitRef(rest)
			f := strings.Fields(v)
			n := 0
			var err error
			if len(f) == 2 {
				n, err = strconv.Atoi(f[1])
			}
			if len(f) != 2 || err != nil || n < 1 || (f[0] != "aksharas" && f[0] != "labels") || (f[0] == "aksharas" && n > 16) || n > MaxZoneConflictSet {
				return nil, errf(lineNo, "variant-limit: want \"aksharas N\" (N at most 16) or \"labels N\" (N at most %d), have %q", MaxZoneConflictSet, v)
			}
			sp.varLimitUnit, sp.varLimit, sp.varLimitRef = f[0], n, ref
		case "only-in", "not-after", "only-after", "no-mix":
			codeName, refText, _ := strings.Cut(rest, " ")
			code, ok := ParseCode(codeName)
			if !ok || code == OK {
				return nil, errf(lineNo, "%s: unknown rule code %q", key, codeName)
			}
			kind, ref := ruleKindNames[key], Ref(strings.TrimSpace(refText))
			section = func(line int, text string) error {
				cr, err := parseContextRule(kind, code, ref, line, text)
				if err != nil {
					return errf(line, "%s: %v", key, err)
				}
				sp.contexts = append(sp.contexts, cr)
				return nil
			}
		case "lgr-cross-check":
			if sp.lgrNotes == nil {
				sp.lgrNotes = map[rune]string{}
			}
			section = func(line int, text string) error {
				fields := strings.Fields(text)
				r, err := parseCodePoint(fields[0])
				if err != nil {
					return errf(line, "lgr-cross-check: %v", err)
				}
				rest := fields[1:]
				if len(rest) > 0 && strings.TrimPrefix(rest[0], "\u25CC") == string(r) {
					rest = rest[1:]
				}
				if len(rest) == 0 {
					return errf(line, "lgr-cross-check: U+%04X needs a reason", r)
				}
				if _, dup := sp.lgrNotes[r]; dup {
					return errf(line, "lgr-cross-check: U+%04X is listed twice", r)
				}
				sp.lgrNotes[r] = strings.Join(rest, " ")
				return nil
			}
		case "grammar":
			v, ref := splitRef(rest)
			if v != "syllable" && v != "alphabet" {
				return nil, errf(lineNo, "grammar: want syllable or alphabet, have %q", v)
			}
			sp.grammar, sp.grammarRef = v, ref
		case "class-word":
			v, _ := splitRef(rest)
			name, word, _ := strings.Cut(v, " ")
			cl, ok := parseClass(name)
			if !ok || strings.TrimSpace(word) == "" {
				return nil, errf(lineNo, "class-word: want a class and its name in messages, such as \"L a lonsum letter\"")
			}
			if sp.classWords == nil {
				sp.classWords = map[Class]string{}
			}
			sp.classWords[cl] = strings.TrimSpace(word)
		case "direction":
			v, ref := splitRef(rest)
			if v != "rtl" && v != "ltr" {
				return nil, errf(lineNo, "direction: want rtl or ltr, have %q", v)
			}
			sp.rtl, sp.directionRef = v == "rtl", ref
		case "vowel-conjuncts":
			_, sp.vowelConjunctRef = splitRef(rest)
			section = func(line int, text string) error {
				if len(strings.Fields(text)) != 1 || isASCII(text) {
					return errf(line, "vowel-conjuncts: want one sequence of the script per line")
				}
				sp.vowelConjuncts = append(sp.vowelConjuncts, text)
				return nil
			}
		case "example":
			ex, err := parseExample(rest, lineNo)
			if err != nil {
				return nil, errf(lineNo, "%v", err)
			}
			sp.examples = append(sp.examples, ex)
		default:
			return nil, errf(lineNo, "unknown directive %q", key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, errf(lineNo, "%v", err)
	}
	switch {
	case sp.tag == "":
		return nil, errf(lineNo, "missing \"language\" line")
	case sp.name == "":
		return nil, errf(lineNo, "missing \"name\" line")
	case sp.script == "":
		return nil, errf(lineNo, "missing \"script\" line")
	case sp.k < 0:
		return nil, errf(lineNo, "missing \"k\" line")
	}
	return sp, nil
}

func parseCodePoint(s string) (rune, error) {
	h := strings.TrimPrefix(s, "U+")
	if len(h) < 4 || len(h) > 6 {
		return 0, fmt.Errorf("bad code point %q (want U+XXXX)", s)
	}
	n, err := strconv.ParseUint(h, 16, 32)
	if err != nil || n > utf8.MaxRune || (n >= 0xD800 && n <= 0xDFFF) {
		return 0, fmt.Errorf("bad code point %q", s)
	}
	return rune(n), nil
}

// parseMember reads "U+0915  क  DEVANAGARI LETTER KA" or, where ranges are
// allowed, "U+0966..U+096F  NAME..NAME". The glyph, when given, must be the
// code point itself (a dotted circle U+25CC may carry a combining mark).
func parseMember(text string, line int, ranges bool) (member, error) {
	fields := strings.Fields(text)
	lo, hiStr, isRange := strings.Cut(fields[0], "..")
	m := member{line: line}
	var err error
	if m.lo, err = parseCodePoint(lo); err != nil {
		return m, err
	}
	m.hi = m.lo
	if isRange {
		if !ranges {
			return m, fmt.Errorf("a range is not allowed here")
		}
		if m.hi, err = parseCodePoint(hiStr); err != nil {
			return m, err
		}
		if m.hi < m.lo {
			return m, fmt.Errorf("empty range %s", fields[0])
		}
	}
	rest := fields[1:]
	if len(rest) > 0 && !isASCII(rest[0]) {
		if isRange {
			return m, fmt.Errorf("a range takes no glyph")
		}
		glyph := strings.TrimPrefix(rest[0], "\u25CC")
		if glyph != string(m.lo) {
			return m, fmt.Errorf("glyph %q is not U+%04X", rest[0], m.lo)
		}
		rest = rest[1:]
	}
	m.name = strings.Join(rest, " ")
	return m, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// parseVariantRow reads "द्ग = द्र | 0926 094D 0917 = 0926 094D 0930".
func parseVariantRow(text string) ([]string, error) {
	glyphs, hexes, ok := strings.Cut(text, "|")
	if !ok {
		return nil, fmt.Errorf("variant row: want \"TEXT = TEXT | HEX = HEX\"")
	}
	gs := strings.Split(glyphs, "=")
	hs := strings.Split(hexes, "=")
	if len(gs) != len(hs) || len(gs) < 2 {
		return nil, fmt.Errorf("variant row: %d members written as text, %d as code points (want the same, at least 2)", len(gs), len(hs))
	}
	row := make([]string, len(gs))
	for i := range gs {
		var b strings.Builder
		for _, h := range strings.Fields(hs[i]) {
			if !strings.HasPrefix(h, "U+") {
				h = "U+" + h
			}
			r, err := parseCodePoint(h)
			if err != nil {
				return nil, fmt.Errorf("variant row: %v", err)
			}
			b.WriteRune(r)
		}
		g := strings.TrimSpace(gs[i])
		if g != b.String() {
			return nil, fmt.Errorf("variant row: member %d written %q but its code points spell %q", i+1, g, b.String())
		}
		if g == "" {
			return nil, fmt.Errorf("variant row: empty member %d", i+1)
		}
		row[i] = g
	}
	return row, nil
}

// parseExample reads "valid WORD [§ ref]", "akshara TEXT [§ ref]" or
// "invalid TEXT CODE[@POS] ... [ref]".
func parseExample(rest string, line int) (Example, error) {
	fields := strings.Fields(rest)
	if len(fields) < 2 {
		return Example{}, fmt.Errorf("example: want KIND TEXT")
	}
	ex := Example{Kind: fields[0], Text: fields[1], Line: line}
	i := 2
	switch ex.Kind {
	case "valid", "akshara":
	case "invalid":
		for ; i < len(fields); i++ {
			name, posStr, hasPos := strings.Cut(fields[i], "@")
			code, ok := ParseCode(name)
			if !ok || code == OK {
				break
			}
			w := WantError{Code: code, Pos: -1}
			if hasPos {
				p, err := strconv.Atoi(posStr)
				if err != nil || p < 0 {
					return ex, fmt.Errorf("example: bad position in %q", fields[i])
				}
				w.Pos = p
			}
			ex.Want = append(ex.Want, w)
		}
		if len(ex.Want) == 0 {
			return ex, fmt.Errorf("example: an invalid example needs its rule codes")
		}
	default:
		return ex, fmt.Errorf("example: kind %q is not valid, invalid or akshara", ex.Kind)
	}
	ex.Ref = Ref(strings.Join(fields[i:], " "))
	return ex, nil
}
