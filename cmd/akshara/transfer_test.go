package main

import (
	"path/filepath"
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
	if out, _, code := runCLI(t, "", "transfers", "approve-due", "-db", db); code != 0 || out != "approved 0 transfers\n" {
		t.Errorf("approve-due: %q %d", out, code)
	}
}
