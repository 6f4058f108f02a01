package web

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/akshara-idn/akshara"
)

func allKeyboards(t *testing.T) map[string]*Keyboard {
	t.Helper()
	h := Handler()
	ls, err := akshara.Languages()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Keyboard{}
	for _, l := range ls {
		code, body, hdr := get(t, h, "/keyboard/"+l.Tag+".json")
		if code != 200 || hdr.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %s", l.Tag, code, hdr.Get("Content-Type"))
		}
		var kb Keyboard
		if err := json.Unmarshal([]byte(body), &kb); err != nil {
			t.Fatal(err)
		}
		out[l.Tag] = &kb
	}
	return out
}

// TestKeyboardsTypeOnlyTheTable: every key of every language's keyboard
// types only what its table accepts (and ASCII digits and the hyphen), each
// named by its Unicode name; every code point of the table is on exactly
// one single-character key, so every name can be typed.
func TestKeyboardsTypeOnlyTheTable(t *testing.T) {
	for tag, kb := range allKeyboards(t) {
		t.Run(tag, func(t *testing.T) {
			l, _ := akshara.Lookup(tag)
			names := map[rune]string{}
			for _, c := range l.Policy().Classes {
				for _, ch := range c.Chars {
					names[ch.Lo] = ch.Name
				}
			}
			for r, n := range asciiNames {
				names[r] = n
			}
			seen := map[rune]int{}
			check := func(c *Cap) {
				if c == nil {
					return
				}
				var labels []string
				for _, r := range c.Text {
					n, ok := names[r]
					if !ok {
						t.Errorf("key %q types U+%04X, which is not in the table", c.Show, r)
					}
					labels = append(labels, n)
				}
				if c.Label != strings.Join(labels, ", ") {
					t.Errorf("key %q is labelled %q, want its Unicode names %q", c.Show, c.Label, strings.Join(labels, ", "))
				}
				if utf8.RuneCountInString(c.Text) == 1 {
					r, _ := utf8.DecodeRuneInString(c.Text)
					seen[r]++
				}
			}
			for _, row := range kb.Rows {
				for _, k := range row {
					check(k.Normal)
					check(k.Shift)
				}
			}
			for i := range kb.More {
				check(&kb.More[i])
			}
			for _, m := range l.Repertoire() {
				if seen[m.Rune] != 1 {
					t.Errorf("U+%04X %s is on %d keys, want 1", m.Rune, names[m.Rune], seen[m.Rune])
				}
			}
			// InScript serves the nine Brahmi scripts of its file; another
			// script (Arabic, Ol Chiki, Meetei Mayek) has every letter on the
			// extra row until it has a layout file
			data, _ := layoutFiles.ReadFile("keyboards/inscript.kbd")
			lay, err := parseLayout("inscript.kbd", data)
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if _, ok := lay.Scripts[l.Script]; ok {
				want = "InScript"
			}
			if kb.Layout != want {
				t.Errorf("layout %q, want %q", kb.Layout, want)
			}
			if want == "" && len(kb.More) != len(l.Repertoire()) {
				t.Errorf("%d letters on the extra row, the table has %d", len(kb.More), len(l.Repertoire()))
			}
		})
	}
}

// TestInScriptKeys checks well-known keys of InScript in each script: k is
// KA, j is RA, d is the virama, e the vowel sign AA, shift-d the letter A.
func TestInScriptKeys(t *testing.T) {
	kbs := allKeyboards(t)
	find := func(kb *Keyboard, key string, shift bool) string {
		for _, row := range kb.Rows {
			for _, k := range row {
				if k.Key == key {
					c := k.Normal
					if shift {
						c = k.Shift
					}
					if c == nil {
						return ""
					}
					return c.Text
				}
			}
		}
		return "?"
	}
	for _, tc := range []struct {
		tag, k, j, d, e, shiftD string
	}{
		{"hi", "क", "र", "्", "ा", "अ"},
		{"bn", "ক", "র", "্", "া", "অ"},
		{"pa", "ਕ", "ਰ", "੍", "ਾ", "ਅ"},
		{"gu", "ક", "ર", "્", "ા", "અ"},
		{"or", "କ", "ର", "୍", "ା", "ଅ"},
		{"ta", "க", "ர", "்", "ா", "அ"},
		{"te", "క", "ర", "్", "ా", "అ"},
		{"kn", "ಕ", "ರ", "್", "ಾ", "ಅ"},
		{"ml", "ക", "ര", "്", "ാ", "അ"},
	} {
		kb := kbs[tc.tag]
		if kb == nil {
			t.Errorf("no keyboard for %s", tc.tag)
			continue
		}
		for _, c := range []struct {
			key   string
			shift bool
			want  string
		}{{"k", false, tc.k}, {"j", false, tc.j}, {"d", false, tc.d}, {"e", false, tc.e}, {"d", true, tc.shiftD}, {"1", false, "1"}, {"-", false, "-"}} {
			if got := find(kb, c.key, c.shift); got != c.want {
				t.Errorf("%s: key %s (shift %v) types %q, want %q", tc.tag, c.key, c.shift, got, c.want)
			}
		}
	}
	// Hindi has no ऴ (shift-b): the key is empty, not a letter the table refuses.
	if got := find(kbs["hi"], "b", true); got != "" {
		t.Errorf("hi shift-b types %q", got)
	}
}

