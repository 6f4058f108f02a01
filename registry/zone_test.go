package registry_test

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/internal/longtest"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// pieces labels are drawn from: members of variant rows (conjuncts, the
// candrabindu spellings), consonants with cross-script twins, and others.
var (
	onsets = []string{"क", "त", "त्त", "द्ग", "द्र", "द्न", "द्ध", "द्घ", "ष्ट", "ष्ठ", "श्व", "श्र्व", "द्व", "द्ब",
		"ट", "ठ", "ढ", "प", "भ", "म", "ह", "घ", "व", "ग", "आ", "ए", "ऑ", "ऍ", "ਟ", "ਸ", "ਵ", "ਧ"}
	codas = []string{"", "ा", "ि", "ी", "े", "ाँ", "ॉं", "ँ", "ॅं", "ं", "ु", "ੀ", "ਿ", "ੇ"}
)

func randomPair(rng *rand.Rand) string {
	n := 2 + rng.Intn(3)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(onsets[rng.Intn(len(onsets))])
		b.WriteString(codas[rng.Intn(len(codas))])
	}
	return b.String()
}

// accepting returns the zone's languages that accept label, and "".
func accepting(z registry.Zone, label string) []string {
	out := []string{""}
	for _, t := range z.Languages {
		if l, err := akshara.Lookup(t); err == nil && l.Valid(label) {
			out = append(out, t)
		}
	}
	return out
}

// some keeps "", the first, a middle and the last language (the full
// cross product of ten Devanagari languages a side is slow and adds little).
func some(langs []string) []string {
	if len(langs) <= 4 {
		return langs
	}
	return []string{langs[0], langs[1], langs[len(langs)/2], langs[len(langs)-1]}
}

// conflictEverywhere checks that conflict(a, la, b, lb) is the same for
// every choice of languages and both orders, and returns it.
func conflictEverywhere(t testing.TB, svc *registry.Service, z registry.Zone, a, b string) bool {
	t.Helper()
	var first *bool
	for _, la := range some(accepting(z, a)) {
		for _, lb := range some(accepting(z, b)) {
			for _, swap := range []bool{false, true} {
				x, lx, y, ly := a, la, b, lb
				if swap {
					x, lx, y, ly = b, lb, a, la
				}
				got, err := svc.Conflict(z.Name, x, lx, y, ly)
				if err != nil {
					t.Fatalf("Conflict(%s, %s %q, %s %q): %v", z.Name, x, lx, y, ly, err)
				}
				if first == nil {
					first = &got
				} else if got != *first {
					t.Fatalf("zone %s: conflict(%s %q, %s %q) = %v, but %v for other languages or order", z.Name, x, lx, y, ly, got, *first)
				}
			}
		}
	}
	return *first
}

// TestConflictProperty: over random pairs of valid labels and every choice
// of languages, the zone relation is symmetric and independent of the
// languages named; and it holds every per-language variant and every
// cross-script twin.
func TestConflictProperty(t *testing.T) {
	svc := registrytest.SQLiteService(t)
	rng := rand.New(rand.NewSource(9))
	n := longtest.Pick(300, 3000) // 3000 pairs with AKSHARA_LONG_TESTS=1 (CI)
	for _, z := range svc.Zones() {
		if z.Name != "भारत" && z.Name != "in" && z.Name != "ਭਾਰਤ" {
			continue
		}
		rel, err := akshara.NewZoneRelation(z.Languages)
		if err != nil {
			t.Fatal(err)
		}
		var valid []string
		for len(valid) < 80 {
			if l := randomPair(rng); len(accepting(z, l)) > 1 {
				valid = append(valid, l)
			}
		}
		conflicts := 0
		for i := 0; i < n; i++ {
			a := valid[rng.Intn(len(valid))]
			var b string
			// half the pairs: a variant or twin of a
			set, _ := rel.ConflictSet(a)
			if rng.Intn(2) == 0 && len(set) > 1 {
				b = set[rng.Intn(len(set))]
			} else {
				b = valid[rng.Intn(len(valid))]
			}
			if len(accepting(z, b)) == 1 {
				continue
			}
			c := conflictEverywhere(t, svc, z, a, b)
			if c {
				conflicts++
			}
			want := a == b || slices.Contains(set, b)
			for _, tag := range z.Languages {
				if l, _ := akshara.Lookup(tag); slices.Contains(l.Variants(a), b) {
					want = true // a variant in any language of the zone
				}
			}
			if want && !c {
				t.Fatalf("zone %s: %s and %s (a variant or twin) do not conflict", z.Name, a, b)
			}
		}
		if conflicts == 0 {
			t.Errorf("zone %s: no pair conflicted: the test proves nothing", z.Name)
		}
		t.Logf("zone %s: %d pairs, %d conflicting", z.Name, n, conflicts)
	}
}

// FuzzConflict: for any two labels valid in a zone, conflict does not
// depend on the languages named or the order.
func FuzzConflict(f *testing.F) {
	for _, s := range [][3]string{{"किताब", "कित्ताब", "भारत"}, {"चाँद", "चॉंद", "भारत"}, {"टीम", "ਟੀਸ", "in"}, {"पेट", "ਧੇਟ", "in"}, {"कमल", "नमक", "in"}} {
		f.Add(s[0], s[1], s[2] == "in")
	}
	svc := registrytest.SQLiteService(f)
	zones := map[string]registry.Zone{}
	for _, z := range svc.Zones() {
		zones[z.Name] = z
	}
	f.Fuzz(func(t *testing.T, a, b string, inZone bool) {
		z := zones["भारत"]
		if inZone {
			z = zones["in"]
		}
		if len(accepting(z, a)) == 1 || len(accepting(z, b)) == 1 {
			return
		}
		conflictEverywhere(t, svc, z, a, b)
	})
}
