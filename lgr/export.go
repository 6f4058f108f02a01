package lgr

import (
	"encoding/xml"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/akshara-idn/akshara"
	"golang.org/x/text/unicode/norm"
)

// UnicodeVersion is the Unicode version of the repertoires (IDNA2008
// derived properties, docs/policy.md §1).
const UnicodeVersion = "15.0.0"

// Options change what Export writes.
type Options struct {
	// Date is the LGR's meta date, YYYY-MM-DD; empty leaves it out.
	Date string
}

// Export writes the language's policy as an RFC 7940 LGR (docs/lgr.md).
// Its version is the integer of the published export in the version
// ledger (lgr/versions.txt) when the export is the same but for it, and
// the next integer when anything else differs (ExportVersioned).
func Export(l *akshara.Language, o Options) ([]byte, error) {
	data, _, err := ExportVersioned(l, o)
	return data, err
}

// ExportVersioned is Export, with the ledger entry of what it wrote: the
// language, the version and the digest of the export without its version.
func ExportVersioned(l *akshara.Language, o Options) ([]byte, LedgerEntry, error) {
	// A first pass writes the repertoire, its context rules and the rows
	// (no null variants, no NFC conditions); the second asks it which code
	// points may follow which elements (exporter.follows).
	skel, err := newExporter(l)
	if err != nil {
		return nil, LedgerEntry{}, fmt.Errorf("lgr: %s: %v", l.Tag, err)
	}
	sroot, err := skel.document(o)
	if err != nil {
		return nil, LedgerEntry{}, fmt.Errorf("lgr: %s: %v", l.Tag, err)
	}
	ctx, err := Parse(render(sroot))
	if err != nil {
		return nil, LedgerEntry{}, fmt.Errorf("lgr: %s: first pass: %v", l.Tag, err)
	}
	x, err := newExporter(l)
	if err != nil {
		return nil, LedgerEntry{}, fmt.Errorf("lgr: %s: %v", l.Tag, err)
	}
	x.ctx = ctx
	root, err := x.document(o)
	if err != nil {
		return nil, LedgerEntry{}, fmt.Errorf("lgr: %s: %v", l.Tag, err)
	}
	write := func() []byte { return render(root) }
	x.version.text = "0"
	e := LedgerEntry{Tag: l.Tag, Digest: contentDigest(write())}
	e.Version = published().next(e)
	x.version.text = strconv.Itoa(e.Version)
	return write(), e, nil
}

func render(root *element) []byte {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	root.write(&b, 0)
	return []byte(b.String())
}

// exporter holds what the export of one language needs.
type exporter struct {
	l        *akshara.Language
	p        *akshara.Policy
	class    map[rune]akshara.Class
	members  map[akshara.Class][]rune
	nuktaC   []rune // consonants that take a nukta
	nuktaV   []rune // vowels that take a nukta
	nuktaM   []rune // vowel signs that take a nukta (Santali)
	pairs    map[akshara.Class]bool
	universe []rune // every repertoire code point, digits and hyphen
	refs     []string
	refIDs   map[string]string
	names    map[string]bool
	version  *element          // meta/version: its text is set by ExportVersioned
	nfc      []*element        // the not-when rules of variant mappings (nfcRule)
	nfcNames map[string]string // by content
	// ctx is the first pass's export (repertoire, context rules, rows);
	// nil in the first pass, which writes no null variants and no NFC
	// conditions.
	ctx     *LGR
	closure bool // a mapping uses the rule closureRule
}

var letterClasses = []akshara.Class{akshara.C, akshara.V, akshara.M, akshara.D, akshara.B, akshara.X,
	akshara.H, akshara.N, akshara.Y, akshara.A, akshara.L, akshara.Z, akshara.S}

var classComments = map[akshara.Class]string{
	akshara.C: "consonants", akshara.V: "independent vowels", akshara.M: "vowel signs (matras)",
	akshara.D: "anusvara, bindi, tippi", akshara.B: "chandrabindu", akshara.X: "visarga, aytham",
	akshara.H: "halant (virama)", akshara.N: "nukta", akshara.Y: "avagraha", akshara.A: "addak",
	akshara.L: "chillu", akshara.Z: "khanda ta", akshara.S: "modifier letter apostrophe",
}

const (
	tagCn     = "Cn" // consonants that take a nukta
	tagVn     = "Vn" // vowels that take a nukta
	tagMn     = "Mn" // vowel signs that take a nukta
	tagDigit  = "digit"
	tagHyphen = "hyphen"
)

func newExporter(l *akshara.Language) (*exporter, error) {
	x := &exporter{l: l, p: l.Policy(), class: map[rune]akshara.Class{}, members: map[akshara.Class][]rune{},
		pairs: map[akshara.Class]bool{}, refIDs: map[string]string{}, names: map[string]bool{}, nfcNames: map[string]string{}}
	for _, m := range l.Repertoire() {
		x.class[m.Rune] = m.Class
		x.members[m.Class] = append(x.members[m.Class], m.Rune)
	}
	for _, c := range x.p.NuktaAfter {
		for r := c.Lo; r <= c.Hi; r++ {
			switch x.class[r] {
			case akshara.C:
				x.nuktaC = append(x.nuktaC, r)
			case akshara.V:
				x.nuktaV = append(x.nuktaV, r)
			case akshara.M:
				x.nuktaM = append(x.nuktaM, r)
			default:
				return nil, fmt.Errorf("nukta base U+%04X is not a consonant, vowel or vowel sign", r)
			}
		}
	}
	for _, pair := range x.p.SignPairs {
		switch pair {
		case "BD":
			x.pairs[akshara.D] = true
		case "BX":
			x.pairs[akshara.X] = true
		default:
			return nil, fmt.Errorf("sign pair %q is not BD or BX", pair)
		}
	}
	x.universe = append(x.universe, '-')
	for r := '0'; r <= '9'; r++ {
		x.universe = append(x.universe, r)
	}
	for r := range x.class {
		x.universe = append(x.universe, r)
	}
	sort.Slice(x.universe, func(i, j int) bool { return x.universe[i] < x.universe[j] })
	return x, nil
}

