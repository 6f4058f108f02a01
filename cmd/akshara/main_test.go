package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/audit"
)

func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestCheckExitStatus(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"check", "किताब"}, exitOK},
		{[]string{"check", "किताब", "क्अब"}, exitInvalid},
		{[]string{"check", "-lang", "sd-Deva", "चाँद"}, exitInvalid},
		{[]string{"check", "-lang", "xx", "किताब"}, exitUsage},
		{[]string{"check", "-nope"}, exitUsage},
		{[]string{"nope"}, exitUsage},
		{[]string{}, exitUsage},
		{[]string{"help"}, exitOK},
		{[]string{"check", "-h"}, exitOK},
	}
	for _, tt := range tests {
		if _, stderr, got := runCLI(t, "", tt.args...); got != tt.want {
			t.Errorf("akshara %v: exit %d, want %d (%s)", tt.args, got, tt.want, stderr)
		}
	}
}

// TestCheckJSONContract: exactly one object per non-blank input line, in
// input order, with the documented fields.
func TestCheckJSONContract(t *testing.T) {
	in := "किताब\r\n\n   \nक्अब\nxn--h2brj9c\n\u0958लम\nभारत।" // no final newline
	out, stderr, code := runCLI(t, in, "check", "-json")
	if code != exitInvalid {
		t.Fatalf("exit %d (%s)", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	wantInputs := []string{"किताब", "क्अब", "xn--h2brj9c", "\u0958लम", "भारत।"}
	if len(lines) != len(wantInputs) {
		t.Fatalf("%d lines for %d labels:\n%s", len(lines), len(wantInputs), out)
	}
	for i, line := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("line %d is not JSON: %v", i, err)
		}
		for _, field := range []string{"input", "lang", "valid", "ulabel", "alabel", "syllables", "errors"} {
			if _, ok := obj[field]; !ok {
				t.Errorf("line %d has no %q: %s", i, field, line)
			}
		}
		if obj["input"] != wantInputs[i] {
			t.Errorf("line %d: input %q, want %q", i, obj["input"], wantInputs[i])
		}
		if _, ok := obj["syllables"].([]any); !ok {
			t.Errorf("line %d: syllables is not an array", i)
		}
		if _, ok := obj["errors"].([]any); !ok {
			t.Errorf("line %d: errors is not an array", i)
		}
	}
	var second struct {
		Valid  bool
		Errors []struct {
			Code    string
			Pos     int
			Message string
		}
	}
	json.Unmarshal([]byte(lines[1]), &second)
	if second.Valid || len(second.Errors) != 1 || second.Errors[0].Code != "HALANT_FOLLOWER" || second.Errors[0].Pos != 2 || second.Errors[0].Message == "" {
		t.Errorf("क्अब: %+v", second)
	}
	var fourth struct {
		Valid      bool
		ULabel     string
		ALabel     string
		Normalized bool
	}
	json.Unmarshal([]byte(lines[3]), &fourth)
	if !fourth.Valid || fourth.ULabel != "\u0915\u093Cलम" || fourth.ALabel != "xn--11b4cl3b" || !fourth.Normalized {
		t.Errorf("precomposed क़: %+v", fourth)
	}
}

