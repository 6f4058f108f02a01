package akshara

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Language is one language's policy compiled into fast tables. It is
// immutable and safe for concurrent use.
type Language struct {
	Tag    string // BCP 47 tag, such as "hi" or "sd-Deva"
	Name   string // English name
	Native string // name in the language
	Script string // ISO 15924 code, such as "Deva"
	Source string // the policy document the data comes from
	K      int    // at most K+1 consonants joined by halants
	CcTLD  string // the language's IDN ccTLD (U-label)

	// Alphabet is the grammar family of the language file ("grammar
	// alphabet"): letters (class C) each with at most one mark (class M),
	// no halant, as in the Arabic script and Ol Chiki. RTL says that the
	// Bidi rule of RFC 5893 applies ("direction rtl").
	Alphabet, RTL bool

	spec     *langSpec
	script   scriptInfo
	class    map[rune]Class // the repertoire
	refused  []refusal
	variants [][]string
	// nulls are the code points a variant may drop (null-variants, RFC
	// 7940 null variants), sorted.
	nulls    []rune
	varIndex variantIndex
	// VARIANT_LIMIT (variant-limit): at most varLimit aksharas with a
	// variant span, or with varLimitLabels at most varLimit labels
	// generated (the label and its candidate variants). varFree is the
	// number of span starts that can never exceed it (the fast paths
	// count the limit only above it).
	varLimit       int
	varLimitLabels bool
	varFree        int
	// varStart marks the block's code points that start a variant sequence;
	// varStartOutside says that some sequence starts outside the block.
	varStart        [128]bool
	varStartOutside bool
	// otherCodes is classifyOther for ASCII (0..127) and the block
	// (128..255): the code of a refused character without unicode's
	// tables (otherCode).
	otherCodes [256]Code

	// Fast tables over the script's 128-code-point block.
	block rune
	kinds [128]kind
	extra map[rune]kind // repertoire outside the block (class S, Arabic U+0680..U+06FF)
	// extraStarters are the members of extra that NFC never changes and
	// that compose with nothing before them: the verdict-only path reads
	// them without asking norm.
	extraStarters map[rune]extraStarter
	// nextStarters are the extraStarters of the 128 code points after the
	// block (Arabic U+0680..U+06FF), read without a map lookup.
	nextStarters [128]extraStarter
	ccc          [128]uint8 // canonical combining class
	maybe        [128]bool  // may compose with the character before it (NFC_QC=Maybe)
	// decomposed marks the block's code points that occur in the canonical
	// decomposition (NFD) of a repertoire character.
	decomposed [128]bool
	composes   [128][2]uint64
	// halantUTF8 and nuktaUTF8 are the halants and nuktas of the
	// repertoire as text (mayHaveTriple).
	halantUTF8, nuktaUTF8 []string
	// blockNFC is the NFC table of every code point of the block, in the
	// repertoire or not, for quickNFC (buildNFCTables).
	blockNFC blockNFC

	// Context rules (context.go) and the code points that trigger them.
	contexts      []contextRule
	rulesAt       [130][]uint16 // the rules whose trigger may start at each block offset, digit, hyphen
	rulesAnywhere []uint16      // every rule: for code points outside the block
	trigger       [128]bool
	extraTrigger  bool
	asciiTrigger  bool

	// safeLen[nBasic] is the longest label (in code points, nBasic of them
	// ASCII, the rest in the block) whose A-label surely fits (safeLengths).
	safeLen [MaxALabelLength + 1]uint8
	// safeLenWide is safeLen for labels with repertoire code points outside
	// the block (extra): the span of the whole repertoire.
	safeLenWide [MaxALabelLength + 1]uint8

	msgs     messageCache // memoized error messages (diag.go)
	walkInfo [130]uint8   // kinds and flags for Detector's walk (detectfast.go)

	// The verdict-only path's tables (fastpath.go, buildFast).
	fastInfo  [256]uint64 // the block and the 128 code points after it
	fastASCII [128]uint64 // the digits and the hyphen
	fastTab   []uint32    // state<<fastShift | kind: next state<<fastShift
	// fastSmall is fastTab when it has at most fastStates states
	// (fastIsSmall).
	fastSmall   [fastStates << fastShift]uint16
	fastIsSmall bool
	fastEnds    []bool // a label may end in this state
	// fastSegTab is fastTab with bit 0 set where the transition starts a
	// syllable: segment walks it.
	fastSegTab []uint32
	fastStart  uint64 // the word before the first code point: fiRuleBad for "^"
	// fastHopeless is hopeless for the code points of fastInfo's range
	// outside the repertoire; fastPunct says the same of U+2000..U+207F.
	fastHopeless [256]bool
	// fastNoMix are the no-mix rules of single code points; with
	// fastNoMixOnly, every rule fast does not decide itself is one.
	fastNoMix     []noMix
	fastNoMixOnly bool
	fastPunct     [128]uint8
	// fastTriple is the first state (times fastStride) of a cluster with
	// two halants: a label that never reaches it has no three identical
	// consonants joined by halants.
	fastTriple uint32

	// labelOrds numbers the repertoire for the A-label's encoder on
	// Check's valid path (segment, blockLabel).
	labelOrds labelOrds

	grammar grammarParams
	states  []gstate
	table   [][numKinds]transition
	ends    []Code
}

