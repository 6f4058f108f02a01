package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestServeEnvironment (issue 22): every environment variable the program
// reads, and every one deploy/akshara.env sets, is listed in "serve -h"
// with its flag, and does set that flag (its default in -h becomes the
// variable's value).
func TestServeEnvironment(t *testing.T) {
	varRE := regexp.MustCompile(`"(AKSHARA_[A-Z0-9_]+)"`)
	read := map[string]bool{}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range varRE.FindAllStringSubmatch(string(b), -1) {
			read[m[1]] = true
		}
	}
	if len(read) < 5 {
		t.Fatalf("found %d variables in the source: the scan is broken", len(read))
	}
	envFile := envFileVars(t)
	for v := range envFile {
		if !read[v] {
			t.Errorf("deploy/akshara.env sets %s, which the program does not read", v)
		}
	}

	// serve -h with each variable set to a value of its own
	for v := range read {
		t.Setenv(v, "value-of-"+v)
	}
	_, usage, code := runCLI(t, "", "serve", "-h")
	if code != exitOK {
		t.Fatalf("serve -h: exit %d", code)
	}
	table := regexp.MustCompile(`(?m)^  (AKSHARA_[A-Z0-9_]+) +(-[a-z-]+)$`)
	listed := map[string]string{}
	for _, m := range table.FindAllStringSubmatch(usage, -1) {
		listed[m[1]] = m[2]
	}
	for v := range read {
		flag, ok := listed[v]
		if !ok {
			t.Errorf("serve -h does not list %s with its flag", v)
			continue
		}
		// the flag's line in the defaults, then its help line
		i := strings.Index(usage, "\n  "+flag+" ")
		if i < 0 {
			t.Errorf("serve -h has no flag %s (for %s)", flag, v)
			continue
		}
		line := usage[i+1:]
		if j := strings.Index(line[1:], "\n  -"); j >= 0 {
			line = line[:j+1]
		}
		if !strings.Contains(line, `(default "value-of-`+v+`")`) {
			t.Errorf("%s does not set %s:\n%s", v, flag, line)
		}
	}
}

// envFileVars returns the variables deploy/akshara.env sets or shows
// (commented out), with their values.
func envFileVars(t *testing.T) map[string]string {
	b, err := os.ReadFile("../../deploy/akshara.env")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^#?(AKSHARA_[A-Z0-9_]+)=(.*)$`).FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = m[2]
	}
	return out
}

// TestUnitBindsEPP (issue 22): deploy/akshara.env serves EPP (address,
// certificate, key), and where its port is below 1024 (700, the IANA
// port) the unit grants CAP_NET_BIND_SERVICE, bounding and ambient, so the
// akshara user can bind it; and no other capability.
func TestUnitBindsEPP(t *testing.T) {
	env := envFileVars(t)
	for _, v := range []string{"AKSHARA_EPP", "AKSHARA_EPP_CERT", "AKSHARA_EPP_KEY"} {
		if env[v] == "" {
			t.Errorf("deploy/akshara.env does not set %s", v)
		}
	}
	_, port, err := net.SplitHostPort(env["AKSHARA_EPP"])
	if err != nil {
		t.Fatalf("AKSHARA_EPP=%q: %v", env["AKSHARA_EPP"], err)
	}
	p, _ := strconv.Atoi(port)
	b, err := os.ReadFile("../../deploy/akshara.service")
	if err != nil {
		t.Fatal(err)
	}
	caps := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && (k == "CapabilityBoundingSet" || k == "AmbientCapabilities") {
			caps[k] = strings.Fields(v)
		}
	}
	for _, k := range []string{"CapabilityBoundingSet", "AmbientCapabilities"} {
		want := []string{}
		if p < 1024 {
			want = []string{"CAP_NET_BIND_SERVICE"}
		}
		if got := caps[k]; !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("akshara.service %s=%v; with EPP on port %d want %v", k, got, p, want)
		}
	}
}

// TestUnitCapabilitiesBindEPP (issue 22): the server, run as an
// unprivileged user with exactly the capabilities of deploy/akshara.service
// (bounding and ambient, through setpriv), binds EPP on a port below 1024;
// without them it cannot. Needs root and setpriv (util-linux): skipped
// otherwise, except in CI.
func TestUnitCapabilitiesBindEPP(t *testing.T) {
	setpriv, err := exec.LookPath("setpriv")
	if err != nil || os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI runs as root with setpriv (util-linux): %v, euid %d", err, os.Geteuid())
		}
		t.Skipf("needs root and setpriv: %v, euid %d", err, os.Geteuid())
	}
	b, err := os.ReadFile("../../deploy/akshara.service")
	if err != nil {
		t.Fatal(err)
	}
	var ambient []string
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "AmbientCapabilities="); ok {
			ambient = strings.Fields(v)
		}
	}
	// a directory the unprivileged user can use, with a copy of the test
	// binary it can run
	dir, err := os.MkdirTemp("", "akshara-caps-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "akshara")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	// a free port below 1024
	port := 0
	for p := 700; p < 1024 && port == 0; p++ {
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
			ln.Close()
			port = p
		}
	}
	if port == 0 {
		t.Skip("no free port below 1024")
	}
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_unprivileged_port_start"); err == nil {
		if start, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && port >= start {
			t.Skipf("net.ipv4.ip_unprivileged_port_start=%d: any user binds port %d here, the capability proves nothing", start, port)
		}
	}
	run := func(caps []string) (string, bool) {
		args := []string{"--reuid=65534", "--regid=65534", "--clear-groups"}
		set := "-all"
		for _, c := range caps {
			set += ",+" + strings.ToLower(strings.TrimPrefix(c, "CAP_"))
		}
		args = append(args, "--inh-caps="+set, "--bounding-set="+set)
		if len(caps) > 0 {
			args = append(args, "--ambient-caps="+strings.TrimPrefix(set, "-all,"))
		}
		args = append(args, bin, "serve", "-addr", "127.0.0.1:0", "-epp", "127.0.0.1:"+strconv.Itoa(port), "-db", filepath.Join(dir, "r.db"))
		cmd := exec.Command(setpriv, args...)
		cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1")
		stdout, _ := cmd.StdoutPipe()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "EPP on ") {
				return sc.Text(), true
			}
		}
		cmd.Wait()
		return stderr.String(), false
	}
	if out, ok := run(ambient); !ok {
		t.Errorf("as nobody with the unit's capabilities %v, EPP on port %d did not start:\n%s", ambient, port, out)
	}
	if out, ok := run(nil); ok || !strings.Contains(out, "permission denied") {
		t.Errorf("as nobody without capabilities, EPP on port %d: %s (the check proves nothing)", port, out)
	}
}
