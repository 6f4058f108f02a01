package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestServeWHOIS runs "akshara serve" with AKSHARA_WHOIS (the variable of
// -whois) and -whois-burst 2 in a child process: a name is answered over
// WHOIS, and the third query from the address is refused with the
// rate-limit line.
func TestServeWHOIS(t *testing.T) {
	db := t.TempDir() + "/r.db"
	cmd := exec.Command(os.Args[0], "serve", "-addr", "127.0.0.1:0", "-db", db, "-whois-rate", "0.001", "-whois-burst", "2")
	cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1", "AKSHARA_WHOIS=127.0.0.1:0")
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	var addr string
	for addr == "" {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("no WHOIS line: %v\n%s", err, stderr.String())
		}
		if a, ok := strings.CutPrefix(strings.TrimSpace(line), "WHOIS on "); ok {
			addr = a
		}
	}
	query := func(q string) string {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		io.WriteString(c, q+"\r\n")
		b, _ := io.ReadAll(c)
		return string(b)
	}
	if got := query("कमल.भारत."); !strings.Contains(got, "Domain Name: xn--11b4cm.xn--h2brj9c\r\n") || !strings.Contains(got, "Status: available\r\n") {
		t.Errorf("कमल.भारत.: %q", got)
	}
	if got := query("x.nozone"); !strings.Contains(got, "Code: UNKNOWN_ZONE\r\n") {
		t.Errorf("x.nozone: %q", got)
	}
	if got := query("कमल.भारत"); !strings.HasPrefix(got, "% RATE_LIMITED: ") {
		t.Errorf("third query with -whois-burst 2: %q", got)
	}
}
