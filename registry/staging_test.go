package registry_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

const day = 24 * time.Hour

func TestParseFormatOffset(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		out  string // FormatOffset(want)
		err  bool
	}{
		{"30d", 30 * day, "+30d", false},
		{"+30d", 30 * day, "+30d", false},
		{"1d12h", 36 * time.Hour, "+1d12h", false},
		{"36h", 36 * time.Hour, "+1d12h", false},
		{"90m", 90 * time.Minute, "+1h30m", false},
		{"10s", 10 * time.Second, "+10s", false},
		{"0d", 0, "+0s", false},
		{"0s", 0, "+0s", false},
		{"35d1h", 35*day + time.Hour, "+35d1h", false},
		{"2d30m", 2*day + 30*time.Minute, "+2d30m", false},
		{"1m0.5s", time.Minute + 500*time.Millisecond, "+1m0.5s", false},
		{"18250d", registry.MaxClockOffset, "+18250d", false},
		{"18250d1s", 0, "", true},
		{"18251d", 0, "", true},
		{"", 0, "", true},
		{"+", 0, "", true},
		{"-1d", 0, "", true},
		{"1d-1h", 0, "", true},
		{"-5h", 0, "", true},
		{"d", 0, "", true},
		{"1.5d", 0, "", true},
		{"1d1d", 0, "", true},
		{"thirty days", 0, "", true},
		{"30", 0, "", true},
		{"9223372036854775807d", 0, "", true},
	} {
		got, err := registry.ParseOffset(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseOffset(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.err)
			continue
		}
		if !tt.err {
			if f := registry.FormatOffset(got); f != tt.out {
				t.Errorf("FormatOffset(%v) = %q, want %q", got, f, tt.out)
			}
		}
	}
}

// FuzzParseOffset: ParseOffset never panics, never returns a negative
// offset or one beyond MaxClockOffset, and reads back what FormatOffset
// writes of what it returns.
func FuzzParseOffset(f *testing.F) {
	for _, s := range []string{"30d", "1d12h", "+90m", "", "-1d", "1.5d", "18250d", "1d1d", "9223372036854775807ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := registry.ParseOffset(s)
		if err != nil {
			return
		}
		if d < 0 || d > registry.MaxClockOffset {
			t.Fatalf("ParseOffset(%q) = %v, out of range", s, d)
		}
		back, err := registry.ParseOffset(registry.FormatOffset(d))
		if err != nil || back != d {
			t.Fatalf("ParseOffset(FormatOffset(%v) = %q) = %v, %v", d, registry.FormatOffset(d), back, err)
		}
	})
}

// TestStagingClock: a staging clock is its base moved ahead by the
// offset, and the offset only grows.
func TestStagingClock(t *testing.T) {
	base := registry.NewManualClock(registrytest.T0)
	c := registry.NewStagingClock(base, 30*day)
	if got := c.Now(); !got.Equal(registrytest.T0.Add(30 * day)) {
		t.Errorf("Now = %v, want T0+30d", got)
	}
	base.Advance(time.Hour)
	if got := c.Now(); !got.Equal(registrytest.T0.Add(30*day + time.Hour)) {
		t.Errorf("Now after the base moved = %v", got)
	}
	if c.Offset() != 30*day {
		t.Errorf("Offset = %v", c.Offset())
	}
}

