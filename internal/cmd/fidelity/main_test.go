package main

import (
	"path/filepath"
	"testing"

	"github.com/akshara-idn/akshara/internal/inputdir"
)

// TestMain lets a test run the command itself (GEN_MAIN=1).
func TestMain(m *testing.M) { inputdir.Main(m, "GEN_MAIN", main) }

// TestInputRequired: the command's input lies outside the repository; it
// must be named with -corpora, and a folder that is not there stops the command
// with an error naming the flag and the folder, before anything is written
// (issue 22: no command may depend on ../shared existing).
func TestInputRequired(t *testing.T) {
	tmp := t.TempDir()
	inputdir.TestRequired(t, "GEN_MAIN", "corpora", tmp, filepath.Join(tmp, "out.md"), "-out", filepath.Join(tmp, "out.md"))
}
