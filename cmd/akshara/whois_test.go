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
	addr := serveWHOIS(t, "-whois-rate", "0.001", "-whois-burst", "2")
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

// serveWHOIS runs "akshara serve" with AKSHARA_WHOIS=127.0.0.1:0 and the
// flags args in a child process, and returns the WHOIS address.
func serveWHOIS(t *testing.T, args ...string) string {
	t.Helper()
	db := t.TempDir() + "/r.db"
	cmd := exec.Command(os.Args[0], append([]string{"serve", "-addr", "127.0.0.1:0", "-db", db}, args...)...)
	cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1", "AKSHARA_WHOIS=127.0.0.1:0")
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	for {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("no WHOIS line: %v\n%s", err, stderr.String())
		}
		if a, ok := strings.CutPrefix(strings.TrimSpace(line), "WHOIS on "); ok {
			return a
		}
	}
}

// TestServeWhoisConnsPerAddr: with -whois-max-conns-per-addr 1, of two
// connections 127.0.0.1 holds open (sending nothing), one is refused
// with the line saying why, and 127.0.0.2 is answered meanwhile.
func TestServeWhoisConnsPerAddr(t *testing.T) {
	addr := serveWHOIS(t, "-whois-rate", "-1", "-whois-max-conns-per-addr", "1")
	dial := func(from string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("from %s: %v", from, err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(20 * time.Second))
		return c
	}
	refused := make(chan string, 2)
	for range 2 {
		c := dial("127.0.0.1")
		go func() {
			if b, _ := io.ReadAll(c); len(b) > 0 {
				refused <- string(b)
			}
		}()
	}
	select {
	case got := <-refused:
		if want := "% RATE_LIMITED: 127.0.0.1 has 1 connections open, the most one address may; retry later\r\n"; got != want {
			t.Errorf("the second connection of 127.0.0.1: %q, want %q", got, want)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("two connections of 127.0.0.1 held with -whois-max-conns-per-addr 1: none refused")
	}
	c := dial("127.0.0.2")
	io.WriteString(c, "कमल.भारत\r\n")
	if b, _ := io.ReadAll(c); !strings.Contains(string(b), "Status: available\r\n") {
		t.Errorf("127.0.0.2 while 127.0.0.1 holds its connection: %q", b)
	}
}
