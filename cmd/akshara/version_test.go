package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara"
)

func TestVersionCommand(t *testing.T) {
	v := akshara.DataVersions()
	out, stderr, code := runCLI(t, "", "version")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{v.Policy, "unicode      " + akshara.IDNA2008Version} {
		if !strings.Contains(out, want) {
			t.Errorf("output has no %q:\n%s", want, out)
		}
	}
	out, stderr, code = runCLI(t, "", "version", "-json", "-files")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Program, Policy, Unicode, NFC string
		Files                         []akshara.DataFile
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Policy != v.Policy || got.Unicode != v.Unicode || got.NFC != v.NFC || got.Program == "" || len(got.Files) != len(v.Files) {
		t.Errorf("version -json = %+v, want %+v", got, v)
	}
	if _, _, code := runCLI(t, "", "version", "-nope"); code != exitUsage {
		t.Errorf("version -nope: exit %d, want %d", code, exitUsage)
	}
}

// TestVersionOf (issue 22): the program's version comes from the link-time
// value, the module's build information or its vcs settings, never
// "(devel)".
func TestVersionOf(t *testing.T) {
	vcs := func(kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/akshara-idn/akshara", Version: "(devel)"}}
		for i := 0; i < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	tagged := vcs()
	tagged.Main.Version = "v1.2.3"
	for _, tc := range []struct {
		linked string
		bi     *debug.BuildInfo
		want   string
	}{
		{"v9.9.9", tagged, "v9.9.9"},
		{"", tagged, "v1.2.3"},
		{"", vcs("vcs", "git", "vcs.revision", "81f5fc721b3a8f61b4cc5ee940f0a1dbc3f7ce89", "vcs.time", "2026-11-26T21:58:09Z", "vcs.modified", "false"), "v0.0.0-20261126215809-81f5fc721b3a"},
		{"", vcs("vcs.revision", "81f5fc721b3a8f61b4cc5ee940f0a1dbc3f7ce89", "vcs.time", "2026-11-26T21:58:09Z", "vcs.modified", "true"), "v0.0.0-20261126215809-81f5fc721b3a+dirty"},
		{"", vcs(), unknownVersion},
		{"", nil, unknownVersion},
	} {
		if got := versionOf(tc.linked, tc.bi); got != tc.want {
			t.Errorf("versionOf(%q, %v) = %q, want %q", tc.linked, tc.bi, got, tc.want)
		}
	}
}

// TestVersionOfBuiltBinary (issue 22): "go build -buildvcs=true" in the
// git checkout (as docs/operations.md installs it) makes a binary whose
// "akshara version" names the commit, even where GOFLAGS has
// -buildvcs=false (as on the build machine). Skipped outside a git clone
// (go stamps nothing in a worktree either).
func TestVersionOfBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	top, err2 := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err == nil {
		err = err2
	}
	if err == nil {
		// go build stamps nothing in a git worktree, whose .git is a file
		if fi, serr := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); serr != nil || !fi.IsDir() {
			err = fmt.Errorf("a git worktree (.git is not a directory): go build stamps no VCS information here")
		}
	}
	if err != nil {
		t.Skip(err) // not a git clone: nothing to stamp from
	}
	bin := filepath.Join(t.TempDir(), "akshara")
	// the command of docs/operations.md; -buildvcs=true wins over a
	// GOFLAGS=-buildvcs=false of the environment
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if rev := strings.TrimSpace(string(head))[:12]; !strings.Contains(first, rev) || strings.Contains(first, "devel") {
		t.Errorf("akshara version of a go build at %s: %q", rev, first)
	}
}
