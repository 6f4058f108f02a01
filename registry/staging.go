package registry

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Staging (issue 34 item 14; docs/operations.md, Staging): an OT&E or
// staging registry lets registrars rehearse what takes weeks in
// production — a redemption ending, a purge, a transfer approved by the
// registry at the end of its period — by moving its clock ahead of real
// time. The offset is kept in the settings of the database, so that every
// process on it (the servers, the lifecycle and transfer workers, the
// operator's commands) reads the same time, and it only grows: the
// registry's time never runs backwards, so what it decided stays true. A
// database with an offset is a staging registry's: a server refuses to
// serve it unless told it is a staging server (akshara serve -staging),
// and every answer says so (the EPP greeting, an HTTP header, an RDAP and
// a WHOIS notice).

// CodeClockBackwards refuses a change of a staging clock that would move
// it backwards (or not at all), or beyond MaxClockOffset.
const CodeClockBackwards = "CLOCK_BACKWARDS"

func init() {
	DefineCode(CodeClockBackwards, CodeInfo{HTTP: 409, EPP: 2306, Reason: "clock moves forward only"})
}

// MaxClockOffset is the furthest a staging clock may run ahead.
const MaxClockOffset = 50 * 365 * 24 * time.Hour

// StagingNotice is what a staging registry's answers say (RDAP and WHOIS
// notices; the EPP greeting and the HTTP header carry the offset).
const StagingNotice = "This is a staging (OT&E) registry, for rehearsals, not the production registry: " +
	"its operator moves its clock ahead of real time, so its dates are the registry's time, not today's."

// StagingClock is the clock of a staging registry: a base clock (the
// wall clock) moved ahead by an offset that only grows. It is safe for
// concurrent use.
type StagingClock struct {
	base Clock
	off  atomic.Int64 // nanoseconds
}

// NewStagingClock returns base moved ahead by offset (at least 0).
func NewStagingClock(base Clock, offset time.Duration) *StagingClock {
	c := &StagingClock{base: base}
	c.raise(offset)
	return c
}

// Now implements Clock.
func (c *StagingClock) Now() time.Time { return c.base.Now().Add(c.Offset()) }

// Offset is how far ahead of its base clock it runs.
func (c *StagingClock) Offset() time.Duration { return time.Duration(c.off.Load()) }

// raise moves the offset to d if that is further; it reports whether it
// did.
func (c *StagingClock) raise(d time.Duration) bool {
	for {
		cur := c.off.Load()
		if int64(d) <= cur {
			return false
		}
		if c.off.CompareAndSwap(cur, int64(d)) {
			return true
		}
	}
}

// StagingStore keeps a staging registry's clock offset, in the settings
// of its data.
type StagingStore interface {
	// ClockOffset returns the stored offset; ok is false when the
	// database has none (it is not a staging registry's).
	ClockOffset(ctx context.Context) (d time.Duration, ok bool, err error)
	// LockClockOffset, in a command's transaction (Atomic), returns the
	// stored offset (0 where there is none yet: it is created) and holds
	// it until the command ends, so that two changes take turns.
	LockClockOffset(ctx context.Context) (time.Duration, error)
	// PutClockOffset stores the offset, in a command's transaction.
	PutClockOffset(ctx context.Context, d time.Duration) error
}

func stagingStore(store Store) (StagingStore, error) {
	ss, ok := store.(StagingStore)
	if !ok {
		return nil, Errorf(CodeInternal, "this store keeps no staging clock")
	}
	return ss, nil
}

// StoredClockOffset returns the clock offset the store keeps; ok is false
// when it keeps none (the database is not a staging registry's).
func StoredClockOffset(ctx context.Context, store Store) (time.Duration, bool, error) {
	ss, err := stagingStore(store)
	if err != nil {
		return 0, false, err
	}
	return ss.ClockOffset(ctx)
}

// Staging reports whether the service runs on a staging clock, and how
// far ahead of real time it runs now.
func (s *Service) Staging() (time.Duration, bool) {
	c, ok := s.clock.(*StagingClock)
	if !ok {
		return 0, false
	}
	return c.Offset(), true
}

// ClockChange moves a staging registry's clock ahead: by By, or to at
// least AtLeast (the offset a server is started with: nothing changes if
// the clock is there already, and it is refused if the clock is further).
type ClockChange struct {
	By      time.Duration
	AtLeast time.Duration
}

// MoveClock moves the staging clock of the database ahead (ClockChange),
// in one transaction with its audit record (action clock-advance), and
// returns the new offset. Every process following the database
// (FollowStagingClock) moves with it; this service's clock, if it is a
// StagingClock, at once. Refusals: CLOCK_BACKWARDS (a change that is not
// forward, or beyond MaxClockOffset).
func (s *Service) MoveClock(ctx context.Context, c ClockChange) (time.Duration, error) {
	ss, err := stagingStore(s.store)
	if err != nil {
		return 0, err
	}
	now, err := s.moveClock(ctx, ss, c)
	if err != nil {
		return 0, s.refuse(ctx, "operator", "clock-advance", "", err)
	}
	if sc, ok := s.clock.(*StagingClock); ok {
		sc.raise(now)
	}
	return now, nil
}