// extraStarter is a repertoire letter outside the block that NFC never
// changes; composer says that a character after it may compose with it.
type extraStarter struct {
	ok       bool // in nextStarters: this is one
	trigger  bool // it may start a context rule's trigger
	varStart bool // it starts a variant sequence
	kind     kind
	composer bool      // a repertoire character composes with it
	composes [2]uint64 // the block offsets of the repertoire characters that do
	wide     bool      // one outside the block does
	fast     uint64    // its fastInfo word (buildFast)
}

// transition packs a move for the tables: next state, code, flags.
type transition struct {
	next  uint16
	code  Code
	start bool
}

type refusal struct {
	lo, hi rune
	code   Code
	ref    Ref
}

// Member is one code point of a language's repertoire.
type Member struct {
	Rune  rune
	Class Class
}

// Repertoire returns the language table: every code point with its class, in
// code point order.
func (l *Language) Repertoire() []Member {
	ms := make([]Member, 0, len(l.class))
	for r, c := range l.class {
		ms = append(ms, Member{r, c})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Rune < ms[j].Rune })
	return ms
}

// Class returns the class of r in the language, or NoClass.
func (l *Language) Class(r rune) Class { return l.class[r] }

// Examples returns the policy document's examples kept in the language file.
func (l *Language) Examples() []Example { return append([]Example(nil), l.spec.examples...) }

// VariantRows returns the language's variant table: each row is a set of
// homographs (docs/policy.md §6).
func (l *Language) VariantRows() [][]string {
	rows := make([][]string, len(l.variants))
	for i, r := range l.variants {
		rows[i] = append([]string(nil), r...)
	}
	return rows
}

// NullVariants returns the code points a variant of a label may drop
// (the file's null-variants), sorted.
func (l *Language) NullVariants() []rune { return append([]rune(nil), l.nulls...) }

// VariantLimit returns what the language's VARIANT_LIMIT counts, "aksharas"
// (the aksharas that contain a variant span) or "labels" (the labels the
// variant table generates from a label, the label included), and the most
// it allows.
func (l *Language) VariantLimit() (unit string, max int) {
	if l.varLimitLabels {
		return "labels", l.varLimit
	}
	return "aksharas", l.varLimit
}

func (l *Language) String() string { return l.Tag }

