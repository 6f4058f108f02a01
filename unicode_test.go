package akshara

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/unicode/runenames"
)

// readIDNA2008 parses the vendored RFC 5892 derived property file directly,
// independently of the generated table: the property of every code point,
// indexed by code point (a slice: a map of 1.1 million entries took seconds).
func readIDNA2008(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/idna2008/Idna2008-15.0.0.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	props := make([]string, 0x110000)
	covered := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		cps, prop, ok := strings.Cut(line, ";")
		if !ok {
			continue
		}
		lo, hi, isRange := strings.Cut(strings.TrimSpace(cps), "..")
		if !isRange {
			hi = lo
		}
		l, _ := strconv.ParseUint(lo, 16, 32)
		h, _ := strconv.ParseUint(hi, 16, 32)
		p := strings.TrimSpace(prop)
		for r := l; r <= h && r < 0x110000; r++ {
			if props[r] == "" {
				covered++
			}
			props[r] = p
		}
	}
	if covered != 0x110000 {
		t.Fatalf("the file covers %d code points, want 0x110000", covered)
	}
	return props
}

// TestRepertoirePVALID proves that every repertoire code point of every
// language is PVALID in IDNA2008 (docs/policy.md §1).
func TestRepertoirePVALID(t *testing.T) {
	props := readIDNA2008(t)
	langs, err := Languages()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range langs {
		rep := l.Repertoire()
		least := 40 // an Indic abugida
		if l.Alphabet {
			least = 30 // Ol Chiki has 30 letters and 6 modifiers
		}
		if len(rep) < least {
			t.Errorf("%s: only %d code points", l.Tag, len(rep))
		}
		for _, m := range rep {
			if p := props[m.Rune]; p != "PVALID" {
				t.Errorf("%s: U+%04X (%s) is %s", l.Tag, m.Rune, runenames.Name(m.Rune), p)
			}
		}
	}
}

// TestIDNA2008Table checks the generated table against the file it was
// generated from (run go generate after changing the file).
func TestIDNA2008Table(t *testing.T) {
	props := readIDNA2008(t)
	for r := rune(0); r <= 0x10FFFF; r++ {
		if got := IDNA2008(r).String(); got != props[r] {
			t.Fatalf("U+%04X: table %s, file %s", r, got, props[r])
		}
	}
	for _, tt := range []struct {
		r    rune
		want IDNAProperty
	}{{0x0964, Disallowed}, {0x0958, Disallowed}, {0x094D, PVALID}, {0x200C, ContextJ}, {0x00B7, ContextO}, {0x02BC, PVALID}, {-1, Disallowed}, {0x110000, Disallowed}} {
		if got := IDNA2008(tt.r); got != tt.want {
			t.Errorf("U+%04X: %v, want %v", tt.r, got, tt.want)
		}
	}
}

// TestLanguageFileNames checks that each character name written in a
// language file is the Unicode name of its code point.
func TestLanguageFileNames(t *testing.T) {
	langs, err := Languages()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range langs {
		check := func(m member) {
			want := runenames.Name(m.lo)
			if m.hi != m.lo {
				want += ".." + runenames.Name(m.hi)
			}
			if m.name != want {
				t.Errorf("%s line %d: U+%04X is named %q, the Unicode name is %q", l.Tag, m.line, m.lo, m.name, want)
			}
		}
		for _, cs := range l.spec.classes {
			for _, m := range cs.members {
				check(m)
			}
		}
		for _, m := range l.spec.nuktaAfter {
			check(m)
		}
		for _, rs := range l.spec.refuse {
			for _, m := range rs.members {
				check(m)
			}
		}
	}
}

// TestCodeNames pins the stable rule codes: renaming one breaks clients.
func TestCodeNames(t *testing.T) {
	want := "EMPTY INVALID_UTF8 BAD_ALABEL TOO_LONG TOO_SHORT DIGITS_ONLY HYPHEN_START HYPHEN_END " +
		"HYPHEN_DOUBLE JOINER MIXED_SCRIPT NATIVE_DIGIT PUNCTUATION SYMBOL RARE STRESS_MARK " +
		"NOT_IN_REPERTOIRE SYLLABLE CLUSTER_TOO_LONG IDENTICAL_CONSONANTS HALANT_FOLLOWER NUKTA_BASE " +
		"SIGN_COMBINATION CONJUNCT ADDAK TIPPI_BINDI VARIANT_LIMIT BIDI VOWEL_MARK LETTER_MIX"
	var got []string
	for _, c := range Codes() {
		got = append(got, c.String())
		back, ok := ParseCode(c.String())
		if !ok || back != c {
			t.Errorf("ParseCode(%s) = %v, %v", c, back, ok)
		}
		if c.Summary() == "" {
			t.Errorf("%s has no summary", c)
		}
	}
	if g := strings.Join(got, " "); g != want {
		t.Errorf("codes changed:\n got %s\nwant %s", g, want)
	}
}
