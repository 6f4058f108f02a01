package lgr

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara"
	"golang.org/x/text/unicode/norm"
)

func languages(t testing.TB) []*akshara.Language {
	t.Helper()
	ls, err := akshara.Languages()
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// committed parses the committed export of l.
func committed(t testing.TB, l *akshara.Language) ([]byte, *LGR) {
	t.Helper()
	data, ok := File(l.Tag)
	if !ok {
		t.Fatalf("%s: no lgr/%s.xml: run go generate ./lgr", l.Tag, l.Tag)
	}
	g, err := Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", l.Tag, err)
	}
	return data, g
}

// TestExportsUpToDate: every language has a committed export, and it is
// what Export writes now (go generate ./lgr regenerates them).
func TestExportsUpToDate(t *testing.T) {
	ls := languages(t)
	for _, l := range ls {
		data, g := committed(t, l)
		fresh, err := Export(l, Options{Date: g.Date})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, fresh) {
			t.Errorf("lgr/%s.xml is not what Export writes: run go generate ./lgr", l.Tag)
		}
	}
	matches, _ := filepath.Glob("*.xml")
	if len(matches) != len(ls) {
		t.Errorf("%d exports under lgr/, %d languages: remove the exports of languages that are gone", len(matches), len(ls))
	}
}

