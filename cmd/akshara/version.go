package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/akshara-idn/akshara"
)

func init() {
	register(&command{name: "version", order: 90, summary: "print the program, policy data and Unicode versions",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdVersion(args, stdout, stderr)
		}})
}

const versionUsage = `usage: akshara version [-json] [-files]

Prints the version of the program (a tag or the pseudo-version go build
makes from the git commit, v0.0.0-DATE-COMMIT, or the one given with
-ldflags "-X main.version=VERSION"), of the policy data compiled into it
(PolicyDataRelease and a hash of the language files: the version every
verdict of the API and every domain record carries) and of the Unicode data
(IDNA2008 derived properties, NFC tables).

Flags:
`

// version, if set at link time (go build -ldflags "-X main.version=v1.2.3"),
// is the program's version; it wins over the build information.
var version string

// programVersion is the version the binary was built as (versionOf).
func programVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(version, bi)
}

// versionOf is, in order: the link-time version; the main module's
// version from the build information (a tag, or the pseudo-version go
// build stamps from the git commit: v0.0.0-20260102150405-0123456789ab,
// +dirty with uncommitted changes); the same pseudo-version made from the
// build's vcs settings if go stamped those but not the version; and
// otherwise "unknown", saying how to get one (go run and -buildvcs=false
// builds carry nothing).
func versionOf(linked string, bi *debug.BuildInfo) string {
	if linked != "" {
		return linked
	}
	if bi == nil {
		return unknownVersion
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return unknownVersion
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := "v0.0.0-"
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		v += t.UTC().Format("20060102150405") + "-"
	}
	v += rev
	if dirty {
		v += "+dirty"
	}
	return v
}

// unknownVersion says how to build a binary that knows its version: go
// stamps the commit only with -buildvcs=true in effect (a GOFLAGS of
// -buildvcs=false, as on build machines, turns it off for a plain "go
// build") and only in a git clone (in a worktree it stamps nothing);
// docs/operations.md installs with the same command.
const unknownVersion = `unknown (built without version information: build in a git clone, not a worktree, with "go build -buildvcs=true ./cmd/akshara", or with -ldflags "-X main.version=VERSION")`

func cmdVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", versionUsage, stderr)
	asJSON := fs.Bool("json", false, "write the versions as JSON")
	files := fs.Bool("files", false, "list the policy data files and their hashes")
	if status, ok := parseFlags(fs, args, 0); !ok {
		return status
	}
	v := akshara.DataVersions()
	if *asJSON {
		out := struct {
			Program string `json:"program"`
			akshara.Versions
		}{programVersion(), v}
		if !*files {
			out.Files = nil
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "akshara version: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "akshara %s\n", programVersion())
	fmt.Fprintf(stdout, "policy data  %s (%d files)\n", v.Policy, len(v.Files))
	fmt.Fprintf(stdout, "unicode      %s (IDNA2008 derived properties)\n", v.Unicode)
	fmt.Fprintf(stdout, "nfc          %s (normalization tables)\n", v.NFC)
	if *files {
		for _, f := range v.Files {
			fmt.Fprintf(stdout, "  %-14s %s\n", f.Name, f.SHA256)
		}
	}
	return exitOK
}
