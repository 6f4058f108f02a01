package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets a test run the command itself (GEN_MAIN=1).
func TestMain(m *testing.M) {
	if os.Getenv("GEN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestInputRequired: the command's input lies outside the repository; it
// must be named with -shared, and a folder that is not there stops the command
// with an error naming the flag and the folder, before anything is written
// (issue 22: no command may depend on ../shared existing).
func TestInputRequired(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "indic.txt")
	missing := filepath.Join(tmp, "shared")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "-shared DIR is required"},
		{[]string{"-shared", missing}, "-shared " + missing + ": stat " + missing + ": no such file or directory"},
	} {
		cmd := exec.Command(os.Args[0], append(c.args, "-out", out)...)
		cmd.Env = append(os.Environ(), "GEN_MAIN=1")
		cmd.Dir = tmp // where ../shared does not exist either
		msg, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%q: exit status 0:\n%s", c.args, msg)
		}
		if !strings.Contains(string(msg), c.want) {
			t.Errorf("%q: output %q, want it to contain %q", c.args, msg, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: %s was written", c.args, out)
		}
	}
}