func (x *exporter) has(c akshara.Class) bool { return len(x.members[c]) > 0 }

// ref returns the id of a reference, adding it to the meta references.
func (x *exporter) ref(text akshara.Ref) string {
	s := strings.TrimSpace(string(text))
	if s == "" {
		return ""
	}
	if id, ok := x.refIDs[s]; ok {
		return id
	}
	id := strconv.Itoa(len(x.refs))
	x.refs = append(x.refs, s)
	x.refIDs[s] = id
	return id
}

// name allocates a rule name: the rule code, then CODE-2, CODE-3 ...
func (x *exporter) name(base string) string {
	n := base
	for i := 2; x.names[n]; i++ {
		n = base + "-" + strconv.Itoa(i)
	}
	x.names[n] = true
	return n
}

// Pattern builders. A nil element is "nothing": seq drops it, alt leaves
// it out, opt of nothing is nothing.

func cls(c akshara.Class) *element { return el("class", "by-ref", c.String()) }
func clsName(n string) *element    { return el("class", "by-ref", n) }
func char(r rune) *element         { return el("char", "cp", hex(r)) }

func seq(kids ...*element) *element { return group("rule", kids) }

func alt(kids ...*element) *element { return group("choice", kids) }

// group is a <rule> (sequence) or <choice> of the kids that are something:
// none is nothing, one is itself.
func group(name string, kids []*element) *element {
	var ks []*element
	for _, k := range kids {
		if k != nil {
			ks = append(ks, k)
		}
	}
	switch len(ks) {
	case 0:
		return nil
	case 1:
		return ks[0]
	}
	return el(name).add(ks...)
}

// repeat gives e a count; a count of exactly one is e itself.
func repeat(e *element, count string) *element {
	if e == nil || count == "1" {
		return e
	}
	if _, has := e.attr("count"); has || e.name == "start" || e.name == "end" {
		e = el("rule").add(e)
	}
	c := *e // elements may be shared: the count goes on a copy
	c.attrs = append([]xml.Attr(nil), e.attrs...)
	c.set("count", count)
	return &c
}

func opt(e *element) *element { return repeat(e, "0:1") }

// setE writes a finite set of code points as an anonymous class.
func setE(rs []rune, comment string) *element {
	if len(rs) == 0 {
		return nil
	}
	e := el("class", "comment", comment)
	e.text = shorthand(rs)
	return e
}

// not is the complement of the union of the named classes.
func not(names ...string) *element {
	var ks []*element
	for _, n := range names {
		ks = append(ks, clsName(n))
	}
	if len(ks) == 1 {
		return el("complement").add(ks[0])
	}
	return el("complement").add(el("union").add(ks...))
}

func (x *exporter) document(o Options) (*element, error) {
	p := x.p
	root := el("lgr", "xmlns", Namespace)
	digest := p.Digest
	if len(digest) > 12 {
		digest = digest[:12]
	}
	meta := el("meta")
	// The version is an integer (RFC 7940 §4.3.1 recommends one that
	// increases with each revision; Export sets it from the ledger). The
	// comment keeps the data versions: this language file's, in the form
	// of akshara.DataVersion (the release and the file's hash), and for an
	// embedded language the whole policy data version it belongs to.
	comment := "DIT/C-DAC IDN policy v1.8 as akshara's language file " + p.Tag + ".lang, data version " +
		akshara.PolicyDataRelease + "+" + digest + " (SHA-256 " + p.Digest + ")"
	if l, err := akshara.Lookup(p.Tag); err == nil && l.Policy().Digest == p.Digest {
		comment += "; akshara policy data " + akshara.DataVersion()
	}
	x.version = el("version", "comment", comment)
	meta.add(x.version)
	if o.Date != "" {
		d := el("date")
		d.text = o.Date
		meta.add(d)
	}
	lang := el("language")
	lang.text = p.Tag
	meta.add(lang)
	scope := el("scope", "type", "domain")
	scope.text = "in"
	meta.add(scope)
	if p.CcTLD != "" {
		s := el("scope", "type", "domain")
		s.text = p.CcTLD
		meta.add(s)
	}
	uv := el("unicode-version")
	uv.text = UnicodeVersion
	meta.add(uv)
	desc := el("description", "type", "text/plain")
	meta.add(desc)
	root.add(meta)

	x.ref(akshara.Ref(p.Source))
	data, err := x.data()
	if err != nil {
		return nil, err
	}
	rules, err := x.rules()
	if err != nil {
		return nil, err
	}
	desc.text = x.description()
	refs := el("references")
	for i, r := range x.refs {
		re := el("reference", "id", strconv.Itoa(i))
		re.text = r
		refs.add(re)
	}
	meta.add(refs)
	root.add(data, rules)
	return root, nil
}

