package registrytest

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/akshara-idn/akshara/internal/longtest"
	"github.com/akshara-idn/akshara/registry"
)

// Variant TLD families (docs/variants.md, "Zone families"): ভারত (Bangla)
// and ভাৰত (Assamese) are variants under the Root Zone LGR (র/ৰ), so the
// two zones share one conflict relation. Before families each zone kept
// its own: কিতাব.ভারত and কিতাব.ভাৰত were two registrants' names.
const (
	bnZone = "ভারত"
	asZone = "ভাৰত"
)

// testFamily: a name under one member blocks the same label and its
// variants (র in Bangla, ৰ in Assamese: the family's own row) under the
// other, in checks and creates, naming the blocker with its zone; the
// name itself still checks as registered; once purged, the other member's
// name is free.
func testFamily(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	a, _ := e.registrar("family-a")
	b, _ := e.registrar("family-b")
	mustCreate(t, e, a, "কিতাব."+bnZone)
	mustCreate(t, e, a, "সরকার."+bnZone)
	mustCreate(t, e, a, "সরকার.in")
	tests := []struct {
		name, blocker string
		status        registry.Status
	}{
		{"কিতাব." + asZone, "কিতাব." + bnZone, registry.Blocked}, // the same label under the other member
		{"সৰকাৰ." + asZone, "সরকার." + bnZone, registry.Blocked}, // র/ৰ: the one word in each zone's ra
		{"কিতাব." + bnZone, "", registry.Registered},             // itself
		{"ন্যায়." + asZone, "", registry.Available},             // unrelated
		{"কিতাব.in", "", registry.Available},                     // in is of no family
		{"সৰকাৰ.in", "সরকার.in", registry.Blocked},               // in takes bn and as, and holds র/ৰ itself
	}
	for _, tt := range tests {
		res, err := e.svc.Check(e.ctx, tt.name, "")
		if err != nil {
			t.Fatalf("Check(%s): %v", tt.name, err)
		}
		if res.Status != tt.status || res.BlockedBy != tt.blocker {
			t.Errorf("Check(%s) = %s blocked by %q, want %s blocked by %q", tt.name, res.Status, res.BlockedBy, tt.status, tt.blocker)
		}
		if tt.status != registry.Blocked {
			continue
		}
		_, err = e.svc.CreateDomain(e.ctx, b, registry.DomainCreate{Name: tt.name})
		var re *registry.Error
		if !errors.As(err, &re) || re.Code != registry.CodeConflict || re.BlockedBy != tt.blocker {
			t.Errorf("Create(%s) by another registrar = %v, want %s blocked by %s", tt.name, err, registry.CodeConflict, tt.blocker)
		}
	}
	// freed across the family when the holder is purged
	if err := Err(e.svc.DeleteDomain(e.ctx, a, registry.DomainDelete{Name: "কিতাব." + bnZone})); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if res, err := e.svc.Check(e.ctx, "কিতাব."+asZone, ""); err != nil || res.Status != registry.Blocked || res.BlockedBy != "কিতাব."+bnZone {
		t.Errorf("Check(কিতাব.%s) while its blocker is deleted = %+v, %v: want still blocked by it", asZone, res, err)
	}
	e.purge()
	mustCreate(t, e, b, "কিতাব."+asZone)
	if res, err := e.svc.Check(e.ctx, "কিতাব."+bnZone, ""); err != nil || res.Status != registry.Blocked || res.BlockedBy != "কিতাব."+asZone {
		t.Errorf("Check(কিতাব.%s) after the purge = %+v, %v: want blocked by কিতাব.%s", bnZone, res, err, asZone)
	}
}

