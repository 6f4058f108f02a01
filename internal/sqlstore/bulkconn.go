package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync"
	"time"
)

// The connection of a bulk import's batches (Dialect.ImportKeepConn). A batch
// sets up its connection for bulk writes (ImportSetup: on SQLite a page
// cache of 256 MiB) and ImportTeardown gives that back, so that no
// connection of the pool keeps it. Between two batches of one import the
// connection is kept instead, out of the pool, its cache warm: without
// it every batch began with an empty cache and read again every page of
// the B-trees it touched (at millions of names, most of a batch's system
// time, and the allocation of the cache's pages again). It is torn down
// and given back to the pool after the last batch (ImportBatch.Done), a
// failed batch, or ImportKeepConn without a batch (an import that stopped),
// and when the store closes.
type bulkConn struct {
	mu    sync.Mutex
	conn  *sql.Conn // kept between batches, or nil
	timer *time.Timer
}

// takeBulkConn returns the kept connection, or one of the pool.
func (s *Store) takeBulkConn(ctx context.Context) (*sql.Conn, error) {
	b := &s.bulk
	b.mu.Lock()
	c := b.conn
	b.conn = nil
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.mu.Unlock()
	if c != nil {
		return c, nil
	}
	return s.db.Conn(ctx)
}

// endBulkConn keeps conn for the next batch (keep, and the dialect keeps
// connections), or tears it down and gives it back to the pool.
func (s *Store) endBulkConn(ctx context.Context, conn *sql.Conn, keep bool) {
	if keep && s.d.ImportKeepConn > 0 {
		b := &s.bulk
		b.mu.Lock()
		if b.conn == nil {
			b.conn = conn
			b.timer = time.AfterFunc(s.d.ImportKeepConn, func() { s.dropBulkConn(conn) })
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
	}
	s.teardown(ctx, conn)
}

// dropBulkConn tears down the kept connection if it is still c (nil: any).
func (s *Store) dropBulkConn(c *sql.Conn) {
	b := &s.bulk
	b.mu.Lock()
	kept := b.conn
	if kept == nil || (c != nil && kept != c) {
		b.mu.Unlock()
		return
	}
	b.conn = nil
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.mu.Unlock()
	s.teardown(context.Background(), kept)
}

// teardown runs ImportTeardown on conn and gives it back to the pool,
// with its foreign-key checks on (Dialect.ImportUnchecked): if they
// cannot be turned on again the connection is closed instead.
func (s *Store) teardown(ctx context.Context, conn *sql.Conn) {
	ctx = context.WithoutCancel(ctx)
	for _, q := range s.d.ImportTeardown {
		conn.ExecContext(ctx, q)
	}
	if u := s.d.ImportUnchecked; u != nil {
		if _, err := conn.ExecContext(ctx, u.On); err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}
	conn.Close()
}