func (x *exporter) description() string {
	p := x.p
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s (%s, %s script): the IDN policy of India for Internationalized Domain Names in Indian languages, ", p.Name, p.Native, p.Script)
	fmt.Fprintf(&b, "as implemented by akshara (github.com/akshara-idn/akshara).\nSource: %s.\n\n", p.Source)
	b.WriteString(`The repertoire is the language table with the class of each code point as its tag, plus the ASCII digits and
the hyphen. Tags Cn and Vn mark the consonants and vowels that take a nukta. The generic syllable grammar
of policy v1.8 section 5.2.d, with this language's parameters, is the whole-label rule SYLLABLE. Context rules
on the dependent signs (when) and whole-label rules (actions, in order) name the akshara rule code they
implement (docs/rules.md); a rule named CODE-2 is the second rule with that code.
`)
	if p.Grammar == "alphabet" {
		b.WriteString("This language uses the alphabet family of the grammar: letters (C), each with at most one mark (M).\n")
	} else {
		fmt.Fprintf(&b, "k = %d: at most %d consonants joined by halants.\n", p.K, p.K+1)
	}
	if p.RTL {
		b.WriteString("It is written right to left: the rule BIDI states the Bidi rule of RFC 5893 for this repertoire.\n")
	}
	b.WriteString("\n")
	b.WriteString(`What RFC 7940 cannot express, and this LGR therefore does not check:
- VARIANT_LIMIT: `)
	if p.VariantLimit == "labels" {
		fmt.Fprintf(&b, "a label from which the variant table generates more than %d labels (itself included) is invalid\n  (counting generated labels is not a pattern).\n", p.VariantLimitMax)
	} else {
		n := strconv.Itoa(p.VariantLimitMax)
		if p.VariantLimitMax == 3 {
			n = "three"
		}
		fmt.Fprintf(&b, "a label with more than %s aksharas that contain a variant sequence is invalid\n  (counting aksharas is not a pattern).\n", n)
	}
	b.WriteString(`- TOO_LONG: the A-label (Punycode) must be at most 63 octets; its length is not a function of a pattern.
- The zone's minimum length: TOO_SHORT here is the default of 3 code points; a zone may configure another.
- The refusal categories: code points that akshara refuses with a specific code are simply outside the
  repertoire here (not-in-repertoire):
`)
	for _, r := range p.Refused {
		n := 0
		for _, c := range r.Chars {
			n += int(c.Hi-c.Lo) + 1
		}
		fmt.Fprintf(&b, "    %s: %d code points (%s)\n", r.Code, n, strings.TrimSpace(strings.TrimPrefix(string(r.Ref), "§")))
	}
	b.WriteString(`  and likewise JOINER, MIXED_SCRIPT, PUNCTUATION, SYMBOL and NOT_IN_REPERTOIRE for everything else.
- Input mapping: labels are judged as NFC U-labels; akshara normalizes input and decodes A-labels first.
Variants (policy section 6) are blocked variants of each other, in both directions.
`)
	if len(p.NullVariants) > 0 {
		b.WriteString(`The null variants (RFC 7940 section 5.3.5: a variant label may drop these code points) are written as
sequences, as ICANN's lgr-core reads them: each element the code point may follow, with the code point, is
a char whose blocked variants drop it. A null variant is one way (a label's variants do not add the code
point); the mappings that would add or swap it are there for lgr-core's symmetry and transitivity checks,
of type null-closure under the rule NULL-VARIANT-CLOSURE, which holds for no label, so none is taken.
`)
	}
	return b.String()
}

// data writes the repertoire and the variants.
func (x *exporter) data() (*element, error) {
	type entry struct {
		cps []rune
		e   *element
	}
	whenOf := x.whenRules()
	byKey := map[string]*entry{}
	var entries []*entry
	add := func(cps []rune, e *element) {
		en := &entry{cps, e}
		byKey[string(cps)] = en
		entries = append(entries, en)
	}
	add([]rune{'-'}, el("char", "cp", "002D", "tag", tagHyphen, "comment", "HYPHEN-MINUS"))
	add([]rune{'0'}, el("range", "first-cp", "0030", "last-cp", "0039", "tag", tagDigit, "comment", "DIGIT ZERO..DIGIT NINE"))
	nukta := map[rune]string{}
	for _, r := range x.nuktaC {
		nukta[r] = tagCn
	}
	for _, r := range x.nuktaV {
		nukta[r] = tagVn
	}
	for _, r := range x.nuktaM {
		nukta[r] = tagMn
	}
	for _, pc := range x.p.Classes {
		ref := x.ref(pc.Ref)
		for _, ch := range pc.Chars {
			for r := ch.Lo; r <= ch.Hi; r++ {
				tag := pc.Class.String()
				if t := nukta[r]; t != "" {
					tag += " " + t
				}
				name := ch.Name
				if ch.Lo != ch.Hi {
					name = ""
				}
				add([]rune{r}, el("char", "cp", hex(r), "when", whenOf[pc.Class], "tag", tag, "ref", ref, "comment", name))
			}
		}
	}
	vs, err := x.variantSets()
	if err != nil {
		return nil, err
	}
	vref, nref := x.ref(x.p.VariantsRef), ""
	if len(vs.null) > 0 {
		nref = x.ref(x.p.NullVariantsRef)
	}
	for _, comp := range vs.comps {
		for _, a := range comp {
			ar := []rune(a)
			en, ok := byKey[a]
			if !ok {
				// A sequence: its context rule is its first code point's.
				comment, ref := a, ""
				if n, ok := vs.null[a]; ok {
					comment, ref = n.base+" + "+string(n.r)+" (null variant)", nref
				}
				add(ar, el("char", "cp", hexSeq(ar), "when", whenOf[x.class[ar[0]]], "ref", ref, "comment", comment))
				en = byKey[a]
			}
			for _, b := range comp {
				if b == a {
					continue
				}
				there, back := vs.mapped(a, b), vs.mapped(b, a)
				if there {
					ref, comment := vref, a+" and "+b+" are homographs"
					if n, ok := vs.null[a]; ok && !back {
						ref, comment = nref, "a label without "+string(n.r)+" is a homograph of the label with it"
					}
					v := el("var", "cp", hexSeq([]rune(b)), "type", "blocked", "ref", ref, "comment", comment)
					if nw := x.nfcRule(ar, []rune(b), back); nw != "" {
						if !back {
							return nil, fmt.Errorf("the one-way mapping %s → %s needs the NFC condition %s, which lgr-core's symmetry would put on a mapping back", a, b, nw)
						}
						v.set("not-when", nw)
					}
					en.e.add(v)
				}
				if !there || !back {
					// Not a variant both ways: a mapping that is never
					// taken completes the set (closureRule).
					x.closure = true
					en.e.add(el("var", "cp", hexSeq([]rune(b)), "type", closureType, "when", closureRule))
				}
			}
		}
	}
	sort.Slice(entries, func(i, j int) bool { return lessRunes(entries[i].cps, entries[j].cps) })
	data := el("data")
	for _, en := range entries {
		data.add(en.e)
	}
	return data, nil
}