// testFamilyRecompute: a database whose family members kept their own
// conflict sets (two holders of কিতাব and of সরকার/সৰকাৰ) is brought to the
// family relation at start: the sets are keyed by the family, and the
// pairs that now conflict are kept, exempted with each other, as within a
// zone.
func testFamilyRecompute(t *testing.T, open func(*testing.T) registry.Store) {
	store := open(t)
	ctx := t.Context()
	if err := store.EnsureZones(ctx, registry.DefaultZones()); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Recompute(ctx, "before-families", func(d *registry.Domain) ([]string, error) { return []string{d.Label}, nil }); err != nil {
		t.Fatal(err)
	}
	r, err := store.CreateRegistrar(ctx, "old", []byte("old-token-hash"))
	if err != nil {
		t.Fatal(err)
	}
	old := []*registry.Domain{
		{Label: "কিতাব", Zone: bnZone, Lang: "bn"},
		{Label: "কিতাব", Zone: asZone, Lang: "as"},
		{Label: "সরকার", Zone: bnZone, Lang: "bn"},
		{Label: "সৰকাৰ", Zone: asZone, Lang: "as"},
		{Label: "ন্যায়", Zone: asZone, Lang: "as"},
	}
	for i, d := range old {
		d.Name, d.ALabel, d.Registrar, d.Blocks = d.Label+"."+d.Zone, fmt.Sprintf("a%d", i), "old", []string{d.Label}
		if _, err := store.CreateDomain(ctx, d, r.ID); err != nil {
			t.Fatalf("CreateDomain(%s) with the zones' own relations: %v", d.Name, err)
		}
	}
	svc, err := registry.NewServiceWith(ctx, store, Exempt(registry.ServiceOptions{}, ""))
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	want := [][2]string{{"কিতাব." + bnZone, "কিতাব." + asZone}, {"সরকার." + bnZone, "সৰকাৰ." + asZone}}
	if rep := svc.Recomputed(); !slices.Equal(rep.Exempted, want) {
		t.Errorf("Recomputed().Exempted = %q, want %q", rep.Exempted, want)
	}
	for _, p := range want {
		for i, n := range p {
			d, err := svc.Info(ctx, n)
			if err != nil || !d.Exempted || !slices.Equal(d.ExemptWith, []string{p[1-i]}) {
				t.Errorf("Info(%s) = %+v, %v: want exempted with %s", n, d, err, p[1-i])
			}
			if res, err := svc.Check(ctx, n, ""); err != nil || res.Status != registry.Registered {
				t.Errorf("Check(%s) = %+v, %v: want registered", n, res, err)
			}
		}
	}
	// the exempted pair's labels are held: a third registrant is refused
	// under either member
	nr, _, err := svc.AddRegistrar(ctx, "new")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"কিতাব." + bnZone, "কিতাব." + asZone, "সৰকাৰ." + asZone, "সরকার." + bnZone} {
		if _, err := svc.CreateDomain(ctx, nr, registry.DomainCreate{Name: n}); err == nil {
			t.Errorf("Create(%s) by a third registrar succeeded: the family's exempted holders hold it", n)
		}
	}
	if d, err := svc.Info(ctx, "ন্যায়."+asZone); err != nil || d.Exempted {
		t.Errorf("Info(ন্যায়.%s) = %+v, %v: want an ordinary domain", asZone, d, err)
	}
}

// testFamilyRace: concurrent creates of a label and its variants under
// both members of the family: exactly one winner per round, and every
// loser names it.
func testFamilyRace(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	rounds := longtest.Pick(12, 100)
	regs := make([]*registry.Registrar, 8)
	for i := range regs {
		regs[i], _ = e.registrar(fmt.Sprintf("family-racer-%d", i))
	}
	cons := []string{"ক", "খ", "গ", "চ", "জ", "ত", "দ", "ন", "প", "ম"}
	for round := 0; round < rounds; round++ {
		stem := cons[round%10] + "া" + cons[(round/10)%10]
		// the bn label with র, the as label with ৰ, and the plain stem
		// under both members
		names := []string{stem + "র." + bnZone, stem + "ৰ." + asZone, stem + "ক." + bnZone, stem + "ক." + asZone}
		var wg sync.WaitGroup
		errs := make([]error, len(regs))
		for i := range regs {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				_, errs[i] = e.svc.CreateDomain(e.ctx, regs[i], registry.DomainCreate{Name: names[i%len(names)]})
			}(i)
		}
		wg.Wait()
		// the র/ৰ names: one winner among their four creates; the ক
		// names: one among theirs
		for _, group := range [][]string{names[:2], names[2:]} {
			var won []string
			for i, err := range errs {
				n := names[i%len(names)]
				if !slices.Contains(group, n) {
					continue
				}
				if err == nil {
					won = append(won, n)
				} else if re := (*registry.Error)(nil); !errors.As(err, &re) || (re.Code != registry.CodeConflict && re.Code != registry.CodeExists) {
					t.Errorf("round %d: Create(%s) = %v, want a win or CONFLICT/EXISTS", round, n, err)
				}
			}
			if len(won) != 1 {
				t.Fatalf("round %d: creates of %q: winners %q, want exactly one", round, group, won)
			}
		}
	}
}

// mustCreate registers name in the zone's first language that takes it.
func mustCreate(t *testing.T, e *env, r *registry.Registrar, name string) {
	t.Helper()
	if _, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: name}); err != nil {
		t.Fatalf("Create(%s): %v", name, err)
	}
}

