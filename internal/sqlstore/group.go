package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
)

// Group commit: with GroupWrites, the store's write transactions (every
// call of tx) are run by one writer goroutine, which takes the ones that
// are waiting and runs them in one database transaction, each inside a
// SAVEPOINT of its own: a member whose function fails is rolled back to
// its savepoint alone, and every member is answered only after the one
// COMMIT (or its failure). On a database with one writer at a time
// (SQLite), concurrent creates then queue in memory instead of retrying
// the database lock with back-off sleeps (busy_timeout), which is where
// the long tail of their latency came from; and one durable commit
// (fsync) serves many creates.
//
// The layer wraps tx generically: it does not know what the functions do.
// If the group transaction breaks (a savepoint cannot be rolled back or
// released, for example because the database rolled the whole transaction
// back), or its commit fails, nothing of it was committed, and each member
// is run again alone in a transaction of its own, as without grouping.

// maxGroup is the most transactions one group commit holds.
const maxGroup = 64

type txReq struct {
	ctx  context.Context
	f    func(*sql.Tx) error
	done chan error
}

type groupWriter struct {
	reqs chan *txReq
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.RWMutex // held for reading while submitting; for writing by Close
	shut bool

	submitted atomic.Int64 // transactions handed to the writer
}

// GroupedWrites returns how many write transactions have been handed to
// the group writer (0 without GroupWrites): every create, delete and other
// write of the store goes through it.
func (s *Store) GroupedWrites() int64 {
	if s.group == nil {
		return 0
	}
	return s.group.submitted.Load()
}

// GroupWrites starts the writer goroutine that groups the store's
// transactions (see above); Close stops it. Call it once, after New.
func (s *Store) GroupWrites() {
	g := &groupWriter{reqs: make(chan *txReq, maxGroup), stop: make(chan struct{})}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		s.writer(g)
	}()
	s.group = g
}

// groupTx hands f to the writer and waits for its answer: nil once the
// group it ran in has committed.
func (s *Store) groupTx(ctx context.Context, f func(*sql.Tx) error) error {
	g := s.group
	g.mu.RLock()
	if g.shut {
		g.mu.RUnlock()
		return s.tx1(ctx, f)
	}
	req := &txReq{ctx: ctx, f: f, done: make(chan error, 1)}
	select {
	case g.reqs <- req:
		g.submitted.Add(1)
	case <-ctx.Done():
		g.mu.RUnlock()
		return ctx.Err()
	}
	g.mu.RUnlock()
	err := <-req.done // always wait: only the writer knows whether it committed
	if p, ok := err.(panicked); ok {
		panic(p.v) // the function panicked: in its caller, as without grouping
	}
	return err
}

// panicked carries a panic of a transaction's function from the writer
// back to the transaction's caller.
type panicked struct{ v any }

func (p panicked) Error() string { return fmt.Sprint("panic: ", p.v) }

// call runs f, catching a panic.
func call(f func(*sql.Tx) error, tx *sql.Tx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicked{v}
		}
	}()
	return f(tx)
}

// alone runs f in a transaction of its own, on the writer, catching a
// panic.
func (s *Store) alone(r *txReq) error {
	return s.tx1(r.ctx, func(tx *sql.Tx) error { return call(r.f, tx) })
}

func (s *Store) writer(g *groupWriter) {
	batch := make([]*txReq, 0, maxGroup)
	for {
		var first *txReq
		select {
		case first = <-g.reqs:
		case <-g.stop:
			// Close waited for the submitters: drain what they queued.
			for {
				select {
				case r := <-g.reqs:
					r.done <- s.alone(r)
				default:
					return
				}
			}
		}
		batch = append(batch[:0], first)
	gather:
		for len(batch) < maxGroup {
			select {
			case r := <-g.reqs:
				batch = append(batch, r)
			default:
				break gather
			}
		}
		s.runGroup(batch)
	}
}

// runGroup runs the batch in one transaction, a savepoint each.
func (s *Store) runGroup(batch []*txReq) {
	if len(batch) == 1 {
		batch[0].done <- s.alone(batch[0])
		return
	}
	each := func(rs []*txReq) {
		for _, r := range rs {
			r.done <- s.alone(r)
		}
	}
	bg := context.Background()
	tx, err := s.db.BeginTx(bg, nil)
	if err != nil {
		each(batch)
		return
	}
	results := make([]error, len(batch))
	for i, r := range batch {
		if err := r.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		if _, err := tx.ExecContext(bg, "SAVEPOINT akshara_group"); err != nil {
			tx.Rollback()
			each(batch)
			return
		}
		if results[i] = call(r.f, tx); results[i] != nil {
			if _, ok := results[i].(panicked); ok {
				// its writes are in an unknown state: the group is
				// rolled back; the others run alone, it is answered with
				// its panic
				tx.Rollback()
				for j, o := range batch {
					if j == i {
						o.done <- results[i]
					} else {
						o.done <- s.alone(o)
					}
				}
				return
			}
			if _, err := tx.ExecContext(bg, "ROLLBACK TO SAVEPOINT akshara_group"); err != nil {
				tx.Rollback()
				each(batch)
				return
			}
		}
		if _, err := tx.ExecContext(bg, "RELEASE SAVEPOINT akshara_group"); err != nil {
			tx.Rollback()
			each(batch)
			return
		}
	}
	if err := tx.Commit(); err != nil {
		// nothing committed: those that succeeded in the group try alone
		var again []*txReq
		for i, r := range batch {
			if results[i] == nil {
				again = append(again, r)
			} else {
				r.done <- results[i]
			}
		}
		each(again)
		return
	}
	for i, r := range batch {
		r.done <- results[i]
	}
}

// closeGroup stops the writer after the transactions already handed to it.
func (s *Store) closeGroup() {
	g := s.group
	if g == nil {
		return
	}
	g.mu.Lock()
	if g.shut {
		g.mu.Unlock()
		return
	}
	g.shut = true
	g.mu.Unlock()
	close(g.stop)
	g.wg.Wait()
}