// The closure of the null variants. RFC 7940 §5.3.5 null variants map a
// code point to nothing, one way; lgr-core drops them (a var's cp may not
// be empty) and warns on any mapping without its reverse (same when and
// not-when) and on variant sets that are not transitive. The export
// writes each null variant as sequences instead: for every element E the
// code point r may follow, E r is a char whose mappings drop r (to E and
// to E's row mates, with and without r). A variant set is then every
// element connected to another by a mapping, and each of its elements
// maps to each other one: the mappings the policy makes (type blocked),
// and, where the policy makes none (E → E r adds a mark; E r → E r' swaps
// one), a mapping of type closureType under closureRule, a rule no label
// satisfies. For lgr-core's strict symmetry, a one-way mapping has a twin
// under closureRule too. The variant labels are the policy's.
const (
	closureRule = "NULL-VARIANT-CLOSURE"
	closureType = "null-closure"
)

// nullSeq is a sequence E r of the export: the element E and the null
// variant r.
type nullSeq struct {
	base string
	r    rune
}

// variantSets are the variant sets the export writes.
type variantSets struct {
	rowOf map[string]int // table member → row
	rows  [][]string
	null  map[string]nullSeq
	comps [][]string // sorted, each sorted
}

// mates are s's row, or s alone.
func (vs *variantSets) mates(s string) []string {
	if i, ok := vs.rowOf[s]; ok {
		return vs.rows[i]
	}
	return []string{s}
}

// mapped reports whether the policy makes b of a: members of one row; or
// a = E r and b is a mate of E, with or without r, unless the mate
// composes (or reorders) under NFC with r and E does not: the policy does
// not replace E there, whether r is then dropped or not (akshara's
// badChoices; ئ ُ does not give یٔ).
func (vs *variantSets) mapped(a, b string) bool {
	if i, ok := vs.rowOf[a]; ok {
		if j, ok := vs.rowOf[b]; ok && i == j {
			return true
		}
	}
	n, ok := vs.null[a]
	if !ok {
		return false
	}
	last := func(s string) rune { rs := []rune(s); return rs[len(rs)-1] }
	for _, m := range vs.mates(n.base) {
		if b != m && b != m+string(n.r) {
			continue
		}
		return m == n.base || !composes(last(m), n.r) || composes(last(n.base), n.r)
	}
	return false
}

// composes reports whether q after p is not NFC: they compose, or NFC
// reorders them.
func composes(p, q rune) bool {
	s := string([]rune{p, q})
	return norm.NFC.String(s) != s
}

// variantSets builds the rows and, in the second pass, the null variants'
// sequences, and groups them into variant sets.
func (x *exporter) variantSets() (*variantSets, error) {
	vs := &variantSets{rowOf: map[string]int{}, rows: x.p.Variants, null: map[string]nullSeq{}}
	var table []string // the table's sequences of two or more code points
	for i, row := range x.p.Variants {
		for _, m := range row {
			vs.rowOf[m] = i
			if utf8.RuneCountInString(m) > 1 {
				table = append(table, m)
			}
		}
	}
	if x.ctx != nil {
		for _, r := range x.l.NullVariants() {
			for _, t := range table {
				// r inside or at the end of a table sequence is matched
				// with it, longest first, in the export as in the policy;
				// at its start, the policy matches the sequence after
				// the element before r, the export r with that element.
				if []rune(t)[0] == r {
					return nil, fmt.Errorf("null variant U+%04X begins the variant sequence %s: not expressible as sequences", r, t)
				}
			}
			bases := append([]string(nil), table...)
			for _, u := range x.universe {
				bases = append(bases, string(u))
			}
			for _, e := range bases {
				s := e + string(r)
				if _, inTable := vs.rowOf[s]; inTable || !x.follows([]rune(e), r) {
					continue // the table's own sequence, or r never follows e
				}
				if !norm.NFC.IsNormalString(s) {
					continue // no NFC label has it
				}
				if err := x.nullContext([]rune(e), r); err != nil {
					return nil, err
				}
				vs.null[s] = nullSeq{e, r}
			}
		}
		// A mate's sequence the policy makes but the export cannot: one
		// that is not NFC yet composes to code points of the repertoire,
		// or one that is a sequence of the table.
		for s, n := range vs.null {
			for _, m := range vs.mates(n.base) {
				t := m + string(n.r)
				if _, ok := vs.null[t]; ok || t == s {
					continue
				}
				if _, inTable := vs.rowOf[t]; inTable {
					return nil, fmt.Errorf("%s (null variant of %s) is a variant sequence of the table", t, s)
				}
				if c := norm.NFC.String(t); c != t && x.inUniverse(c) && x.follows([]rune(m), n.r) {
					return nil, fmt.Errorf("%s, a variant of %s, is %s under NFC, which the repertoire has", t, s, c)
				}
			}
		}
	}
	// Variant sets: connected components of the rows and the sequences.
	parent := map[string]string{}
	var find func(s string) string
	find = func(s string) string {
		if p, ok := parent[s]; ok && p != s {
			r := find(p)
			parent[s] = r
			return r
		}
		parent[s] = s
		return s
	}
	union := func(a, b string) { parent[find(a)] = find(b) }
	for _, row := range vs.rows {
		for _, m := range row {
			union(m, row[0])
		}
	}
	for s, n := range vs.null {
		union(s, n.base)
	}
	// A set lists the table's members in the table's order, then the
	// sequences of the null variants in code point order.
	order := map[string]int{}
	for _, row := range vs.rows {
		for _, m := range row {
			if _, ok := order[m]; !ok {
				order[m] = len(order)
			}
		}
	}
	less := func(a, b string) bool {
		i, inA := order[a]
		j, inB := order[b]
		switch {
		case inA && inB:
			return i < j
		case inA != inB:
			return inA
		}
		return lessRunes([]rune(a), []rune(b))
	}
	byRoot := map[string][]string{}
	for s := range parent {
		byRoot[find(s)] = append(byRoot[find(s)], s)
	}
	for _, c := range byRoot {
		if len(c) < 2 {
			continue
		}
		sort.Slice(c, func(i, j int) bool { return less(c[i], c[j]) })
		vs.comps = append(vs.comps, c)
	}
	sort.Slice(vs.comps, func(i, j int) bool { return less(vs.comps[i][0], vs.comps[j][0]) })
	return vs, nil
}

