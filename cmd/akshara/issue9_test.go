package main

import (
	"encoding/json"
	"testing"
)

// TestCheckAutoOrder: check -lang auto gives the verdict in Hindi for
// किताब and lists the languages Hindi first (issue 9: it said Bodo).
func TestCheckAutoOrder(t *testing.T) {
	out, _, code := runCLI(t, "", "check", "-lang", "auto", "-json", "किताब")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	var o struct {
		Lang  string
		Langs []string
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if o.Lang != "hi" || len(o.Langs) < 2 || o.Langs[0] != "hi" || o.Langs[1] != "mr" {
		t.Errorf("check -lang auto किताब: lang %q, langs %q; want hi, then mr", o.Lang, o.Langs)
	}
}
