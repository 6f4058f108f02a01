// Package loopback starts a test's server on a free port of 127.0.0.1.
package loopback

import (
	"net"
	"testing"
)

// Server is a server that serves a listener until it is closed (the EPP
// and WHOIS servers).
type Server interface {
	Serve(net.Listener) error
	Close() error
}

// Serve serves srv on 127.0.0.1 and a free port until the test ends, and
// returns the address.
func Serve(t testing.TB, srv Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}
