package epp

import (
	"context"
	"net/netip"
	"sync"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Session slots (issue 38; docs/epp.md "Session limits"). Of MaxSessions
// slots, ReservedSessions are held for the addresses registrars use: a
// connection from an address no registrar is known to use is admitted
// only while more than ReservedSessions slots are free, so a flood of
// unauthenticated connections from many addresses (which the per-address
// cap does not bound) leaves the reserved slots to the registrars'
// logins. An address is known when it is in a registrar's allow-list
// (registry.AllowLists, read again every allowListTTL) or a registrar
// logged in from it within knownTTL (remembered in memory, at most
// maxKnown addresses, by this server).

const (
	knownTTL     = 30 * 24 * time.Hour
	maxKnown     = 1 << 16
	allowListTTL = 30 * time.Second
)

// slots counts the sessions holding a slot.
type slots struct {
	mu   sync.Mutex
	open int
}

// take gives a connection from host a slot, if there is one it may
// have: ok, or the reason it is refused (reserved: only the reserved
// slots are free and host is not known).
func (s *Server) take(host string) (ok, reserved bool) {
	max, res := s.opts.MaxSessions, s.opts.ReservedSessions
	checked, known := false, false
	for {
		s.slots.mu.Lock()
		open := s.slots.open
		switch {
		case open >= max:
			s.slots.mu.Unlock()
			return false, false
		case res > 0 && open >= max-res && !known:
			if !checked { // who it is, outside the lock (it may read the store)
				s.slots.mu.Unlock()
				known, checked = s.knownAddr(host), true
				continue
			}
			s.slots.mu.Unlock()
			return false, true
		}
		s.slots.open++
		s.slots.mu.Unlock()
		s.sessions.Inc()
		return true, false
	}
}

// release frees a slot.
func (s *Server) release() {
	s.slots.mu.Lock()
	s.slots.open--
	s.slots.mu.Unlock()
	s.sessions.Dec()
}

// knownAddr reports whether a registrar is known to use host: it logged
// in from it lately, or host is in a registrar's allow-list.
func (s *Server) knownAddr(host string) bool {
	if s.known.has(host) {
		return true
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	a = a.WithZone("").Unmap()
	for _, p := range s.allow.get(s.svc, s.log) {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// knownAddrs are the addresses registrars logged in from, with when.
type knownAddrs struct {
	mu sync.Mutex
	m  map[string]time.Time
}

func (k *knownAddrs) add(addr string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]time.Time{}
	}
	now := time.Now()
	if _, ok := k.m[addr]; !ok && len(k.m) >= maxKnown {
		for a, t := range k.m { // forget the stale, else make room
			if now.Sub(t) > knownTTL {
				delete(k.m, a)
			}
		}
		if len(k.m) >= maxKnown {
			return
		}
	}
	k.m[addr] = now
}

func (k *knownAddrs) has(addr string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	t, ok := k.m[addr]
	return ok && time.Since(t) <= knownTTL
}

// allowCache holds every registrar's allow-list prefixes, read from the
// registry at most every allowListTTL (a change by another process counts
// within that time).
type allowCache struct {
	mu       sync.Mutex
	prefixes []netip.Prefix
	at       time.Time
}

func (c *allowCache) get(svc *registry.Service, log interface {
	Warn(msg string, args ...any)
}) []netip.Prefix {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.at) < allowListTTL {
		return c.prefixes
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	lists, err := svc.AllowLists(ctx)
	c.at = time.Now() // a failure is not retried at every connection
	if err != nil {
		log.Warn("epp: reading the allow-lists for the reserved session slots", "error", err)
		return c.prefixes
	}
	var ps []netip.Prefix
	for _, l := range lists {
		ps = append(ps, l...)
	}
	c.prefixes = ps
	return ps
}