func (s *Service) moveClock(ctx context.Context, ss StagingStore, c ClockChange) (time.Duration, error) {
	switch {
	case c.By < 0 || c.AtLeast < 0 || c.By == 0 && c.AtLeast == 0:
		return 0, Errorf(CodeClockBackwards, "the registry's clock moves forward only: give a positive duration")
	case c.By > 0 && c.AtLeast > 0:
		return 0, Errorf(CodeClockBackwards, "move the clock by a duration or to an offset, not both")
	}
	var now time.Duration
	err := s.transact(ctx, func(ctx context.Context) error {
		cur, err := ss.LockClockOffset(ctx)
		if err != nil {
			return err
		}
		next := cur + c.By
		if c.AtLeast > 0 {
			if cur > c.AtLeast {
				return Errorf(CodeClockBackwards, "the registry's clock runs %s ahead already, further than %s: it does not go back", FormatOffset(cur), FormatOffset(c.AtLeast))
			}
			next = c.AtLeast
		}
		if next > MaxClockOffset || next < cur {
			return Errorf(CodeClockBackwards, "a staging clock runs at most %s ahead (it is %s ahead)", FormatOffset(MaxClockOffset), FormatOffset(cur))
		}
		if now = next; next == cur {
			return nil // there already: nothing to change or record
		}
		if err := ss.PutClockOffset(ctx, next); err != nil {
			return err
		}
		return s.record(ctx, "operator", "clock-advance", "", "ok "+FormatOffset(next)+" (was "+FormatOffset(cur)+")")
	})
	return now, err
}

// FollowStagingClock keeps a staging service's clock at the offset the
// store keeps, reading it every interval until ctx ends, so that the
// offset an operator's command (akshara clock advance) or another server
// sets reaches this process within interval. It does nothing for a
// service that is not staging.
func (s *Service) FollowStagingClock(ctx context.Context, interval time.Duration) {
	sc, ok := s.clock.(*StagingClock)
	if !ok {
		return
	}
	ss, err := stagingStore(s.store)
	if err != nil {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		d, ok, err := ss.ClockOffset(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.logger().Error("reading the staging clock's offset", "error", err)
			}
			continue
		}
		if ok && sc.raise(d) {
			s.logger().Info("staging clock moved", "offset", FormatOffset(d), "now", sc.Now().Format(time.RFC3339))
		}
	}
}

// FormatOffset writes a clock offset as days and the rest: +30d, +1d12h,
// +1h30m, +0s.
func FormatOffset(d time.Duration) string {
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	days, rest := d/(24*time.Hour), d%(24*time.Hour)
	r := ""
	if rest > 0 {
		// 12h0m0s → 12h, 1h30m0s → 1h30m, 30m0s → 30m (10s, 1m0.5s stay)
		r = rest.String()
		for _, z := range []string{"0s", "0m"} {
			if t, ok := strings.CutSuffix(r, z); ok && (strings.HasSuffix(t, "m") || strings.HasSuffix(t, "h")) {
				r = t
			}
		}
	}
	switch {
	case days > 0:
		return sign + strconv.FormatInt(int64(days), 10) + "d" + r
	case r == "":
		return "+0s"
	}
	return sign + r
}

// ParseOffset reads a clock offset: a number of days (30d), a Go duration
// (36h, 90m, 1h30m) or both (1d12h), with an optional leading +. It is
// never negative and at most MaxClockOffset.
func ParseOffset(s string) (time.Duration, error) {
	in := s
	s = strings.TrimPrefix(strings.TrimSpace(s), "+")
	if s == "" {
		return 0, fmt.Errorf("an empty clock offset: give days (30d), hours (36h) or both (1d12h)")
	}
	var d time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil || n < 0 || s[:i] == "" || s[0] == '+' || s[0] == '-' {
			return 0, fmt.Errorf("clock offset %q: days are a whole number, such as 30d", in)
		}
		if n > int64(MaxClockOffset/(24*time.Hour)) {
			return 0, fmt.Errorf("clock offset %q: at most %s", in, FormatOffset(MaxClockOffset))
		}
		d = time.Duration(n) * 24 * time.Hour
		s = s[i+1:]
	}
	if s != "" {
		if s[0] == '+' || s[0] == '-' {
			return 0, fmt.Errorf("clock offset %q: a clock offset is not negative", in)
		}
		r, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("clock offset %q: days (30d), a duration (36h, 90m) or both (1d12h)", in)
		}
		if r > MaxClockOffset-d {
			return 0, fmt.Errorf("clock offset %q: at most %s", in, FormatOffset(MaxClockOffset))
		}
		d += r
	}
	return d, nil
}
