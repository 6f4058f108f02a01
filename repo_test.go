package akshara

import (
	"os"
	"os/exec"
	"testing"
)

// gitOrSkip returns the git binary, skipping the test without it (and
// failing under CI=true, where .ci/run installs it).
func gitOrSkip(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed under CI=true")
		}
		t.Skip("git is not installed")
	}
	if err := exec.Command(git, "rev-parse", "--git-dir").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("not in a git work tree under CI=true: %v", err)
		}
		t.Skip("not in a git work tree")
	}
	return git
}

// TestGitIgnoresStore: the SQLite files the README's `akshara serve`
// creates in the working directory are ignored by git (issue 22), so a
// `git add -A` after trying the server does not commit a database.
func TestGitIgnoresStore(t *testing.T) {
	git := gitOrSkip(t)
	for _, f := range []string{"akshara.db", "akshara.db-wal", "akshara.db-shm", "cmd/akshara/akshara.db"} {
		if err := exec.Command(git, "check-ignore", "-q", "--no-index", f).Run(); err != nil {
			t.Errorf("git does not ignore %s (%v)", f, err)
		}
	}
}
