// Package inputdir is how the project's generators and tools take an input
// folder that lies outside the repository (the reference data, the word
// lists): it must be named by a flag, and is never assumed to be there
// (issue 22: no command may depend on ../shared existing).
package inputdir

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Require returns an error naming the flag when dir is not given or is
// not a directory; what says what the folder holds.
func Require(flag, dir, what string) error {
	if dir == "" {
		return fmt.Errorf("-%s DIR is required: %s (kept outside the repository)", flag, what)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("-%s %s: %v", flag, dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("-%s %s: not a directory", flag, dir)
	}
	return nil
}

// TestRequired runs the test binary as the command (it does so when env
// is "1": the command's TestMain calls its main) in dir, where ../shared
// does not exist, once without -flag and once with a folder that is not
// there, each with the other arguments args, and checks that it fails with
// an error naming the flag and the folder before it writes out.
func TestRequired(t *testing.T, env, flag, dir, out string, args ...string) {
	t.Helper()
	missing := dir + "/shared"
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "-" + flag + " DIR is required"},
		{[]string{"-" + flag, missing}, "-" + flag + " " + missing + ": stat " + missing + ": no such file or directory"},
	} {
		cmd := exec.Command(os.Args[0], append(c.args, args...)...)
		cmd.Env = append(os.Environ(), env+"=1")
		cmd.Dir = dir
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

// Main is a command's TestMain: with env set to "1" the test binary is the
// command (it runs main and exits), so that a test can run it as a child
// process (TestRequired); otherwise it runs the tests.
func Main(m *testing.M, env string, main func()) {
	if os.Getenv(env) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
