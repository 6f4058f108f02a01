package registrytest

import (
	"errors"
	"slices"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// testExemptions: a domain brought in exempted (Store.CreateExemptDomain)
// is kept with the one it conflicts with, both say so and name the other,
// new creates that conflict with either are refused, and deleting one
// leaves the other an ordinary domain holding its whole conflict set.
func testExemptions(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	alpha, _ := e.registrar("alpha")
	beta, _ := e.registrar("beta")
	// A is an ordinary domain of भारत holding {किताब, कित्ताब}.
	da, err := e.svc.Create(e.ctx, alpha, kitab, "hi")
	if err != nil {
		t.Fatalf("Create(%s): %v", kitab, err)
	}
	// B comes in exempted: its set meets A's at कित्ताब and has कमल,
	// which is free and which it holds.
	b := &registry.Domain{Name: "किताबें.भारत", ALabel: "xn--b.xn--h2brj9c", Label: "किताबें", Zone: "भारत", Lang: "hi", Registrar: "beta",
		Blocks: []string{"किताबें", "कित्ताब", "कमल"}}
	db, err := e.store.CreateExemptDomain(e.ctx, b, beta.ID)
	if err != nil {
		t.Fatalf("CreateExemptDomain: %v", err)
	}
	if !db.Exempted || !slices.Equal(db.ExemptWith, []string{kitab}) || db.ID == 0 {
		t.Errorf("CreateExemptDomain = exempted %v with %q (ID %d), want exempted with %s", db.Exempted, db.ExemptWith, db.ID, kitab)
	}
	// The same label again: refused.
	if _, err := e.store.CreateExemptDomain(e.ctx, b, beta.ID); !errors.Is(err, registry.ErrConflict) {
		t.Errorf("CreateExemptDomain twice: %v, want CONFLICT", err)
	}
	// Both say so, name the other and keep their whole sets.
	for _, w := range []struct {
		name, other string
		blocks      []string
	}{
		{kitab, "किताबें.भारत", da.Blocks},
		{"किताबें.भारत", kitab, []string{"कमल", "किताबें", "कित्ताब"}},
	} {
		d, err := e.svc.Info(e.ctx, w.name)
		if err != nil {
			t.Fatalf("Info(%s): %v", w.name, err)
		}
		if !d.Exempted || !slices.Equal(d.ExemptWith, []string{w.other}) || !slices.Equal(d.Blocks, w.blocks) {
			t.Errorf("Info(%s) = exempted %v with %q, blocks %q; want exempted with %s, blocks %q", w.name, d.Exempted, d.ExemptWith, d.Blocks, w.other, w.blocks)
		}
		res := e.check(w.name, "hi", registry.Registered, w.name)
		if !res.Exempted || !slices.Equal(res.ExemptWith, []string{w.other}) {
			t.Errorf("Check(%s) = exempted %v with %q, want exempted with %s", w.name, res.Exempted, res.ExemptWith, w.other)
		}
	}
	// New creates conflicting with either are refused, naming a holder.
	_, err = e.svc.Create(e.ctx, alpha, kittab, "hi")
	wantConflict(t, "Create(कित्ताब) conflicting with both", err, kitab)
	_, err = e.svc.Create(e.ctx, alpha, "कमल.भारत", "hi")
	wantConflict(t, "Create(कमल) conflicting with the exempted one", err, "किताबें.भारत")
	e.check("कमल.भारत", "hi", registry.Blocked, "किताबें.भारत")

	// Deleting A: B is ordinary again and holds its whole set.
	if err := e.svc.Delete(e.ctx, alpha, kitab); err != nil {
		t.Fatalf("Delete(%s): %v", kitab, err)
	}
	d, err := e.svc.Info(e.ctx, "किताबें.भारत")
	if err != nil {
		t.Fatalf("Info after delete: %v", err)
	}
	if d.Exempted || len(d.ExemptWith) != 0 || !slices.Equal(d.Blocks, []string{"कमल", "किताबें", "कित्ताब"}) {
		t.Errorf("Info after delete = exempted %v with %q, blocks %q; want ordinary with its whole set", d.Exempted, d.ExemptWith, d.Blocks)
	}
	_, err = e.svc.Create(e.ctx, alpha, kittab, "hi")
	wantConflict(t, "Create(कित्ताब) after delete", err, "किताबें.भारत")
	// किताब's set is {किताब, कित्ताब}: कित्ताब is B's now.
	_, err = e.svc.Create(e.ctx, alpha, kitab, "hi")
	wantConflict(t, "Create(किताब) after delete", err, "किताबें.भारत")
	// Deleting B frees everything.
	if err := e.svc.Delete(e.ctx, beta, "किताबें.भारत"); err != nil {
		t.Fatalf("Delete(B): %v", err)
	}
	e.create(alpha, kittab, "hi", registry.Domain{Name: kittab, ALabel: kittabALbl, Label: "कित्ताब", Zone: "भारत", Lang: "hi", Blocks: da.Blocks})

	// Service.CreateExempt judges the name, computes its zone set and
	// brings it in: चॉंद conflicts with a registered चाँद (identical
	// renderings) and both are kept.
	if _, err := e.svc.Create(e.ctx, alpha, "चाँद.भारत", "hi"); err != nil {
		t.Fatal(err)
	}
	ex, err := e.svc.CreateExempt(e.ctx, beta, "चॉंद.भारत", "mr")
	if err != nil || !ex.Exempted || !slices.Equal(ex.ExemptWith, []string{"चाँद.भारत"}) || !slices.Equal(ex.Blocks, []string{"चाँद", "चॉंद"}) {
		t.Errorf("CreateExempt(चॉंद) = %+v, %v; want exempted with चाँद.भारत", ex, err)
	}
	if _, err := e.svc.CreateExempt(e.ctx, beta, "क्अब.भारत", "hi"); !errors.Is(err, registry.ErrInvalid) {
		t.Errorf("CreateExempt(invalid): %v, want INVALID_LABEL", err)
	}

	// Three-way: C and D come in exempted with E, and with each other,
	// though the label their sets share is held by E; deleting E gives it
	// to the first of them, and they stay exempted with each other.
	e2 := newEnv(t, open)
	g, _ := e2.registrar("gamma")
	mk := func(label string, set ...string) *registry.Domain {
		d, err := e2.store.CreateExemptDomain(e2.ctx, &registry.Domain{Name: label + ".भारत", ALabel: label, Label: label, Zone: "भारत", Lang: "hi", Registrar: "gamma", Blocks: append([]string{label}, set...)}, g.ID)
		if err != nil {
			t.Fatalf("CreateExemptDomain(%s): %v", label, err)
		}
		return d
	}
	mk("कमल", "नमक")
	if d := mk("कलम", "नमक"); !slices.Equal(d.ExemptWith, []string{"कमल.भारत"}) {
		t.Errorf("C exempted with %q, want कमल.भारत", d.ExemptWith)
	}
	if d := mk("मकान", "नमक"); !slices.Equal(d.ExemptWith, []string{"कमल.भारत", "कलम.भारत"}) {
		t.Errorf("D exempted with %q, want कमल.भारत and कलम.भारत", d.ExemptWith)
	}
	if err := e2.svc.Delete(e2.ctx, g, "कमल.भारत"); err != nil {
		t.Fatalf("Delete(कमल): %v", err)
	}
	c, err := e2.store.FindBlocker(e2.ctx, "भारत", []string{"नमक"})
	if err != nil || c.Label != "कलम" || !c.Exempted {
		t.Errorf("after deleting E, नमक is held by %+v, %v; want कलम, exempted", c, err)
	}
	dd, err := e2.svc.Info(e2.ctx, "मकान.भारत")
	if err != nil || !slices.Equal(dd.ExemptWith, []string{"कलम.भारत"}) {
		t.Errorf("Info(मकान) = %+v, %v; want exempted with कलम.भारत", dd, err)
	}
}

// testRecompute: a database whose conflict sets were computed under an
// older relation (each language's own table: किताब in Marathi held only
// {किताब}, कित्ताब in Nepali only {कित्ताब}, चाँद and चॉंद had no variants)
// is brought up to date when a service starts: one recomputation, the
// pairs that now conflict kept and exempted, new conflicting creates
// refused; a second start does nothing.
func testRecompute(t *testing.T, open func(*testing.T) registry.Store) {
	store := open(t)
	ctx := t.Context()
	// the old relation's database: its zones (languages in the old,
	// alphabetical order), and version "old"
	zones := registry.DefaultZones()
	for i := range zones {
		zones[i].Languages = slices.Sorted(slices.Values(zones[i].Languages))
	}
	if err := store.EnsureZones(ctx, zones); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Recompute(ctx, "old", func(d *registry.Domain) ([]string, error) { return []string{d.Label}, nil }); err != nil {
		t.Fatalf("Recompute(old): %v", err)
	}
	r, err := store.CreateRegistrar(ctx, "old", []byte("old-token-hash"))
	if err != nil {
		t.Fatal(err)
	}
	old := []*registry.Domain{
		{Name: "किताब.भारत", ALabel: "xn--11b4aya5ed.xn--h2brj9c", Label: "किताब", Zone: "भारत", Lang: "mr", Blocks: []string{"किताब"}},
		{Name: "कित्ताब.भारत", ALabel: kittabALbl, Label: "कित्ताब", Zone: "भारत", Lang: "ne", Blocks: []string{"कित्ताब"}},
		{Name: "चाँद.भारत", ALabel: "a1", Label: "चाँद", Zone: "भारत", Lang: "hi", Blocks: []string{"चाँद"}},
		{Name: "चॉंद.भारत", ALabel: "a2", Label: "चॉंद", Zone: "भारत", Lang: "hi", Blocks: []string{"चॉंद"}},
		{Name: "कमल.भारत", ALabel: "a3", Label: "कमल", Zone: "भारत", Lang: "hi", Blocks: []string{"कमल"}},
		{Name: "टीम.in", ALabel: "a4", Label: "टीम", Zone: "in", Lang: "brx", Blocks: []string{"टीम"}},
		{Name: "ਟੀਸ.in", ALabel: "a5", Label: "ਟੀਸ", Zone: "in", Lang: "pa", Blocks: []string{"ਟੀਸ"}},
	}
	for _, d := range old {
		d.Registrar = "old"
		if _, err := store.CreateDomain(ctx, d, r.ID); err != nil {
			t.Fatalf("CreateDomain(%s) under the old relation: %v", d.Name, err)
		}
	}
	svc, err := registry.NewService(ctx, store)
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	// the zones file's order applies to the stored zones
	for _, z := range svc.Zones() {
		if (z.Name == "in" || z.Name == "भारत") && z.Languages[0] != "hi" {
			t.Errorf("zone %s stored in the old order: languages %q, want hi first", z.Name, z.Languages)
		}
	}
	rep := svc.Recomputed()
	version, _ := svc.RelationVersion()
	wantPairs := [][2]string{{"किताब.भारत", "कित्ताब.भारत"}, {"चाँद.भारत", "चॉंद.भारत"}, {"टीम.in", "ਟੀਸ.in"}}
	if rep.From != "old" || rep.To != version || rep.Domains != len(old) || rep.Changed != 6 || !slices.Equal(rep.Exempted, wantPairs) {
		t.Errorf("Recomputed = %+v, want from old to %s, %d domains, 6 changed, pairs %q", rep, version, len(old), wantPairs)
	}
	for _, p := range wantPairs {
		for i, name := range p {
			d, err := svc.Info(ctx, name)
			if err != nil {
				t.Fatalf("Info(%s): %v", name, err)
			}
			if !d.Exempted || !slices.Equal(d.ExemptWith, []string{p[1-i]}) {
				t.Errorf("Info(%s) = exempted %v with %q, want with %s", name, d.Exempted, d.ExemptWith, p[1-i])
			}
			res, err := svc.Check(ctx, name, "")
			if err != nil || res.Status != registry.Registered || !res.Exempted || !slices.Equal(res.ExemptWith, []string{p[1-i]}) {
				t.Errorf("Check(%s) = %+v, %v; want registered, exempted with %s", name, res, err, p[1-i])
			}
		}
	}
	if d, err := svc.Info(ctx, "कमल.भारत"); err != nil || d.Exempted {
		t.Errorf("Info(कमल) = %+v, %v; want not exempted", d, err)
	}
	// new creates that conflict with either are refused
	nr, _, err := svc.AddRegistrar(ctx, "new")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ਟੀਸ.in", "टीम.in"} {
		want := registry.ErrConflict
		if _, err := svc.Info(ctx, name); err == nil {
			want = registry.ErrExists // the name itself is registered (issue 10)
		}
		if _, err := svc.Create(ctx, nr, name, ""); !errors.Is(err, want) {
			t.Errorf("Create(%s): %v, want %s", name, err, want.Code)
		}
	}
	// a second start: nothing to do
	svc2, err := registry.NewService(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	if rep := svc2.Recomputed(); rep.Domains != 0 || rep.From != version {
		t.Errorf("second start Recomputed = %+v, want nothing done", rep)
	}
	log, err := store.AuditLog(ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range log {
		if e.Action == "recompute" {
			n++
			if e.Name != version || e.Result != "ok 7 domains, 6 sets changed, 3 pairs exempted" {
				t.Errorf("audit %+v", e)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d recompute entries in the audit log, want 1", n)
	}
}
