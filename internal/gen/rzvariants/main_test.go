package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/akshara-idn/akshara/internal/inputdir"
)

// TestMain lets a test run the command itself (GEN_MAIN=1).
func TestMain(m *testing.M) { inputdir.Main(m, "GEN_MAIN", main) }

// TestInputRequired: the LGR lies outside the repository; a -refdata
// folder that is not there stops the command before anything is written.
func TestInputRequired(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "rz-variants.txt")
	inputdir.TestRequired(t, "GEN_MAIN", "refdata", tmp, out, "-out", out, "-zones", "../../../zones/zones.txt")
}

// TestCommittedTable: the committed table is what the generator makes of
// the Root Zone LGR and today's zones file (run `go run
// ./internal/gen/rzvariants -refdata ../shared/refdata` after changing
// the zones). It needs the LGR: AKSHARA_REFDATA names its folder.
func TestCommittedTable(t *testing.T) {
	dir := os.Getenv("AKSHARA_REFDATA")
	if dir == "" {
		// not a failure under CI either: the project's tests must not
		// need ../shared (.ci/run sets it when the folder is there)
		t.Skip("AKSHARA_REFDATA is not set: the committed Root Zone LGR variant table is not compared with the LGR")
	}
	got, err := Generate(filepath.Join(dir, Common), "../../../zones/zones.txt")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../../testdata/lgr/rz-variants.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("testdata/lgr/rz-variants.txt is not what the generator makes of %s:\n%s", dir, got)
	}
}
