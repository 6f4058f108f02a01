package akshara

import (
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Detection is the verdict on a label under every language of its script.
type Detection struct {
	// Langs are the languages whose policy accepts the label, in the
	// zones file's language order (Hindi first among the Devanagari
	// languages; see LanguageRank).
	Langs []string
	// Result is the verdict in the first accepting language; for an
	// invalid label, in the most permissive language of its script (the
	// largest repertoire, then the largest k).
	Result *Result
}

// Valid reports whether some language accepts the label.
func (d *Detection) Valid() bool { return len(d.Langs) > 0 }

type scriptLangs struct {
	langs      []*Language // in the zones file's language order
	permissive *Language
	index      []int // each language's index in byScript.all.langs (a Mask bit)
	walkable   bool  // the languages share one block: validMask may decode once

	productOnce sync.Once
	product     *product // the languages' product automaton (productdfa.go)
}

var byScript struct {
	once    sync.Once
	scripts map[string]*scriptLangs
	all     *scriptLangs
	index   map[*Language]int // place in all.langs
	err     error
	// byRune[r-0x0900] is the script with a policy of the code points
	// 0900-0DFF, nil if none, so that candidates does not search the
	// script tables.
	byRune [0x0E00 - 0x0900]*scriptLangs
}

func loadScripts() {
	langs, err := Languages()
	if err != nil {
		byScript.err = err
		return
	}
	byScript.scripts = map[string]*scriptLangs{}
	byScript.all = &scriptLangs{}
	add := func(sl *scriptLangs, l *Language) {
		sl.langs = append(sl.langs, l)
		if p := sl.permissive; p == nil || len(l.class) > len(p.class) || (len(l.class) == len(p.class) && l.K > p.K) {
			sl.permissive = l
		}
	}
	for _, l := range langs {
		sl := byScript.scripts[l.Script]
		if sl == nil {
			sl = &scriptLangs{}
			byScript.scripts[l.Script] = sl
		}
		add(sl, l)
		add(byScript.all, l)
	}
	byRank := func(ls []*Language) {
		sort.SliceStable(ls, func(i, j int) bool { return LanguageRank(ls[i].Tag) < LanguageRank(ls[j].Tag) })
	}
	for _, sl := range byScript.scripts {
		byRank(sl.langs)
	}
	byRank(byScript.all.langs)
	byScript.index = map[*Language]int{}
	for i, l := range byScript.all.langs {
		byScript.index[l] = i
	}
	for _, sl := range append([]*scriptLangs{byScript.all}, mapValues(byScript.scripts)...) {
		sl.walkable = len(sl.langs) <= 64
		for _, l := range sl.langs {
			sl.index = append(sl.index, byScript.index[l])
			// Right-to-left languages have the Bidi rule besides: they
			// take Valid's path
			sl.walkable = sl.walkable && l.block == sl.langs[0].block && !l.RTL
		}
	}
	for i := range byScript.byRune {
		r := 0x0900 + rune(i)
		for code, si := range scripts {
			if unicode.Is(si.table, r) {
				byScript.byRune[i] = byScript.scripts[code]
			}
		}
	}
}

func mapValues(m map[string]*scriptLangs) []*scriptLangs {
	var v []*scriptLangs
	for _, sl := range m {
		v = append(v, sl)
	}
	return v
}

// candidates returns the languages of the label's script: the script of its
// first letter or mark of a script with a policy (after decoding an
// A-label). A label without one (digits, Latin) is tried in every language.
func candidates(label string) (*scriptLangs, error) {
	byScript.once.Do(loadScripts)
	if byScript.err != nil {
		return nil, byScript.err
	}
	return candidatesLoaded(label), nil
}

// candidatesLoaded is candidates once the scripts are loaded.
func candidatesLoaded(label string) *scriptLangs {
	u := label
	if hasACEPrefix(label) {
		if dec, why := decodeALabel(label); why == "" {
			u = dec
		}
	}
	for _, r := range u {
		if r < utf8.RuneSelf {
			continue
		}
		if i := r - 0x0900; i >= 0 && int(i) < len(byScript.byRune) {
			if sl := byScript.byRune[i]; sl != nil {
				return sl
			}
			continue
		}
		for code, si := range scripts {
			if unicode.Is(si.table, r) {
				if sl := byScript.scripts[code]; sl != nil {
					return sl
				}
			}
		}
	}
	return byScript.all
}

// Detect checks the label in every language of its script (docs/policy.md §1):
// "-lang auto".
func Detect(label string) (*Detection, error) {
	sl, err := candidates(label)
	if err != nil {
		return nil, err
	}
	d := &Detection{Langs: []string{}}
	for _, l := range sl.langs {
		if l.Valid(label) {
			d.Langs = append(d.Langs, l.Tag)
			if d.Result == nil {
				d.Result = l.Check(label)
			}
		}
	}
	if d.Result == nil {
		d.Result = sl.permissive.Check(label)
	}
	return d, nil
}

// DetectValid is the verdict-only path of Detect: it appends to dst the
// languages that accept the label and returns the most permissive language
// of its script (for diagnosing an invalid label).
func DetectValid(dst []*Language, label string) ([]*Language, *Language, error) {
	sl, err := candidates(label)
	if err != nil {
		return dst, nil, err
	}
	for _, l := range sl.langs {
		if l.Valid(label) {
			dst = append(dst, l)
		}
	}
	return dst, sl.permissive, nil
}