func (x *exporter) inUniverse(s string) bool {
	for _, r := range s {
		if i := sort.Search(len(x.universe), func(i int) bool { return x.universe[i] >= r }); i == len(x.universe) || x.universe[i] != r {
			return false
		}
	}
	return true
}

// holds reports whether the element e's when/not-when allow it at
// [pos, pos+n) of label, in the first pass's export.
func (x *exporter) holds(e *repElem, label []rune, pos, n int) bool {
	m := &matcher{rs: label}
	if e.when != "" && !m.context(x.ctx.rules[e.when], pos, n) {
		return false
	}
	return e.notWhen == "" || !m.context(x.ctx.rules[e.notWhen], pos, n)
}

// contexts are the labels p a q for p nothing or any code point of the
// universe: what holds for the elements there, holds somewhere.
func (x *exporter) contexts(a []rune, q rune, f func(label []rune, at int) bool) bool {
	if f(append(append([]rune(nil), a...), q), 0) {
		return true
	}
	for _, p := range x.universe {
		if f(append(append([]rune{p}, a...), q), 1) {
			return true
		}
	}
	return false
}

// follows reports whether the code point r may follow the element a: r's
// context rule holds after a in some label (first pass).
func (x *exporter) follows(a []rune, r rune) bool {
	e := x.ctx.repertoire[string(r)]
	if e == nil {
		return false
	}
	return x.contexts(a, r, func(label []rune, at int) bool { return x.holds(e, label, at+len(a), 1) })
}

// precedes reports whether the code point r may stand before the element a
// (a's context rule is its first code point's).
func (x *exporter) precedes(r rune, a []rune) bool {
	e := x.ctx.repertoire[string(a[:1])]
	if e == nil {
		return false
	}
	return x.contexts([]rune{r}, a[0], func(label []rune, at int) bool {
		full := append(label[:len(label)-1:len(label)-1], a...)
		return x.holds(e, full, at+1, len(a))
	})
}

// nullContext checks that the sequence e r, whose context rule is e's,
// stands wherever e and r do: wherever e's rule holds, r's holds after it.
func (x *exporter) nullContext(e []rune, r rune) error {
	ee, re := x.ctx.repertoire[string(e[:1])], x.ctx.repertoire[string(r)]
	bad := x.contexts(e, r, func(label []rune, at int) bool {
		return x.holds(ee, label, at, len(e)) && !x.holds(re, label, at+len(e), 1)
	})
	if bad {
		return fmt.Errorf("null variant U+%04X after %s: its context rule does not follow from %s's", r, string(e), string(e))
	}
	return nil
}

// nfcRule names a rule that holds where the mapping a → b (and, if back,
// b → a) would make the variant label non-NFC: the result's last code
// point before a code point that may follow there and composes with it
// (where the original's does not), or its first after one. Kashmiri's
// ی = ي: ي before the hamza above ٔ is ئ under NFC. lgr-core generates
// variant labels without normalizing, so the mapping is not taken there
// (not-when); both directions carry the same rule, as lgr-core's strict
// symmetry wants. It returns "" when no such context exists, or in the
// first pass; rules it makes are in x.nfc, one per context.
func (x *exporter) nfcRule(a, b []rune, back bool) string {
	if x.ctx == nil {
		return ""
	}
	var after, before []rune
	dir := func(a, b []rune) {
		for _, r := range x.universe {
			if composes(b[len(b)-1], r) && !composes(a[len(a)-1], r) && x.follows(a, r) {
				after = append(after, r)
			}
			if composes(r, b[0]) && !composes(r, a[0]) && x.precedes(r, a) {
				before = append(before, r)
			}
		}
	}
	dir(a, b)
	if back {
		dir(b, a)
	}
	if len(after) == 0 && len(before) == 0 {
		return ""
	}
	slices.Sort(after)
	after = slices.Compact(after)
	slices.Sort(before)
	before = slices.Compact(before)
	var alts []*element
	hexes := func(rs []rune) string {
		var hs []string
		for _, r := range rs {
			hs = append(hs, hex(r))
		}
		return strings.Join(hs, "-")
	}
	name := "NFC"
	var said []string
	if len(after) > 0 {
		alts = append(alts, el("rule").add(el("anchor"), el("look-ahead").add(setE(after, "composes with the mapping's last code point"))))
		name += "-BEFORE-" + hexes(after)
		said = append(said, "before "+strings.ReplaceAll(hexes(after), "-", " "))
	}
	if len(before) > 0 {
		alts = append(alts, el("rule").add(el("look-behind").add(setE(before, "composes with the mapping's first code point")), el("anchor")))
		name += "-AFTER-" + hexes(before)
		said = append(said, "after "+strings.ReplaceAll(hexes(before), "-", " "))
	}
	return x.addNFCRule(name, "a variant mapping "+strings.Join(said, " or ")+" (where it may stand) would give a label that is not NFC: lgr-core does not normalize variant labels", alts)
}