// TestSchema validates every export against RFC 7940's RelaxNG schema
// (testdata/lgr.rng, from ICANN's lgr-core) with xmllint.
func TestSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("xmllint is not installed (Debian package libxml2-utils); CI must run this test")
		}
		t.Skip("xmllint not installed (Debian package libxml2-utils): the exports are not checked against the RFC 7940 schema")
	}
	files, _ := filepath.Glob("*.xml")
	if len(files) == 0 {
		t.Fatal("no exports")
	}
	out, err := exec.Command(xmllint, append([]string{"--noout", "--relaxng", "testdata/lgr.rng"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("xmllint: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), " validates"); n != len(files) {
		t.Errorf("xmllint validated %d of %d files:\n%s", n, len(files), out)
	}
	// The schema must be able to fail: a broken export does not validate.
	bad := filepath.Join(t.TempDir(), "bad.xml")
	data, _ := File("hi")
	os.WriteFile(bad, bytes.Replace(data, []byte(`<rule name="SYLLABLE"`), []byte(`<rule name="1SYLLABLE"`), 1), 0o644)
	if err := exec.Command(xmllint, "--noout", "--relaxng", "testdata/lgr.rng", bad).Run(); err == nil {
		t.Error("xmllint accepts an export with an invalid rule name")
	}
}

// TestStructure checks what the schema cannot: code points in ascending
// order, tags only on single code points, every variant mapping symmetric,
// every class and rule referred to exists, every rule named and used.
func TestStructure(t *testing.T) {
	for _, l := range languages(t) {
		data, _ := committed(t, l)
		for _, p := range structure(l, data) {
			t.Error(p)
		}
	}
}

// TestStructureCanFail: each kind of defect TestStructure looks for is
// found in an export broken on purpose.
func TestStructureCanFail(t *testing.T) {
	l, _ := akshara.Lookup("hi")
	data, _ := File("hi")
	doc := string(data)
	for _, c := range []struct{ old, new, want string }{
		{`<char cp="0902" when`, `<char cp="0900" when`, "is not after"},
		{`<var cp="0945 0902" type="blocked"`, `<var cp="0945 0903" type="blocked"`, "no reverse mapping"},
		{`<char cp="0945 0902" when="SYLLABLE-M"`, `<char cp="0945 0902" tag="M" when="SYLLABLE-M"`, "a tag on the sequence"},
		{`<class by-ref="Cn"/>`, `<class by-ref="Cx"/>`, "no class"},
		{`ref="1"`, `ref="99"`, "is not declared"},
		{`<action disp="invalid" match="TOO_SHORT"`, `<action disp="invalid" match="DIGITS_ONLY"`, "never used"},
	} {
		broken := strings.Replace(doc, c.old, c.new, 1)
		if broken == doc {
			t.Fatalf("the export has no %s", c.old)
		}
		found := false
		for _, p := range structure(l, []byte(broken)) {
			found = found || strings.Contains(p, c.want)
		}
		if !found {
			t.Errorf("%s -> %s: no problem %q found", c.old, c.new, c.want)
		}
	}
}

// structure returns what is wrong with an export beyond the schema.
func structure(l *akshara.Language, data []byte) []string {
	var problems []string
	t := problemList{&problems}
	root, err := parseXML(bytes.NewReader(data))
	if err != nil {
		return []string{err.Error()}
	}
	g := &LGR{classDefs: map[string]*element{}, ruleDefs: map[string]*element{}}
	var dataSec, rules *element
	for _, k := range root.kids {
		switch k.name {
		case "data":
			dataSec = k
		case "rules":
			rules = k
		}
	}
	if dataSec == nil || rules == nil {
		return []string{"no data or no rules"}
	}
	for _, k := range rules.kids {
		switch {
		case k.name == "rule":
			g.ruleDefs[k.get("name")] = k
		case setOps[k.name]:
			g.classDefs[k.get("name")] = k
		}
	}
	var prev []rune
	vars := map[string]map[string]bool{}
	used := map[string]bool{}
	varRules := map[string]bool{} // the contexts of variant mappings: they name no error
	for _, e := range dataSec.kids {
		var cps []rune
		if e.name == "range" {
			lo, _ := parseCodePoint(e.get("first-cp"))
			cps = []rune{lo}
		} else {
			cps, _ = parseSequence(e.get("cp"))
		}
		if prev != nil && !lessRunes(prev, cps) {
			t.Errorf("%s line %d: %s is not after %s", l.Tag, e.line, hexSeq(cps), hexSeq(prev))
		}
		prev = cps
		if e.name == "range" {
			hi, _ := parseCodePoint(e.get("last-cp"))
			prev = []rune{hi}
		}
		if len(cps) > 1 && e.get("tag") != "" {
			t.Errorf("%s line %d: a tag on the sequence %s", l.Tag, e.line, hexSeq(cps))
		}
		used[e.get("when")], used[e.get("not-when")] = true, true
		for _, v := range e.kids {
			if vars[string(cps)] == nil {
				vars[string(cps)] = map[string]bool{}
			}
			vcps, _ := parseVariantSequence(v.get("cp"))
			vars[string(cps)][string(vcps)+"/"+v.get("type")] = true
			used[v.get("when")], used[v.get("not-when")] = true, true
			varRules[v.get("when")], varRules[v.get("not-when")] = true, true
		}
	}
	for a, bs := range vars {
		for bt := range bs {
			b, typ, _ := strings.Cut(bt, "/")
			if b == "" {
				t.Errorf("%s: a null variant of %s (lgr-core drops it: the export writes null variants as sequences)", l.Tag, hexSeq([]rune(a)))
				continue
			}
			if vars[b][a+"/"+typ] {
				continue
			}
			// A null variant's sequence E r maps to E one way (blocked);
			// the mapping back is of the closure's type, never taken.
			ar := []rune(a)
			if typ == "blocked" && vars[b][a+"/"+closureType] && slices.Contains(l.NullVariants(), ar[len(ar)-1]) {
				continue
			}
			t.Errorf("%s: variant %s -> %s (%s) has no reverse mapping", l.Tag, hexSeq([]rune(a)), hexSeq([]rune(b)), typ)
		}
	}
	if len(vars) == 0 && len(l.VariantRows()) > 0 {
		t.Errorf("%s: no variants exported", l.Tag)
	}
	// References: every by-ref, from-tag, when, not-when, match and
	// not-match names something defined.
	tags := map[string]bool{}
	for _, e := range dataSec.kids {
		for _, tg := range strings.Fields(e.get("tag")) {
			tags[tg] = true
		}
	}
	var walk func(e *element)
	walk = func(e *element) {
		if ref, ok := e.attr("by-ref"); ok {
			if _, isRule := g.ruleDefs[ref]; e.name == "rule" && !isRule {
				t.Errorf("%s line %d: no rule %q", l.Tag, e.line, ref)
			}
			if _, isClass := g.classDefs[ref]; e.name == "class" && !isClass {
				t.Errorf("%s line %d: no class %q", l.Tag, e.line, ref)
			}
			used[ref] = true
		}
		if tg, ok := e.attr("from-tag"); ok && !tags[tg] {
			t.Errorf("%s line %d: no code point has the tag %q", l.Tag, e.line, tg)
		}
		for _, k := range e.kids {
			walk(k)
		}
	}
	walk(rules)
	// Every ref names a declared reference.
	refIDs := map[string]bool{}
	for _, k := range root.kids {
		if k.name == "meta" {
			for _, m := range k.kids {
				if m.name == "references" {
					for _, r := range m.kids {
						refIDs[r.get("id")] = true
					}
				}
			}
		}
	}
	var refs func(e *element)
	refs = func(e *element) {
		for _, id := range strings.Fields(e.get("ref")) {
			if !refIDs[id] {
				t.Errorf("%s line %d: reference %q is not declared", l.Tag, e.line, id)
			}
		}
		for _, k := range e.kids {
			refs(k)
		}
	}
	refs(dataSec)
	refs(rules)
	if len(refIDs) < 2 {
		t.Errorf("%s: %d references", l.Tag, len(refIDs))
	}
	for _, e := range rules.kids {
		if e.name == "action" {
			used[e.get("match")], used[e.get("not-match")] = true, true
		}
	}
	for name := range used {
		if _, isRule := g.ruleDefs[name]; name != "" && !isRule && g.classDefs[name] == nil {
			t.Errorf("%s: %q is referred to but not defined", l.Tag, name)
		}
	}
	for _, e := range rules.kids {
		name := e.get("name")
		if (e.name == "rule" || e.name == "class") && name == "" {
			t.Errorf("%s line %d: a <%s> without a name", l.Tag, e.line, e.name)
		}
		if e.name == "rule" && !used[name] {
			t.Errorf("%s: rule %q is never used", l.Tag, name)
		}
		if e.name == "rule" && ruleCode(name) == "" && !varRules[name] {
			t.Errorf("%s: rule %q is not named after an akshara rule code", l.Tag, name)
		}
	}
	return problems
}

// problemList collects problems with a t.Errorf-like method.
type problemList struct{ list *[]string }

func (p problemList) Errorf(format string, args ...any) {
	*p.list = append(*p.list, fmt.Sprintf(format, args...))
}

// ruleCode is the akshara rule code a rule name starts with, or "".
func ruleCode(name string) string {
	code, _, _ := strings.Cut(name, "-")
	for _, c := range akshara.Codes() {
		if c.String() == code {
			return code
		}
	}
	return ""
}

// inexpressible reports whether the only rules a label breaks are ones the
// LGR cannot state (docs/lgr.md).
func inexpressible(res *akshara.Result) bool {
	if res.Valid || len(res.Errors) == 0 {
		return false
	}
	for _, e := range res.Errors {
		if e.Code != akshara.VariantLimit && e.Code != akshara.TooLong {
			return false
		}
	}
	return true
}

// agreement compares the LGR with Valid on labels (NFC U-labels).
type agreement struct {
	labels, valid, same, inexpressible int
	diffs                              []string
}

func compare(l *akshara.Language, g *LGR, labels []string) agreement {
	var a agreement
	for _, s := range labels {
		a.labels++
		want := l.Valid(s)
		v := g.Judge(s)
		if want {
			a.valid++
		}
		switch {
		case v.Valid == want:
			a.same++
		case v.Valid && inexpressible(l.Check(s)):
			a.inexpressible++
		default:
			if len(a.diffs) < 10 {
				a.diffs = append(a.diffs, fmt.Sprintf("%q (%s): Valid=%v, LGR %s %s@%d; akshara: %v",
					s, hexSeq([]rune(s)), want, v.Disposition, v.Rule, v.Pos, errs(l.Check(s))))
			}
		}
	}
	return a
}

func errs(r *akshara.Result) []string {
	var out []string
	for _, e := range r.Errors {
		out = append(out, fmt.Sprintf("%s@%d", e.Code, e.Pos))
	}
	return out
}

// generate makes n labels from the language's repertoire, deterministically:
// syllables built the way the grammar builds them, then mutated (a code
// point inserted, dropped or swapped) so that about half are invalid. The
// labels are NFC.
func generate(l *akshara.Language, n int, seed uint64) []string {
	h := fnv.New64a()
	h.Write([]byte(l.Tag))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	var variantSeqs [][]rune // members of the variant rows, for VARIANT_LIMIT
	for _, row := range l.VariantRows() {
		for _, m := range row {
			variantSeqs = append(variantSeqs, []rune(m))
		}
	}
	by := map[akshara.Class][]rune{}
	var all []rune
	for _, m := range l.Repertoire() {
		by[m.Class] = append(by[m.Class], m.Rune)
		all = append(all, m.Rune)
	}
	all = append(all, '-', '0', '7')
	pick := func(c akshara.Class) []rune {
		if rs := by[c]; len(rs) > 0 {
			return []rune{rs[rng.IntN(len(rs))]}
		}
		return nil
	}
	chance := func(p float64) bool { return rng.Float64() < p }
	syllable := func() []rune {
		var s []rune
		switch r := rng.IntN(20); {
		case r < 12:
			s = append(s, pick(akshara.C)...)
			if chance(0.1) {
				s = append(s, pick(akshara.N)...)
			}
			for i := 0; i <= l.K && chance(0.3); i++ {
				s = append(s, pick(akshara.H)...)
				s = append(s, pick(akshara.C)...)
			}
			switch {
			case chance(0.5):
				s = append(s, pick(akshara.M)...)
			case chance(0.1):
				s = append(s, pick(akshara.H)...)
			}
		case r < 15:
			s = append(s, pick(akshara.V)...)
		case r < 16:
			s = append(s, pick(akshara.L)...)
			s = append(s, pick(akshara.Z)...)
			s = append(s, pick(akshara.A)...)
			s = append(s, pick(akshara.C)...)
		case r < 17:
			s = append(s, rune('0'+rng.IntN(10)))
		default:
			s = append(s, pick(akshara.C)...)
			s = append(s, pick(akshara.M)...)
		}
		if chance(0.2) {
			for _, c := range []akshara.Class{akshara.D, akshara.B, akshara.X, akshara.S, akshara.Y} {
				if chance(0.3) {
					s = append(s, pick(c)...)
				}
			}
		}
		return s
	}
	// Half the labels are the neighbourhood of the policy's own examples:
	// each with one code point dropped, doubled, or one of each class
	// inserted, and three identical consonants joined by halants.
	var out []string
	reps := [][]rune{{'-'}, {'5'}}
	for _, c := range []akshara.Class{akshara.C, akshara.V, akshara.M, akshara.D, akshara.B, akshara.X, akshara.H, akshara.N, akshara.Y, akshara.A, akshara.L, akshara.Z, akshara.S} {
		if r := pick(c); r != nil {
			reps = append(reps, r)
		}
	}
	for _, c := range by[akshara.C] {
		h := pick(akshara.H)
		three := append(append(append(append([]rune{c}, h...), c), h...), c)
		out = append(out, string(three), string(append(three, pick(akshara.N)...)))
	}
	for _, ex := range l.Examples() {
		rs := []rune(norm.NFC.String(ex.Text))
		for i := 0; i <= len(rs) && len(out) < n/2; i++ {
			if i < len(rs) {
				out = append(out, string(append(append([]rune(nil), rs[:i]...), rs[i+1:]...)))
				out = append(out, string(append(append([]rune(nil), rs[:i+1]...), rs[i:]...)))
			}
			for _, r := range reps {
				out = append(out, string(append(append(append([]rune(nil), rs[:i]...), r...), rs[i:]...)))
			}
		}
	}
	if len(out) > n/2 {
		out = out[:n/2]
	}
	for i := range out {
		out[i] = norm.NFC.String(out[i])
	}
	for len(out) < n {
		var rs []rune
		k := 1 + rng.IntN(5)
		if chance(0.05) {
			k = 8 + rng.IntN(16) // long: the A-label may pass 63 octets
		}
		variantRich := len(variantSeqs) > 0 && chance(0.1)
		for ; k > 0; k-- {
			if variantRich && chance(0.6) {
				rs = append(rs, variantSeqs[rng.IntN(len(variantSeqs))]...)
				continue
			}
			rs = append(rs, syllable()...)
			if chance(0.08) {
				rs = append(rs, '-')
			}
		}
		for chance(0.4) && len(rs) > 0 {
			i := rng.IntN(len(rs))
			switch rng.IntN(3) {
			case 0:
				rs = append(rs[:i], append([]rune{all[rng.IntN(len(all))]}, rs[i:]...)...)
			case 1:
				rs = append(rs[:i], rs[i+1:]...)
			default:
				j := rng.IntN(len(rs))
				rs[i], rs[j] = rs[j], rs[i]
			}
		}
		out = append(out, norm.NFC.String(string(rs)))
	}
	return out
}

// TestEquivalence parses each committed export back and requires the
// LGR's verdict to be Valid's on the language's examples and on generated
// labels, except where the label breaks only a rule the LGR cannot state.
func TestEquivalence(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 2000
	}
	for _, l := range languages(t) {
		t.Run(l.Tag, func(t *testing.T) {
			t.Parallel()
			_, g := committed(t, l)
			var labels []string
			for _, ex := range l.Examples() {
				labels = append(labels, norm.NFC.String(ex.Text))
			}
			ex := compare(l, g, labels)
			gen := compare(l, g, generate(l, n, 1))
			for _, a := range []agreement{ex, gen} {
				for _, d := range a.diffs {
					t.Error(d)
				}
			}
			if gen.valid < n/10 || gen.valid > n*9/10 {
				t.Errorf("%d of %d generated labels are valid: the generator is not testing both sides", gen.valid, n)
			}
			t.Logf("%-8s examples %d/%d agree; generated %d/%d agree (%d valid), %d differ only by VARIANT_LIMIT/TOO_LONG",
				l.Tag, ex.same, ex.labels, gen.same, gen.labels, gen.valid, gen.inexpressible)
		})
	}
}

// TestEquivalenceCanFail: the comparison finds the difference when an
// export loses a rule (here the grammar, or a language's context rule).
func TestEquivalenceCanFail(t *testing.T) {
	for _, c := range []struct{ tag, drop string }{
		{"hi", `not-match="SYLLABLE"`},
		{"pa", `match="CONJUNCT"`},
		{"hi", `match="CLUSTER_TOO_LONG"`},
	} {
		l, err := akshara.Lookup(c.tag)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := File(c.tag)
		broken := strings.Replace(string(data), c.drop, `match="TOO_SHORT"`, 1)
		if broken == string(data) {
			t.Fatalf("%s: the export has no %s", c.tag, c.drop)
		}
		g, err := Parse([]byte(broken))
		if err != nil {
			t.Fatal(err)
		}
		if a := compare(l, g, generate(l, 2000, 1)); a.same == a.labels {
			t.Errorf("%s without %s: all %d labels still agree", c.tag, c.drop, a.labels)
		}
	}
}

// TestCorpora measures agreement on the real word lists (../shared/corpora,
// never committed): set AKSHARA_CORPORA to the directory to run it.
func TestCorpora(t *testing.T) {
	dir := os.Getenv("AKSHARA_CORPORA")
	if dir == "" {
		t.Skip("set AKSHARA_CORPORA to the corpora directory to measure agreement on real words")
	}
	for _, l := range languages(t) {
		f, err := os.Open(filepath.Join(dir, l.Tag+".txt"))
		if err != nil {
			t.Logf("%s: no corpus", l.Tag)
			continue
		}
		var labels []string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if w := strings.TrimSpace(sc.Text()); w != "" {
				labels = append(labels, norm.NFC.String(w))
			}
		}
		f.Close()
		_, g := committed(t, l)
		a := compare(l, g, labels)
		for _, d := range a.diffs {
			t.Errorf("%s: %s", l.Tag, d)
		}
		t.Logf("%-8s corpus %d words: %d agree (%d valid), %d differ only by VARIANT_LIMIT/TOO_LONG, %d disagree",
			l.Tag, a.labels, a.same, a.valid, a.inexpressible, a.labels-a.same-a.inexpressible)
		if len(l.VariantRows()) == 0 && len(l.NullVariants()) == 0 {
			continue
		}
		// The variant sets of the valid words: this reader's and
		// lgr-core's (coreVariants) against the language's.
		withVariants, variants, readerDiffer, coreDiffer := 0, 0, 0, 0
		for _, s := range labels {
			if !l.Valid(s) {
				continue
			}
			want := map[string]bool{}
			for _, v := range l.Variants(s) {
				want[norm.NFC.String(v)] = true
			}
			if len(want) > 0 {
				withVariants++
			}
			variants += len(want)
			var reader []string
			for _, v := range g.Variants(s) {
				if v.Disposition != "invalid" {
					reader = append(reader, v.Label)
				}
			}
			core := coreVariants(g, []rune(s))
			same := func(got []string) bool {
				if len(got) != len(want) {
					return false
				}
				for _, v := range got {
					if !want[v] {
						return false
					}
				}
				return true
			}
			if !same(reader) {
				readerDiffer++
			}
			if !same(slices.Collect(maps.Keys(core))) {
				if coreDiffer++; coreDiffer <= 5 {
					t.Errorf("%s %q: lgr-core's variants are not the language's", l.Tag, s)
				}
			}
		}
		if readerDiffer > 0 {
			t.Errorf("%s: %d words whose variants this reader makes otherwise", l.Tag, readerDiffer)
		}
		t.Logf("%-8s %d words with %d variants: %d differ in this reader, %d in lgr-core's generation",
			l.Tag, withVariants, variants, readerDiffer, coreDiffer)
	}
}