// TestMoveClock, on both stores: the database keeps the offset; a move
// forward is recorded in the audit log; nothing moves it back; AtLeast
// moves to an offset once; a second service on the same database
// (another process) follows it; a service on a database with no offset
// is not staging. Concurrent moves all count (the row is locked).
func TestMoveClock(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			ctx := t.Context()
			base := registry.NewManualClock(registrytest.T0)
			clock := registry.NewStagingClock(base, 0)
			svc := st.Service(t, registry.ServiceOptions{Clock: clock})
			store := svc.Store()
			if _, ok, err := registry.StoredClockOffset(ctx, store); ok || err != nil {
				t.Fatalf("a new database: offset ok=%v, %v; want none", ok, err)
			}
			if off, ok := svc.Staging(); !ok || off != 0 {
				t.Errorf("Staging = %v, %v", off, ok)
			}
			for _, tc := range []struct {
				c    registry.ClockChange
				want time.Duration
				code string
			}{
				{registry.ClockChange{By: 30 * day}, 30 * day, ""},
				{registry.ClockChange{By: 6 * day}, 36 * day, ""},
				{registry.ClockChange{By: -day}, 36 * day, registry.CodeClockBackwards},
				{registry.ClockChange{}, 36 * day, registry.CodeClockBackwards},
				{registry.ClockChange{AtLeast: 10 * day}, 36 * day, registry.CodeClockBackwards},
				{registry.ClockChange{AtLeast: 36 * day}, 36 * day, ""},
				{registry.ClockChange{AtLeast: 40 * day}, 40 * day, ""},
				{registry.ClockChange{By: day, AtLeast: 50 * day}, 40 * day, registry.CodeClockBackwards},
				{registry.ClockChange{By: registry.MaxClockOffset}, 40 * day, registry.CodeClockBackwards},
			} {
				got, err := svc.MoveClock(ctx, tc.c)
				if registry.CodeOf(err) != tc.code && !(tc.code == "" && err == nil) {
					t.Errorf("MoveClock(%+v): %v, want code %q", tc.c, err, tc.code)
				}
				stored, ok, err := registry.StoredClockOffset(ctx, store)
				if err != nil || !ok || stored != tc.want || (tc.code == "" && got != tc.want) {
					t.Errorf("after MoveClock(%+v): stored %v (ok %v, %v), returned %v; want %v", tc.c, stored, ok, err, got, tc.want)
				}
				if clock.Offset() != tc.want {
					t.Errorf("after MoveClock(%+v): the service's clock %v, want %v", tc.c, clock.Offset(), tc.want)
				}
			}
			if got := svc.Clock().Now(); !got.Equal(registrytest.T0.Add(40 * day)) {
				t.Errorf("the service's time %v, want T0+40d", got)
			}
			log, err := svc.Audit(ctx, registry.AuditFilter{Action: "clock-advance"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range log {
				got = append(got, e.Result)
			}
			want := "[ok +30d (was +0s) ok +36d (was +30d) CLOCK_BACKWARDS CLOCK_BACKWARDS CLOCK_BACKWARDS ok +40d (was +36d) CLOCK_BACKWARDS CLOCK_BACKWARDS]"
			if fmt.Sprint(got) != want {
				t.Errorf("audit of the clock: %v\nwant %s", got, want)
			}

			// another process on the database follows it
			other := registry.NewStagingClock(base, 0)
			svc2, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{Clock: other})
			if err != nil {
				t.Fatal(err)
			}
			fctx, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); svc2.FollowStagingClock(fctx, time.Millisecond) }()
			waitOffset(t, other, 40*day)
			if _, err := svc.MoveClock(ctx, registry.ClockChange{By: day}); err != nil {
				t.Fatal(err)
			}
			waitOffset(t, other, 41*day)
			stop()
			wg.Wait()

			// concurrent moves: each counts
			var moves sync.WaitGroup
			for range 8 {
				moves.Add(1)
				go func() {
					defer moves.Done()
					if _, err := svc2.MoveClock(ctx, registry.ClockChange{By: time.Hour}); err != nil {
						t.Error(err)
					}
				}()
			}
			moves.Wait()
			if d, _, _ := registry.StoredClockOffset(ctx, store); d != 41*day+8*time.Hour {
				t.Errorf("after 8 concurrent moves of 1h: %v, want +41d8h", registry.FormatOffset(d))
			}
		})
	}
}

func waitOffset(t *testing.T, c *registry.StagingClock, want time.Duration) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for c.Offset() != want {
		if time.Now().After(deadline) {
			t.Fatalf("the following clock is at %v, want %v", c.Offset(), want)
		}
		time.Sleep(time.Millisecond)
	}
}
