package pgtest

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestUnreachableDSN: with the DSN set but nothing listening at its port,
// a test using DSN fails with one line that names the variable, the DSN
// and the cause (issue 22), not a driver error per test without either.
func TestUnreachableDSN(t *testing.T) {
	if os.Getenv("PGTEST_HELPER") == "1" {
		DSN(t)
		t.Fatal("DSN returned with nothing listening")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing answers at addr now
	dsn := "postgres://postgres:secret@" + addr + "/test?sslmode=disable"
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnreachableDSN$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PGTEST_HELPER=1", EnvDSN+"="+dsn)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the test passed with %s at a closed port:\n%s", EnvDSN, out)
	}
	var msgs []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "pgtest") && strings.Contains(l, ".go:") {
			msgs = append(msgs, strings.TrimSpace(l))
		}
	}
	if len(msgs) != 1 {
		t.Fatalf("want one failure line, got %d:\n%s", len(msgs), out)
	}
	m := msgs[0]
	for _, want := range []string{EnvDSN, "postgres://postgres:xxxxx@" + addr + "/test", "no PostgreSQL server answers", "connection refused"} {
		if !strings.Contains(m, want) {
			t.Errorf("the failure line lacks %q: %s", want, m)
		}
	}
	if strings.Contains(m, "secret") {
		t.Errorf("the failure line shows the password: %s", m)
	}
}

// TestUnsetUnderCI: under CI=true a missing DSN fails the test instead of
// skipping it (a skipped PostgreSQL suite would hide the whole store).
func TestUnsetUnderCI(t *testing.T) {
	if os.Getenv("PGTEST_HELPER") == "2" {
		DSN(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnsetUnderCI$", "-test.count=1", "-test.v")
	env := []string{"PGTEST_HELPER=2", "CI=true"}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, EnvDSN+"=") && !strings.HasPrefix(e, "CI=") {
			env = append(env, e)
		}
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), EnvDSN+" is not set under CI=true") {
		t.Fatalf("want a failure naming %s under CI=true, got (err %v):\n%s", EnvDSN, err, out)
	}
}
