package akshara

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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

// TestPolicyCitations: the normative reading of the policy is in the
// repository (docs/policy.md), every citation points at it, and every
// section cited exists (issue 22: some 300 citations named a file outside
// the repository, the shared reading's old name). docs/policy.md itself
// names that file once, as the shared source it was written from.
func TestPolicyCitations(t *testing.T) {
	old := "POLICY" + ".md" // spelled so that this file does not cite it
	doc, err := os.ReadFile("docs/policy.md")
	if err != nil {
		t.Fatalf("the policy reading is not in the repository: %v", err)
	}
	sections := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^## (\d+)\. `).FindAllStringSubmatch(string(doc), -1) {
		sections[m[1]] = true
	}
	for n := 1; n <= 7; n++ {
		if !sections[string(rune('0'+n))] {
			t.Errorf("docs/policy.md has no section %d", n)
		}
	}
	if n := strings.Count(string(doc), old); n != 1 || !strings.Contains(string(doc), "shared\n"+old) && !strings.Contains(string(doc), "shared "+old) {
		t.Errorf("docs/policy.md names %s %d times; want once, as its shared source", old, n)
	}
	cite := regexp.MustCompile(`docs/policy\.md,? §(\d+)`)
	cited := 0
	// the tracked files where git can list them, else every file of the
	// tree but the usual untracked folders
	var files []string
	if out, gerr := exec.Command("git", "ls-files", "-z").Output(); gerr == nil && len(out) > 0 {
		for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			files = append(files, filepath.FromSlash(f))
		}
	} else {
		err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				switch d.Name() {
				case ".git", "node_modules", "_artifacts":
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range files {
		if path == filepath.Join("docs", "policy.md") {
			continue
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, old) {
				t.Errorf("%s:%d cites %s, which is not in the repository (cite docs/policy.md): %s", path, i+1, old, strings.TrimSpace(line))
			}
			for _, m := range cite.FindAllStringSubmatch(line, -1) {
				cited++
				if !sections[m[1]] {
					t.Errorf("%s:%d cites docs/policy.md §%s, which has no such section", path, i+1, m[1])
				}
			}
		}
	}
	if cited == 0 {
		t.Error("no citation of docs/policy.md §N found: the walk read nothing")
	}
}

// TestEveryFuzzerInCI: every fuzz target in the repository has a short
// run in .ci/run (`fuzz PKG TARGET N`), with its own package, so a new
// parser's fuzzer is not written and then never run.
func TestEveryFuzzerInCI(t *testing.T) {
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^fuzz (\S+) (Fuzz\w+) [1-9][0-9]*$`).FindAllStringSubmatch(string(ci), -1) {
		runs[m[1]+" "+m[2]] = true
	}
	decl := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)
	found := 0
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pkg := "."
		if dir := filepath.Dir(path); dir != "." {
			pkg = "./" + filepath.ToSlash(dir)
		}
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			found++
			if !runs[pkg+" "+m[1]] {
				t.Errorf("%s: %s has no `fuzz %s %s N` line in .ci/run", path, m[1], pkg, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 || found != len(runs) {
		t.Errorf("%d fuzz targets in the tests, %d runs in .ci/run", found, len(runs))
	}
}