// BenchmarkJudge is the LGR's verdict per label, on generated labels;
// BenchmarkValid is the native engine on the same labels.
func BenchmarkJudge(b *testing.B) {
	l, _ := akshara.Lookup("hi")
	_, g := committed(b, l)
	labels := generate(l, 1000, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g.Judge(labels[i%len(labels)])
	}
}

func BenchmarkValid(b *testing.B) {
	l, _ := akshara.Lookup("hi")
	labels := generate(l, 1000, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.Valid(labels[i%len(labels)])
	}
}

// TestVariantsEquivalence: the variant labels an export generates (those
// not invalid) are the language's Variants, on valid labels with variant
// sequences, except variants refused only for rules an LGR cannot state.
func TestVariantsEquivalence(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	for _, l := range languages(t) {
		if len(l.VariantRows()) == 0 {
			continue
		}
		_, g := committed(t, l)
		labels, compared, variants, skipped := 0, 0, 0, 0
		for _, s := range generate(l, n, 2) {
			if !l.Valid(s) {
				continue
			}
			labels++
			want := l.Variants(s)
			var got []string
			for _, v := range g.Variants(s) {
				if v.Disposition == "invalid" {
					continue
				}
				if v.Disposition != "blocked" {
					t.Errorf("%s %q: variant %q is %s, want blocked", l.Tag, s, v.Label, v.Disposition)
				}
				got = append(got, v.Label)
			}
			if len(want) == 0 && len(got) == 0 {
				continue
			}
			compared++
			variants += len(want)
			inWant := map[string]bool{}
			for _, v := range want {
				// Variants may return a label that is not NFC (a
				// mapping before a mark it composes with); the LGR's
				// variant labels are NFC.
				inWant[norm.NFC.String(v)] = true
			}
			for _, v := range got {
				if !inWant[v] {
					if inexpressible(l.Check(v)) {
						skipped++
						continue
					}
					t.Errorf("%s %q: the LGR makes the variant %q, the language does not (%v)", l.Tag, s, v, errs(l.Check(v)))
				}
				delete(inWant, v)
			}
			for v := range inWant {
				t.Errorf("%s %q: the language makes the variant %q, the LGR does not", l.Tag, s, v)
			}
		}
		if compared == 0 {
			t.Errorf("%s: no generated label has variants", l.Tag)
		}
		t.Logf("%-8s %d valid labels, %d with variants: %d variants agree, %d more from the LGR refused only by VARIANT_LIMIT/TOO_LONG", l.Tag, labels, compared, variants, skipped)
	}
}

