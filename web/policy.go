package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/akshara-idn/akshara"
)

// The policy pages: /policy lists the languages, /policy/{tag} shows one
// language's policy as its file states it (akshara.Language.Policy), so the
// page is the data the engine runs on and cannot drift from it (v1.8 §4.8:
// the policy is public and open to review).

//go:embed templates
var templates embed.FS

var policyTmpl = template.Must(template.New("").Funcs(template.FuncMap{
	"cp":        cpString,
	"glyph":     glyph,
	"className": className,
	"classOf":   func(c akshara.Class) string { return c.String() },
	"rule":      ruleWords,
	"ruleCode":  func(c akshara.Code) string { return c.String() },
	"summary":   func(c akshara.Code) string { return c.Summary() },
	"kPlus1":    func(k int) int { return k + 1 },
	"variant":   variantRow,
	"wants":     wants,
	"count":     countChars,
	"lgr":       lgrPath,
	"check":     checkLink,
}).ParseFS(templates, "templates/*.html"))

// classTitles name the classes of the grammar (docs/policy.md §3).
var classTitles = map[string]string{
	"C": "Consonants", "V": "Independent vowels", "M": "Vowel signs (matras)",
	"D": "Anusvara, bindi and tippi", "B": "Chandrabindu", "X": "Visarga",
	"H": "Halant (virama)", "N": "Nukta", "Y": "Avagraha", "A": "Addak",
	"L": "Chillu letters", "Z": "Khanda ta", "S": "Modifier letter apostrophe",
}

// itemWords say in words the items of a context rule (languages/README.md).
var itemWords = map[string]string{
	"C": "a consonant", "V": "an independent vowel", "M": "a vowel sign", "D": "an anusvara, bindi or tippi",
	"B": "a chandrabindu", "X": "a visarga", "H": "a halant", "N": "a nukta", "Y": "an avagraha",
	"A": "an addak", "L": "a chillu", "Z": "a khanda ta", "S": "a modifier letter apostrophe",
	"^": "the start of the name", "-": "a hyphen", "digit": "a digit",
}

// classByName maps a class letter of the rules to its class.
var classByName = map[string]akshara.Class{
	"C": akshara.C, "V": akshara.V, "M": akshara.M, "D": akshara.D, "B": akshara.B, "X": akshara.X,
	"H": akshara.H, "N": akshara.N, "Y": akshara.Y, "A": akshara.A, "L": akshara.L, "Z": akshara.Z, "S": akshara.S,
}

func cpString(c akshara.PolicyChar) string {
	if c.Hi > c.Lo {
		return fmt.Sprintf("U+%04X..U+%04X", c.Lo, c.Hi)
	}
	return fmt.Sprintf("U+%04X", c.Lo)
}

// glyph shows a code point; a combining mark stands on a dotted circle, as
// in the policy's tables.
func glyph(r rune) string {
	if isMark(r) {
		return "◌" + string(r)
	}
	return string(r)
}

// isMark: Unicode general category M (the language files write marks on
// U+25CC too).
func isMark(r rune) bool { return unicode.In(r, unicode.M) }

// className titles a class: the language's own word for it where its file
// gives one ("class-word L a lonsum (final) letter"), else the grammar's.
func className(p *akshara.Policy, c akshara.Class) string {
	if w, ok := p.ClassWords[c]; ok && w != "" {
		for _, a := range []string{"a ", "an "} {
			w = strings.TrimPrefix(w, a)
		}
		return strings.ToUpper(w[:1]) + w[1:]
	}
	return classTitles[c.String()]
}

// phrase says a sequence of rule items in words: "क", "a consonant then ्".
func phrase(p *akshara.Policy, items string) string {
	var out []string
	for _, it := range strings.Fields(items) {
		if c, ok := classByName[it]; ok && p != nil && p.ClassWords[c] != "" {
			out = append(out, p.ClassWords[c])
			continue
		}
		if w, ok := itemWords[it]; ok {
			out = append(out, w)
			continue
		}
		if r, n := utf8.DecodeRuneInString(it); n == len(it) {
			it = glyph(r) // a lone mark stands on a dotted circle
		}
		out = append(out, it)
	}
	return strings.Join(out, " then ")
}

// ruleWords says a context rule of a language in plain words.
func ruleWords(p *akshara.Policy, r akshara.PolicyRule) string {
	var ctx []string
	for _, c := range r.Contexts {
		ctx = append(ctx, phrase(p, c))
	}
	list := strings.Join(ctx, "; or ")
	t := phrase(p, r.Trigger)
	switch r.Kind {
	case "only-in":
		return t + " may appear only as part of: " + list + "."
	case "not-after":
		return t + " may not follow: " + list + "."
	case "only-after":
		return t + " may follow only: " + list + "."
	}
	return r.Text
}

func variantRow(row []string) string { return strings.Join(row, " = ") }

func wants(ws []akshara.WantError) string {
	var out []string
	for _, w := range ws {
		s := w.Code.String()
		if w.Pos >= 0 {
			s += fmt.Sprintf(" at %d", w.Pos)
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func countChars(cs []akshara.PolicyClass) int {
	n := 0
	for _, c := range cs {
		for _, ch := range c.Chars {
			n += int(ch.Hi-ch.Lo) + 1
		}
	}
	return n
}

// LGRPath is where a language's RFC 7940 export is served (issue 14).
const LGRPath = "/lgr/%s.xml"

func lgrPath(tag string) string { return fmt.Sprintf(LGRPath, tag) }

// checkLink is the page's deep link that checks an example.
func checkLink(tag, text string) string {
	return "/?" + url.Values{"name": {text}, "lang": {tag}}.Encode()
}

type policyIndex struct {
	Languages []*akshara.Policy
	Counts    map[string]int
}

func languages() ([]*akshara.Language, error) {
	ls, err := akshara.Languages()
	if err != nil {
		return nil, err
	}
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Name < ls[j].Name })
	return ls, nil
}

func render(w http.ResponseWriter, name string, data any) {
	var buf bytes.Buffer
	if err := policyTmpl.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "the page could not be made: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", csp)
	w.Write(buf.Bytes())
}

func policyList(w http.ResponseWriter, r *http.Request) {
	ls, err := languages()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	idx := policyIndex{Counts: map[string]int{}}
	for _, l := range ls {
		p := l.Policy()
		idx.Languages = append(idx.Languages, p)
		idx.Counts[p.Tag] = countChars(p.Classes)
	}
	render(w, "policy-index.html", idx)
}

func policyPage(w http.ResponseWriter, r *http.Request) {
	l, err := akshara.Lookup(r.PathValue("tag"))
	if err != nil {
		w.WriteHeader(http.StatusNotFound)
		ls, _ := languages()
		render(w, "policy-missing.html", struct {
			Tag       string
			Languages []*akshara.Language
		}{r.PathValue("tag"), ls})
		return
	}
	if l.Tag != r.PathValue("tag") { // /policy/HI → /policy/hi
		http.Redirect(w, r, "/policy/"+l.Tag, http.StatusMovedPermanently)
		return
	}
	render(w, "policy.html", l.Policy())
}
