package lgr

import (
	"encoding/xml"
	"fmt"
	"sort"
	"strconv"
	"strings"

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
	x, err := newExporter(l)
	if err != nil {
		return nil, LedgerEntry{}, fmt.Errorf("lgr: %s: %v", l.Tag, err)
	}
	root, err := x.document(o)
	if err != nil {
		return nil, LedgerEntry{}, fmt.Errorf("lgr: %s: %v", l.Tag, err)
	}
	write := func() []byte {
		var b strings.Builder
		b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
		root.write(&b, 0)
		return []byte(b.String())
	}
	x.version.text = "0"
	e := LedgerEntry{Tag: l.Tag, Digest: contentDigest(write())}
	e.Version = published().next(e)
	x.version.text = strconv.Itoa(e.Version)
	return write(), e, nil
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
	nfcNames map[string]string // by mapping
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
		b.WriteString("The null variants (a var with an empty cp, RFC 7940 section 5.3.5) drop a code point: one way, as the RFC defines them.\n")
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
	vref := x.ref(x.p.VariantsRef)
	for _, row := range x.p.Variants {
		for _, a := range row {
			ar := []rune(a)
			en, ok := byKey[a]
			if !ok {
				// A sequence: its context rule is its first code point's.
				add(ar, el("char", "cp", hexSeq(ar), "when", whenOf[x.class[ar[0]]], "comment", a))
				en = byKey[a]
			}
			for _, b := range row {
				if b != a {
					v := el("var", "cp", hexSeq([]rune(b)), "type", "blocked", "ref", vref, "comment", a+" and "+b+" are homographs")
					if nw := x.nfcRule(ar, []rune(b)); nw != "" {
						v.set("not-when", nw)
					}
					en.e.add(v)
				}
			}
		}
	}
	// Null variants (RFC 7940 §5.3.5): the code point maps to nothing.
	// They are one-way: nothing maps to a code point.
	for _, r := range x.l.NullVariants() {
		a := []rune{r}
		en, ok := byKey[string(a)]
		if !ok {
			return nil, fmt.Errorf("null variant U+%04X is not in the repertoire", r)
		}
		v := el("var")
		v.set("cp", "") // the empty sequence (el leaves out empty values)
		v.attrs = append(v.attrs, el("", "type", "blocked", "ref", x.ref(x.p.NullVariantsRef), "comment", "a label without "+string(r)+" is a homograph of the label with it").attrs...)
		if nw := x.nfcRule(a, nil); nw != "" {
			v.set("not-when", nw)
		}
		en.e.add(v)
	}
	sort.Slice(entries, func(i, j int) bool { return lessRunes(entries[i].cps, entries[j].cps) })
	data := el("data")
	for _, en := range entries {
		data.add(en.e)
	}
	return data, nil
}

// nfcRule names a rule that holds where replacing a by b would make the
// variant label non-NFC: b's last code point before a code point of the
// repertoire it composes with (and a's does not), or b's first after one.
// Kashmiri's ی = ي: ي before the hamza above ٔ is ئ under NFC, and ئ = یٔ
// is a row of its own. lgr-core generates variant labels without
// normalizing them, so the mapping is not taken there (not-when). It
// returns "" when no such context exists; rules it makes are in x.nfc.
func (x *exporter) nfcRule(a, b []rune) string {
	composes := func(p, q rune) bool {
		s := string([]rune{p, q})
		return norm.NFC.String(s) != s
	}
	if len(b) == 0 {
		return x.nfcDropRule(a, composes)
	}
	var after, before []rune
	for _, r := range x.universe {
		if composes(b[len(b)-1], r) && !composes(a[len(a)-1], r) {
			after = append(after, r)
		}
		if composes(r, b[0]) && !composes(r, a[0]) {
			before = append(before, r)
		}
	}
	if len(after) == 0 && len(before) == 0 {
		return ""
	}
	var alts []*element
	if len(after) > 0 {
		alts = append(alts, el("rule").add(el("anchor"), el("look-ahead").add(setE(after, "composes with "+string(b[len(b)-1])))))
	}
	if len(before) > 0 {
		alts = append(alts, el("rule").add(el("look-behind").add(setE(before, "composes with "+string(b[0]))), el("anchor")))
	}
	return x.addNFCRule(string(a)+"="+string(b), "NFC-"+strings.ReplaceAll(hexSeq(b), " ", "-"),
		string(a)+" → "+string(b)+" here would give a label that is not NFC", alts)
}

// addNFCRule adds, once per key, the rule named after base that holds
// where one of alts does, and returns its name.
func (x *exporter) addNFCRule(key, base, comment string, alts []*element) string {
	if n, ok := x.nfcNames[key]; ok {
		return n
	}
	name := x.name(base)
	r := el("rule", "name", name, "comment", comment)
	if pat := alt(alts...); pat.name == "rule" {
		r.kids = pat.kids
	} else {
		r.add(pat)
	}
	x.nfc = append(x.nfc, r)
	x.nfcNames[key] = name
	return name
}

// nfcDropRule is nfcRule for a null variant: dropping a puts the code point
// before it beside the one after, and the rule holds where those two
// compose (and, before the drop, did not compose with a).
func (x *exporter) nfcDropRule(a []rune, composes func(p, q rune) bool) string {
	var alts []*element
	for _, p := range x.universe {
		if composes(p, a[0]) {
			continue
		}
		var after []rune
		for _, q := range x.universe {
			if composes(p, q) {
				after = append(after, q)
			}
		}
		if len(after) > 0 {
			alts = append(alts, el("rule").add(el("look-behind").add(char(p)), el("anchor"), el("look-ahead").add(setE(after, "composes with "+string(p)))))
		}
	}
	if len(alts) == 0 {
		return ""
	}
	return x.addNFCRule(string(a)+"=", "NFC-DROP-"+strings.ReplaceAll(hexSeq(a), " ", "-"),
		"dropping "+string(a)+" here would give a label that is not NFC", alts)
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
