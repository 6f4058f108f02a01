package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/akshara-idn/akshara"
)

func init() {
	register(&command{name: "version", order: 90, summary: "print the program, policy data and Unicode versions",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdVersion(args, stdout, stderr)
		}})
}

const versionUsage = `usage: akshara version [-json] [-files]

Prints the version of the program, of the policy data compiled into it
(PolicyDataRelease and a hash of the language files: the version every
verdict of the API and every domain record carries) and of the Unicode data
(IDNA2008 derived properties, NFC tables).

Flags:
`

// programVersion is the module version the binary was built from.
func programVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

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