// testFamilyImport: a bulk import into ভাৰত of names whose labels (or
// র/ৰ variants) are held under ভারত keeps them, exempted with their
// holders across the family, as an import does within a zone; a name
// related to nothing is an ordinary domain.
func testFamilyImport(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	a, _ := e.registrar("family-a")
	e.registrar("old")
	mustCreate(t, e, a, "কিতাব."+bnZone)
	mustCreate(t, e, a, "সরকার."+bnZone)
	opener := func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader("কিতাব\nসৰকাৰ\nন্যায়\n")), nil
	}
	sum, err := e.svc.Import(e.ctx, opener, registry.ImportOptions{ContactsExempt: true, Zone: asZone, Registrar: "old", BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Registered != 1 || sum.Exempted != 2 || sum.Refused != 0 {
		t.Errorf("import summary %+v, want 1 registered, 2 exempted, none refused", sum)
	}
	for _, p := range [][2]string{{"কিতাব." + bnZone, "কিতাব." + asZone}, {"সরকার." + bnZone, "সৰকাৰ." + asZone}} {
		for i, n := range p {
			d, err := e.svc.Info(e.ctx, n)
			if err != nil || !d.Exempted || !slices.Equal(d.ExemptWith, []string{p[1-i]}) {
				t.Errorf("Info(%s) = %+v, %v: want exempted with %s", n, d, err, p[1-i])
			}
		}
	}
	if d, err := e.svc.Info(e.ctx, "ন্যায়."+asZone); err != nil || d.Exempted {
		t.Errorf("Info(ন্যায়.%s) = %+v, %v: want an ordinary domain", asZone, d, err)
	}
}

// testFamilyReaudit: the re-audit judges a family as one relation: on a
// database whose family members kept their own sets (no start-up
// recomputation), it reports the pairs that conflict across the family,
// naming each side with its zone, and its apply keeps them exempted with
// each other, as within a zone.
func testFamilyReaudit(t *testing.T, open func(*testing.T) registry.Store) {
	store := open(t)
	ctx := t.Context()
	if err := store.EnsureZones(ctx, registry.DefaultZones()); err != nil {
		t.Fatal(err)
	}
	r, err := store.CreateRegistrar(ctx, "old", []byte("old-token-hash"))
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range []*registry.Domain{
		{Label: "কিতাব", Zone: bnZone, Lang: "bn"},
		{Label: "কিতাব", Zone: asZone, Lang: "as"},
		{Label: "ন্যায়", Zone: asZone, Lang: "as"},
	} {
		d.Name, d.ALabel, d.Registrar, d.Blocks = d.Label+"."+d.Zone, fmt.Sprintf("a%d", i), "old", []string{d.Label}
		if _, err := store.CreateDomain(ctx, d, r.ID); err != nil {
			t.Fatalf("CreateDomain(%s) with the zones' own relations: %v", d.Name, err)
		}
	}
	svc, err := registry.NewServiceWith(ctx, store, Exempt(registry.ServiceOptions{NoRecompute: true}, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, apply := range []bool{false, true} {
		conflicts := map[string][]string{}
		if _, err := svc.Reaudit(ctx, apply, func(f *registry.ReauditFinding) error {
			if len(f.ConflictsWith) > 0 {
				conflicts[f.Name] = f.ConflictsWith
			}
			return nil
		}); err != nil {
			t.Fatalf("Reaudit(apply %v): %v", apply, err)
		}
		want := map[string][]string{"কিতাব." + bnZone: {"কিতাব." + asZone}, "কিতাব." + asZone: {"কিতাব." + bnZone}}
		if fmt.Sprint(conflicts) != fmt.Sprint(want) {
			t.Errorf("Reaudit(apply %v) conflicts %q, want %q", apply, conflicts, want)
		}
	}
	for _, p := range [2]string{"কিতাব." + bnZone, "কিতাব." + asZone} {
		d, err := svc.Info(ctx, p)
		if err != nil || !d.Exempted || len(d.ExemptWith) != 1 || d.ExemptWith[0] == p {
			t.Errorf("after the apply, Info(%s) = %+v, %v: want exempted with the other", p, d, err)
		}
	}
	// a second re-audit finds nothing left to do
	n := 0
	if _, err := svc.Reaudit(ctx, false, func(f *registry.ReauditFinding) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("Reaudit after the apply: %d findings, %v; want none", n, err)
	}
}

// testFamilyReserved: a name the operator reserves under one member of
// the family holds its label and variants under the other too (check
// RESERVED, create refused naming the reserved name with its zone);
// unrelated names stay free.
func testFamilyReserved(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	a, _ := e.registrar("family-a")
	if _, err := e.svc.Reserve(e.ctx, "সরকার."+bnZone, "the operator's own"); err != nil {
		t.Fatalf("Reserve: %v", err)
	}
	for _, n := range []string{"সরকার." + bnZone, "সৰকাৰ." + asZone} {
		res, err := e.svc.Check(e.ctx, n, "")
		if err != nil || res.Status != registry.Reserved {
			t.Errorf("Check(%s) = %+v, %v; want reserved", n, res, err)
		}
		_, err = e.svc.CreateDomain(e.ctx, a, registry.DomainCreate{Name: n})
		var re *registry.Error
		if !errors.As(err, &re) || re.Code != registry.CodeReserved {
			t.Errorf("Create(%s) = %v, want %s", n, err, registry.CodeReserved)
		}
	}
	_, err := e.svc.CreateDomain(e.ctx, a, registry.DomainCreate{Name: "সৰকাৰ." + asZone})
	if err == nil || !strings.Contains(err.Error(), "variant of সরকার."+bnZone) {
		t.Errorf("Create(সৰকাৰ.%s) = %v, want it named a variant of the reserved সরকার.%s", asZone, err, bnZone)
	}
	mustCreate(t, e, a, "ন্যায়."+asZone)
}
