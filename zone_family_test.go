package akshara

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// rzVariants reads testdata/lgr/rz-variants.txt (internal/gen/rzvariants:
// the Root Zone LGR's variant mappings among the code points of the
// zones' names): source sequence -> target sequences.
func rzVariants(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("testdata/lgr/rz-variants.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seq := func(s string) string {
		var b strings.Builder
		for _, h := range strings.Split(strings.TrimPrefix(s, "U+"), "+U+") {
			n, err := strconv.ParseUint(h, 16, 32)
			if err != nil {
				t.Fatalf("rz-variants.txt: bad code point %q", h)
			}
			b.WriteRune(rune(n))
		}
		return b.String()
	}
	m := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 4 || fs[1] != ">" {
			t.Fatalf("rz-variants.txt: bad line %q", line)
		}
		m[seq(fs[0])] = append(m[seq(fs[0])], seq(fs[2]))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// lgrVariant reports whether b is a variant of a under the mappings: a
// is rewritten into b by replacing sequences (or keeping code points),
// left to right, at least one replaced.
func lgrVariant(a, b string, m map[string][]string) bool {
	var walk func(a, b string, changed bool) bool
	walk = func(a, b string, changed bool) bool {
		if a == "" {
			return b == "" && changed
		}
		for src, targets := range m {
			if !strings.HasPrefix(a, src) {
				continue
			}
			for _, to := range targets {
				if strings.HasPrefix(b, to) && walk(a[len(src):], b[len(to):], true) {
					return true
				}
			}
		}
		_, size := utf8.DecodeRuneInString(a)
		return strings.HasPrefix(b, a[:size]) && walk(a[size:], b[size:], changed)
	}
	return walk(a, b, false)
}

// TestZoneFamilies: the zones file's families are exactly the pairs of
// its zones whose names are variants under ICANN's Root Zone LGR
// (RZ-LGR-5, from testdata/lgr/rz-variants.txt): a zone left out of its
// family would keep its own relation, and kitab.ভারত and kitab.ভাৰত would
// go to two registrants.
func TestZoneFamilies(t *testing.T) {
	zones, err := DefaultZones()
	if err != nil {
		t.Fatal(err)
	}
	m := rzVariants(t)
	family := map[string]string{}
	for _, z := range zones {
		family[z.Name] = z.Family
	}
	var got, want [][2]string
	for i, a := range zones {
		for _, b := range zones[i+1:] {
			if lgrVariant(a.Name, b.Name, m) || lgrVariant(b.Name, a.Name, m) {
				want = append(want, [2]string{a.Name, b.Name})
			}
			if a.Family != "" && a.Family == b.Family {
				got = append(got, [2]string{a.Name, b.Name})
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("no zones are Root Zone LGR variants: ভারত and ভাৰত are (র/ৰ)")
	}
	if !slices.Equal(got, want) {
		t.Errorf("families of zones/zones.txt pair %q; the Root Zone LGR makes variants of %q", got, want)
	}
	// and the LGR's mapping that makes them variants is the family's own
	// variant row (its relation adds it to its languages' tables)
	for _, z := range zones {
		if z.Family == z.Name && len(z.FamilyVariants) == 0 {
			t.Errorf("family %s has no family-variant row", z.Name)
		}
		for _, row := range z.FamilyVariants {
			if !slices.Contains(m[row[0]], row[1]) {
				t.Errorf("family %s: family-variant %q is not a Root Zone LGR variant", z.Name, row)
			}
		}
	}
}

// TestLGRVariant: the pair finder itself.
func TestLGRVariant(t *testing.T) {
	m := map[string][]string{"র": {"ৰ"}, "ৰ": {"র"}}
	tests := []struct {
		a, b string
		want bool
	}{
		{"ভারত", "ভাৰত", true},
		{"ভাৰত", "ভারত", true},
		{"ভারত", "ভারত", false}, // the same name is not a variant pair
		{"ভারত", "ভাৰতম", false},
		{"भारत", "ਭਾਰਤ", false},
	}
	for _, tt := range tests {
		if got := lgrVariant(tt.a, tt.b, m); got != tt.want {
			t.Errorf("lgrVariant(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestFamilyRelation: the family relation of ভারত and ভাৰত is bn ∪ as
// with the র/ৰ row: a label's set holds its spelling in the other
// language's ra, which neither language's own relation does, and a label
// of no র/ৰ is itself.
func TestFamilyRelation(t *testing.T) {
	fam, err := NewFamilyRelation([]string{"bn", "as"}, [][]string{{"র", "ৰ"}}, Lookup)
	if err != nil {
		t.Fatal(err)
	}
	bn, err := NewZoneRelation([]string{"bn"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		label     string
		own, want []string
	}{
		{"সরকার", []string{"সরকার"}, []string{"সরকার", "সৰকাৰ"}},
		{"সৰকাৰ", []string{"সৰকাৰ"}, []string{"সরকার", "সৰকাৰ"}}, // bn alone: not generated from it either
		{"কিতাব", []string{"কিতাব"}, []string{"কিতাব"}},
	} {
		got, ok := fam.ConflictSet(tt.label)
		if !ok || !slices.Equal(got, tt.want) {
			t.Errorf("family ConflictSet(%s) = %q, %v; want %q", tt.label, got, ok, tt.want)
		}
		if own, _ := bn.ConflictSet(tt.label); !slices.Equal(own, tt.own) {
			t.Errorf("bn ConflictSet(%s) = %q, want %q", tt.label, own, tt.own)
		}
	}
	if _, err := NewFamilyRelation([]string{"bn"}, [][]string{{"क", "ख"}}, Lookup); err == nil {
		t.Error("a family row of a script none of its languages writes was taken")
	}
}
