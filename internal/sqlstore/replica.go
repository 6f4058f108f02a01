package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Replica is a read-only copy of the database (a PostgreSQL hot
// standby) that the reads of read-only requests (registry.ReadOnly) may
// be answered from. It decides, for each read, whether the copy may
// answer: the store asks it and never waits for it (docs/replicas.md).
type Replica interface {
	// Reader returns the replica's handle when a read may go to it now
	// (it is up, within its lag bound, and, when own is set, has applied
	// the store's last commit), nil when the read goes to the primary.
	Reader(own bool) *sql.DB
	// Wrote is called after each of the store's write transactions
	// committed (or may have): the reads that follow wait for the
	// replica to apply it (read-your-writes).
	Wrote(ctx context.Context)
	// Failed is called when a read on the replica failed with a fault
	// (it was answered again by the primary).
	Failed(err error)
	Close() error
}

// SetReplica makes the store answer the reads of read-only requests from
// r when it allows, each given at most timeout there (0: no bound but the
// request's) before the primary answers it instead. Call it before the
// store is used.
func (s *Store) SetReplica(r Replica, timeout time.Duration) {
	s.replica, s.replicaTimeout = r, timeout
}

// ReplicaReads counts the reads the replica answered; ReplicaFallbacks
// those it was asked and failed, which the primary then answered.
func (s *Store) ReplicaReads() uint64     { return s.replicaReads.Load() }
func (s *Store) ReplicaFallbacks() uint64 { return s.replicaFallbacks.Load() }

// replicaState is the part of Store that routes reads.
type replicaState struct {
	replica          Replica
	replicaTimeout   time.Duration
	replicaStmts     sync.Map // the replica's prepared statements (see stmts)
	replicaReads     atomic.Uint64
	replicaFallbacks atomic.Uint64
}

// onKey carries the handle a read runs on (read).
type onKey struct{}

// read runs the read f: on the replica when ctx is a read-only request
// and the replica may answer, else (and when the replica fails: down,
// slow, a query cancelled by recovery) on the primary, retried there on
// a transient fault. f reads through s.rdb(ctx) and s.queryRow(ctx, nil,
// ...), which follow the handle in the context it is given.
func (s *Store) read(ctx context.Context, f func(ctx context.Context) error) error {
	if s.inTx(ctx) != nil {
		return f(ctx) // in a command's transaction (atomic.go)
	}
	if s.replica != nil && registry.IsReadOnly(ctx) {
		if db := s.replica.Reader(!registry.IsPublic(ctx)); db != nil {
			rctx, cancel := ctx, context.CancelFunc(func() {})
			if s.replicaTimeout > 0 {
				rctx, cancel = context.WithTimeout(ctx, s.replicaTimeout)
			}
			err := f(context.WithValue(rctx, onKey{}, db))
			cancel()
			if err == nil || (ctx.Err() == nil && !s.replicaFault(err)) {
				s.replicaReads.Add(1)
				return err
			}
			if ctx.Err() != nil {
				return err
			}
			s.replicaFallbacks.Add(1)
			s.replica.Failed(err)
		}
	}
	return s.do(ctx, func() error { return f(ctx) })
}

// replicaFault reports an error of a read on the replica that the
// primary should answer again: any but "no such row" (a fault, the
// replica's own timeout, a query cancelled by a recovery conflict, a
// standby that has not replayed a migration yet).
func (s *Store) replicaFault(err error) bool {
	return !errors.Is(err, sql.ErrNoRows)
}

// rdb is the handle a read runs on: the replica's in a read that read
// routed there, the primary's otherwise.
func (s *Store) rdb(ctx context.Context) dbtx {
	if tx := s.inTx(ctx); tx != nil {
		return tx // a command's transaction (atomic.go)
	}
	if db, ok := ctx.Value(onKey{}).(*sql.DB); ok {
		return db
	}
	return s.db
}

// wrote tells the replica that the store committed (or may have).
func (s *Store) wrote(ctx context.Context) {
	if s.replica != nil {
		s.replica.Wrote(context.WithoutCancel(ctx))
	}
}
