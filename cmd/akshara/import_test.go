package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestImportAndReauditCommands drives the commands as an operator would:
// import a file, import it again, re-audit under a modified language file
// (-apply of it refused: the binary does not carry it), apply the
// compiled-in data (recorded in the audit log).
func TestImportAndReauditCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	file := filepath.Join(dir, "names.csv")
	if err := os.WriteFile(file, []byte("name,registrar\r\nबकक,old\r\nवकक,old\nस्त्रीकक,old\nक्अब,old\nकिताब,new\nकित्ताब,old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// registrars missing: usage error, nothing written
	_, stderr, code := runCLI(t, "", "import", "-db", db, "-zone", "भारत", "-contacts-exempt", file)
	if code != exitUsage || !strings.Contains(stderr, "-create-registrars") {
		t.Fatalf("import without registrars: exit %d, %s", code, stderr)
	}
	out, stderr, code := runCLI(t, "", "import", "-db", db, "-zone", "भारत", "-contacts-exempt", "-create-registrars", "-json", file)
	if code != exitInvalid {
		t.Fatalf("import: exit %d, want %d (one refused): %s", code, exitInvalid, stderr)
	}
	var sum registry.ImportSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if sum.Registered != 4 || sum.Exempted != 1 || sum.Refused != 1 || len(sum.RegistrarsCreated) != 2 {
		t.Errorf("import summary %+v, want 4 registered, 1 exempted (कित्ताब), 1 refused, 2 registrars", sum)
	}
	// again: resumes after the end, exit 0
	out, stderr, code = runCLI(t, "", "import", "-db", db, "-zone", "xn--h2brj9c", "-contacts-exempt", file)
	if code != exitOK || !strings.Contains(out, "skipped") {
		t.Errorf("import again: exit %d\n%s%s", code, out, stderr)
	}

	// re-audit under the compiled-in data: nothing to say
	out, stderr, code = runCLI(t, "", "reaudit", "-db", db)
	if code != exitOK || out != "" {
		t.Errorf("reaudit: exit %d, %q\n%s", code, out, stderr)
	}
	// under a modified Hindi file
	opts := registrytest.ModifiedHindi(t)
	mod := filepath.Join(dir, "hi.lang")
	if err := os.WriteFile(mod, registrytest.ModifiedHindiFile(t), 0o644); err != nil {
		t.Fatal(err)
	}
	// issue 22: -apply with data the binary does not carry is refused,
	// and nothing is written: the same findings after it
	if out, stderr, code := runCLI(t, "", "reaudit", "-db", db, "-langfile", mod, "-apply"); code != exitUsage || out != "" || !strings.Contains(stderr, "-apply refused") {
		t.Errorf("reaudit -langfile (modified) -apply: exit %d, %q\n%s", code, out, stderr)
	}
	for range 2 {
		args := []string{"reaudit", "-db", db, "-langfile", mod}
		out, stderr, code = runCLI(t, "", args...)
		if code != exitInvalid {
			t.Fatalf("reaudit %v: exit %d: %s", args, code, stderr)
		}
		listed := map[string]registry.ReauditFinding{}
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var f registry.ReauditFinding
			if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
				t.Fatalf("%v: %s", err, sc.Text())
			}
			listed[f.Name] = f
		}
		// स्त्रीकक invalid, बकक and वकक conflict, and the exempted pair
		// किताब, कित्ताब gain the homographs with व
		if len(listed) != 5 || !listed["स्त्रीकक.भारत"].Invalid || len(listed["बकक.भारत"].ConflictsWith) != 1 || len(listed["किताब.भारत"].SetAdded) != 2 {
			t.Errorf("reaudit %v listed %v", args, listed)
		}
		if !strings.Contains(stderr, opts.DataVersion) {
			t.Errorf("reaudit summary does not name the data version %s:\n%s", opts.DataVersion, stderr)
		}
	}
	// -apply with the compiled-in file itself is taken, and the audit
	// record names the data applied
	out, stderr, code = runCLI(t, "", "reaudit", "-db", db, "-langfile", "../../languages/hi.lang", "-apply")
	if code != exitOK || out != "" {
		t.Errorf("reaudit -langfile (compiled-in) -apply: exit %d, %q\n%s", code, out, stderr)
	}
	out, _, _ = runCLI(t, "", "audit-log", "-db", db, "-action", "reaudit-apply")
	var e registry.AuditEntry
	if err := json.Unmarshal([]byte(out), &e); err != nil || e.Result != "ok" || e.Registrar != "" ||
		!strings.HasPrefix(e.Name, "data "+akshara.DataVersion()+" relation ") || strings.Count(out, "\n") != 1 {
		t.Errorf("audit-log -action reaudit-apply: %q (%v); want one record naming data %s", out, err, akshara.DataVersion())
	}
}

