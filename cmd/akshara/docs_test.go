package main

// Tests that keep the README and docs/ true to the commands (issue 34 item
// 15): the README's examples are run as written and their output compared
// with the README's; every command's one-line summary names the
// subcommands its usage lists; version's hint is the documented build.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// readme returns the README's lines.
func readme(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

// codeBlocks returns the README's indented code blocks, each its lines
// without the indentation.
func codeBlocks(lines []string) [][]string {
	var blocks [][]string
	var cur []string
	for _, l := range lines {
		if code, ok := strings.CutPrefix(l, "    "); ok {
			cur = append(cur, code)
			continue
		}
		if len(cur) > 0 {
			blocks = append(blocks, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		blocks = append(blocks, cur)
	}
	return blocks
}

const goRun = "go run ./cmd/akshara "

// TestReadmeCheck: the README's check example, run: its output is the
// README's, line for line (a line ending in … is a prefix of the real one);
// so is docs/cli.md's example of the text output.
func TestReadmeCheck(t *testing.T) {
	blocks := codeBlocks(readme(t))
	found := 0
	for i, b := range blocks {
		if len(b) != 1 || !strings.HasPrefix(b[0], goRun+"check ") || i+1 >= len(blocks) {
			continue
		}
		found++
		sameOutput(t, "README.md", strings.Fields(strings.TrimPrefix(b[0], goRun)), blocks[i+1])
	}
	if found == 0 {
		t.Fatal("the README has no check example followed by its output")
	}
	cli, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	// "One line per label, fields separated by a tab (`akshara check …`):"
	_, rest, _ := strings.Cut(string(cli), "### Text output")
	m := regexp.MustCompile("\\(`akshara (check [^`]*)`\\):\n").FindStringSubmatchIndex(rest)
	if m == nil {
		t.Fatal("docs/cli.md: no example command under Text output")
	}
	sameOutput(t, "docs/cli.md", strings.Fields(rest[m[2]:m[3]]), codeBlocks(strings.Split(rest[m[1]:], "\n"))[0])
}

// sameOutput runs the command args and compares its output with want,
// line for line (a line of want ending in … is a prefix of the real one).
func sameOutput(t *testing.T, doc string, args, want []string) {
	t.Helper()
	out, stderr, _ := runCLI(t, "", args...)
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(want) {
		t.Errorf("%s: akshara %s: %d lines, the document shows %d:\n%s%s", doc, strings.Join(args, " "), len(got), len(want), out, stderr)
		return
	}
	for j := range want {
		if prefix, cut := strings.CutSuffix(want[j], "…"); cut && strings.HasPrefix(got[j], prefix) || got[j] == want[j] {
			continue
		}
		t.Errorf("%s: akshara %s, line %d:\n  the command: %q\n the document: %q", doc, strings.Join(args, " "), j+1, got[j], want[j])
	}
}

// TestReadmeRegistry: the README's registry examples (its code blocks with
// requests to the HTTP API) run as written, in order, in an empty working
// directory: "go run ./cmd/akshara …" lines (and VAR=$(…)) are the
// command, each curl a request to the registry on akshara.db there; each
// "# → STATUS "key":value …" comment is checked against the answer (its
// status and every fragment in its body). A line of another form fails
// the test: the README's examples are all run.
func TestReadmeRegistry(t *testing.T) {
	var lines []string
	for _, b := range codeBlocks(readme(t)) {
		if slices.ContainsFunc(b, func(l string) bool { return strings.Contains(l, "http://127.0.0.1:8080/v1/") }) {
			lines = append(lines, b...)
		}
	}
	if len(lines) < 5 {
		t.Fatalf("the README's registry examples: %d lines", len(lines))
	}
	t.Chdir(t.TempDir())
	vars := map[string]string{}
	// the server runs only between commands: one process keeps one store
	// open on the file, as an operator's machine has a server and commands
	// in separate processes
	var ts *httptest.Server
	var store *sqlstore.Store
	stop := func() {
		if ts != nil {
			ts.Close()
			store.Close()
			ts, store = nil, nil
		}
	}
	defer stop()
	start := func() {
		if ts != nil {
			return
		}
		ctx := context.Background()
		var err error
		if store, err = sqlite.Open(ctx, "akshara.db"); err != nil {
			t.Fatal(err)
		}
		svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
		if err != nil {
			t.Fatal(err)
		}
		ts = httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
	}
	expect := regexp.MustCompile(`"[a-z_]+":(\[[^\]]*\]|"[^"]*"|[^\s"]+)`)
	ran := 0
	for _, line := range lines {
		words, comment, err := shellWords(line, vars)
		if err != nil {
			t.Fatalf("README: %s: %v", line, err)
		}
		if len(words) == 0 {
			continue
		}
		assign := ""
		if v, rest, ok := strings.Cut(words[0], "=$("); ok && strings.HasSuffix(words[len(words)-1], ")") {
			assign = v
			words[0] = rest
			words[len(words)-1] = strings.TrimSuffix(words[len(words)-1], ")")
		}
		switch {
		case len(words) > 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/akshara":
			stop()
			out, stderr, code := runCLI(t, "", words[3:]...)
			if code != exitOK {
				t.Fatalf("README: %s: exit %d %s", line, code, stderr)
			}
			if assign != "" {
				vars[assign] = strings.TrimSpace(out)
			}
		case words[0] == "curl" && assign == "":
			start()
			status, body := curl(t, ts, words[1:])
			want, has := strings.CutPrefix(strings.TrimSpace(comment), "→")
			if !has {
				if status/100 != 2 {
					t.Errorf("README: %s: %d %s", line, status, body)
				}
				break
			}
			fields := strings.Fields(want)
			if len(fields) == 0 || fields[0] != strconv.Itoa(status) {
				t.Errorf("README: %s\n answered %d, the README says %q\n %s", line, status, want, body)
			}
			for _, frag := range expect.FindAllString(want, -1) {
				if !strings.Contains(body, frag) {
					t.Errorf("README: %s\n the answer has no %s:\n %s", line, frag, body)
				}
			}
		default:
			t.Fatalf("README: a line this test does not run (run it here, or leave it out of the blocks with /v1/ requests): %s", line)
		}
		ran++
	}
	t.Logf("%d lines of the README run", ran)
}

// curl sends what a curl command line of the README (-s, -X, -H, -d, URL)
// sends, to ts instead of 127.0.0.1:8080.
func curl(t *testing.T, ts *httptest.Server, args []string) (int, string) {
	t.Helper()
	method, url, body := "", "", ""
	header := http.Header{}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-s":
		case (a == "-X" || a == "-H" || a == "-d") && i+1 < len(args):
			i++
			switch a {
			case "-X":
				method = args[i]
			case "-H":
				k, v, _ := strings.Cut(args[i], ":")
				header.Add(k, strings.TrimSpace(v))
			case "-d":
				body = args[i]
			}
		case strings.HasPrefix(a, "http://127.0.0.1:8080/"):
			url = ts.URL + strings.TrimPrefix(a, "http://127.0.0.1:8080")
		default:
			t.Fatalf("curl: an option this test does not know: %q", a)
		}
	}
	if method == "" {
		method = "GET"
		if body != "" {
			method = "POST"
		}
	}
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded") // curl -d
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// shellWords splits a line as sh would for the README's examples: words
// apart by spaces, '…' literal, "…" with $VAR expanded, $VAR expanded
// outside quotes too, and a # outside quotes starting the comment.
func shellWords(line string, vars map[string]string) (words []string, comment string, err error) {
	var w strings.Builder
	inWord := false
	expand := func(s string, i int) (int, string) { // s[i] == '$'
		j := i + 1
		for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if j == i+1 {
			return i + 1, "$"
		}
		return j, vars[s[i+1:j]]
	}
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
			i++
		case c == '#' && !inWord:
			return words, line[i+1:], nil
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, "", errUnclosed
			}
			w.WriteString(line[i+1 : i+1+j])
			inWord, i = true, i+2+j
		case c == '"':
			i++
			for i < len(line) && line[i] != '"' {
				if line[i] == '$' && (i+1 >= len(line) || line[i+1] != '(') {
					var v string
					i, v = expand(line, i)
					w.WriteString(v)
					continue
				}
				w.WriteByte(line[i])
				i++
			}
			if i >= len(line) {
				return nil, "", errUnclosed
			}
			inWord, i = true, i+1
		case c == '$' && (i+1 >= len(line) || line[i+1] != '('):
			var v string
			i, v = expand(line, i)
			w.WriteString(v)
			inWord = true
		default:
			w.WriteByte(c)
			inWord, i = true, i+1
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, "", nil
}

var errUnclosed = errors.New("an unclosed quote")

// TestCommandSummaries: the summary of each command in "akshara help"
// names every subcommand its usage lists (zone's lacked publish and
// verify), and each it names is one the command takes.
func TestCommandSummaries(t *testing.T) {
	lead := regexp.MustCompile(`^[a-z-]+(\|[a-z-]+)*:`) // a summary that begins with its subcommands
	alts := regexp.MustCompile(`^[a-z-]+(\|[a-z-]+)*`)
	checked := 0
	for name, c := range commands {
		summary := strings.TrimSuffix(lead.FindString(c.summary), ":")
		if summary == "" {
			continue // a command without subcommands
		}
		// without a subcommand: the usage, on standard error
		_, usage, code := runCLI(t, "", name)
		first, _, _ := strings.Cut(usage, "\n")
		listed := alts.FindString(strings.TrimPrefix(first, "usage: akshara "+name+" "))
		if code != exitUsage || listed == "" {
			t.Errorf("akshara %s: exit %d, no subcommands in %q", name, code, first)
			continue
		}
		checked++
		names := strings.Split(summary, "|")
		for _, sub := range strings.Split(listed, "|") {
			if !slices.Contains(names, sub) {
				t.Errorf("akshara help: %s %q does not name %s, which its usage lists (%s)", name, c.summary, sub, first)
			}
		}
		for _, sub := range names {
			if _, stderr, code := runCLI(t, "", name, sub, "-h"); code != exitOK {
				t.Errorf("akshara %s %s -h: exit %d (the summary names it): %.200s", name, sub, code, stderr)
			}
		}
	}
	if checked < 5 {
		t.Errorf("%d commands with subcommands checked", checked)
	}
}

// TestVersionHint: "akshara version" of a binary without version
// information tells how to build one that has it, with the command
// docs/operations.md installs with (-buildvcs=true: a plain go build
// stamps nothing where GOFLAGS has -buildvcs=false).
func TestVersionHint(t *testing.T) {
	m := regexp.MustCompile(`"(go build [^"]*)"`).FindStringSubmatch(unknownVersion)
	if m == nil {
		t.Fatalf("the hint names no go build command: %s", unknownVersion)
	}
	ops, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	var install string
	for _, l := range strings.Split(string(ops), "\n") {
		if strings.Contains(l, "go build") {
			install = l
			break
		}
	}
	for _, w := range strings.Fields(m[1]) {
		if !strings.Contains(install, w) {
			t.Errorf("the hint's %q has %s; docs/operations.md installs with %q", m[1], w, strings.TrimSpace(install))
		}
	}
	if !strings.Contains(m[1], "-buildvcs=true") {
		t.Errorf("the hint's %q would stamp nothing under GOFLAGS=-buildvcs=false", m[1])
	}
}
