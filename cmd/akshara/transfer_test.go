package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTransfersCommand: a zone's transfer policy printed, set, printed
// again; a bad duration refused; approve-due on an empty registry.
func TestTransfersCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	if out, _, code := runCLI(t, "", "transfers", "policy", "-db", db, "-zone", "in"); code != 0 || out != "in\ttransfer period 5d\tlock period 60d\n" {
		t.Errorf("policy: %q %d", out, code)
	}
	if out, _, code := runCLI(t, "", "transfers", "policy", "-db", db, "-zone", "xn--h2brj9c", "-period", "3d", "-lock", "36h"); code != 0 || out != "xn--h2brj9c\ttransfer period 3d\tlock period 36h0m0s\n" {
		t.Errorf("policy set: %q %d", out, code)
	}
	if out, _, code := runCLI(t, "", "transfers", "policy", "-db", db, "-zone", "भारत"); code != 0 || !strings.Contains(out, "transfer period 3d") {
		t.Errorf("policy after set: %q %d", out, code)
	}
	if _, errOut, code := runCLI(t, "", "transfers", "policy", "-db", db, "-zone", "in", "-lock", "soon"); code != exitInvalid || !strings.Contains(errOut, "BAD_NAME") {
		t.Errorf("a bad duration: %q %d", errOut, code)
	}
	// issue 34 item 15: without -zone, every zone's policy, one line a
	// zone (it was BAD_NAME: -zone is required); -period or -lock without
	// -zone is a usage error
	out, errOut, code := runCLI(t, "", "transfers", "policy", "-db", db)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || errOut != "" || !slices.Contains(lines, "भारत\ttransfer period 3d\tlock period 36h0m0s") || !slices.Contains(lines, "in\ttransfer period 5d\tlock period 60d") {
		t.Errorf("policy of every zone: exit %d %q\n%s", code, errOut, out)
	}
	zones, _, _ := runCLI(t, "", "zone", "list", "-db", db)
	if n := strings.Count(zones, "\n"); len(lines) != n || n < 2 {
		t.Errorf("policy of every zone: %d lines, %d zones", len(lines), n)
	}
	for _, flag := range []string{"-period", "-lock"} {
		if out, errOut, code := runCLI(t, "", "transfers", "policy", "-db", db, flag, "1d"); code != exitUsage || out != "" || !strings.Contains(errOut, "-zone") {
			t.Errorf("policy %s without -zone: exit %d %q %q", flag, code, out, errOut)
		}
	}
	if out, _, code := runCLI(t, "", "transfers", "approve-due", "-db", db); code != 0 || out != "approved 0 transfers\n" {
		t.Errorf("approve-due: %q %d", out, code)
	}
}
