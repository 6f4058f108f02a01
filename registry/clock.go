package registry

import (
	"sync"
	"time"
)

// Clock tells the registry's domain logic what time it is. The service
// never reads the system clock itself (ServiceOptions.Clock): a lifecycle
// test pins every step to an instant and moves time on by hand.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock, in UTC: the clock of a serving registry.
type SystemClock struct{}

// Now implements Clock.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// ManualClock is a Clock that stands still until it is set or advanced,
// for tests. It is safe for concurrent use.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a clock standing at t (in UTC).
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{now: t.UTC()} }

// Now implements Clock.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t.UTC()
	c.mu.Unlock()
}

// Advance moves the clock on by d and returns the new time.
func (c *ManualClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}
