// Package addrlimit is the token buckets per client address that the
// HTTP API and the WHOIS server limit their clients with.
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