func TestParseLayout(t *testing.T) {
	for _, tc := range []struct{ name, text, err string }{
		{"ok", "layout X\nscript Deva U+0900\nrow\n  k +15 +16\n", ""},
		{"key outside row", "layout X\nscript Deva U+0900\n  k +15 +16\n", "outside a row"},
		{"bad value", "layout X\nscript Deva U+0900\nrow\n  k 15 +16\n", "bad value"},
		{"offset too big", "layout X\nscript Deva U+0900\nrow\n  k +80 -\n", "bad code point"},
		{"two fields", "layout X\nscript Deva U+0900\nrow\n  k +15\n", "KEY NORMAL SHIFT"},
		{"no rows", "layout X\nscript Deva U+0900\n", "needs"},
		{"unknown", "layout X\nkeys\n", "unknown directive"},
		{"bad base", "layout X\nscript Deva +10\nrow\n  k +15 -\n", "bad block start"},
	} {
		_, err := parseLayout(tc.name, []byte(tc.text))
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
	vs, err := parseValues("+15+4D+37")
	if err != nil || len(vs) != 3 || vs[1].r != 0x4D || !vs[2].offset {
		t.Errorf("sequence: %v %v", vs, err)
	}
}

func FuzzLayout(f *testing.F) {
	data, _ := layoutFiles.ReadFile("keyboards/inscript.kbd")
	f.Add(data)
	f.Add([]byte("layout X\nscript Deva U+0900\nrow\n  k +15+4D U+0031\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lay, err := parseLayout("fuzz", b)
		if err != nil {
			return
		}
		l, _ := akshara.Lookup("hi")
		buildKeyboard(l, []*layout{lay})
	})
}

// TestKeyboardWithoutLayout: a script no layout serves (a new language
// before its layout file) still gets every letter of its table, on the
// extra row.
func TestKeyboardWithoutLayout(t *testing.T) {
	l, err := akshara.Lookup("ta")
	if err != nil {
		t.Fatal(err)
	}
	lay, err := parseLayout("other", []byte("layout Other\nscript Arab U+0600\nrow\n  k +43 -\n"))
	if err != nil {
		t.Fatal(err)
	}
	kb := buildKeyboard(l, []*layout{lay})
	if kb.Layout != "" || len(kb.Rows) != 0 {
		t.Errorf("layout %q, %d rows", kb.Layout, len(kb.Rows))
	}
	if len(kb.More) != len(l.Repertoire()) {
		t.Errorf("%d letters on the extra row, the table has %d", len(kb.More), len(l.Repertoire()))
	}
}

func TestKeyboardNotFound(t *testing.T) {
	h := Handler()
	for _, path := range []string{"/keyboard/xx.json", "/keyboard/hi", "/keyboard/hi.xml", "/keyboard/.json"} {
		if code, _, _ := get(t, h, path); code != 404 {
			t.Errorf("%s: %d, want 404", path, code)
		}
	}
	code, body, _ := get(t, h, "/keyboard/languages.json")
	if code != 200 || !strings.Contains(body, `"tag":"sd-Deva"`) || !strings.Contains(body, `"cctld":"भारत"`) {
		t.Errorf("languages.json: %d %.200s", code, body)
	}
}