// compile checks a parsed language file against the policy's invariants and
// builds its tables.
func compile(file string, sp *langSpec) (*Language, error) {
	si, ok := scripts[sp.script]
	if !ok {
		return nil, fmt.Errorf("%s: unknown script %q", file, sp.script)
	}
	l := &Language{
		Tag: sp.tag, Name: sp.name, Native: sp.native, Script: sp.script, Source: sp.source,
		K: sp.k, CcTLD: sp.cctld, spec: sp, script: si, block: si.block,
		Alphabet: sp.grammar == "alphabet", RTL: sp.rtl,
		class: map[rune]Class{}, extra: map[rune]kind{},
	}
	errf := func(line int, format string, args ...any) error {
		return &fileError{file, line, fmt.Sprintf(format, args...)}
	}
	for _, cs := range sp.classes {
		for _, m := range cs.members {
			r := m.lo
			if old, dup := l.class[r]; dup {
				return nil, errf(m.line, "U+%04X is in class %v and class %v", r, old, cs.class)
			}
			if !unicode.In(r, si.table, unicode.Common, unicode.Inherited) {
				return nil, errf(m.line, "U+%04X is not of script %s", r, sp.script)
			}
			if p := IDNA2008(r); p != PVALID {
				return nil, errf(m.line, "U+%04X is %v in IDNA2008, not PVALID", r, p)
			}
			if s := string(r); norm.NFC.String(s) != s {
				return nil, errf(m.line, "U+%04X is not NFC: NFC changes it to %+q", r, norm.NFC.String(s))
			}
			l.class[r] = cs.class
		}
	}
	if len(l.class) == 0 {
		return nil, errf(0, "the language has no repertoire")
	}
	if err := l.checkRTL(); err != nil {
		return nil, errf(0, "%v", err)
	}
	if l.Alphabet {
		for _, cs := range sp.classes {
			if cs.class != C && cs.class != M && len(cs.members) > 0 {
				return nil, errf(cs.members[0].line, "grammar alphabet has only classes C (letters) and M (marks), not %v", cs.class)
			}
		}
		if sp.k != 0 {
			return nil, errf(0, "grammar alphabet joins no consonants: k must be 0")
		}
	}
	nukta := map[rune]bool{}
	for _, m := range sp.nuktaAfter {
		switch l.class[m.lo] {
		case C, V:
		case M:
			l.grammar.matraNukta = true
		default:
			return nil, errf(m.line, "nukta-after U+%04X: not a consonant, vowel or vowel sign of the language", m.lo)
		}
		nukta[m.lo] = true
	}
	for _, rs := range sp.refuse {
		for _, m := range rs.members {
			for r := m.lo; r <= m.hi; r++ {
				if _, in := l.class[r]; in {
					return nil, errf(m.line, "U+%04X is both in the repertoire and refused as %v", r, rs.code)
				}
			}
			l.refused = append(l.refused, refusal{m.lo, m.hi, rs.code, rs.ref})
		}
	}
	for _, p := range sp.signPairs {
		l.grammar.pairs |= signs(Class(map[byte]Class{'D': D, 'X': X}[p[1]]))
	}
	l.grammar.k = sp.k
	for r, c := range l.class {
		k := kind(c)
		if nukta[r] {
			k = map[Class]kind{C: kindCn, V: kindVn, M: kindMn}[c]
		}
		if off := r - l.block; off >= 0 && off < 128 {
			l.kinds[off] = k
		} else {
			l.extra[r] = k
		}
	}
	for _, row := range sp.variants {
		for _, seq := range row {
			for _, r := range seq {
				if l.class[r] == NoClass {
					return nil, fmt.Errorf("%s: variant %q: U+%04X is not in the repertoire", file, seq, r)
				}
			}
		}
		l.variants = append(l.variants, row)
	}
	if err := l.compileVariantRules(file); err != nil {
		return nil, err
	}
	if err := l.compileContexts(file); err != nil {
		return nil, err
	}
	l.varIndex = newVariantIndex(l.variants, l.nulls)
	l.varFree = l.varLimit
	if l.varLimitLabels {
		l.varFree = freeSpans(l.varIndex.rows, l.varLimit)
	}
	l.varIndex.indexBlock(l.block)
	for first := range l.varIndex.byFirst {
		if off := first - l.block; off >= 0 && off < 128 {
			l.varStart[off] = true
		} else {
			l.varStartOutside = true
		}
	}
	for i := range l.otherCodes {
		r := rune(i)
		if i >= 128 {
			r = l.block + rune(i-128)
		}
		l.otherCodes[i] = l.classifyOther(r)
	}
	l.buildNFCTables()
	l.buildWalkInfo()
	l.indexRules()
	l.safeLen = safeLengths(l.block)
	lo, hi := l.block, l.block+127
	for r := range l.extra {
		lo, hi = min(lo, r), max(hi, r)
	}
	l.safeLenWide = safeLengthsSpan(hi, hi-lo)
	if err := l.buildAutomaton(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	l.buildFast()
	l.labelOrds = buildLabelOrds(l.block, func(o int) bool {
		if o < 128 {
			return l.kinds[o] != kindNone
		}
		_, ok := l.extra[l.block+rune(o)]
		return ok
	})
	return l, nil
}

// buildNFCTables records what the verdict-only path needs to know that a
// label of repertoire characters is already NFC without calling norm: each
// character's combining class, and which adjacent pairs NFC would change.
// A character that changes no pair with any repertoire character cannot
// compose with one at any distance (canonical composition is pairwise), so
// only the others ("maybe") need their context checked; quickNFC leaves a
// maybe-character after a non-starter to norm.
// TestQuickNFC checks the result against golang.org/x/text/unicode/norm.
func (l *Language) buildNFCTables() {
	var prevs []rune
	for r := range l.class {
		prevs = append(prevs, r)
	}
	prevs = append(prevs, '-', '0')
	for r := range l.class {
		for _, d := range norm.NFD.String(string(r)) {
			if off := d - l.block; off >= 0 && off < 128 {
				l.decomposed[off] = true
			}
		}
	}
	l.blockNFC = newBlockNFC(l.block)
	for r, c := range l.class {
		switch c {
		case H:
			l.halantUTF8 = append(l.halantUTF8, string(r))
		case N:
			l.nuktaUTF8 = append(l.nuktaUTF8, string(r))
		}
	}
	sort.Strings(l.halantUTF8)
	sort.Strings(l.nuktaUTF8)
	l.extraStarters = map[rune]extraStarter{}
	for r, k := range l.extra {
		p := norm.NFC.PropertiesString(string(r))
		// NFC leaves it as it is (a precomposed letter such as ۓ too)
		if p.CCC() == 0 && p.BoundaryBefore() && norm.NFC.String(string(r)) == string(r) && unicode.IsLetter(r) {
			es := extraStarter{kind: k}
			for m := range l.class { // a repertoire character composes with it (ے + ٔ = ۓ)
				if s := string(r) + string(m); norm.NFC.String(s) != s {
					es.composer = true
					if mo := m - l.block; mo >= 0 && mo < 128 {
						es.composes[mo/64] |= 1 << (mo % 64)
					} else {
						es.wide = true
					}
				}
			}
			_, es.varStart = l.varIndex.byFirst[r]
			es.trigger = l.startsTrigger(r)
			l.extraStarters[r] = es
			if o := r - l.block - 128; o >= 0 && o < 128 {
				es.ok = true
				l.nextStarters[o] = es
			}
		}
	}
	for r := range l.class {
		off := r - l.block
		if off < 0 || off >= 128 {
			continue // outside the block: extraStarters, or the slow path
		}
		p := norm.NFC.PropertiesString(string(r))
		l.ccc[off] = p.CCC()
		if p.BoundaryBefore() {
			continue
		}
		for _, q := range prevs {
			s := string(q) + string(r)
			if norm.NFC.String(s) == s {
				continue
			}
			l.maybe[off] = true
			if qo := q - l.block; qo >= 0 && qo < 128 {
				l.composes[off][qo/64] |= 1 << (qo % 64)
			}
		}
	}
}

// buildAutomaton explores the grammar's reachable states for the language's
// kinds and tabulates the transitions.
func (l *Language) buildAutomaton() error {
	g := &l.grammar
	var present [numKinds]bool
	present[kindDigit], present[kindHyph] = true, true
	for _, k := range l.kinds {
		present[k] = true
	}
	for _, k := range l.extra {
		present[k] = true
	}
	present[kindNone] = false
	g.vowelConjunct = len(l.spec.vowelConjuncts) > 0
	index := map[gstate]uint16{}
	add := func(s gstate) uint16 {
		if i, ok := index[s]; ok {
			return i
		}
		i := uint16(len(l.states))
		index[s] = i
		l.states = append(l.states, s)
		l.table = append(l.table, [numKinds]transition{})
		return i
	}
	add(gstate{n: nStart})
	add(gstate{n: nRecover})
	for i := 0; i < len(l.states); i++ {
		if len(l.states) > 60000 {
			return fmt.Errorf("grammar has too many states")
		}
		s := l.states[i]
		for k := kind(1); int(k) < numKinds; k++ {
			if !present[k] {
				continue
			}
			m := g.step(s, k)
			next := add(m.next)
			l.table[i][k] = transition{next: next, code: m.code, start: m.start}
		}
	}
	l.ends = make([]Code, len(l.states))
	for i, s := range l.states {
		l.ends[i] = endCode(s)
	}
	return nil
}

// refusedBy returns the rule that refuses r in the language's own data,
// if any.
func (l *Language) refusedBy(r rune) (Code, Ref, bool) {
	for _, f := range l.refused {
		if r >= f.lo && r <= f.hi {
			return f.code, f.ref, true
		}
	}
	return OK, "", false
}

// compileContexts checks the context rules against the repertoire and adds
// the rule implied by vowel-conjuncts: V H only in the listed sequences.
func (l *Language) compileContexts(file string) error {
	sp := l.spec
	rules := append([]contextRule(nil), sp.contexts...)
	if len(sp.vowelConjuncts) > 0 {
		text := "V H : " + strings.Join(sp.vowelConjuncts, " | ")
		cr, err := parseContextRule(ruleOnlyIn, Conjunct, sp.vowelConjunctRef, 0, text)
		if err != nil {
			return fmt.Errorf("%s: vowel-conjuncts: %v", file, err)
		}
		for _, seq := range cr.contexts {
			classes := make([]Class, len(seq))
			for i, it := range seq {
				classes[i] = l.class[it.r]
			}
			if len(classes) != 4 || classes[0] != V || classes[1] != H || classes[2] != C || classes[3] != M {
				return fmt.Errorf("%s: vowel-conjuncts: %q is not a vowel, halant, consonant and matra", file, cr.text)
			}
		}
		rules = append(rules, cr)
	}
	for i := range rules {
		cr := &rules[i]
		for _, seq := range append([][]item{cr.trigger}, cr.contexts...) {
			for _, it := range seq {
				switch {
				case it.kind == itemRune && l.class[it.r] == NoClass:
					return &fileError{file, cr.line, fmt.Sprintf("%q: U+%04X is not in the repertoire", cr.text, it.r)}
				case it.kind == itemClass && !l.hasClass(it.class):
					return &fileError{file, cr.line, fmt.Sprintf("%q: the language has no class %v", cr.text, it.class)}
				}
			}
		}
		if cr.kind == ruleOnlyIn {
			if err := l.locate(cr); err != nil {
				return &fileError{file, cr.line, fmt.Sprintf("%q: %v", cr.text, err)}
			}
		}
	}
	l.contexts = rules
	l.markTriggers()
	return nil
}

// blockNFC is what quickNFC needs to know of the 128 code points of a
// block: the ones NFC never leaves as they are (never), the combining
// classes, and which may compose with which code point before them.
type blockNFC struct {
	never    [128]bool
	ccc      [128]uint8
	maybe    [128]bool
	composes [128][2]uint64
}

func newBlockNFC(block rune) (q blockNFC) {
	var prevs []rune
	for o := rune(0); o < 128; o++ {
		s := string(block + o)
		if norm.NFC.String(s) != s {
			q.never[o] = true
			continue
		}
		prevs = append(prevs, block+o)
	}
	prevs = append(prevs, '-', '0')
	for o := rune(0); o < 128; o++ {
		if q.never[o] {
			continue
		}
		r := block + o
		p := norm.NFC.PropertiesString(string(r))
		q.ccc[o] = p.CCC()
		if p.BoundaryBefore() {
			continue
		}
		for _, prev := range prevs {
			s := string(prev) + string(r)
			if norm.NFC.String(s) == s {
				continue
			}
			q.maybe[o] = true
			if po := prev - block; po >= 0 && po < 128 {
				q.composes[o][po/64] |= 1 << (po % 64)
			}
		}
	}
	return q
}
