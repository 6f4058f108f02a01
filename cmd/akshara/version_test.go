package main

import (
	"encoding/json"
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
