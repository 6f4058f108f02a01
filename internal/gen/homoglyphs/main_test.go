package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/akshara-idn/akshara/internal/inputdir"
)

// TestMain lets a test run the command itself (GEN_MAIN=1).
func TestMain(m *testing.M) { inputdir.Main(m, "GEN_MAIN", main) }

// TestInputRequired: the command's input lies outside the repository; it
// must be named with -shared, and a folder that is not there stops the command
// with an error naming the flag and the folder, before anything is written
// (issue 22: no command may depend on ../shared existing).
func TestInputRequired(t *testing.T) {
	tmp := t.TempDir()
	inputdir.TestRequired(t, "GEN_MAIN", "shared", tmp, filepath.Join(tmp, "indic.txt"), "-out", filepath.Join(tmp, "indic.txt"))
}

// TestReviewRowsKept: a regeneration carries the reviewed rows (no source
// gives them) and their "# review:" comments over from the table, and the
// closure keeps a reviewed clique of Ol Chiki, Oriya and Malayalam (issue
// 25); generated rows and other comments are not carried over.
func TestReviewRowsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "indic.txt")
	table := "# header\n" +
		"ଠ = ഠ   | 0B20 = 0D20   § rz-lgr-5 render=1.00\n" +
		"# dropped: क = ਕ   | 0915 = 0A15   § uts39 render=0.75\n" +
		"# review: ᱛ is a circle\n" +
		"ଠ = ᱛ   | 0B20 = 1C5B   § review render=1.00\n" +
		"ഠ = ᱛ   | 0D20 = 1C5B   § review render=1.00\n"
	if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	got := reviewRows(path)
	want := []string{
		"# review: ᱛ is a circle",
		"ଠ = ᱛ   | 0B20 = 1C5B   § review render=1.00",
		"ഠ = ᱛ   | 0D20 = 1C5B   § review render=1.00",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("reviewRows = %q, want %q", got, want)
	}
	lines, dropped := closeRows(append([]string{"ଠ = ഠ   | 0B20 = 0D20   § rz-lgr-5 render=1.00"}, got...))
	if dropped != 0 {
		t.Errorf("closeRows dropped %d rows of a closed clique: %q", dropped, lines)
	}
	// without the row ഠ = ᱛ the clique is open: a reviewed row goes
	_, dropped = closeRows([]string{"ଠ = ഠ   | 0B20 = 0D20   § rz-lgr-5 render=1.00", want[1]})
	if dropped != 1 {
		t.Errorf("closeRows dropped %d rows of an open group, want 1", dropped)
	}
}
