package lgr

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/akshara-idn/akshara"
	"golang.org/x/text/unicode/norm"
)

const tinyLGR = `<?xml version="1.0"?>
<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0">
  <meta><version>1</version><language>und-Latn</language></meta>
  <data>
    <range first-cp="0061" last-cp="007A" tag="L"/>
    <char cp="002D" not-when="no-edge-hyphen"/>
    <char cp="0078 0079"><var cp="007A" type="blocked"/></char>
  </data>
  <rules>
    <class name="L" from-tag="L"/>
    <class name="vowel">0061 0065 0069 006F 0075</class>
    <difference name="consonant"><class by-ref="L"/><class by-ref="vowel"/></difference>
    <rule name="no-edge-hyphen"><choice><rule><look-behind><start/></look-behind><anchor/></rule><rule><anchor/><look-ahead><end/></look-ahead></rule></choice></rule>
    <rule name="three-consonants"><class by-ref="consonant" count="3+"/></rule>
    <rule name="has-vowel"><any count="0+"/><class by-ref="vowel"/></rule>
    <action disp="invalid" match="three-consonants"/>
    <action disp="invalid" not-match="has-vowel"/>
    <action disp="blocked" any-variant="blocked"/>
    <action disp="valid"/>
  </rules>
</lgr>`

// TestTinyLGR runs the evaluator on an LGR written by hand, with the parts
// of RFC 7940 the exports do not use (ranges, sequences, set operators,
// not-when, counts with +).
func TestTinyLGR(t *testing.T) {
	g, err := Parse([]byte(tinyLGR))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		label, rule string
		pos         int
	}{
		{"banana", "", 0},
		{"ba-na", "", 0},
		{"-bana", "no-edge-hyphen", 0},
		{"bana-", "no-edge-hyphen", 4},
		{"strong", "three-consonants", 0},
		{"ab-str", "three-consonants", 3},
		{"xy", "has-vowel", 0},
		{"baxya", "", 0},
		{"BANANA", NotInRepertoire, 0},
		{"ba\u00e9", NotInRepertoire, 2},
		{strings.Repeat("ba", 200), LabelTooLong, 256},
	}
	for _, tt := range tests {
		v := g.Judge(tt.label)
		if v.Valid != (tt.rule == "") || v.Rule != tt.rule || v.Pos != tt.pos {
			t.Errorf("Judge(%q) = %+v, want rule %q at %d", tt.label, v, tt.rule, tt.pos)
		}
	}
	for _, bad := range []string{
		``, `<lgr/>`, `<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"/>`,
		strings.Replace(tinyLGR, `by-ref="vowel"/></difference>`, `by-ref="nope"/></difference>`, 1),
		strings.Replace(tinyLGR, `not-match="has-vowel"`, `not-match="nope"`, 1),
		strings.Replace(tinyLGR, `count="3+"`, `count="3-"`, 1),
		strings.Replace(tinyLGR, `first-cp="0061"`, `first-cp="61"`, 1),
		strings.Replace(tinyLGR, `<class name="L" from-tag="L"/>`, `<class name="L" property="sc:Latn"/>`, 1),
		strings.Replace(tinyLGR, `<rule name="three-consonants">`, `<rule name="has-vowel">`, 1),
		strings.Replace(tinyLGR, `<var cp="007A" type="blocked"/>`, `<var cp="007A" type="blocked" when="nope"/>`, 1),
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse accepts %.80q...", bad)
		}
	}
}

// FuzzParse: any document either fails to parse or gives an LGR that
// judges labels without panicking, consistently.
func FuzzParse(f *testing.F) {
	f.Add([]byte(tinyLGR), "banana")
	hi, _ := File("hi")
	f.Add(hi, "हिन्दी")
	f.Add([]byte(`<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data><char cp="0061"/></data><rules><rule name="r"><rule count="0+"><rule count="0+"><any count="0:1"/></rule></rule><end/></rule><action disp="invalid" match="r"/></rules></lgr>`), "aaaa")
	f.Fuzz(func(t *testing.T, doc []byte, label string) {
		g, err := Parse(doc)
		if err != nil {
			return
		}
		v := g.Judge(label)
		if v.Valid != (v.Disposition != "invalid" && v.Disposition != "blocked") || (v.Valid && v.Rule != "") {
			t.Errorf("inconsistent verdict %+v", v)
		}
		if w := g.Judge(label); w != v {
			t.Errorf("Judge is not deterministic: %+v then %+v", v, w)
		}
		for _, vl := range g.Variants(label) {
			if vl.Label == label {
				t.Errorf("the label %q is its own variant", label)
			}
		}
	})
}

