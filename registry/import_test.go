package registry_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestImportOutcomes: what the import does with each kind of line, one
// line at a time, in zone भारत.
func TestImportOutcomes(t *testing.T) {
	svc := registrytest.SQLiteService(t)
	if _, _, err := svc.AddRegistrar(t.Context(), "reg"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line string
		code string // "" registered; "EXEMPTED"; else the refusal's code
	}{
		{"किताब,reg,hi,2020-01-02", ""},
		{"xn--11b4aya5ed,reg", registry.CodeDuplicate},     // the same name as an A-label
		{"किताब.xn--h2brj9c.,reg", registry.CodeDuplicate}, // zone as an A-label, final dot
		{"कित्ताब,reg", "EXEMPTED"},
		{"कमल.ভারত,reg", registry.CodeOtherZone},
		{"कमल.nozone,reg", registry.CodeUnknownZone},
		{"a.b.c,reg", registry.CodeBadName},
		{"कमल,reg,xx", registry.CodeUnknownLanguage},
		{"कमल,reg,bn", registry.CodeUnknownLanguage},
		{"क्अब,reg", "HALANT_FOLLOWER"},
		{"कमल,reg,,not-a-date", registry.CodeBadLine},
		{"कमल,reg,hi", ""},
	}
	for _, c := range cases {
		var refused []registry.ImportRefusal
		sum, err := svc.Import(t.Context(), func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(c.line + "\n")), nil },
			registry.ImportOptions{Zone: "भारत", Refused: func(r registry.ImportRefusal) { refused = append(refused, r) }})
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		got := ""
		switch {
		case len(refused) == 1:
			got = refused[0].Code
		case sum.Exempted == 1:
			got = "EXEMPTED"
		case sum.Registered != 1:
			got = "nothing"
		}
		if got != c.code {
			t.Errorf("%s: %q (%+v, %v), want %q", c.line, got, sum, refused, c.code)
		}
	}
	d, err := svc.Info(t.Context(), "किताब.भारत")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Created.Equal(time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC)) || d.Registrar != "reg" || d.Lang != "hi" {
		t.Errorf("किताब.भारत = created %v by %s in %s, want 2020-01-02 by reg in hi", d.Created, d.Registrar, d.Lang)
	}
	// a zone that does not exist
	if _, err := svc.Import(t.Context(), func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x\n")), nil },
		registry.ImportOptions{Zone: "nozone", Registrar: "reg"}); registry.CodeOf(err) != registry.CodeUnknownZone {
		t.Errorf("Import into nozone: %v, want UNKNOWN_ZONE", err)
	}
}