// A language with no halant (every syllable closed, k = 0), a no-mix-free
// minimal file: the exporter's shapes that the embedded languages do not
// have are held to Valid too.
const noHalantLang = `language  xx
name      Test
native    टेस्ट
script    Deva
source    test
k         0      § test
class C  § test
  U+0915  क  DEVANAGARI LETTER KA
  U+0916  ख  DEVANAGARI LETTER KHA
  U+0917  ग  DEVANAGARI LETTER GA
class V  § test
  U+0905  अ  DEVANAGARI LETTER A
class M  § test
  U+093E  ◌ा  DEVANAGARI VOWEL SIGN AA
class D  § test
  U+0902  ◌ं  DEVANAGARI SIGN ANUSVARA
`

func TestExportNoHalant(t *testing.T) {
	l, err := akshara.LoadLanguage("xx.lang", []byte(noHalantLang))
	if err != nil {
		t.Fatal(err)
	}
	data, err := Export(l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	labels := generate(l, 3000, 3)
	labels = append(labels, "ककक", "काकं", "अंक", "क्क", "कंा", "क-ख-ग", "कका-")
	a := compare(l, g, labels)
	for _, d := range a.diffs {
		t.Error(d)
	}
	if a.valid == 0 || a.valid == a.labels {
		t.Errorf("%d of %d valid: not a test", a.valid, a.labels)
	}
	if xmllint, err := exec.LookPath("xmllint"); err == nil {
		f := filepath.Join(t.TempDir(), "xx.xml")
		os.WriteFile(f, data, 0o644)
		if out, err := exec.Command(xmllint, "--noout", "--relaxng", "testdata/lgr.rng", f).CombinedOutput(); err != nil {
			t.Errorf("xmllint: %v\n%s", err, out)
		}
	}
	if bytes.Contains(data, []byte(`"SYLLABLE-open"`)) || bytes.Contains(data, []byte(`HALANT_FOLLOWER`)) {
		t.Error("a language without a halant has open syllables or halant rules")
	}
}

// TestVariantMappingsNFC: no variant mapping of an export makes a label
// that is not NFC (issue 25 item 5). lgr-core generates variant labels by
// replacing code points without normalizing, so Kashmiri's ی → ي before
// the hamza above ٔ gave ي ٔ, which NFC composes to ئ. Every mapping
// whose result composes with a repertoire code point after it (or before
// it) that the original does not compose with is not taken there: its
// not-when rule holds, or its when rule does not. A context is one the
// LGR accepts: the code point after (or the element) satisfies its own
// context rule there, after some code point or none (an element E r of a
// null variant is never followed by a vowel mark).
func TestVariantMappingsNFC(t *testing.T) {
	memo := map[[2]rune]bool{}
	composes := func(p, q rune) bool {
		k := [2]rune{p, q}
		c, ok := memo[k]
		if !ok {
			s := string([]rune{p, q})
			c = norm.NFC.String(s) != s
			memo[k] = c
		}
		return c
	}
	checked := 0
	for _, l := range languages(t) {
		_, g := committed(t, l)
		var rep []rune
		for k := range g.repertoire {
			if rs := []rune(k); len(rs) == 1 {
				rep = append(rep, rs[0])
			}
		}
		// accepts reports whether the element e holds at [at, at+n) of
		// some label p + label (p one code point of the repertoire or
		// nothing).
		accepts := func(e *repElem, label []rune, at, n int) bool {
			for _, p := range append([]rune{-1}, rep...) {
				l, i := label, at
				if p >= 0 {
					l, i = append([]rune{p}, label...), at+1
				}
				m := &matcher{rs: l}
				if (e.when == "" || m.context(g.rules[e.when], i, n)) && (e.notWhen == "" || !m.context(g.rules[e.notWhen], i, n)) {
					return true
				}
			}
			return false
		}
		for _, e := range g.repertoire {
			a := e.cps
			for _, v := range e.vars {
				b := v.cps
				for _, r := range rep {
					for _, ctx := range []struct {
						bad   bool
						label []rune
						at    int
						ok    func() bool
					}{
						{composes(b[len(b)-1], r) && !composes(a[len(a)-1], r), append(append([]rune(nil), a...), r), 0,
							func() bool { return accepts(g.repertoire[string(r)], append(append([]rune(nil), a...), r), len(a), 1) }},
						{composes(r, b[0]) && !composes(r, a[0]), append([]rune{r}, a...), 1,
							func() bool { return accepts(g.repertoire[string(a[:1])], append([]rune{r}, a...), 1, len(a)) }},
					} {
						if !ctx.bad || !ctx.ok() {
							continue
						}
						checked++
						m := &matcher{rs: ctx.label}
						taken := (v.when == "" || m.context(g.rules[v.when], ctx.at, len(a))) &&
							(v.notWhen == "" || !m.context(g.rules[v.notWhen], ctx.at, len(a)))
						if taken {
							t.Errorf("%s: %s → %s in %s gives %s, not NFC, and the mapping is taken there",
								l.Tag, string(a), string(b), string(ctx.label), strings.Replace(string(ctx.label), string(a), string(b), 1))
						}
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no mapping composes with anything: the test checks nothing")
	}
}

// TestVersionLedger: every committed export's RFC 7940 version is a
// positive integer (issue 25 item 5: lgr-core warned on 1.8.1+hash), the
// one the ledger lgr/versions.txt gives its language, and the ledger's
// digest is that of the export as Export writes it now; the data version
// stays in the version's comment.
func TestVersionLedger(t *testing.T) {
	led, err := ParseLedger(ledgerFile)
	if err != nil {
		t.Fatal(err)
	}
	ls := languages(t)
	for _, l := range ls {
		data, g := committed(t, l)
		v, err := strconv.Atoi(g.Version)
		if err != nil || v < 1 {
			t.Errorf("%s: version %q is not a positive integer", l.Tag, g.Version)
		}
		_, e, err := ExportVersioned(l, Options{Date: g.Date})
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := led[l.Tag]; !ok || p != e || p.Version != v {
			t.Errorf("%s: ledger %+v, export %+v version %d: run go generate ./lgr", l.Tag, led[l.Tag], e, v)
		}
		if !bytes.Contains(data, []byte("data version "+akshara.PolicyDataRelease+"+")) {
			t.Errorf("%s: the version's comment does not give the data version", l.Tag)
		}
	}
	if len(led) != len(ls) {
		t.Errorf("the ledger lists %d languages, there are %d", len(led), len(ls))
	}
}

// TestVersionIncreases: an export that differs from the published one gets
// the next integer; the same export keeps its version.
func TestVersionIncreases(t *testing.T) {
	hi, err := akshara.Lookup("hi")
	if err != nil {
		t.Fatal(err)
	}
	_, g := committed(t, hi)
	data, e, err := ExportVersioned(hi, Options{Date: g.Date})
	if err != nil {
		t.Fatal(err)
	}
	pub := published()[hi.Tag]
	if e.Version != pub.Version {
		t.Fatalf("hi: version %d, published %d", e.Version, pub.Version)
	}
	// the same language file with a line added: the next integer
	src, ok := akshara.DataFiles()["languages/hi.lang"]
	if !ok {
		t.Fatal("no languages/hi.lang among akshara.DataFiles")
	}
	edited, err := akshara.LoadLanguage("hi.lang", append(append([]byte(nil), src...), "\n# edited\n"...))
	if err != nil {
		t.Fatal(err)
	}
	data2, e2, err := ExportVersioned(edited, Options{Date: g.Date})
	if err != nil {
		t.Fatal(err)
	}
	if e2.Version != pub.Version+1 || bytes.Equal(data, data2) {
		t.Errorf("edited hi: version %d, want %d", e2.Version, pub.Version+1)
	}
	// another date: the next integer too
	if _, e3, _ := ExportVersioned(hi, Options{Date: "2099-01-01"}); e3.Version != pub.Version+1 {
		t.Errorf("hi with another date: version %d, want %d", e3.Version, pub.Version+1)
	}
	l := Ledger{"hi": {Tag: "hi", Version: 7, Digest: "aa"}}
	for _, tc := range []struct {
		e    LedgerEntry
		want int
	}{
		{LedgerEntry{Tag: "hi", Digest: "aa"}, 7},
		{LedgerEntry{Tag: "hi", Digest: "bb"}, 8},
		{LedgerEntry{Tag: "mr", Digest: "aa"}, 1},
	} {
		if got := l.next(tc.e); got != tc.want {
			t.Errorf("next(%+v) = %d, want %d", tc.e, got, tc.want)
		}
	}
	for _, bad := range []string{"hi 0 aa\n", "hi x aa\n", "hi 1\n", "hi 1 aa\nhi 2 bb\n"} {
		if _, err := ParseLedger([]byte(bad)); err == nil {
			t.Errorf("ParseLedger(%q) accepted it", bad)
		}
	}
}
