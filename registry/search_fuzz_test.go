package registry_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/akshara-idn/akshara/registry"
)

// FuzzParseDomainPattern: the search pattern parser never panics, refuses
// with BAD_NAME or UNSUPPORTED_SEARCH only, and what it accepts is a
// canonical prefix (NFC, lower case if ASCII, no "*", dot or space; ASCII for an
// A-label prefix; at least SearchMinPrefix characters that narrow it) and
// a zone of one label; parsing the canonical pattern again gives the same.
func FuzzParseDomainPattern(f *testing.F) {
	for _, s := range []string{"किता*.भारत", "xn--11b4*.xn--h2brj9c", "abc*.in", "ABC*.IN.", "*.in", "a*c.in", "abc.in", "abc*",
		"ab*.co.in", "क़ि*.भारत", "xn*.in", "ab c*.in", "ab\x00*.in", "\xff*.in", "ab**.in", ".", "*", "ab*..", "ǅa*.in", "İs*.in", "\u212aab*.in"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := registry.ParseDomainPattern(s)
		if err != nil {
			if c := registry.CodeOf(err); c != registry.CodeBadName && c != registry.CodeUnsupportedSearch {
				t.Fatalf("%q: %v (code %s)", s, err, c)
			}
			return
		}
		if !utf8.ValidString(p.Prefix) || strings.ContainsAny(p.Prefix, "*. \t") || (p.ALabel && p.Prefix != strings.ToLower(p.Prefix)) || !norm.NFC.IsNormalString(p.Prefix) {
			t.Fatalf("%q: prefix %q is not canonical", s, p.Prefix)
		}
		if p.Zone == "" || strings.ContainsAny(p.Zone, "*.") {
			t.Fatalf("%q: zone %q", s, p.Zone)
		}
		ascii := true
		for i := 0; i < len(p.Prefix); i++ {
			ascii = ascii && p.Prefix[i] < utf8.RuneSelf
		}
		if p.ALabel != ascii {
			t.Fatalf("%q: ALabel %v for the prefix %q", s, p.ALabel, p.Prefix)
		}
		if n := utf8.RuneCountInString(strings.TrimPrefix(p.Prefix, "xn--")); n < registry.SearchMinPrefix || (p.ALabel && strings.HasPrefix("xn--", p.Prefix)) {
			t.Fatalf("%q: the prefix %q is too short", s, p.Prefix)
		}
		again, err := registry.ParseDomainPattern(p.Prefix + "*." + p.Zone)
		if err != nil || again != p {
			t.Fatalf("%q gave %+v; again: %+v, %v", s, p, again, err)
		}
	})
}

func ExampleParseDomainPattern() {
	for _, s := range []string{"किता*.भारत", "XN--11B4*.xn--h2brj9c", "a*c.in"} {
		p, err := registry.ParseDomainPattern(s)
		if err != nil {
			fmt.Println(registry.CodeOf(err))
			continue
		}
		fmt.Printf("prefix %s, A-label %v, zone %s\n", p.Prefix, p.ALabel, p.Zone)
	}
	// Output:
	// prefix किता, A-label false, zone भारत
	// prefix xn--11b4, A-label true, zone xn--h2brj9c
	// UNSUPPORTED_SEARCH
}
