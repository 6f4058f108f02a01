package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Retry is how the store retries transient database faults: a
// serialization failure, a deadlock, a lost or refused connection (the
// dialect's IsTransient says which errors are). A read is retried as it
// is; a transaction is retried whole, unless the fault came with its
// COMMIT and may have left it committed (that one is reported, not
// guessed at). Waits grow from Base, doubling up to Max, each drawn
// uniformly from [0, wait] (full jitter), for at most Attempts tries and
// Budget of time in all, and never past the context's deadline.
type Retry struct {
	Attempts  int
	Base, Max time.Duration
	Budget    time.Duration // 0: no bound but Attempts and the context
}

// DefaultRetry rides out a killed backend at once and a PostgreSQL
// restart of a few seconds (TestPostgresRestart).
var DefaultRetry = Retry{Attempts: 30, Base: 10 * time.Millisecond, Max: time.Second, Budget: 8 * time.Second}

// commitError marks an error that came with COMMIT.
type commitError struct{ err error }

func (e *commitError) Error() string { return "commit: " + e.err.Error() }
func (e *commitError) Unwrap() error { return e.err }

// Retries counts the retries the store made since it opened (for metrics).
func (s *Store) Retries() uint64 { return s.retries.Load() }

// Resolved counts the faults at COMMIT whose outcome the store read back.
func (s *Store) Resolved() uint64 { return s.resolved.Load() }

// SetRetry changes the retry policy (before the store is used).
func (s *Store) SetRetry(r Retry) { s.retry = r }

type retryCounter = atomic.Uint64

// do runs f, retrying it on a transient fault. A transient fault that
// outlasts the retries (a database down longer than the budget) is
// UNAVAILABLE (unavailable), not INTERNAL: the client is told to come
// back, as for a full disk.
func (s *Store) do(ctx context.Context, f func() error) error {
	if s.inTx(ctx) != nil {
		return f() // in a command's transaction (atomic.go), which is retried whole
	}
	err := s.try(ctx, f)
	if err != nil && s.transient(err) {
		return unavailable(err)
	}
	return err
}

// unavailable is the error of a database that does not answer now.
func unavailable(err error) error {
	return &registry.Error{Code: registry.CodeUnavailable, Message: "the registry's database cannot be reached now; retry later", Err: err}
}

// try runs f, retrying it on a transient fault, and returns f's last error.
func (s *Store) try(ctx context.Context, f func() error) error {
	r := s.retry
	wait := r.Base
	start := time.Now()
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil || attempt >= r.Attempts || !s.transient(err) {
			return err
		}
		d := time.Duration(rand.Int64N(int64(wait) + 1))
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return err
		}
		if r.Budget > 0 && time.Since(start)+d > r.Budget {
			return err
		}
		s.retries.Add(1)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(d):
		}
		wait = min(2*wait, r.Max)
	}
}

// transient reports whether err is a fault worth retrying.
func (s *Store) transient(err error) bool {
	if s.d.IsTransient == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ce *commitError
	if errors.As(err, &ce) {
		// the COMMIT may have reached the database: only an answer that
		// it was refused (serialization failure, deadlock) is safe to retry
		return s.d.IsRefused != nil && s.d.IsRefused(ce.err)
	}
	return s.d.IsTransient(err)
}

// txResolved is tx for a transaction whose outcome can be read back:
// after a fault at COMMIT, committed tells whether it took effect. If it
// did, the transaction succeeded; if it did not, it runs again; if that
// cannot be told, the fault is reported.
func (s *Store) txResolved(ctx context.Context, committed func() (bool, error), f func(*sql.Tx) error) error {
	if tx := s.inTx(ctx); tx != nil {
		return f(tx) // a command's (atomic.go): it retries, commits and resolves
	}
	return s.do(ctx, func() error {
		// Through the group writer when there is one (sqlite.Open): a
		// create or delete is a write transaction like any other, and
		// without it SQLite's writers wait for the lock in the busy
		// handler again. A failed group commit committed nothing, and its
		// members run again alone (tx1), where a failed COMMIT is
		// resolved below.
		var err error
		if s.group != nil {
			err = s.groupTx(ctx, f)
		} else {
			err = s.tx1(ctx, f)
		}
		var ce *commitError
		if !errors.As(err, &ce) || (s.d.IsRefused != nil && s.d.IsRefused(ce.err)) {
			return err
		}
		s.resolved.Add(1)
		ok, cerr := committed()
		switch {
		case cerr != nil:
			return err
		case ok:
			return nil
		}
		return ce.err // not committed: transient, so run again
	})
}