// addNFCRule adds, once per name (the name says the contexts), the rule
// that holds where one of alts does, and returns its name.
func (x *exporter) addNFCRule(name, comment string, alts []*element) string {
	if n, ok := x.nfcNames[name]; ok {
		return n
	}
	x.names[name] = true
	r := el("rule", "name", name, "comment", comment)
	if pat := alt(alts...); pat.name == "rule" {
		r.kids = pat.kids
	} else {
		r.add(pat)
	}
	x.nfc = append(x.nfc, r)
	x.nfcNames[name] = name
	return name
}

func lessRunes(a, b []rune) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// whenRules names the context rule of each dependent sign class.
func (x *exporter) whenRules() map[akshara.Class]string {
	w := map[akshara.Class]string{}
	if x.has(akshara.N) && (len(x.nuktaC) > 0 || len(x.nuktaV) > 0 || len(x.nuktaM) > 0) {
		w[akshara.N] = "NUKTA_BASE"
	}
	for _, c := range []akshara.Class{akshara.M, akshara.D, akshara.B, akshara.X, akshara.S, akshara.H, akshara.Y} {
		if x.has(c) {
			w[c] = "SYLLABLE-" + c.String()
		}
	}
	return w
}

// cn is a consonant with its nukta, where the language has one.
func (x *exporter) cn() *element {
	if !x.has(akshara.N) {
		return nil
	}
	return seq(cls(akshara.C), cls(akshara.N))
}

// contextRules are the when rules of the dependent signs: what may stand
// before each. Each is implied by the grammar (the rule SYLLABLE); they
// name the error at the sign.
func (x *exporter) contextRules() []*element {
	var out []*element
	ctx := func(name, comment string, before ...*element) {
		x.names[name] = true
		out = append(out, el("rule", "name", name, "comment", comment).add(el("look-behind").add(alt(before...)), el("anchor")))
	}
	w := x.whenRules()
	if w[akshara.N] != "" {
		var bases []*element
		if len(x.nuktaC) > 0 {
			bases = append(bases, clsName(tagCn))
		}
		if len(x.nuktaV) > 0 {
			bases = append(bases, clsName(tagVn))
		}
		if len(x.nuktaM) > 0 {
			bases = append(bases, clsName(tagMn))
		}
		ctx("NUKTA_BASE", "the nukta follows a letter that takes it (nukta-after)", bases...)
	}
	if x.has(akshara.M) {
		ctx("SYLLABLE-M", "a vowel sign follows a consonant (with its nukta)", cls(akshara.C), x.cn())
	}
	for _, s := range []akshara.Class{akshara.D, akshara.B, akshara.X, akshara.S} {
		if !x.has(s) {
			continue
		}
		var b *element
		if x.pairs[s] && x.has(akshara.B) {
			b = cls(akshara.B)
		}
		var mn *element
		if len(x.nuktaM) > 0 {
			mn = seq(clsName(tagMn), cls(akshara.N))
		}
		ctx("SYLLABLE-"+s.String(), "a sign follows a consonant, a vowel sign or an independent vowel"+map[bool]string{true: ", or the chandrabindu (sign-pairs)"}[b != nil],
			cls(akshara.C), x.cn(), x.maybe(akshara.M), mn, x.maybe(akshara.V), b)
	}
	if x.has(akshara.H) {
		var v *element
		if len(x.p.VowelConjuncts) > 0 {
			v = cls(akshara.V)
		}
		comment := "the halant follows a consonant (with its nukta)"
		if x.has(akshara.L) {
			comment += ", a chillu"
		}
		if v != nil {
			comment += ", or the vowel of a vowel conjunct"
		}
		ctx("SYLLABLE-H", comment, cls(akshara.C), x.cn(), x.maybe(akshara.L), v)
	}
	if x.has(akshara.Y) {
		var prev []*element
		for _, c := range []akshara.Class{akshara.C, akshara.N, akshara.H, akshara.M, akshara.D, akshara.B, akshara.X, akshara.S, akshara.Z, akshara.L, akshara.V} {
			prev = append(prev, x.maybe(c))
		}
		ctx("SYLLABLE-Y", "the avagraha ends a syllable", prev...)
	}
	return out
}

func (x *exporter) maybe(c akshara.Class) *element {
	if x.has(c) {
		return cls(c)
	}
	return nil
}

