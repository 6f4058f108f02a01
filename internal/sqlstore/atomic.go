package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// One command, one transaction (registry.Store's Atomic; docs/architecture.md):
// the registry runs each command of a registrar or of the operator as a
// function of a context that carries an open transaction of the store, and
// every method of the store called with that context joins it: its reads see
// what the command wrote so far, its writes commit with the rest of the
// command or not at all. A method that opens a transaction of its own (tx,
// txResolved) runs its function in the command's instead, once: it neither
// retries nor commits (the command does, whole). Reads go to the command's
// transaction too, never to the read cache or a replica.
//
// A command is retried whole on a transient fault (a serialization failure,
// a deadlock, SQLITE_BUSY), its function run again from the start. A fault
// at its COMMIT that may have left it committed is resolved by the mark the
// command wrote in its transaction (the tx_marks table, migration 185; deleted when ten minutes old): if
// the mark is there, the command took effect and is not run again; if not,
// it is run again. So a command is applied exactly once, and a retried one
// is answered as the first would have been.

// atomicKey carries a command's transaction in a context.
type atomicKey struct{}

// atomicTx is a command's open transaction.
type atomicTx struct {
	s  *Store
	tx *sql.Tx
	// exemptLocked: the transaction holds the exempted creates' lock
	// (CreateExemptDomain): a command that creates many (a restore,
	// escrow_restore.go) takes it once. On PostgreSQL every UPDATE of the
	// row in one transaction adds a version the next must walk past.
	exemptLocked bool
	// prepared are the statements prepared on the transaction by
	// txStmt (a restore runs each of them once a domain).
	prepared map[string]*sql.Stmt
}

// inTx returns the transaction of the command ctx runs in, if it is this
// store's, or nil.
func (s *Store) inTx(ctx context.Context) *sql.Tx {
	if a, ok := ctx.Value(atomicKey{}).(*atomicTx); ok && a.s == s {
		return a.tx
	}
	return nil
}

// dbtx is what reads and writes run on: the database, a replica, or a
// command's transaction.
type dbtx interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// conn is what a read of the primary runs on: the command's transaction
// if ctx runs in one, else the database.
func (s *Store) conn(ctx context.Context) dbtx {
	if tx := s.inTx(ctx); tx != nil {
		return tx
	}
	return s.db
}

// Atomic implements registry.Store: f runs in one transaction of the store
// (see above); nil commits it, an error rolls everything f wrote back and is
// returned. Inside a command (ctx already carries one of this store's
// transactions), f joins it.
func (s *Store) Atomic(ctx context.Context, f func(ctx context.Context) error) error {
	if s.inTx(ctx) != nil {
		return f(ctx)
	}
	var token string
	ran := false // run has run under token
	run := func(tx *sql.Tx) error {
		if ran {
			// Run again under the same mark: the group writer runs a
			// command alone again after its group's COMMIT failed
			// (group.go), and that COMMIT may have taken effect. The mark
			// tells; if it is there, the command is not run twice.
			var n int
			if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM tx_marks WHERE token = ?`), token).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
		}
		ran = true
		if err := f(context.WithValue(ctx, atomicKey{}, &atomicTx{s: s, tx: tx})); err != nil {
			return err
		}
		return s.exec(ctx, tx, insertMark, token)
	}
	err := s.do(ctx, func() error {
		token, ran = newMark(), false // a new one for each attempt
		var err error
		if s.group != nil {
			err = s.groupTx(ctx, run)
		} else {
			err = s.tx1(ctx, run)
		}
		var ce *commitError
		if !errors.As(err, &ce) || (s.d.IsRefused != nil && s.d.IsRefused(ce.err)) {
			return err
		}
		// the COMMIT may have reached the database: its mark tells
		s.resolved.Add(1)
		var n int
		rctx := context.WithoutCancel(ctx)
		if rerr := s.try(rctx, func() error { // through a failover, as any read
			return s.db.QueryRowContext(rctx, s.q(`SELECT COUNT(*) FROM tx_marks WHERE token = ?`), token).Scan(&n)
		}); rerr != nil {
			return err // cannot be told: reported, never guessed
		}
		if n > 0 {
			return nil
		}
		return ce.err // not committed: transient, so run again
	})
	if err == nil && s.commands.Add(1)%pruneEvery == 0 {
		s.pruneMarks(ctx, time.Now().Add(-markAge))
	}
	return s.internal("running a command", err)
}

const insertMark = `INSERT INTO tx_marks (token) VALUES (?)`

// Marks are deleted when they are markAge old, by every pruneEvery-th
// command (one range of the index's first entries).
const (
	markAge    = 10 * time.Minute
	pruneEvery = 4096
)

// newMark is a command's mark: the time, then 64 random bits, so that
// marks are appended at the end of their index.
func newMark() string {
	var b [8]byte
	rand.Read(b[:])
	return markPrefix(time.Now()) + hex.EncodeToString(b[:])
}

// markPrefix is the part of the marks made at t that orders them by time.
func markPrefix(t time.Time) string { return fmt.Sprintf("%016x", t.UnixNano()) }

// pruneMarks deletes the marks made before t (their commands' outcome was
// told long ago); a failure is left for the next time.
func (s *Store) pruneMarks(ctx context.Context, before time.Time) (int64, error) {
	ctx = context.WithoutCancel(ctx)
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM tx_marks WHERE token < ?`), markPrefix(before))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}
