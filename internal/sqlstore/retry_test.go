package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// TestRetryExhaustedIsUnavailable: a transient fault that outlasts the
// retries (a database down longer than the budget) is UNAVAILABLE, with
// the cause kept, not INTERNAL; a fault that is not transient is left as
// it is (issue 21 item 9).
func TestRetryExhaustedIsUnavailable(t *testing.T) {
	down := errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")
	other := errors.New("syntax error")
	s := &Store{d: Dialect{IsTransient: func(err error) bool { return err == down }}}
	for _, r := range []Retry{
		{Attempts: 3, Base: time.Millisecond, Max: time.Millisecond},                                       // attempts
		{Attempts: 1000, Base: time.Millisecond, Max: 2 * time.Millisecond, Budget: 20 * time.Millisecond}, // budget
	} {
		s.retry = r
		calls := 0
		err := s.do(context.Background(), func() error { calls++; return down })
		if got := registry.CodeOf(err); got != registry.CodeUnavailable {
			t.Errorf("%+v: code %s after %d calls (%v), want %s", r, got, calls, err, registry.CodeUnavailable)
		}
		if !errors.Is(err, down) {
			t.Errorf("%+v: the cause is lost: %v", r, err)
		}
		if calls < 2 {
			t.Errorf("%+v: %d calls: the fault was not retried", r, calls)
		}
		err = s.do(context.Background(), func() error { return other })
		if err != other {
			t.Errorf("%+v: a fault that is not transient came back as %v", r, err)
		}
	}
	// the context's deadline ends the retries too
	s.retry = Retry{Attempts: 1000, Base: 5 * time.Millisecond, Max: 5 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if got := registry.CodeOf(s.do(ctx, func() error { return down })); got != registry.CodeUnavailable {
		t.Errorf("deadline: code %s, want %s", got, registry.CodeUnavailable)
	}
}
