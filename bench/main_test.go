package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/internal/inputdir"
)

// TestMain lets a test run the command itself (BENCH_MAIN=1).
func TestMain(m *testing.M) { inputdir.Main(m, "BENCH_MAIN", main) }

// TestLanguagesMissingDir: `bench -languages DIR` with a DIR that does not
// exist, or holds no word list, fails with an error naming DIR (issue 22:
// it printed an empty table and exited 0).
func TestLanguagesMissingDir(t *testing.T) {
	empty := t.TempDir()
	missing := filepath.Join(empty, "corpora")
	for _, c := range []struct{ dir, want string }{
		{missing, "-languages " + missing + ": stat " + missing + ": no such file or directory"},
		{empty, "-languages " + empty + ": no word list TAG.txt for any language"},
	} {
		cmd := exec.Command(os.Args[0], "-languages", c.dir, "-rounds", "1", "-time", "1ms", "-markdown")
		cmd.Env = append(os.Environ(), "BENCH_MAIN=1")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err == nil {
			t.Errorf("-languages %s: exit status 0, output:\n%s", c.dir, out)
		}
		if !strings.Contains(stderr.String(), c.want) {
			t.Errorf("-languages %s: stderr %q, want it to contain %q", c.dir, stderr.String(), c.want)
		}
	}
	// a folder with one list measures that language
	if err := os.WriteFile(filepath.Join(empty, "hi.txt"), []byte("किताब\nभारत\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-languages", empty, "-rounds", "1", "-time", "1ms")
	cmd.Env = append(os.Environ(), "BENCH_MAIN=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "hi ") {
		t.Errorf("-languages with hi.txt: %v\n%s", err, out)
	}
}