func TestCheckText(t *testing.T) {
	out, _, code := runCLI(t, "", "check", "किताब", "क्अब", "a\tb")
	if code != exitInvalid {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	if lines[0] != "किताब\tvalid\thi\txn--11b4aya5ed\tकि·ता·ब\tvariants=कित्ताब" {
		t.Errorf("line 1: %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "क्अब\tinvalid\thi\tHALANT_FOLLOWER@2 ") {
		t.Errorf("line 2: %q", lines[1])
	}
	if !strings.HasPrefix(lines[2], "a�b\tinvalid") {
		t.Errorf("a tab in a label must not split the line: %q", lines[2])
	}
}

func TestCheckInvalidUTF8Line(t *testing.T) {
	out, _, code := runCLI(t, "क\xffख\n", "check", "-json")
	if code != exitInvalid || !strings.Contains(out, `"code":"INVALID_UTF8"`) {
		t.Errorf("exit %d: %s", code, out)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestCheckWriteError(t *testing.T) {
	var errOut bytes.Buffer
	code := run([]string{"check", "किताब"}, strings.NewReader(""), failWriter{}, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "disk full") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

func TestCheckLongLine(t *testing.T) {
	long := strings.Repeat("क", 200000)
	out, _, code := runCLI(t, long+"\nकिताब\n", "check", "-json")
	if code != exitInvalid || strings.Count(out, "\n") != 2 || !strings.Contains(out, "TOO_LONG") {
		t.Errorf("exit %d, %d lines", code, strings.Count(out, "\n"))
	}
}

func TestLint(t *testing.T) {
	out, stderr, code := runCLI(t, "", "lint", "../../languages/hi.lang", "../../languages/sd-Deva.lang")
	if code != exitOK || !strings.Contains(out, "hi (Hindi), script Deva, k=3") || !strings.Contains(out, "0 failing") {
		t.Errorf("exit %d: %s %s", code, out, stderr)
	}
	dir := t.TempDir()
	bad := dir + "/x.lang"
	os.WriteFile(bad, []byte("language x\nname X\nscript Deva\nk 1\nclass C\n  U+0915\nexample valid क\n"), 0o644)
	out, _, code = runCLI(t, "", "lint", bad)
	if code != exitInvalid || !strings.Contains(out, "FAIL") {
		t.Errorf("failing example: exit %d: %s", code, out)
	}
	os.WriteFile(bad, []byte("language x\n"), 0o644)
	if _, stderr, code = runCLI(t, "", "lint", bad); code != exitUsage || !strings.Contains(stderr, "missing") {
		t.Errorf("refused file: exit %d: %s", code, stderr)
	}
	if _, _, code = runCLI(t, "", "check", "-langfile", "../../languages/sd-Deva.lang", "चाँद"); code != exitInvalid {
		t.Errorf("check -langfile: exit %d", code)
	}
}

func TestCheckAuto(t *testing.T) {
	out, _, code := runCLI(t, "किताब\nॻारो\nक्अब\n", "check", "-lang", "auto", "-json")
	if code != exitInvalid {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	var objs []struct {
		Lang  string
		Valid bool
		Langs []string
	}
	for _, line := range lines {
		var o struct {
			Lang  string
			Valid bool
			Langs []string
		}
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	if !objs[0].Valid || len(objs[0].Langs) < 2 {
		t.Errorf("किताब: %+v", objs[0])
	}
	if !objs[1].Valid || strings.Join(objs[1].Langs, ",") != "sd-Deva" || objs[1].Lang != "sd-Deva" {
		t.Errorf("ॻारो: %+v", objs[1])
	}
	if objs[2].Valid || objs[2].Langs == nil || len(objs[2].Langs) != 0 {
		t.Errorf("क्अब: %+v (langs must be an empty array)", objs[2])
	}
}

func TestLangs(t *testing.T) {
	out, _, code := runCLI(t, "", "langs", "-json")
	var rows []langInfo
	if code != exitOK || json.Unmarshal([]byte(out), &rows) != nil {
		t.Fatalf("exit %d: %s", code, out)
	}
	if len(rows) != 26 {
		t.Errorf("%d language tables, want 26 (every scheduled language of India)", len(rows))
	}
	found := false
	for _, r := range rows {
		if r.Tag == "hi" {
			found = r.Script == "Deva" && r.K == 3 && r.CcTLD == "भारत" && r.CcTLDA == "xn--h2brj9c" && r.Repertoire == 64
		}
	}
	if !found {
		t.Errorf("no correct hi row: %+v", rows)
	}
	out, _, code = runCLI(t, "", "langs")
	if code != exitOK || !strings.Contains(out, "hi ") || !strings.Contains(out, "xn--h2brj9c") {
		t.Errorf("text: exit %d: %s", code, out)
	}
}

func TestAudit(t *testing.T) {
	dir := t.TempDir()
	a, b := dir+"/a.txt", dir+"/b.txt"
	os.WriteFile(a, []byte("किताब\r\nक्अब\n\nहिंदी"), 0o644) // no final newline
	os.WriteFile(b, []byte("भारत।\nचाँद\n"), 0o644)
	out, stderr, code := runCLI(t, "", "audit", "-lang", "hi", a, b)
	if code != exitInvalid {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{`labels\s+5\n`, `valid\s+3\s+\(60\.00%\)`, `invalid\s+2\s+\(40\.00%\)`, `HALANT_FOLLOWER\s+1\s+क्अब`, `PUNCTUATION\s+1\s+भारत।`, `labels/s`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("summary lacks %s:\n%s", want, out)
		}
	}
	if stderr != "" {
		t.Errorf("no progress bar when output is not a terminal, got %q", stderr)
	}
	out, _, code = runCLI(t, "किताब\nहिंदी\n", "audit", "-json", "-lang", "auto", "-")
	var sum struct {
		Lang   string
		Labels int
		Valid  int
		ByLang []struct {
			Lang  string
			Valid int
		} `json:"by_lang"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || code != exitOK || sum.Labels != 2 || sum.Valid != 2 || sum.Lang != "auto" || len(sum.ByLang) == 0 {
		t.Errorf("auto JSON: exit %d, %+v, %v: %s", code, sum, err, out)
	}
	if _, stderr, code = runCLI(t, "", "audit", dir+"/missing.txt"); code != exitUsage || !strings.Contains(stderr, "missing.txt") {
		t.Errorf("missing file: exit %d, %s", code, stderr)
	}
	if _, _, code = runCLI(t, "", "audit"); code != exitUsage {
		t.Errorf("no file: exit %d", code)
	}
}

func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	var p audit.Progress
	p.Labels.Store(1500000)
	p.Bytes.Store(50)
	done := make(chan struct{})
	close(done)
	showProgress(&buf, &p, 100, done)
	if got := buf.String(); !strings.Contains(got, "[===============               ]  50%") || !strings.Contains(got, "1.5M labels") {
		t.Errorf("progress line %q", got)
	}
}

// TestVariantsDetect (issue 34 item 15): without -lang (or with -lang
// auto) each label's language is detected, as check -lang auto does,
// instead of judging every label as Hindi (MIXED_SCRIPT for any other
// script); -lang still names one language.
func TestVariantsDetect(t *testing.T) {
	for _, tc := range []struct {
		args []string
		out  string
		code int
	}{
		{[]string{"variants", "কলকাতা"}, "কলকাতা\tbn\n", exitOK},
		{[]string{"variants", "கடல்"}, "கடல்\tta\n", exitOK},
		{[]string{"variants", "کیا"}, "کیا\tur\tکيا (xn--mgb3eyn)\n", exitOK},
		{[]string{"variants", "-lang", "auto", "کیا", "कित्ताब"}, "کیا\tur\tکيا (xn--mgb3eyn)\nकित्ताब\thi\tकिताब (xn--11b4aya5ed)\n", exitOK},
		{[]string{"variants", "xn--11b4aya5ed"}, "xn--11b4aya5ed\thi\tकित्ताब (xn--11b4aa6a3fd3h)\n", exitOK},
		{[]string{"variants", "-lang", "hi", "কলকাতা"}, "কলকাতা\thi\tinvalid: MIXED_SCRIPT@0\n", exitInvalid},
		{[]string{"variants", "-lang", "bn", "কলকাতা"}, "কলকাতা\tbn\n", exitOK},
	} {
		if out, stderr, code := runCLI(t, "", tc.args...); out != tc.out || code != tc.code {
			t.Errorf("%q: exit %d %q %s, want %d %q", tc.args, code, out, stderr, tc.code, tc.out)
		}
	}
	// the JSON names the detected language
	out, _, _ := runCLI(t, "কলকাতা\n", "variants", "-json")
	var res variantsResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Lang != "bn" || len(res.Errors) != 0 {
		t.Errorf("variants -json of a Bengali label: %s", out)
	}
}

func TestVariantsCommand(t *testing.T) {
	out, _, code := runCLI(t, "किताब\nक्अब\nकमल\n", "variants", "-json")
	if code != exitInvalid {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines: %s", len(lines), out)
	}
	var first, second, third variantsResult
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	json.Unmarshal([]byte(lines[2]), &third)
	if first.ULabel != "किताब" || len(first.Variants) != 1 || first.Variants[0].ULabel != "कित्ताब" || first.Variants[0].ALabel != "xn--11b4aa6a3fd3h" {
		t.Errorf("किताब: %+v", first)
	}
	if len(second.Errors) == 0 || second.Variants == nil || len(second.Variants) != 0 {
		t.Errorf("क्अब: %+v", second)
	}
	if third.Variants == nil || len(third.Variants) != 0 || len(third.Errors) != 0 {
		t.Errorf("कमल has no variants: %+v (variants must be an empty array)", third)
	}
	if out, stderr, code := runCLI(t, "", "variants", "-lang", "auto", "किताब"); code != exitOK || out != "किताब\thi\tकित्ताब (xn--11b4aa6a3fd3h)\n" {
		t.Errorf("auto: exit %d %q %s", code, out, stderr)
	}
	out, _, _ = runCLI(t, "", "check", "-json", "किताब", "क्अब")
	if !strings.Contains(out, `"variants":["कित्ताब"]`) || !strings.Contains(out, `"variants":[]`) {
		t.Errorf("check -json variants: %s", out)
	}
	out, _, _ = runCLI(t, "", "check", "-lang", "auto", "-json", "किताब")
	if !strings.Contains(out, `"variants":["कित्ताब"]`) {
		t.Errorf("check -lang auto -json variants: %s", out)
	}
}