// FuzzEquivalence: on any NFC U-label, the Hindi, Punjabi and Bangla
// exports agree with Valid, except for the rules an LGR cannot state.
func FuzzEquivalence(f *testing.F) {
	for _, s := range []string{"हिन्दी", "ਪੰਜਾਬ", "বাংলা", "क्क्क", "ਕ੍ਕਾ", "অ্যাব", "a-1", "ক্ষ্ম্য"} {
		f.Add(s)
	}
	type pair struct {
		l *akshara.Language
		g *LGR
	}
	var ps []pair
	for _, tag := range []string{"hi", "pa", "bn"} {
		l, err := akshara.Lookup(tag)
		if err != nil {
			f.Fatal(err)
		}
		_, g := committed(f, l)
		ps = append(ps, pair{l, g})
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || (len(s) >= 4 && strings.EqualFold(s[:4], "xn--")) {
			return
		}
		u := norm.NFC.String(s)
		for _, p := range ps {
			want := p.l.Valid(u)
			if got := p.g.Judge(u); got.Valid != want && !(got.Valid && inexpressible(p.l.Check(u))) {
				t.Errorf("%s %q: Valid %v, LGR %+v", p.l.Tag, u, want, got)
			}
		}
	})
}

// TestICANNHindi reads ICANN's second-level reference LGR for Hindi (an
// LGR akshara did not write, with gc: property classes, context rules in
// choices, and ICANN's default actions) and judges labels by it.
func TestICANNHindi(t *testing.T) {
	data, err := os.ReadFile("testdata/lgr-second-level-hindi-language-31may22-en.xml")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Languages) != 1 || g.Languages[0] != "hi" || g.Unicode != "11.0.0" {
		t.Errorf("meta: languages %v, unicode %q", g.Languages, g.Unicode)
	}
	tests := []struct {
		label, rule string
		pos         int
	}{
		{"कमल", "", 0},
		{"क", "", 0},      // no minimum length in ICANN's LGR
		{"क-ख", "", 0},    // a hyphen inside
		{"ककक--ख", "", 0}, // only "--" in positions 3 and 4 is refused
		{"-कमल", "hyphen-minus-disallowed", 0},
		{"कमल-", "hyphen-minus-disallowed", 3},
		{"कम--ल", "hyphen-minus-disallowed", 3},
		{"ाकम", "follows-C-or-CN", 0}, // a leading matra fails its context rule first
		{"कि़", "follows-C1", 2},
		{"अंक", "", 0},
		{"कअंि", "follows-C-or-CN", 3},
		{"क्अ", "preceded-by-H", 2},
		{"kamal", NotInRepertoire, 0},
		{"कa", NotInRepertoire, 1},
	}
	for _, tt := range tests {
		v := g.Judge(tt.label)
		if v.Valid != (tt.rule == "") || v.Rule != tt.rule || v.Pos != tt.pos {
			t.Errorf("Judge(%q) = %+v, want rule %q at %d", tt.label, v, tt.rule, tt.pos)
		}
	}
}

// TestEmptyRule: a rule with no operators matches nothing (lgr-core treats
// an empty pattern so), in an action and as a context rule.
func TestEmptyRule(t *testing.T) {
	doc := `<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data><char cp="0061"/><char cp="0062" when="empty"/></data>
<rules><rule name="empty"/><action disp="invalid" match="empty"/></rules></lgr>`
	g, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Judge("aa"); !v.Valid {
		t.Errorf("aa: %+v", v)
	}
	if v := g.Judge("ab"); v.Valid || v.Rule != "empty" || v.Pos != 1 {
		t.Errorf("ab: %+v", v)
	}
}
