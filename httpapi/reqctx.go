package httpapi

import (
	"context"
	"sync"
	"time"
)

// requestCtx is a request's context: the request's info (infoKey) and its
// deadline (Options.RequestTimeout), over the connection's context. It is
// context.WithDeadline(context.WithValue(parent, infoKey, info), deadline),
// made only when first asked for: its Done channel, its error or a value
// other than the info. A request that asks for none of them (a check
// answered from the read cache) costs no timer, no cancellation
// registration in the connection's context, and no allocations of them.
// A context made after the request ended (end) is canceled.
type requestCtx struct {
	parent   context.Context
	info     *requestInfo
	deadline time.Time

	mu     sync.Mutex
	inner  context.Context // made by made; nil until then
	cancel context.CancelFunc
	ended  bool
}

func (c *requestCtx) made() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inner == nil {
		c.inner, c.cancel = context.WithDeadline(c.parent, c.deadline)
		if c.ended {
			c.cancel()
		}
	}
	return c.inner
}

// end cancels the context (the request is over), as the cancel function
// of context.WithDeadline.
func (c *requestCtx) end() {
	c.mu.Lock()
	c.ended = true
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (c *requestCtx) Deadline() (time.Time, bool) {
	if d, ok := c.parent.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

func (c *requestCtx) Done() <-chan struct{} { return c.made().Done() }

func (c *requestCtx) Err() error { return c.made().Err() }

func (c *requestCtx) Value(key any) any {
	if key == any(infoKey) {
		return c.info
	}
	return c.made().Value(key)
}

func (c *requestCtx) String() string { return "httpapi.requestCtx" }
