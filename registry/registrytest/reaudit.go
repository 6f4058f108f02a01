package registrytest

import (
	"slices"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
)

// ModifiedHindiFile returns the compiled-in Hindi language file changed
// in two ways that change verdicts on registered names: clusters of at most
// two consonants (k 1: स्त्री becomes CLUSTER_TOO_LONG) and a variant row
// ब = व (बकक and वकक become homographs).
func ModifiedHindiFile(t testing.TB) []byte {
	t.Helper()
	text := string(akshara.DataFiles()["languages/hi.lang"])
	mod := strings.Replace(text, "\nk         3 ", "\nk         1 ", 1)
	head := strings.Index(mod, "\nvariants ")
	if head < 0 || mod == text {
		t.Fatal("ModifiedHindiFile: the Hindi file no longer has the lines the test changes")
	}
	end := head + 1 + strings.Index(mod[head+1:], "\n")
	mod = mod[:end+1] + "  ब = व   | 092C = 0935\n" + mod[end+1:]
	return []byte(mod)
}

// ModifiedHindi returns the options of a service judging with
// ModifiedHindiFile.
func ModifiedHindi(t testing.TB) registry.ServiceOptions {
	t.Helper()
	files := akshara.DataFiles()
	mod := ModifiedHindiFile(t)
	l, err := akshara.LoadLanguage("hi.lang", mod)
	if err != nil {
		t.Fatalf("loading the modified Hindi file: %v", err)
	}
	files["languages/hi.lang"] = mod
	return registry.ServiceOptions{
		NoRecompute: true,
		DataVersion: akshara.VersionsOf(files).Policy,
		Lookup: func(tag string) (*akshara.Language, error) {
			if strings.EqualFold(tag, "hi") {
				return l, nil
			}
			return akshara.Lookup(tag)
		},
	}
}

// RunReaudit registers names under the compiled-in data and re-audits them
// under ModifiedHindi: the report, then -apply, then the report again.
func RunReaudit(t *testing.T, open func(t *testing.T) registry.Store) {
	e := newEnv(t, open)
	r, _ := e.registrar("old")
	names := []string{"बकक.भारत", "वकक.भारत", "स्त्रीकक.भारत", "कमल.भारत"}
	for _, n := range names {
		if _, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: n, Lang: "hi"}); err != nil {
			t.Fatalf("Create(%s): %v", n, err)
		}
	}
	opts := ModifiedHindi(t)
	if opts.DataVersion == e.svc.DataVersion() {
		t.Fatalf("the modified data has the version of the compiled-in data")
	}
	mod, err := registry.NewServiceWith(e.ctx, e.store, Exempt(opts, ""))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		invalid   []string
		conflicts []string
		added     []string
		removed   []string
	}
	wants := map[string]want{
		"बकक.भारत": {conflicts: []string{"वकक.भारत"}, added: []string{"वकक"}},
		"वकक.भारत": {conflicts: []string{"बकक.भारत"}, added: []string{"बकक"}},
		// refused now, it keeps only its own label (its variant स्त्त्रीकक
		// is freed)
		"स्त्रीकक.भारत": {invalid: []string{"CLUSTER_TOO_LONG"}, removed: []string{"स्त्त्रीकक"}},
	}
	for _, apply := range []bool{false, true} {
		got := map[string]*registry.ReauditFinding{}
		sum, err := mod.Reaudit(e.ctx, apply, func(f *registry.ReauditFinding) error {
			got[f.Name] = f
			return nil
		})
		if err != nil {
			t.Fatalf("Reaudit(apply %v): %v", apply, err)
		}
		if sum.Domains != len(names) || sum.Invalid != 1 || sum.Conflicting != 2 || sum.Changed != 3 || sum.DataVersion != opts.DataVersion {
			t.Errorf("Reaudit(apply %v) summary = %+v, want 4 domains, 1 invalid, 2 conflicting, 3 changed", apply, sum)
		}
		if len(got) != len(wants) {
			t.Errorf("Reaudit(apply %v) listed %d domains, want %d", apply, len(got), len(wants))
		}
		for n, w := range wants {
			f := got[n]
			if f == nil {
				t.Errorf("Reaudit(apply %v) does not list %s", apply, n)
				continue
			}
			if f.Invalid != (w.invalid != nil) || !slices.Equal(f.Codes, w.invalid) || !slices.Equal(f.ConflictsWith, w.conflicts) ||
				!slices.Equal(f.SetAdded, w.added) || !slices.Equal(f.SetRemoved, w.removed) || f.JudgedUnder != e.svc.DataVersion() {
				t.Errorf("Reaudit(apply %v) %s = %+v, want %+v judged under %s", apply, n, f, w, e.svc.DataVersion())
			}
		}
		d, err := e.svc.Info(e.ctx, "बकक.भारत")
		if err != nil {
			t.Fatal(err)
		}
		if d.Exempted != apply {
			t.Errorf("after Reaudit(apply %v): बकक exempted %v", apply, d.Exempted)
		}
	}
	// applied: the pair is exempted, the invalid name is legacy, every
	// record carries the new version
	for _, n := range names {
		d, err := e.svc.Info(e.ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if d.DataVersion != opts.DataVersion {
			t.Errorf("%s: data version %q, want %q", n, d.DataVersion, opts.DataVersion)
		}
		w := wants[n]
		if !slices.Equal(d.ExemptWith, w.conflicts) || !slices.Equal(d.Legacy, w.invalid) {
			t.Errorf("%s: exempt with %v, legacy %v; want %v, %v", n, d.ExemptWith, d.Legacy, w.conflicts, w.invalid)
		}
	}
	// a new create conflicting with the exempted pair is refused under the new data
	r2, _ := e.registrar("new")
	if _, err := mod.CreateDomain(e.ctx, r2, registry.DomainCreate{Name: "बकक.भारत", Lang: "hi"}); err == nil {
		t.Errorf("Create(बकक) after the re-audit succeeded")
	}
	// and the re-audit now finds nothing
	n := 0
	sum, err := mod.Reaudit(e.ctx, false, func(*registry.ReauditFinding) error { n++; return nil })
	if err != nil || n != 0 || sum.Invalid+sum.Conflicting+sum.Changed != 0 {
		t.Errorf("Reaudit after -apply: %d listed, %+v, %v; want none", n, sum, err)
	}
}
