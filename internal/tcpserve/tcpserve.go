// Package tcpserve is the accept loop and connection bookkeeping the
// project's TCP servers share (EPP and WHOIS): serve a listener, one
// goroutine a connection, back off on a temporary accept error, and on
// Close stop every listener, close every connection and wait for them.
package tcpserve

import (
	"errors"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"
)

// Conns tracks a server's listeners and connections. Its zero value is
// ready to use.
type Conns struct {
	mu     sync.Mutex
	lns    map[net.Listener]struct{}
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Serve accepts connections on ln and runs handle on each in a goroutine
// of its own, closing the connection when handle returns. It returns
// closedErr once Close has been called, or the accept error that is not
// temporary; a temporary one (a timeout, too many open files) is logged
// as "NAME: accept" and retried after a growing pause of up to a second.
func (t *Conns) Serve(ln net.Listener, name string, log *slog.Logger, closedErr error, handle func(net.Conn)) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return closedErr
	}
	if t.lns == nil {
		t.lns, t.conns = map[net.Listener]struct{}{}, map[net.Conn]struct{}{}
	}
	t.lns[ln] = struct{}{}
	t.mu.Unlock()
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			t.mu.Lock()
			closed := t.closed
			t.mu.Unlock()
			if closed {
				return closedErr
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				log.Warn(name+": accept", "error", err, "retry", delay)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		if !t.track(c) {
			c.Close()
			return closedErr
		}
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			defer t.untrack(c)
			handle(c)
		}()
	}
}

func (t *Conns) track(c net.Conn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.conns[c] = struct{}{}
	return true
}

func (t *Conns) untrack(c net.Conn) {
	c.Close()
	t.mu.Lock()
	delete(t.conns, c)
	t.mu.Unlock()
}

// Close stops the listeners, closes every connection and waits for their
// goroutines to end.
func (t *Conns) Close() {
	t.mu.Lock()
	t.closed = true
	for ln := range t.lns {
		ln.Close()
	}
	for c := range t.conns {
		c.Close()
	}
	t.mu.Unlock()
	t.wg.Wait()
}
