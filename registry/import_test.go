package registry_test

import (
	"context"
	"errors"
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

// TestImportInterrupted: an import whose context ends at any moment
// returns (with the context's error, or done), never hangs, and a second
// run completes it.
func TestImportInterrupted(t *testing.T) {
	var file strings.Builder
	want, err := registrytest.GenerateImport(&file, 2000, 5)
	if err != nil {
		t.Fatal(err)
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file.String())), nil }
	for i := 0; i < 8; i++ {
		svc := registrytest.SQLiteService(t)
		ctx, cancel := context.WithTimeout(t.Context(), time.Duration(i)*3*time.Millisecond)
		opts := registry.ImportOptions{Zone: "भारत", CreateRegistrars: true, BatchSize: 50}
		done := make(chan error, 1)
		go func() {
			_, err := svc.Import(ctx, open, opts)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && registry.CodeOf(err) != registry.CodeInternal {
				t.Errorf("interrupted after %d ms: %v", i*3, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("interrupted after %d ms: the import did not return in 30 s", i*3)
		}
		cancel()
		sum, err := svc.Import(t.Context(), open, opts)
		if err != nil {
			t.Fatalf("run after the interruption: %v", err)
		}
		if sum.Skipped+sum.Registered+sum.Exempted+sum.Duplicates+sum.Refused != want.Records {
			t.Errorf("run after an interruption at %d ms: %+v does not account for %d records", i*3, sum, want.Records)
		}
	}
}
