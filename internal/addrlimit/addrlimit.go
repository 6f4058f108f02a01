// Package addrlimit is the limits per client address that the HTTP API
// and the WHOIS server hold their clients to: token buckets for the rate
// (Limiters) and a cap of the connections open at once (Slots, WHOIS's).
package addrlimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiters are token buckets per client address, forgotten after ten idle
// minutes so that the map stays small. A nil *Limiters limits nothing.
type Limiters struct {
	mu    sync.Mutex
	r     rate.Limit
	burst int
	m     map[string]*limiter
	sweep time.Time
}

type limiter struct {
	*rate.Limiter
	seen time.Time
}

// New returns buckets of perSecond tokens a second and burst; nil (no
// limit) for a negative perSecond.
func New(perSecond float64, burst int) *Limiters {
	if perSecond < 0 {
		return nil // off
	}
	return &Limiters{r: rate.Limit(perSecond), burst: burst, m: map[string]*limiter{}}
}

func (a *Limiters) get(addr string) *rate.Limiter {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	if now.Sub(a.sweep) > time.Minute {
		for k, l := range a.m {
			if now.Sub(l.seen) > 10*time.Minute {
				delete(a.m, k)
			}
		}
		a.sweep = now
	}
	l := a.m[addr]
	if l == nil {
		l = &limiter{Limiter: rate.NewLimiter(a.r, a.burst)}
		a.m[addr] = l
	}
	l.seen = now
	return l.Limiter
}

// Allow takes a token for addr (always true when a is nil).
func (a *Limiters) Allow(addr string) bool { return a == nil || a.get(addr).Allow() }

// Exhausted reports whether addr has no token left, without taking one.
func (a *Limiters) Exhausted(addr string) bool { return a != nil && a.get(addr).Tokens() < 1 }

// Slots caps the connections each client address has open at once, so
// that one address cannot take all of a server's connections. A nil
// *Slots caps nothing.
type Slots struct {
	mu  sync.Mutex
	max int
	n   map[string]int
}

// NewSlots returns a cap of max connections an address; nil (no cap)
// for max < 1.
func NewSlots(max int) *Slots {
	if max < 1 {
		return nil
	}
	return &Slots{max: max, n: map[string]int{}}
}

// Take takes one of addr's slots: false, and nothing taken, when addr has
// all of them. Each Take that returns true is matched by one Release.
func (s *Slots) Take(addr string) bool {
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[addr] >= s.max {
		return false
	}
	s.n[addr]++
	return true
}

// Release gives back a slot of addr that Take took.
func (s *Slots) Release(addr string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[addr]--; s.n[addr] <= 0 {
		delete(s.n, addr) // the map holds only addresses with connections open
	}
}

// Open returns how many slots addr holds.
func (s *Slots) Open(addr string) int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[addr]
}
