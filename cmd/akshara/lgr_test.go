package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/lgr"
)

// TestLGRCommand: akshara lgr writes what is committed under lgr/, -all
// writes every language, and bad usage is refused.
func TestLGRCommand(t *testing.T) {
	want, ok := lgr.File("pa")
	if !ok {
		t.Fatal("no lgr/pa.xml")
	}
	g, err := lgr.Parse(want)
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "", "lgr", "-lang", "pa", "-date", g.Date)
	if code != exitOK || out != string(want) {
		t.Errorf("akshara lgr -lang pa: exit %d (%s); output differs from lgr/pa.xml: %v", code, stderr, out != string(want))
	}
	dir := t.TempDir()
	if _, stderr, code := runCLI(t, "", "lgr", "-all", "-out", dir); code != exitOK {
		t.Fatalf("akshara lgr -all: exit %d (%s)", code, stderr)
	}
	for _, tag := range akshara.Tags() {
		if _, err := os.Stat(filepath.Join(dir, tag+".xml")); err != nil {
			t.Errorf("-all wrote no %s.xml", tag)
		}
	}
	for _, args := range [][]string{
		{"lgr", "-all"}, {"lgr", "-out", dir}, {"lgr", "-date", "23/11/2026"}, {"lgr", "-lang", "xx"}, {"lgr", "-lang", "auto"}, {"lgr", "extra"},
	} {
		if _, _, code := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("akshara %v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// TestCheckLGR: check -lgr gives the native verdict on the same labels,
// and names the LGR's rule.
func TestCheckLGR(t *testing.T) {
	file := filepath.Join("..", "..", "lgr", "hi.xml")
	tests := []struct {
		label, want string
	}{
		{"हिन्दी", "\tvalid\thi\tvalid\n"},
		{"उद्गम", "\tvalid\thi\tvalid\tvariants=उद्नम,उद्रम\n"},
		{"xn--h2brj9c", "\tvalid\thi\tvalid"},
		{"क्क्क", "\tinvalid\thi\tIDENTICAL_CONSONANTS@0 "},
		{"कि़", "\tinvalid\thi\tNUKTA_BASE@2 "},
		{"abc", "\tinvalid\thi\tnot-in-repertoire@0 "},
		{"-कमल", "\tinvalid\thi\tHYPHEN_START@0 "},
		{"xn--zz", "\tinvalid\thi\tBAD_ALABEL@0 "},
	}
	l, _ := akshara.Lookup("hi")
	for _, tt := range tests {
		out, stderr, code := runCLI(t, "", "check", "-lgr", file, "--", tt.label)
		if !strings.HasPrefix(out, tt.label+tt.want) {
			t.Errorf("check -lgr %q = %q (%s), want prefix %q", tt.label, out, stderr, tt.label+tt.want)
		}
		if want := map[bool]int{true: exitOK, false: exitInvalid}[l.Valid(tt.label)]; code != want {
			t.Errorf("check -lgr %q: exit %d, the native engine says %d", tt.label, code, want)
		}
	}
	out, _, code := runCLI(t, "हिन्दी\nकि़\n", "check", "-lgr", file, "-json")
	if code != exitInvalid || strings.Count(out, "\n") != 2 || !strings.Contains(out, `"rule":"NUKTA_BASE","pos":2,"code":"NUKTA_BASE"`) ||
		!strings.Contains(out, `"valid":true,"disposition":"valid","pos":0,"variants":[]}`) {
		t.Errorf("check -lgr -json: exit %d, %s", code, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.xml")
	os.WriteFile(bad, []byte("<lgr>"), 0o644)
	for _, f := range []string{bad, filepath.Join(t.TempDir(), "missing.xml")} {
		if _, _, code := runCLI(t, "", "check", "-lgr", f, "कमल"); code != exitUsage {
			t.Errorf("check -lgr %s: exit %d, want %d", f, code, exitUsage)
		}
	}
}

// TestServeLGR: akshara serve publishes the exports at /lgr/{tag}.xml.
func TestServeLGR(t *testing.T) {
	server, base := startServer(t, "-db", t.TempDir()+"/lgr.db")
	defer func() { server.Process.Signal(syscall.SIGTERM); server.Wait() }()
	want, _ := lgr.File("hi")
	resp, err := http.Get(base + "/lgr/hi.xml")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(body, want) || resp.Header.Get("Content-Type") != "application/xml; charset=utf-8" {
		t.Errorf("GET /lgr/hi.xml: %d %q, %d bytes, want lgr/hi.xml", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
	if resp, err := http.Get(base + "/lgr/xx.xml"); err != nil || resp.StatusCode != 404 {
		t.Errorf("GET /lgr/xx.xml: %v %v", resp, err)
	}
}
