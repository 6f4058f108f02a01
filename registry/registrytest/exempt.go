package registrytest

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"

	"github.com/akshara-idn/akshara/internal/longtest"
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
	da, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kitab, Lang: "hi"})
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
		res := e.check(w.name, "hi", registry.Registered, "")
		if !res.Exempted || !slices.Equal(res.ExemptWith, []string{w.other}) {
			t.Errorf("Check(%s) = exempted %v with %q, want exempted with %s", w.name, res.Exempted, res.ExemptWith, w.other)
		}
	}
	// New creates conflicting with either are refused, naming a holder.
	_, err = e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kittab, Lang: "hi"})
	wantConflict(t, "Create(कित्ताब) conflicting with both", err, kitab)
	_, err = e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: "कमल.भारत", Lang: "hi"})
	wantConflict(t, "Create(कमल) conflicting with the exempted one", err, "किताबें.भारत")
	e.check("कमल.भारत", "hi", registry.Blocked, "किताबें.भारत")

	// Deleting A: until A is purged it keeps what it holds (issue 23);
	// then B is ordinary again and holds its whole set.
	if err := Err(e.svc.DeleteDomain(e.ctx, alpha, registry.DomainDelete{Name: kitab})); err != nil {
		t.Fatalf("Delete(%s): %v", kitab, err)
	}
	_, err = e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kittab, Lang: "hi"})
	wantConflict(t, "Create(कित्ताब) after delete, before purge", err, kitab)
	e.purge()
	d, err := e.svc.Info(e.ctx, "किताबें.भारत")
	if err != nil {
		t.Fatalf("Info after delete: %v", err)
	}
	if d.Exempted || len(d.ExemptWith) != 0 || !slices.Equal(d.Blocks, []string{"कमल", "किताबें", "कित्ताब"}) {
		t.Errorf("Info after delete = exempted %v with %q, blocks %q; want ordinary with its whole set", d.Exempted, d.ExemptWith, d.Blocks)
	}
	_, err = e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kittab, Lang: "hi"})
	wantConflict(t, "Create(कित्ताब) after delete", err, "किताबें.भारत")
	// किताब's set is {किताब, कित्ताब}: कित्ताब is B's now.
	_, err = e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: kitab, Lang: "hi"})
	wantConflict(t, "Create(किताब) after delete", err, "किताबें.भारत")
	// Deleting B frees everything.
	if err := Err(e.svc.DeleteDomain(e.ctx, beta, registry.DomainDelete{Name: "किताबें.भारत"})); err != nil {
		t.Fatalf("Delete(B): %v", err)
	}
	e.purge()
	e.create(alpha, kittab, "hi", registry.Domain{Name: kittab, ALabel: kittabALbl, Label: "कित्ताब", Zone: "भारत", Lang: "hi", Blocks: da.Blocks})

	// Service.CreateExempt judges the name, computes its zone set and
	// brings it in: चॉंद conflicts with a registered चाँद (identical
	// renderings) and both are kept.
	if _, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: "चाँद.भारत", Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	ex, err := e.svc.CreateDomain(e.ctx, beta, registry.DomainCreate{Name: "चॉंद.भारत", Lang: "mr", Exempt: true})
	if err != nil || !ex.Exempted || !slices.Equal(ex.ExemptWith, []string{"चाँद.भारत"}) || !slices.Equal(ex.Blocks, []string{"चाँद", "चॉंद"}) {
		t.Errorf("CreateExempt(चॉंद) = %+v, %v; want exempted with चाँद.भारत", ex, err)
	}
	if _, err := e.svc.CreateDomain(e.ctx, beta, registry.DomainCreate{Name: "क्अब.भारत", Lang: "hi", Exempt: true}); !errors.Is(err, registry.ErrInvalid) {
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
	if err := Err(e2.svc.DeleteDomain(e2.ctx, g, registry.DomainDelete{Name: "कमल.भारत"})); err != nil {
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
	svc, err := registry.NewServiceWith(ctx, store, Exempt(registry.ServiceOptions{}, ""))
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
		if _, err := svc.CreateDomain(ctx, nr, registry.DomainCreate{Name: name}); !errors.Is(err, want) {
			t.Errorf("Create(%s): %v, want %s", name, err, want.Code)
		}
	}
	// a second start: nothing to do
	svc2, err := registry.NewServiceWith(ctx, store, Exempt(registry.ServiceOptions{}, ""))
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

// testExemptionModel runs random creates, exempted creates and deletes of
// domains with overlapping conflict sets against a model, and checks after
// each step: a create succeeds exactly when its set meets no registered
// domain's set; each domain keeps its whole set; two domains are exempted
// with each other exactly when their sets meet; every label of a domain's
// set is held by it or by a domain it is exempted with; a label in no set
// is free.
func testExemptionModel(t *testing.T, open func(*testing.T) registry.Store) {
	store := open(t)
	ctx := t.Context()
	if err := store.EnsureZones(ctx, registry.DefaultZones()); err != nil {
		t.Fatal(err)
	}
	r, err := store.CreateRegistrar(ctx, "model", []byte("model-token-hash"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(12))
	steps := longtest.Pick(80, 1000)
	pool := func(i int) string { return fmt.Sprintf("x%02d", i) }
	model := map[string][]string{} // label -> whole set
	meets := func(a, b []string) bool {
		return slices.ContainsFunc(a, func(x string) bool { return slices.Contains(b, x) })
	}
	exempt := 0
	for step := 0; step < steps; step++ {
		label := pool(rng.Intn(24))
		set := []string{label}
		for k := rng.Intn(3); k > 0; k-- {
			if x := pool(rng.Intn(24)); !slices.Contains(set, x) {
				set = append(set, x)
			}
		}
		slices.Sort(set)
		d := &registry.Domain{Name: label + ".in", ALabel: label + ".in", Label: label, Zone: "in", Lang: "ldh", Registrar: "model", Blocks: set}
		_, registered := model[label]
		switch op := rng.Intn(3); {
		case op == 0 && len(model) > 0: // delete
			var labels []string
			for l := range model {
				labels = append(labels, l)
			}
			slices.Sort(labels)
			l := labels[rng.Intn(len(labels))]
			if err := store.DeleteDomain(ctx, "in", l, r.ID); err != nil {
				t.Fatalf("step %d: DeleteDomain(%s): %v", step, l, err)
			}
			delete(model, l)
		case op == 1: // an ordinary create
			free := !registered
			for _, s := range model {
				if meets(s, set) {
					free = false
				}
			}
			_, err := store.CreateDomain(ctx, d, r.ID)
			if free != (err == nil) || err != nil && !errors.Is(err, registry.ErrConflict) {
				t.Fatalf("step %d: CreateDomain(%s, %q) = %v; want success %v (model %v)", step, label, set, err, free, model)
			}
			if err == nil {
				model[label] = set
			}
		default: // an exempted create
			_, err := store.CreateExemptDomain(ctx, d, r.ID)
			if registered != (err != nil) {
				t.Fatalf("step %d: CreateExemptDomain(%s, %q) = %v; registered %v", step, label, set, err, registered)
			}
			if err == nil {
				model[label] = set
			}
		}
		// the invariants
		held := map[string]bool{}
		for l, set := range model {
			d, err := store.Domain(ctx, "in", l)
			if err != nil {
				t.Fatalf("step %d: Domain(%s): %v", step, l, err)
			}
			if !slices.Equal(d.Blocks, set) {
				t.Fatalf("step %d: %s has set %q, want %q", step, l, d.Blocks, set)
			}
			var want []string
			for o, os := range model {
				if o != l && meets(set, os) {
					want = append(want, o+".in")
				}
			}
			got := slices.Clone(d.ExemptWith)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) || d.Exempted != (len(want) > 0) {
				t.Fatalf("step %d: %s exempted %v with %q, want with %q", step, l, d.Exempted, got, want)
			}
			if d.Exempted {
				exempt++
			}
			for _, x := range set {
				held[x] = true
				h, err := store.FindBlocker(ctx, "in", []string{x})
				if err != nil {
					t.Fatalf("step %d: %s of %s's set is held by no one: %v", step, x, l, err)
				}
				if h.Label != l && !slices.Contains(want, h.Name) {
					t.Fatalf("step %d: %s of %s's set is held by %s, which it is not exempted with", step, x, l, h.Name)
				}
			}
		}
		for i := 0; i < 24; i++ {
			if x := pool(i); !held[x] {
				if h, err := store.FindBlocker(ctx, "in", []string{x}); !errors.Is(err, registry.ErrNotFound) {
					t.Fatalf("step %d: %s is in no set but held by %+v (%v)", step, x, h, err)
				}
			}
		}
	}
	if exempt == 0 {
		t.Errorf("no domain was ever exempted: the test proves nothing")
	}
}

// testExemptRace: concurrent exempted creates whose sets all share a label
// end up exempted with each other, every pair (each sees the others' whole
// sets, committed).
func testExemptRace(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open) // a service: the relation version is recorded
	r, _ := e.registrar("importer")
	const n = 12
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := fmt.Sprintf("y%02d", i)
			_, err := e.store.CreateExemptDomain(e.ctx, &registry.Domain{Name: l + ".in", ALabel: l, Label: l, Zone: "in", Lang: "ldh", Registrar: r.Name,
				Blocks: []string{"shared", l}}, r.ID)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("CreateExemptDomain: %v", err)
		}
	}
	for i := 0; i < n; i++ {
		d, err := e.store.Domain(e.ctx, "in", fmt.Sprintf("y%02d", i))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.ExemptWith) != n-1 {
			t.Errorf("%s exempted with %d others %q, want all %d", d.Name, len(d.ExemptWith), d.ExemptWith, n-1)
		}
	}
}
