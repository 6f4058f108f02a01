package web

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/akshara-idn/akshara"
)

func get(t *testing.T, h http.Handler, path string) (int, string, http.Header) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b), rec.Result().Header
}

// rows returns the text of each cell of each row of the tables of class
// "chars" inside sections with the class sectionClass.
func rows(t *testing.T, page, sectionClass string) [][]string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	var text func(n *html.Node) string
	text = func(n *html.Node) string {
		if n.Type == html.TextNode {
			return n.Data
		}
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			b.WriteString(text(c))
		}
		return b.String()
	}
	has := func(n *html.Node, key, val string) bool {
		for _, a := range n.Attr {
			if a.Key == key && strings.Contains(" "+a.Val+" ", " "+val+" ") {
				return true
			}
		}
		return false
	}
	var walk func(n *html.Node, in bool)
	walk = func(n *html.Node, in bool) {
		if n.Type == html.ElementNode && n.Data == "section" && has(n, "class", sectionClass) {
			in = true
		}
		if in && n.Type == html.ElementNode && n.Data == "tr" && n.Parent != nil && n.Parent.Data == "tbody" {
			var cells []string
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode {
					cells = append(cells, strings.TrimSpace(text(c)))
				}
			}
			out = append(out, cells)
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, in)
		}
	}
	walk(doc, false)
	return out
}

// TestPolicyPages: every language's page shows its whole table (glyph,
// code point, name, in the file's order), its refusals, rules, variants,
// examples, ccTLD and source, and the index lists every language.
func TestPolicyPages(t *testing.T) {
	h := Handler()
	ls, err := akshara.Languages()
	if err != nil {
		t.Fatal(err)
	}
	code, index, _ := get(t, h, "/policy")
	if code != 200 {
		t.Fatalf("/policy: %d", code)
	}
	for _, l := range ls {
		t.Run(l.Tag, func(t *testing.T) {
			if !strings.Contains(index, `href="/policy/`+l.Tag+`"`) {
				t.Errorf("/policy does not link %s", l.Tag)
			}
			code, page, hdr := get(t, h, "/policy/"+l.Tag)
			if code != 200 {
				t.Fatalf("status %d", code)
			}
			if hdr.Get("Content-Security-Policy") == "" {
				t.Error("no Content-Security-Policy")
			}
			p := l.Policy()
			// the table: one row per code point of the repertoire, in order
			var want [][]string
			for _, c := range p.Classes {
				for _, ch := range c.Chars {
					want = append(want, []string{glyph(ch.Lo), fmt.Sprintf("U+%04X", ch.Lo), ch.Name})
				}
			}
			got := rows(t, page, "class")
			if len(got) != len(l.Repertoire()) || len(got) != len(want) {
				t.Fatalf("%d rows in the table, the language has %d code points", len(got), len(l.Repertoire()))
			}
			for i := range want {
				if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
					t.Errorf("row %d: %q, want %q", i, got[i], want[i])
				}
			}
			// the repertoire per class agrees with the compiled language
			for _, m := range l.Repertoire() {
				if !strings.Contains(page, fmt.Sprintf(`data-class="%s"`, m.Class)) {
					t.Errorf("no section for class %s", m.Class)
				}
			}
			refused := rows(t, page, "refused")
			n := 0
			for _, r := range p.Refused {
				n += len(r.Chars)
				if !strings.Contains(page, `data-code="`+r.Code.String()+`"`) {
					t.Errorf("refusal %s not shown", r.Code)
				}
			}
			if len(refused) != n {
				t.Errorf("%d refused rows, want %d", len(refused), n)
			}
			text := html.UnescapeString(page)
			for _, r := range p.Rules {
				if !strings.Contains(text, r.Text) {
					t.Errorf("rule %q not shown", r.Text)
				}
			}
			for _, row := range p.Variants {
				if !strings.Contains(text, strings.Join(row, " = ")) {
					t.Errorf("variant row %q not shown", row)
				}
			}
			for _, e := range p.Examples {
				if !strings.Contains(text, ">"+e.Text+"</a>") {
					t.Errorf("example %q not shown", e.Text)
				}
			}
			for _, s := range []string{p.Source, p.CcTLD, `href="/lgr/` + l.Tag + `.xml"`} {
				if !strings.Contains(text, s) {
					t.Errorf("%q not shown", s)
				}
			}
		})
	}
	t.Run("unknown language", func(t *testing.T) {
		code, page, _ := get(t, h, "/policy/xx")
		if code != 404 || !strings.Contains(page, `href="/policy/hi"`) {
			t.Errorf("status %d; the page should list the languages", code)
		}
	})
	t.Run("tag case", func(t *testing.T) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/policy/SD-deva", nil))
		if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/policy/sd-Deva" {
			t.Errorf("%d %q", rec.Code, rec.Header().Get("Location"))
		}
	})
}

func TestRuleWords(t *testing.T) {
	for _, tc := range []struct {
		rule akshara.PolicyRule
		want string
	}{
		{akshara.PolicyRule{Kind: "only-in", Trigger: "ऱ", Contexts: []string{"ऱ्य", "ऱ्ह"}},
			"ऱ may appear only as part of: ऱ्य; or ऱ्ह."},
		{akshara.PolicyRule{Kind: "only-in", Trigger: "H", Contexts: []string{"H ਯ", "H ਰ"}},
			"a halant may appear only as part of: a halant then ਯ; or a halant then ਰ."},
		{akshara.PolicyRule{Kind: "not-after", Trigger: "ੱ", Contexts: []string{"^", "-", "digit", "H"}},
			"◌ੱ may not follow: the start of the name; or a hyphen; or a digit; or a halant."},
		{akshara.PolicyRule{Kind: "only-after", Trigger: "ੰ", Contexts: []string{"C", "C N"}},
			"◌ੰ may follow only: a consonant; or a consonant then a nukta."},
		{akshara.PolicyRule{Kind: "other", Text: "x : y"}, "x : y"},
	} {
		if got := ruleWords(&akshara.Policy{}, tc.rule); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.rule, got, tc.want)
		}
	}
	// a language's own word for a class (Meetei Mayek's lonsum letters)
	p := &akshara.Policy{ClassWords: map[akshara.Class]string{akshara.L: "a lonsum (final) letter"}}
	for _, tc := range []struct {
		rule akshara.PolicyRule
		want string
	}{
		{akshara.PolicyRule{Kind: "not-after", Trigger: "L", Contexts: []string{"^"}}, "a lonsum (final) letter may not follow: the start of the name."},
	} {
		if got := ruleWords(p, tc.rule); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.rule, got, tc.want)
		}
	}
	if got := className(p, akshara.L); got != "Lonsum (final) letter" {
		t.Errorf("class title %q", got)
	}
	if got := className(p, akshara.C); got != "Consonants" {
		t.Errorf("class title %q", got)
	}
}

// BenchmarkPolicyPage renders /policy/hi, the largest part of which is the
// template over the language's Policy.
func BenchmarkPolicyPage(b *testing.B) {
	h := Handler()
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/policy/hi", nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}

func BenchmarkKeyboardBuild(b *testing.B) {
	data, _ := layoutFiles.ReadFile("keyboards/inscript.kbd")
	l, _ := akshara.Lookup("hi")
	b.ReportAllocs()
	for b.Loop() {
		lay, err := parseLayout("inscript.kbd", data)
		if err != nil {
			b.Fatal(err)
		}
		buildKeyboard(l, []*layout{lay})
	}
}