// rules writes the classes, the rules and the actions.
func (x *exporter) rules() (*element, error) {
	rules := el("rules")
	for _, c := range letterClasses {
		if x.has(c) {
			rules.add(el("class", "name", c.String(), "from-tag", c.String(), "comment", classComments[c]))
		}
	}
	if len(x.nuktaC) > 0 {
		rules.add(el("class", "name", tagCn, "from-tag", tagCn, "comment", "consonants that take a nukta (nukta-after)", "ref", x.ref(x.p.NuktaRef)))
	}
	if len(x.nuktaV) > 0 {
		rules.add(el("class", "name", tagVn, "from-tag", tagVn, "comment", "vowels that take a nukta (nukta-after)", "ref", x.ref(x.p.NuktaRef)))
	}
	if len(x.nuktaM) > 0 {
		rules.add(el("class", "name", tagMn, "from-tag", tagMn, "comment", "vowel signs that take a nukta (nukta-after)", "ref", x.ref(x.p.NuktaRef)))
	}
	rules.add(el("class", "name", tagDigit, "from-tag", tagDigit, "comment", "ASCII digits"))
	rules.add(el("class", "name", tagHyphen, "from-tag", tagHyphen, "comment", "the hyphen"))
	x.names["SYLLABLE"] = true
	rules.add(x.contextRules()...)
	rules.add(x.nfc...)
	if x.closure {
		x.names[closureRule] = true
		rules.add(el("rule", "name", closureRule, "comment", "holds for no label (the start of the label never follows the anchor): the mappings under it complete the null variants' one-way mappings to the symmetric, transitive variant sets lgr-core checks, and are never taken").
			add(el("anchor"), el("look-ahead").add(el("start"))))
	}

	type wl struct {
		rule *element
		disp string
		not  bool
	}
	var whole []wl
	add := func(code, comment string, pattern *element, ref string) {
		if pattern == nil {
			return
		}
		name := x.name(code)
		r := el("rule", "name", name, "comment", comment, "ref", ref)
		if pattern.name == "rule" && len(pattern.attrs) == 0 {
			r.kids = pattern.kids
		} else {
			r.add(pattern)
		}
		whole = append(whole, wl{rule: r, disp: "invalid"})
	}
	add("TOO_SHORT", fmt.Sprintf("fewer than %d code points (the default minimum; a zone may configure another)", akshara.MinLength),
		seq(el("start"), repeat(el("any"), "0:"+strconv.Itoa(akshara.MinLength-1)), el("end")), "")
	add("DIGITS_ONLY", "a label of only one or two digits", seq(el("start"), repeat(clsName(tagDigit), "1:2"), el("end")), "")
	add("HYPHEN_START", "the label begins with a hyphen", seq(el("start"), clsName(tagHyphen)), "")
	add("HYPHEN_END", "the label ends with a hyphen", seq(clsName(tagHyphen), el("end")), "")
	add("HYPHEN_DOUBLE", "two hyphens in a row", repeat(clsName(tagHyphen), "2"), "")
	if x.p.RTL {
		// The Bidi rule of RFC 5893: with a repertoire of bidi classes R,
		// AL and NSM only (the loader holds it so), a label the grammar
		// accepts breaks it exactly when it begins with a digit.
		add("BIDI", "a right-to-left label begins with a digit (RFC 5893, rule 1)", seq(el("start"), clsName(tagDigit)), x.ref(x.p.DirectionRef))
	}
	if x.has(akshara.H) {
		follow := []string{"C"}
		for _, c := range []akshara.Class{akshara.Z, akshara.Y} {
			if x.has(c) {
				follow = append(follow, c.String())
			}
		}
		follow = append(follow, tagDigit, tagHyphen)
		add("HALANT_FOLLOWER", "a halant followed by other than a consonant, "+map[bool]string{true: "khanda ta, ", false: ""}[x.has(akshara.Z)]+map[bool]string{true: "avagraha, ", false: ""}[x.has(akshara.Y)]+"digit, hyphen or the end",
			seq(cls(akshara.H), not(follow...)), "")
		unit := seq(cls(akshara.C), opt(x.maybe(akshara.N)))
		add("CLUSTER_TOO_LONG", fmt.Sprintf("more than %d consonants joined by halants", x.p.K+1),
			seq(unit, repeat(seq(cls(akshara.H), seq(cls(akshara.C), opt(x.maybe(akshara.N)))), strconv.Itoa(x.p.K+1))), x.ref(x.p.KRef))
		var same []*element
		for _, c := range x.members[akshara.C] {
			var notN *element
			if x.has(akshara.N) {
				notN = alt(el("end"), not("N"))
			}
			same = append(same, seq(char(c), cls(akshara.H), char(c), cls(akshara.H), char(c), notN))
		}
		for _, c := range x.nuktaC {
			n := cls(akshara.N)
			same = append(same, seq(char(c), n, cls(akshara.H), char(c), cls(akshara.N), cls(akshara.H), char(c), cls(akshara.N)))
		}
		add("IDENTICAL_CONSONANTS", "three identical consonants (with the same nukta) joined by halants", alt(same...), "")
	}
	var signBad []*element
	for _, s := range []akshara.Class{akshara.D, akshara.B, akshara.X, akshara.S} {
		if !x.has(s) {
			continue
		}
		var second []*element
		for _, t := range []akshara.Class{akshara.D, akshara.B, akshara.X, akshara.S} {
			if x.has(t) && !(s == akshara.B && x.pairs[t]) {
				second = append(second, cls(t))
			}
		}
		signBad = append(signBad, seq(cls(s), alt(second...)))
	}
	add("SIGN_COMBINATION", "two signs together, other than the pairs the language allows", alt(signBad...), "")

	langRules, err := x.languageRules()
	if err != nil {
		return nil, err
	}
	for _, lr := range langRules {
		add(lr.code, lr.comment, lr.pattern, x.ref(lr.ref))
	}
	parts, syl, err := x.grammar()
	if err != nil {
		return nil, err
	}
	g := el("rule", "name", "SYLLABLE", "comment", "the label is a sequence of syllables, digits and single hyphens under the generic grammar of v1.8 §5.2.d with this language's parameters")
	g.kids = syl.kids
	whole = append(whole, wl{rule: g, disp: "invalid", not: true})

	for _, w := range whole {
		if w.not {
			rules.add(parts...) // the grammar's named parts, before their first use
		}
		rules.add(w.rule)
	}
	for _, w := range whole {
		name := w.rule.get("name")
		if w.not {
			rules.add(el("action", "disp", w.disp, "not-match", name, "comment", "a label the grammar does not parse is invalid"))
		} else {
			rules.add(el("action", "disp", w.disp, "match", name, "comment", "invalid: "+name))
		}
	}
	if x.closure {
		rules.add(el("action", "disp", "invalid", "any-variant", closureType, "comment", "a label made with a mapping of the null variants' closure is not a variant (none is: their rule holds nowhere)"))
	}
	rules.add(el("action", "disp", "blocked", "any-variant", "blocked", "comment", "a variant label with a blocked variant is blocked"))
	rules.add(el("action", "disp", "allocatable", "all-variants", "allocatable", "comment", "a variant label with only allocatable variants is allocatable"))
	rules.add(el("action", "disp", "valid", "comment", "any other label is valid"))
	return rules, nil
}

