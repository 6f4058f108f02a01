// Package faultdriver wraps a database/sql driver to inject faults into
// tests: an error instead of a statement, or at COMMIT, either instead of
// the COMMIT (the transaction rolled back) or after it (the transaction
// committed and the client told otherwise, as when the connection breaks
// before the answer comes).
package faultdriver

import (
	"context"
	"database/sql/driver"
	"errors"
	"sync"
)

// Commit is what a Plan does at a COMMIT.
type Commit int

const (
	Pass       Commit = iota // commit
	FailBefore               // roll back and return the error
	FailAfter                // commit and return the error
)

// Plan decides the faults. Its functions may be nil; they are called with
// the driver's lock held (one at a time). tx tells whether the statement
// runs in a transaction; sawInTx whether a statement of the transaction
// so far matched it (Plan.Mark).
type Plan struct {
	// Mark, if set, marks a transaction that runs a statement for which
	// it returns true (such as a statement naming a table).
	Mark func(query string) bool
	// Statement returns an error to return instead of running query.
	Statement func(query string, marked bool) error
	// Commit decides a COMMIT of a transaction (marked: see Mark).
	Commit func(marked bool) (Commit, error)
	// Row returns an error to return instead of row n (from 1) of query.
	Row func(query string, n int) error
}

// Driver is a driver.Driver that runs Base with the faults of its Plan.
type Driver struct {
	Base driver.Driver
	mu   sync.Mutex
	plan Plan
}

// SetPlan replaces the plan.
func (d *Driver) SetPlan(p Plan) {
	d.mu.Lock()
	d.plan = p
	d.mu.Unlock()
}

func (d *Driver) statement(c *conn, query string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c.tx != nil && d.plan.Mark != nil && d.plan.Mark(query) {
		c.tx.marked = true
	}
	if d.plan.Statement != nil {
		return d.plan.Statement(query, c.tx != nil && c.tx.marked)
	}
	return nil
}

func (d *Driver) row(query string, n int) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.plan.Row == nil {
		return nil
	}
	return d.plan.Row(query, n)
}

func (d *Driver) commit(marked bool) (Commit, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.plan.Commit == nil {
		return Pass, nil
	}
	return d.plan.Commit(marked)
}

// Open implements driver.Driver.
func (d *Driver) Open(name string) (driver.Conn, error) {
	c, err := d.Base.Open(name)
	if err != nil {
		return nil, err
	}
	return &conn{d: d, base: c}, nil
}

type conn struct {
	d    *Driver
	base driver.Conn
	tx   *tx
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var s driver.Stmt
	var err error
	if p, ok := c.base.(driver.ConnPrepareContext); ok {
		s, err = p.PrepareContext(ctx, query)
	} else {
		s, err = c.base.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &stmt{c: c, base: s, query: query}, nil
}

func (c *conn) Close() error { return c.base.Close() }

func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	var t driver.Tx
	var err error
	if b, ok := c.base.(driver.ConnBeginTx); ok {
		t, err = b.BeginTx(ctx, opts)
	} else {
		t, err = c.base.Begin() //nolint:staticcheck // the fallback database/sql uses too
	}
	if err != nil {
		return nil, err
	}
	c.tx = &tx{c: c, base: t}
	return c.tx, nil
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.base.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	if err := c.d.statement(c, query); err != nil {
		return nil, err
	}
	return e.ExecContext(ctx, query, args)
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.base.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	if err := c.d.statement(c, query); err != nil {
		return nil, err
	}
	r, err := q.QueryContext(ctx, query, args)
	return c.wrapRows(r, query), err
}

func (c *conn) wrapRows(r driver.Rows, query string) driver.Rows {
	if r == nil {
		return nil
	}
	return &rows{Rows: r, d: c.d, query: query}
}

// rows counts the rows of a query for Plan.Row.
type rows struct {
	driver.Rows
	d     *Driver
	query string
	n     int
}

func (r *rows) Next(dest []driver.Value) error {
	r.n++
	if err := r.d.row(r.query, r.n); err != nil {
		return err
	}
	return r.Rows.Next(dest)
}

func (c *conn) Ping(ctx context.Context) error {
	if p, ok := c.base.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *conn) ResetSession(ctx context.Context) error {
	if r, ok := c.base.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if v, ok := c.base.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := c.base.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

type tx struct {
	c      *conn
	base   driver.Tx
	marked bool
}

func (t *tx) Commit() error {
	t.c.tx = nil
	what, err := t.c.d.commit(t.marked)
	switch what {
	case FailBefore:
		return errors.Join(err, t.base.Rollback())
	case FailAfter:
		if cerr := t.base.Commit(); cerr != nil {
			return cerr
		}
		return err
	}
	return t.base.Commit()
}

func (t *tx) Rollback() error {
	t.c.tx = nil
	return t.base.Rollback()
}

type stmt struct {
	c     *conn
	base  driver.Stmt
	query string
}

func (s *stmt) Close() error  { return s.base.Close() }
func (s *stmt) NumInput() int { return s.base.NumInput() }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	if err := s.c.d.statement(s.c, s.query); err != nil {
		return nil, err
	}
	return s.base.Exec(args) //nolint:staticcheck // the fallback database/sql uses too
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	if err := s.c.d.statement(s.c, s.query); err != nil {
		return nil, err
	}
	r, err := s.base.Query(args) //nolint:staticcheck // the fallback database/sql uses too
	return s.c.wrapRows(r, s.query), err
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if err := s.c.d.statement(s.c, s.query); err != nil {
		return nil, err
	}
	if e, ok := s.base.(driver.StmtExecContext); ok {
		return e.ExecContext(ctx, args)
	}
	vals := make([]driver.Value, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	return s.base.Exec(vals) //nolint:staticcheck // the fallback database/sql uses too
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := s.c.d.statement(s.c, s.query); err != nil {
		return nil, err
	}
	if q, ok := s.base.(driver.StmtQueryContext); ok {
		r, err := q.QueryContext(ctx, args)
		return s.c.wrapRows(r, s.query), err
	}
	vals := make([]driver.Value, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	r, err := s.base.Query(vals) //nolint:staticcheck // the fallback database/sql uses too
	return s.c.wrapRows(r, s.query), err
}

func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := s.base.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return s.c.CheckNamedValue(nv)
}
