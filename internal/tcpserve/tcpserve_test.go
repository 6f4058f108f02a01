package tcpserve

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"
)

// TestServeClose: a connection is handed to handle; Close closes it, ends
// Serve with the closed error and waits for handle to return; Serve after
// Close returns at once.
func TestServeClose(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedErr := errors.New("closed")
	var c Conns
	handled := make(chan struct{})
	returned := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- c.Serve(ln, "test", slog.New(slog.DiscardHandler), closedErr, func(conn net.Conn) {
			close(handled)
			io.Copy(io.Discard, conn) // until Close closes it
			close(returned)
		})
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	select {
	case <-handled:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection was not handed to handle")
	}
	c.Close()
	select {
	case <-returned:
	default:
		t.Error("Close returned before handle did")
	}
	if err := <-served; err != closedErr {
		t.Errorf("Serve after Close: %v, want %v", err, closedErr)
	}
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	if err := c.Serve(ln2, "test", slog.New(slog.DiscardHandler), closedErr, func(net.Conn) {}); err != closedErr {
		t.Errorf("Serve on a closed Conns: %v", err)
	}
}
