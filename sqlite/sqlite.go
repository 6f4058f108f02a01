// Package sqlite is the embedded registry store: SQLite through
// modernc.org/sqlite (pure Go), in WAL mode with durable commits
// (synchronous=FULL); write transactions take the lock at BEGIN
// (BEGIN IMMEDIATE), and waiting writers retry for up to 10 seconds.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"io/fs"
	"net/url"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Open opens (creating it if needed) the SQLite database file at path and
// applies the migrations.
func Open(ctx context.Context, path string) (*sqlstore.Store, error) {
	return open(ctx, "sqlite", path)
}

// open is Open through the database/sql driver registered as driverName
// (tests give a driver that wraps this one to inject faults).
func open(ctx context.Context, driverName, path string) (*sqlstore.Store, error) {
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open(driverName, "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	// Writers take turns (BEGIN IMMEDIATE); readers run beside them in WAL
	// mode. Keep the connections open: opening one applies the pragmas.
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	sub, _ := fs.Sub(migrations, "migrations")
	s, err := sqlstore.New(ctx, db, sqlstore.Dialect{Name: "sqlite", IsUnique: isUnique, Migrations: sub,
		IsTransient: isBusy, IsRefused: isBusy, IsFull: isFull,
		// A bulk import writes B-trees far larger than the default 2 MiB
		// cache: 256 MiB for the connection that imports (about twice that
		// resident: the allocator of modernc.org/sqlite gives each 4 KiB
		// page and its header, 4.3 KB, a slot of 8 KiB); and what
		// statement journal its multi-row INSERTs keep is in memory
		// rather than in a temporary file. Each commit writes every page the
		// batch dirtied to the WAL, and random labels dirty pages all over
		// the indexes: large batches write each page fewer times. 25,000
		// names for a file under 16 MiB (about 600,000 records): the
		// batches of judged names in memory are then half the size (a
		// 200,000-name import peaks at 191 MB rather than 221 MB); 50,000
		// for larger files, whose database outgrows the page cache and
		// where each page a batch touches is written to the WAL and again
		// by the checkpoint (at 6 M names, 11.5 KB written a name with
		// 25,000-name batches).
		ImportBatch: 25000, ImportBatchLarge: 50000, ImportLargeFile: 16 << 20,
		ImportSetup: []string{"PRAGMA cache_size = -262144", "PRAGMA temp_store = MEMORY"},
		// An import batch's INSERTs are written with the connection's
		// foreign-key checks off and "INSERT OR ROLLBACK", the batch
		// checking the references itself (sqlstore.Unchecked): no
		// parent looked up per row, no statement journal.
		ImportUnchecked: &sqlstore.Unchecked{Off: fkOff, On: fkOn, Probe: fkProbe, Insert: "INSERT OR ROLLBACK"},
		// An import into a zone family that holds nothing is built in
		// one transaction (sqlstore/importbuild.go): the indexes of
		// domains and blocks other than their primary keys (those with
		// SQL: not the automatic ones) dropped and created again after
		// the rows, but for domains_registrar_id, whose entries come in
		// ID order within each registrar (a few insertion points, as
		// cheap as appends); the next domain ID is the one AUTOINCREMENT
		// would give. Every row is appended: the page cache holds little
		// more than the B-trees' last pages, and sizes the sorts of
		// CREATE INDEX (16 MiB, and 64 MiB from ImportLargeFile on: at a
		// million names 31 s against 41 s, a peak of 485 MB against 294).
		// The sorts use a second thread (at ten million names the
		// indexes took 120 s against 161, the peak 692 MB against 554).
		ImportBuild: &sqlstore.Build{Setup: []string{"PRAGMA cache_size = -16384", "PRAGMA threads = 2"},
			SetupLarge: []string{"PRAGMA cache_size = -65536", "PRAGMA threads = 2"},
			NextID:     `SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'domains'), 0), COALESCE((SELECT MAX(id) FROM domains), 0)) + 1`,
			Indexes:    `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('domains', 'blocks') AND sql IS NOT NULL AND name <> 'domains_registrar_id' ORDER BY name`},
		// A migration that rebuilds a table others refer to (SQLite's
		// procedure for what ALTER TABLE cannot change: migration 180)
		// runs with the checks off and checks every reference before it
		// commits (PRAGMA foreign_key_check: table, rowid, parent, fkid).
		MigrateForeignKeys: &sqlstore.ForeignKeys{Off: fkOff, On: fkOn, Probe: fkProbe, Check: "PRAGMA foreign_key_check"},
		// A bulk write logs "everything changed" once for the read cache
		// (its per-row triggers would double the rows written) and quiets
		// the triggers until just before it commits. One writer at a
		// time: no other transaction sees the cache_bulk row, and a row
		// left committed by a fault makes the cache drop everything at
		// every change (bulkStuck), never answer stale.
		BulkBegin: []string{"INSERT INTO cache_bulk (zone) VALUES ('') ON CONFLICT DO NOTHING", "INSERT INTO cache_changes (zone) VALUES (NULL)"},
		BulkEnd:   []string{"DELETE FROM cache_bulk"},
		// The cache is the connection's, and batches take whichever
		// connection of the pool is free: without this, each of the
		// pool's connections kept a 256 MiB cache of its own and the
		// import's memory grew with the file (757 MB peak at a million
		// names). Back to the default (2 MiB), the pages given back.
		ImportTeardown: []string{"PRAGMA cache_size = -2000", "PRAGMA shrink_memory"},
		// An import batch's look-ahead (sqlstore/import.go) is exact if
		// nothing but the import committed since it read: every write of
		// blocks, exemptions, reserved names or domains other than a bulk
		// one logs a row in cache_changes, a bulk one logs one row too, and
		// AUTOINCREMENT's last number (kept in sqlite_sequence even when
		// the log is pruned) only grows, one writer at a time.
		ImportMark: `SELECT CAST(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'cache_changes'), 0) AS TEXT)`,
		// ... but only after the import's last batch: between two batches
		// the connection is kept, its cache warm (bulkconn.go). Given
		// back each time, every batch read again the pages of the
		// B-trees it touched and allocated the cache again (at a million
		// names, a quarter of the import's CPU was system time).
		ImportKeepConn: 5 * time.Second})
	if err != nil {
		db.Close()
		return nil, err
	}
	if groupWrites {
		// One writer at a time: concurrent transactions wait in memory and
		// commit together rather than retrying the lock (sqlstore/group.go).
		s.GroupWrites()
	}
	if cacheReads {
		// Checks answer from memory while the file is unchanged:
		// PRAGMA data_version, on a connection that never writes, changes
		// when any other connection, of this process or another, commits
		// (sqlstore/readcache.go). The connection is of a pool of its
		// own, so that it takes none of the store's.
		//
		// Whether the file changed is asked of SQLite, never read from
		// the database's files ("-shm", "-wal") by opening or mapping
		// them here: a POSIX lock belongs to the (process, file) pair,
		// and closing any descriptor of the file drops every lock
		// SQLite's connections of the process hold on it. A mark that
		// mapped the "-shm" file did, and the next process to open the
		// database took its shared memory for unused and reset it under
		// the server (SQLITE_IOERR_IN_PAGE, 500s; issue 34).
		q.Add("_pragma", "query_only(1)")
		poll, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
		if err != nil {
			s.Close()
			return nil, err
		}
		poll.SetMaxOpenConns(1)
		poll.SetMaxIdleConns(1)
		s.CacheReads(poll, "PRAGMA data_version",
			// (a cache_bulk row committed by mistake reads as "everything")
			`SELECT seq, zone, label, domain_id FROM cache_changes WHERE seq > ?
			UNION ALL SELECT (SELECT COALESCE(MAX(seq), 0) FROM cache_changes), NULL, NULL, NULL FROM cache_bulk
			ORDER BY 1`)
	}
	return s, nil
}

// The statements that turn a connection's foreign-key checks off and on
// (outside a transaction: inside one they do nothing) and read them.
const (
	fkOff   = "PRAGMA foreign_keys = OFF"
	fkOn    = "PRAGMA foreign_keys = ON"
	fkProbe = "PRAGMA foreign_keys"
)

// cacheReads is whether Open caches checks' lookups (tests and benchmarks
// compare both).
var cacheReads = true

// groupWrites is whether Open groups write transactions (tests and
// benchmarks compare both).
var groupWrites = true

func isUnique(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return true
	}
	return false
}

// isBusy reports a database still locked after the busy timeout: the
// statement did not run, so it may run again.
func isBusy(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// isFull reports SQLITE_FULL: the disk (or the database's page limit) is
// full.
func isFull(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_FULL
}

var _ registry.Store = (*sqlstore.Store)(nil)