// TestImportReservedCommand: a reserved name and its variant are refused
// with RESERVED (exit 1, counted in the summary) unless -allow-reserved.
func TestImportReservedCommand(t *testing.T) {
	for _, tc := range []struct {
		flags      []string
		code       int
		registered int64
		reserved   int64 // refused with RESERVED
	}{
		{nil, exitInvalid, 1, 2},
		{[]string{"-allow-reserved"}, exitOK, 2, 0},
	} {
		t.Run(strings.Join(append([]string{"flags"}, tc.flags...), " "), func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "r.db")
			file := filepath.Join(dir, "names.txt")
			if err := os.WriteFile(file, []byte("किताब\nकित्ताब\nपुस्तक\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, errOut, code := runCLI(t, "", "reserve", "add", "-db", db, "किताब.भारत"); code != exitOK {
				t.Fatalf("reserve add: exit %d: %s", code, errOut)
			}
			args := append([]string{"import", "-db", db, "-zone", "भारत", "-registrar", "old", "-contacts-exempt", "-create-registrars", "-json"}, tc.flags...)
			out, errOut, code := runCLI(t, "", append(args, file)...)
			if code != tc.code {
				t.Fatalf("import %v: exit %d, want %d: %s", tc.flags, code, tc.code, errOut)
			}
			var sum registry.ImportSummary
			if err := json.Unmarshal([]byte(out), &sum); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var reserved int64
			for _, c := range sum.RefusedByCode {
				if c.Code == registry.CodeReserved {
					reserved = c.Count
				}
			}
			if sum.Registered != tc.registered || sum.Refused != tc.reserved || reserved != tc.reserved {
				t.Errorf("import %v: %+v, want %d registered, %d refused RESERVED", tc.flags, sum, tc.registered, tc.reserved)
			}
		})
	}
}

// TestImportExpiresCommand: the summary counts the domains imported
// without an expiry (text and -json), and the command, not the registry,
// times the import (elapsed and rate are filled).
func TestImportExpiresCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "names.csv")
	if err := os.WriteFile(file, []byte("name,registrar,created,expires\nकिताब,old,2020-01-01,2040-01-01\nकमल,old,,\nसागर,old,2020-01-01,2019-01-01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "", "import", "-db", filepath.Join(dir, "a.db"), "-zone", "भारत", "-contacts-exempt", "-create-registrars", "-json", file)
	if code != exitInvalid {
		t.Fatalf("import -json: exit %d, want %d (one refused): %s", code, exitInvalid, stderr)
	}
	var sum registry.ImportSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(out, `"without_expiry": 1`) || sum.Registered != 2 || sum.WithoutExpiry != 1 || sum.Refused != 1 || sum.Elapsed <= 0 || sum.Rate <= 0 {
		t.Errorf("import -json: %s\nwant 2 registered, without_expiry 1, 1 refused (BAD_EXPIRY), elapsed and rate set", out)
	}
	out, stderr, code = runCLI(t, "", "import", "-db", filepath.Join(dir, "b.db"), "-zone", "भारत", "-contacts-exempt", "-create-registrars", file)
	if code != exitInvalid || !regexp.MustCompile(`without expiry +1 +\(`).MatchString(out) || !strings.Contains(out, "BAD_EXPIRY") {
		t.Errorf("import: exit %d, summary\n%s%s\nwant 'without expiry  1' and BAD_EXPIRY", code, out, stderr)
	}
}
