package loopback

import (
	"net"
	"testing"
)

type echo struct{ ln net.Listener }

func (e *echo) Serve(ln net.Listener) error {
	e.ln = ln
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		c.Write([]byte("hi"))
		c.Close()
	}
}

func (e *echo) Close() error { return e.ln.Close() }

// TestServe: the address answers, on 127.0.0.1.
func TestServe(t *testing.T) {
	addr := Serve(t, &echo{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := make([]byte, 2)
	if _, err := c.Read(b); err != nil || string(b) != "hi" {
		t.Errorf("read %q %v", b, err)
	}
	if h, _, _ := net.SplitHostPort(addr); h != "127.0.0.1" {
		t.Errorf("address %s", addr)
	}
}