// grammar is the generic v1.8 grammar with the language's parameters, as
// one whole-label rule and its named parts (grammar.go is the state
// machine it restates):
//
//	label  = *(W [hyphen] / O hyphen) (W / O)
//	W      = syllable / digit / O digit
//	O      = open       (a syllable that ends in a halant: only a hyphen, a digit or the end may follow)
func (x *exporter) grammar() ([]*element, *element, error) {
	C, V, M, H, N := akshara.C, akshara.V, akshara.M, akshara.H, akshara.N
	if !x.has(C) {
		return nil, nil, fmt.Errorf("the grammar needs consonants (letters)")
	}
	var parts []*element
	def := func(name, comment string, e *element) func() *element {
		x.names[name] = true
		r := el("rule", "name", name, "comment", comment)
		if e.name == "rule" && len(e.attrs) == 0 {
			r.kids = e.kids
		} else {
			r.add(e)
		}
		parts = append(parts, r)
		return func() *element { return el("rule", "by-ref", name) }
	}
	unitE := cls(C)
	if len(x.nuktaC) > 0 && x.has(N) {
		unitE = alt(seq(clsName(tagCn), cls(N)), cls(C))
	}
	unit := def("SYLLABLE-consonant", "a consonant, with its nukta if it takes one", unitE)
	clusterE := unit()
	if x.p.K > 0 && x.has(H) {
		clusterE = seq(unit(), repeat(seq(cls(H), unit()), "0:"+strconv.Itoa(x.p.K)))
	}
	cluster := def("SYLLABLE-cluster", fmt.Sprintf("up to %d consonants joined by halants (k = %d)", x.p.K+1, x.p.K), clusterE)
	signTail := func(allow ...akshara.Class) *element {
		var alts []*element
		for _, s := range allow {
			if !x.has(s) {
				continue
			}
			if s == akshara.B {
				var second []*element
				for _, t := range []akshara.Class{akshara.D, akshara.X} {
					if x.pairs[t] && x.has(t) {
						second = append(second, cls(t))
					}
				}
				alts = append(alts, seq(cls(akshara.B), opt(alt(second...))))
				continue
			}
			alts = append(alts, cls(s))
		}
		return alt(alts...)
	}
	all := []akshara.Class{akshara.D, akshara.B, akshara.X, akshara.S}
	var signs func() *element
	if e := signTail(all...); e != nil {
		signs = def("SYLLABLE-signs", "a sign, or a pair of signs the language allows (sign-pairs)", e)
	} else {
		signs = func() *element { return nil }
	}
	matra := x.maybe(M)
	if len(x.nuktaM) > 0 && x.has(N) {
		// the vowel sign of a consonant syllable may take the nukta
		matra = alt(seq(clsName(tagMn), opt(cls(N))), cls(M))
	}
	matraTail := func() *element {
		return opt(alt(signs(), seq(matra, opt(signs()))))
	}
	closed := []*element{seq(cluster(), matraTail())}
	var open []*element
	if x.has(H) {
		open = append(open, seq(cluster(), cls(H)))
	}
	if x.has(akshara.Z) && !x.has(H) {
		closed = append(closed, cls(akshara.Z))
	} else if x.has(akshara.Z) {
		closed = append(closed, cls(akshara.Z), seq(unit(), cls(H), cls(akshara.Z)))
	}
	if x.has(akshara.L) && !x.has(H) {
		closed = append(closed, cls(akshara.L))
	} else if x.has(akshara.L) {
		var lTail *element
		if x.has(M) {
			lTail = opt(alt(x.maybe(akshara.D), seq(cls(M), opt(x.maybe(akshara.D)))))
		} else {
			lTail = opt(x.maybe(akshara.D))
		}
		closed = append(closed, seq(cls(akshara.L), opt(seq(cls(H), cls(C), lTail))))
		open = append(open, seq(cls(akshara.L), cls(H), cls(C), cls(H)))
	}
	if x.has(akshara.A) {
		dx := signTail(akshara.D, akshara.X)
		var mdx *element
		if x.has(M) {
			mdx = seq(cls(M), opt(signTail(akshara.D, akshara.X)))
		}
		closed = append(closed, seq(cls(akshara.A), cls(C), opt(alt(dx, mdx))))
	}
	if x.has(V) {
		if len(x.nuktaV) > 0 && x.has(N) {
			closed = append(closed, seq(clsName(tagVn), cls(N)))
		}
		closed = append(closed, seq(cls(V), opt(signs())))
		if len(x.p.VowelConjuncts) > 0 && x.has(M) {
			closed = append(closed, seq(cls(V), cls(H), cls(C), cls(M), opt(signs())))
		}
	}
	closedR := def("SYLLABLE-closed", "a syllable that does not end in a halant", alt(closed...))
	if len(open) == 0 { // no halant: every syllable is closed
		syllable := closedR
		if x.has(akshara.Y) {
			syllable = def("SYLLABLE-akshara", "a syllable (akshara), with the avagraha that may follow it", seq(closedR(), opt(cls(akshara.Y))))
		}
		w := func() *element { return alt(syllable(), clsName(tagDigit)) }
		return parts, el("rule").add(el("start"), repeat(seq(w(), opt(clsName(tagHyphen))), "0+"), w(), el("end")), nil
	}
	openR := def("SYLLABLE-open", "a syllable that ends in a halant: a hyphen, a digit, an avagraha or the end follows", alt(open...))
	syllable := closedR
	if x.has(akshara.Y) {
		syllable = def("SYLLABLE-akshara", "a syllable (akshara), with the avagraha that may follow it", alt(seq(closedR(), opt(cls(akshara.Y))), seq(openR(), cls(akshara.Y))))
	}
	w := func() *element {
		return alt(syllable(), clsName(tagDigit), seq(openR(), clsName(tagDigit)))
	}
	p := alt(seq(w(), opt(clsName(tagHyphen))), seq(openR(), clsName(tagHyphen)))
	q := alt(w(), openR())
	return parts, el("rule").add(el("start"), repeat(p, "0+"), q, el("end")), nil
}
