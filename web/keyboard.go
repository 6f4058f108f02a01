package web

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/akshara-idn/akshara"
)

// The on-screen keyboards: a layout file (keyboards/*.kbd, format in
// keyboards/inscript.kbd) places code points on keys by their offset in a
// script's block; a language's keyboard keeps only the keys whose text its
// table accepts and puts the rest of its table on an extra row. A new
// script needs only a layout file.

//go:embed keyboards/*.kbd
var layoutFiles embed.FS

// layout is a parsed layout file.
type layout struct {
	Name    string
	Scripts map[string]rune // script code → start of its block
	Rows    [][]layoutKey
}

type layoutKey struct {
	Key           string
	Normal, Shift []value
}

// value is one code point: an offset into the script's block, or fixed.
type value struct {
	r      rune
	offset bool
}

func parseLayout(name string, data []byte) (*layout, error) {
	lay := &layout{Scripts: map[string]rune{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		line++
		text := sc.Text()
		indented := strings.HasPrefix(text, " ") || strings.HasPrefix(text, "\t")
		f := strings.Fields(text)
		if len(f) == 0 || (!indented && strings.HasPrefix(f[0], "#")) {
			continue
		}
		if indented {
			if len(lay.Rows) == 0 {
				return nil, fail("a key outside a row")
			}
			if len(f) != 3 {
				return nil, fail("a key line is KEY NORMAL SHIFT, got %q", text)
			}
			normal, err := parseValues(f[1])
			if err != nil {
				return nil, fail("%v", err)
			}
			shift, err := parseValues(f[2])
			if err != nil {
				return nil, fail("%v", err)
			}
			row := &lay.Rows[len(lay.Rows)-1]
			*row = append(*row, layoutKey{Key: f[0], Normal: normal, Shift: shift})
			continue
		}
		switch f[0] {
		case "layout":
			if len(f) != 2 {
				return nil, fail("layout NAME")
			}
			lay.Name = f[1]
		case "script":
			if len(f) != 3 {
				return nil, fail("script CODE U+BASE")
			}
			vs, err := parseValues(f[2])
			if err != nil || len(vs) != 1 || vs[0].offset {
				return nil, fail("script %s: bad block start %q", f[1], f[2])
			}
			lay.Scripts[f[1]] = vs[0].r
		case "row":
			lay.Rows = append(lay.Rows, nil)
		default:
			return nil, fail("unknown directive %q", f[0])
		}
	}
	if lay.Name == "" || len(lay.Scripts) == 0 || len(lay.Rows) == 0 {
		return nil, fmt.Errorf("%s: a layout needs a name, scripts and rows", name)
	}
	return lay, sc.Err()
}

// parseValues reads "-", "+15", "U+0031" or a run of them ("+15+4D+37").
func parseValues(s string) ([]value, error) {
	if s == "-" {
		return nil, nil
	}
	var vs []value
	for s != "" {
		var v value
		switch {
		case strings.HasPrefix(s, "U+"):
			s = s[2:]
		case strings.HasPrefix(s, "+"):
			v.offset = true
			s = s[1:]
		default:
			return nil, fmt.Errorf("bad value %q: want +XX, U+XXXX or -", s)
		}
		n := strings.IndexAny(s, "+U")
		if n < 0 {
			n = len(s)
		}
		x, err := strconv.ParseUint(s[:n], 16, 32)
		if err != nil || n == 0 || (v.offset && x > 0x7F) || x > 0x10FFFF {
			return nil, fmt.Errorf("bad code point %q", s[:n])
		}
		v.r = rune(x)
		vs = append(vs, v)
		s = s[n:]
	}
	return vs, nil
}

// Keyboard is one language's on-screen keyboard, as the page gets it.
type Keyboard struct {
	Tag    string  `json:"tag"`
	Name   string  `json:"name"`
	Native string  `json:"native"`
	Layout string  `json:"layout"` // "" when no layout serves the script
	Rows   [][]Key `json:"rows"`
	More   []Cap   `json:"more"` // the table's code points no key reaches
}

// Key is a key of the layout; a side the language cannot use is nil.
type Key struct {
	Key    string `json:"key"` // the key on a US keyboard
	Normal *Cap   `json:"normal"`
	Shift  *Cap   `json:"shift"`
}

// Cap is what a key types: Text, shown as Show (a mark on a dotted
// circle), named for screen readers by Label (the Unicode names).
type Cap struct {
	Text  string `json:"text"`
	Show  string `json:"show"`
	Label string `json:"label"`
}

// asciiNames name the ASCII keys for screen readers. A digit's name ends
// with the digit, so that the name contains what the key shows (WCAG 2.5.3
// "label in name": a speech-input user says what they see).
var asciiNames = map[rune]string{'-': "HYPHEN-MINUS", '0': "DIGIT ZERO 0", '1': "DIGIT ONE 1", '2': "DIGIT TWO 2",
	'3': "DIGIT THREE 3", '4': "DIGIT FOUR 4", '5': "DIGIT FIVE 5", '6': "DIGIT SIX 6", '7': "DIGIT SEVEN 7",
	'8': "DIGIT EIGHT 8", '9': "DIGIT NINE 9"}

// buildKeyboard makes a language's keyboard from the first layout that
// serves its script.
func buildKeyboard(l *akshara.Language, layouts []*layout) *Keyboard {
	names := map[rune]string{}
	for r, n := range asciiNames {
		names[r] = n
	}
	var order []rune
	for _, c := range l.Policy().Classes {
		for _, ch := range c.Chars {
			for r := ch.Lo; r <= ch.Hi; r++ {
				names[r] = ch.Name
				if ch.Hi > ch.Lo {
					names[r] = fmt.Sprintf("U+%04X", r)
				}
				order = append(order, r)
			}
		}
	}
	kb := &Keyboard{Tag: l.Tag, Name: l.Name, Native: l.Native, Rows: [][]Key{}, More: []Cap{}}
	placed := map[rune]bool{}
	capOf := func(vs []value, base rune) *Cap {
		if len(vs) == 0 {
			return nil
		}
		var text, show strings.Builder
		var label []string
		for i, v := range vs {
			r := v.r
			if v.offset {
				r += base
			}
			n, ok := names[r]
			if !ok {
				return nil // not in the language's table
			}
			text.WriteRune(r)
			if i == 0 && isMark(r) {
				show.WriteRune('◌')
			}
			show.WriteRune(r)
			label = append(label, n)
		}
		c := &Cap{Text: text.String(), Show: show.String(), Label: strings.Join(label, ", ")}
		if len(vs) == 1 {
			for _, r := range c.Text {
				placed[r] = true
			}
		}
		return c
	}
	for _, lay := range layouts {
		base, ok := lay.Scripts[l.Script]
		if !ok {
			continue
		}
		kb.Layout = lay.Name
		for _, row := range lay.Rows {
			var keys []Key
			for _, k := range row {
				keys = append(keys, Key{Key: k.Key, Normal: capOf(k.Normal, base), Shift: capOf(k.Shift, base)})
			}
			kb.Rows = append(kb.Rows, keys)
		}
		break
	}
	for _, r := range order {
		if !placed[r] {
			kb.More = append(kb.More, *capOf([]value{{r: r}}, 0))
		}
	}
	return kb
}

var keyboards struct {
	once  sync.Once
	json  map[string][]byte // tag → the keyboard as JSON
	langs []byte            // languages.json: every language's tag, names and script
	err   error
}

func loadKeyboards() {
	var layouts []*layout
	files, _ := layoutFiles.ReadDir("keyboards")
	for _, f := range files {
		data, _ := layoutFiles.ReadFile("keyboards/" + f.Name())
		lay, err := parseLayout(f.Name(), data)
		if err != nil {
			keyboards.err = err
			return
		}
		layouts = append(layouts, lay)
	}
	ls, err := akshara.Languages()
	if err != nil {
		keyboards.err = err
		return
	}
	type lang struct {
		Tag    string `json:"tag"`
		Name   string `json:"name"`
		Native string `json:"native"`
		Script string `json:"script"`
		CcTLD  string `json:"cctld"`
	}
	var list []lang
	keyboards.json = map[string][]byte{}
	for _, l := range ls {
		list = append(list, lang{l.Tag, l.Name, l.Native, l.Script, l.CcTLD})
		b, err := json.Marshal(buildKeyboard(l, layouts))
		if err != nil {
			keyboards.err = err
			return
		}
		keyboards.json[l.Tag] = b
	}
	keyboards.langs, keyboards.err = json.Marshal(list)
}

// keyboardJSON: GET /keyboard/{tag}.json, and GET /keyboard/languages.json
// (the languages' names for the page's menus).
func keyboardJSON(w http.ResponseWriter, r *http.Request) {
	keyboards.once.Do(loadKeyboards)
	if keyboards.err != nil {
		http.Error(w, keyboards.err.Error(), http.StatusInternalServerError)
		return
	}
	tag, ok := strings.CutSuffix(r.PathValue("file"), ".json")
	b, found := keyboards.json[tag]
	if tag == "languages" {
		b, found = keyboards.langs, true
	}
	if !ok || !found {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "max-age=3600")
	w.Write(b)
}
