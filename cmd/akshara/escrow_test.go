package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/escrow"
)

// TestEscrowCLI: deposit (sealed), verify the directory, restore into a
// new database; a restore into a database that is not empty is refused.
func TestEscrowCLI(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "src.db")
	if _, errOut, code := runCLI(t, "", "registrar", "add", "-db", db, "alpha"); code != 0 {
		t.Fatalf("registrar add: %s", errOut)
	}
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	keys := map[string]string{}
	for _, n := range []string{"agent", "registry"} {
		pub, sec, err := escrow.NewKey(n, n+"@example.test")
		if err != nil {
			t.Fatal(err)
		}
		keys[n+".pub"], keys[n+".sec"] = filepath.Join(dir, n+".pub.asc"), filepath.Join(dir, n+".sec.asc")
		os.WriteFile(keys[n+".pub"], pub, 0o644)
		os.WriteFile(keys[n+".sec"], sec, 0o600)
	}
	if _, errOut, code := runCLI(t, "", "escrow", "deposit", "-db", db, "-o", out, "-watermark", "2030-01-01T00:00:00Z"); code != exitUsage || !strings.Contains(errOut, "-encrypt-to") {
		t.Errorf("deposit without keys nor -plain: %d %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", "escrow", "deposit", "-db", db, "-o", out, "-watermark", "2030-01-01T00:00:00Z", "-encrypt-to", keys["agent.pub"], "-sign-with", keys["registry.sec"]); code != 0 {
		t.Fatalf("deposit: %s", errOut)
	}
	ryde := filepath.Join(out, "in_2030-01-01_full_S1_R0.ryde")
	if _, err := os.Stat(ryde); err != nil {
		t.Fatal(err)
	}
	open := []string{"-verify-with", keys["registry.pub"], "-decrypt-with", keys["agent.sec"]}
	if stdout, errOut, code := runCLI(t, "", append(append([]string{"escrow", "verify", "-schema=false"}, open...), out)...); code != 0 || !strings.Contains(stdout, "ok (FULL") {
		t.Fatalf("verify: %d %s %s", code, stdout, errOut)
	}
	dst := filepath.Join(dir, "dst.db")
	if stdout, errOut, code := runCLI(t, "", append(append([]string{"escrow", "restore", "-db", dst}, open...), out)...); code != 0 || !strings.Contains(stdout, `"Registrars": 1`) {
		t.Fatalf("restore: %d %s %s", code, stdout, errOut)
	}
	if _, errOut, code := runCLI(t, "", append(append([]string{"escrow", "restore", "-db", dst}, open...), out)...); code != exitInvalid || !strings.Contains(errOut, "ESCROW_RESTORE") {
		t.Errorf("restore into a registry that is not empty: %d %s", code, errOut)
	}
	// signed by the agent's key instead: refused
	if _, errOut, code := runCLI(t, "", "escrow", "verify", "-schema=false", "-verify-with", keys["agent.pub"], "-decrypt-with", keys["agent.sec"], ryde); code != exitInvalid || !strings.Contains(errOut, "ESCROW_SIGNATURE") {
		t.Errorf("verify with the wrong key: %d %s", code, errOut)
	}
}

// TestEscrowTimers: the escrow timers' services run deposits with flags
// the command has, FULL on Sunday and DIFF the other days, by 23:59 UTC.
func TestEscrowTimers(t *testing.T) {
	_, usage, _ := runCLI(t, "", "escrow", "deposit", "-h")
	for kind, day := range map[string]string{"full": "Sun ", "diff": "Mon..Sat "} {
		svc, err := os.ReadFile(filepath.Join("..", "..", "deploy", "akshara-escrow-"+kind+".service"))
		if err != nil {
			t.Fatal(err)
		}
		var exec string
		for _, l := range strings.Split(string(svc), "\n") {
			if strings.HasPrefix(l, "ExecStart=") {
				exec = strings.TrimPrefix(l, "ExecStart=")
			}
		}
		args := strings.Fields(exec)
		if len(args) < 4 || args[1] != "escrow" || args[2] != "deposit" || !strings.Contains(exec, "-type "+strings.ToUpper(kind)) {
			t.Errorf("%s: ExecStart %q", kind, exec)
		}
		for _, a := range args[3:] {
			if strings.HasPrefix(a, "-") && !strings.Contains(usage, "  "+a+" ") {
				t.Errorf("%s: flag %s is not one of escrow deposit's", kind, a)
			}
		}
		timer, err := os.ReadFile(filepath.Join("..", "..", "deploy", "akshara-escrow-"+kind+".timer"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(timer), "OnCalendar="+day+"*-*-* 23:30:00 UTC") {
			t.Errorf("%s timer: %s", kind, timer)
		}
	}
}

// TestEscrowProgress: a deposit, a verify and a restore show how far they
// have got on standard error (where it is not a terminal: a line every
// escrowProgressEvery and the last stage's at the end), and nothing with
// -no-progress; standard output is the same either way.
func TestEscrowProgress(t *testing.T) {
	every := escrowProgressEvery
	escrowProgressEvery = time.Millisecond
	t.Cleanup(func() { escrowProgressEvery = every })
	dir := t.TempDir()
	db := filepath.Join(dir, "src.db")
	if _, errOut, code := runCLI(t, "", "registrar", "add", "-db", db, "alpha"); code != 0 {
		t.Fatalf("registrar add: %s", errOut)
	}
	for i, quiet := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		os.Mkdir(out, 0o755)
		dst := filepath.Join(dir, fmt.Sprint("dst", i, ".db"))
		var flag []string
		if quiet {
			flag = []string{"-no-progress"}
		}
		for _, c := range []struct {
			args []string
			want string
		}{
			{append([]string{"escrow", "deposit", "-db", db, "-o", out, "-plain", "-watermark", "2030-01-01T00:00:00Z"}, flag...),
				"akshara escrow deposit: recording the fingerprints: "},
			{append([]string{"escrow", "verify", "-schema=false"}, append(flag, out)...), "akshara escrow verify: verifying "},
			{append([]string{"escrow", "restore", "-db", dst}, append(flag, out)...), "akshara escrow restore: restoring the "},
		} {
			stdout, errOut, code := runCLI(t, "", c.args...)
			if code != 0 || stdout == "" {
				t.Fatalf("%v: %d %s %s", c.args, code, stdout, errOut)
			}
			last := errOut[strings.LastIndex(strings.TrimSuffix(errOut, "\n"), "\n")+1:]
			switch {
			case quiet && errOut != "":
				t.Errorf("%v: %q", c.args, errOut)
			case !quiet && (!strings.HasPrefix(last, c.want) || !strings.Contains(last, " objects in ")):
				t.Errorf("%v: the last line %q, want %q…", c.args, last, c.want)
			}
		}
	}
}
