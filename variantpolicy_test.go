package akshara

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseVariantPolicy(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want VariantPolicy
		err  string
	}{
		{"block", VariantPolicy{VariantsBlock, VariantsBlock}, ""},
		{"same-entity", VariantPolicy{VariantsSameEntity, VariantsSameEntity}, ""},
		{"same-label=same-entity", VariantPolicy{VariantsSameEntity, VariantsBlock}, ""},
		{"same-label=same-entity other=block", VariantPolicy{VariantsSameEntity, VariantsBlock}, ""},
		{"other=same-entity", VariantPolicy{VariantsBlock, VariantsSameEntity}, ""},
		{"", VariantPolicy{}, "want block"},
		{"bundle", VariantPolicy{}, "not a variant policy"},
		{"same-label=bundle", VariantPolicy{}, "not a variant policy"},
		{"tld=block", VariantPolicy{}, "unknown variant kind"},
		{"block same-entity", VariantPolicy{}, "want KIND=POLICY"},
		{"other=block other=block", VariantPolicy{}, "twice"},
	} {
		got, err := ParseVariantPolicy(strings.Fields(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseVariantPolicy(%q) = %+v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseVariantPolicy(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if again, err := ParseVariantPolicy(strings.Fields(got.String())); err != nil || again != got {
			t.Errorf("ParseVariantPolicy(%q.String() = %q) = %+v, %v: not the same policy", tc.in, got.String(), again, err)
		}
	}
}

func TestVariantPolicyOf(t *testing.T) {
	var zero VariantPolicy
	if zero.Of(true) != VariantsBlock || zero.Of(false) != VariantsBlock || zero.Any() {
		t.Errorf("the zero policy: %q %q any %v; want block for both", zero.Of(true), zero.Of(false), zero.Any())
	}
	p := VariantPolicy{SameLabel: VariantsSameEntity}
	if p.Of(true) != VariantsSameEntity || p.Of(false) != VariantsBlock || !p.Any() {
		t.Errorf("same-label only: %q %q any %v", p.Of(true), p.Of(false), p.Any())
	}
}

// TestZonesVariants: the `variants` line in a zones file: a family's is
// its first member's and every member's, and goes nowhere else.
func TestZonesVariants(t *testing.T) {
	fam := "zone a\n  languages bn\n  family a\n  variants same-label=same-entity\nzone b\n  languages as\n  family a\nzone c\n  languages hi\n"
	zones, err := ParseZones("test", []byte(fam))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"same-label=same-entity other=block", "same-label=same-entity other=block", "block"}
	for i, z := range zones {
		if z.Variants.String() != want[i] {
			t.Errorf("zone %s: variants %q, want %q", z.Name, z.Variants.String(), want[i])
		}
	}
	for _, tc := range []struct{ name, text, err string }{
		{"under another member", "zone a\n  languages bn\n  family a\nzone b\n  languages as\n  family a\n  variants same-entity\n", "goes under its first member"},
		{"twice", "zone a\n  languages bn\n  variants block\n  variants same-entity\n", "given twice"},
		{"bad", "zone a\n  languages bn\n  variants maybe\n", "not a variant policy"},
	} {
		if _, err := ParseZones("test", []byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: ParseZones = %v, want an error with %q", tc.name, err, tc.err)
		}
	}
}

// TestDefaultZonesVariants: the shipped zones file gives the family
// ভারত/ভাৰত same-entity for the same label under the other member and
// block for the other variants; every other zone blocks.
func TestDefaultZonesVariants(t *testing.T) {
	zones, err := DefaultZones()
	if err != nil {
		t.Fatal(err)
	}
	for _, z := range zones {
		want := "block"
		if z.Family == "ভারত" {
			want = "same-label=same-entity other=block"
		}
		if z.Variants.String() != want {
			t.Errorf("zone %s: variants %q, want %q", z.Name, z.Variants.String(), want)
		}
	}
}

// FuzzVariantPolicy: the parser never panics, and what it accepts it
// writes back as the same policy.
func FuzzVariantPolicy(f *testing.F) {
	for _, s := range []string{"block", "same-entity", "same-label=same-entity other=block", "other=", "=", "same-label=same-entity same-label=block"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseVariantPolicy(strings.Fields(s))
		if err != nil {
			return
		}
		if again, err := ParseVariantPolicy(strings.Fields(p.String())); err != nil || again != p {
			t.Fatalf("%q parsed as %+v, written %q, parsed again as %+v, %v", s, p, p.String(), again, err)
		}
	})
}

func ExampleParseVariantPolicy() {
	p, _ := ParseVariantPolicy([]string{"same-label=same-entity", "other=block"})
	fmt.Println(p.Of(true), p.Of(false))
	// Output: same-entity block
}

// TestVariantsNotDataVersion: the `variants` policy, like lifecycle and
// contacts, is registration policy: setting it leaves the policy data
// version (what domains record and the LGRs carry) as it was; prose that
// starts with the word stays hashed.
func TestVariantsNotDataVersion(t *testing.T) {
	base := "zone a\n  languages bn\n# variants of one another\n"
	with := "zone a\n  languages bn\n  variants same-label=same-entity other=block  # why\n# variants of one another\n#   variants POLICY: what it is\n"
	if a, b := string(withoutLifecycle([]byte(base))), string(withoutLifecycle([]byte(with))); a != b {
		t.Errorf("hashed with a variants line:\n%s\nwithout:\n%s", b, a)
	}
	if !strings.Contains(string(withoutLifecycle([]byte(base))), "variants of one another") {
		t.Error("prose starting with \"variants\" was left out of the hash")
	}
}
