// Package sqlstore implements registry.Store over database/sql for the
// SQL databases akshara supports (packages sqlite and postgres give the
// driver, the dialect and the migrations). The SQL is kept portable:
// ordinary transactions, unique indexes and INSERT ... RETURNING, nothing
// else, so that it runs on PostgreSQL-compatible distributed databases.
package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Dialect is what differs between databases.
type Dialect struct {
	Name string
	// Dollar placeholders ($1, $2, ...) instead of ?.
	Dollar bool
	// ByteOrder follows a text column to compare and sort it by its bytes
	// (Go's string order), whatever the database's collation: ` COLLATE "C"`
	// on PostgreSQL; "" where that is the default (SQLite). The zone
	// export's pages (ZonePage) are in this order.
	ByteOrder string
	// CheckInOneStatement: a check's two lookups (FindForCheck) in one
	// statement, for a database where a statement is a round trip to a
	// server. In process (SQLite) the joined statement costs more than
	// the two (a held name: 9.5 µs alone, 15.5 joined).
	CheckInOneStatement bool
	// IsUnique reports whether err is a unique constraint violation.
	IsUnique func(err error) bool
	// Migrations holds NNN_name.sql files, applied in order once each.
	Migrations fs.FS
	// IsTransient reports a fault worth retrying (retry.go): a lost
	// connection, a serialization failure, a deadlock. Nil: none is.
	IsTransient func(err error) bool
	// IsRefused reports an answer from the database that a transaction
	// was not committed (serialization failure, deadlock), so that a
	// fault at COMMIT may be retried.
	IsRefused func(err error) bool
	// IsFull reports that the database cannot take writes for lack of
	// space (the disk is full): UNAVAILABLE rather than INTERNAL.
	IsFull func(err error) bool
	// ImportLock, if set, is run (after the settings row lock) when a bulk
	// import batch is tried again after losing a race with a concurrent
	// create: it holds creates off until the batch commits. The
	// re-audit's apply (reaudit.go) takes it too, before it scans a zone.
	ImportLock string
	// ImportBatch is the default number of names per bulk import
	// transaction (0: 5000).
	ImportBatch int
	// ImportBatchLarge, if set, is the default for files of at least
	// ImportLargeFile bytes.
	ImportBatchLarge int
	ImportLargeFile  int64
	// ImportSetup is run at the start of each bulk import transaction
	// (such as a larger page cache for SQLite).
	ImportSetup []string
	// BulkBegin is run at the start of each bulk transaction (an import
	// batch, a re-audit's apply) after ImportSetup, and BulkEnd before it
	// commits (connTx): SQLite's log their zone once in the read cache's
	// change log and quiet its per-row triggers (150_cache_changes.sql).
	BulkBegin, BulkEnd []string
	// ImportTeardown is run on the connection after each bulk import
	// transaction (committed or not), to give back what ImportSetup took:
	// the connection goes back to the pool, and the next batch may get
	// another one (errors are ignored: it is memory, not data).
	ImportTeardown []string
	// ImportAnalyze, if set, is run (in one transaction) after the 1st,
	// 4th, 16th, 64th, ... batch of a bulk import: the planner's
	// statistics must follow tables that grow from nothing to millions of
	// rows in minutes.
	ImportAnalyze []string
	// ImportMark reads, in one row and column, the marker that tells an
	// import batch whether anything but the import changed the rows its
	// look-ahead read (import.go, "look-ahead"): on SQLite the read
	// cache's change log's last number, on PostgreSQL the version (xmin)
	// of the settings row that exempted creates lock. ImportMarkLock
	// reads it at the start of a batch's transaction, taking what it
	// needs to keep it (PostgreSQL: FOR UPDATE); "" is ImportMark.
	// Without ImportMark the batches do not look ahead.
	ImportMark, ImportMarkLock string
	// ImportKeep, if set, locks (FOR KEY SHARE) the domains of an ID
	// array that a batch's look-ahead found, returning the IDs of those
	// that still exist: a delete committed since the look-ahead removed
	// one (PostgreSQL; SQLite's marker sees deletes).
	ImportKeep string
	// ArrayParams: a []string argument binds to "= ANY(?)" (a
	// PostgreSQL array), so a lookup of many labels is one query.
	ArrayParams bool
	// ImportParams is how many parameters a bulk import's multi-row
	// INSERT binds (0: 300).
	ImportParams int
	// ImportKeepConn, if set, keeps the connection of an import batch, out
	// of the pool and not torn down, for the next batch of the import,
	// for at most this long (bulkconn.go).
	ImportKeepConn time.Duration
	// CopyFrom, if set, bulk-loads rows into a table on conn (in the
	// transaction open on it): PostgreSQL's COPY. ReserveIDs is then the
	// query that returns ? new domain IDs.
	CopyFrom   func(ctx context.Context, conn *sql.Conn, table string, columns []string, rows [][]any) error
	ReserveIDs string
	// ImportRefs, if set, checks the references of a bulk import batch's
	// COPYs once per batch instead of once per row (import.go, refChecks).
	ImportRefs *RefChecks
	// ImportUnchecked, if set, has an import batch write its rows with
	// the connection's foreign-key checks off (SQLite, whose pragma
	// cannot change inside a transaction), the batch checking the
	// references itself (import.go, checkParents).
	ImportUnchecked *Unchecked
	// ImportBuild, if set, has an import into a zone family that holds
	// nothing built in one transaction (importbuild.go); it needs
	// ImportUnchecked.
	ImportBuild *Build
	// MigrateForeignKeys, if set, runs a migration whose first line is
	// ForeignKeysOff with the foreign-key checks off. Without it such a
	// migration runs as any other.
	MigrateForeignKeys *ForeignKeys
	// NoPrepare: no statement is prepared on the server (a named
	// prepared statement lives on one server connection, which a pooler
	// in transaction mode such as pgbouncer does not keep for the
	// client: docs/replicas.md).
	NoPrepare bool
}

// Build is how a dialect builds an import (Dialect.ImportBuild).
type Build struct {
	// Setup is run in the build's transaction first; SetupLarge
	// instead, if set, for a file of Dialect.ImportLargeFile or more.
	Setup, SetupLarge []string
	// NextID reads the ID the next domain would be given.
	NextID string
	// Indexes lists the indexes of the tables a build fills that it may
	// drop and create again after the rows: name, and the statement
	// that creates it.
	Indexes string
}

// Unchecked are the statements with which an import batch turns its
// connection's foreign-key checks off and on around its transaction
// (SQLite's PRAGMA foreign_keys, a no-op inside one). Without them each
// row a multi-row INSERT writes is checked against its parents (three
// B-tree searches a name), and since such an INSERT may fail half way,
// SQLite copies every page it changes to a statement journal first, to
// undo that statement alone. With them, and with Insert ("INSERT OR
// ROLLBACK": a constraint that fails rolls the whole transaction back,
// so no statement needs undoing on its own), neither is done: the batch
// checks that the zone and its registrars exist (under the write lock
// nothing can remove them before it commits), and every other row it
// writes names a domain it wrote or one it found and checked.
type Unchecked struct {
	Off, On string // run on the connection before BEGIN
	Probe   string // reads inside the transaction whether the checks are off (0)
	Insert  string // the verb of the batch's INSERTs into domains and blocks
}

// RefChecks are the statements with which a bulk import batch checks the
// references of the rows it COPYs into domains and blocks itself, once
// per batch and set-based, instead of the database checking each row's
// foreign keys (docs/import.md, "Reference checks"). A row COPYed into
// domains refers to the zone and a registrar, one COPYed into blocks to
// a domain COPYed just before in the same transaction.
type RefChecks struct {
	// Off and On are run around each COPY: Off stops the database's
	// per-row checks (and every ordinary trigger) for the rest of the
	// transaction, On brings them back. Off is also the probe: run once
	// in a transaction of its own, its failure (the role may not) makes
	// the import check row by row.
	Off, On string
	// Lock takes the locks a COPY into domains and blocks takes (so that
	// no trigger or constraint can be added to them until the batch
	// commits) before Guard reads the catalog.
	Lock string
	// Guard returns one row per trigger that Off would skip on an insert
	// into domains or blocks other than the foreign-key checks done here
	// (an operator's trigger, another foreign key): the batch is then
	// written with the per-row checks.
	Guard string
	// Zone locks the zone's row (?) as the foreign-key check would (KEY
	// SHARE) and returns it; Registrars locks the registrars of ids (an
	// array) and returns their ids.
	Zone, Registrars string
}

// Store is a registry.Store on a *sql.DB.
type Store struct {
	db    *sql.DB
	d     Dialect
	stmts sync.Map     // query text -> *sql.Stmt: parsed once, not per call
	group *groupWriter // GroupWrites: the writer that groups transactions (group.go)
	cache *readCache   // CacheReads: the answers of checks' lookups (readcache.go)
	// commands counts the commands committed (Atomic: marks pruned).
	commands atomic.Int64
	// batches counts the bulk import batches committed (ImportAnalyze).
	batches atomic.Int64
	// restored counts the domains of an escrow restore (EscrowBulk,
	// RestoreDomainState: ImportAnalyze).
	restored atomic.Int64
	// refs is how import batches check references (import.go).
	refs refMode
	// ahead is the last import batch committed, for the next batch's
	// look-ahead (import.go).
	ahead aheadState
	// bulk is the connection kept between import batches (bulkconn.go).
	bulk bulkConn
	// families maps a zone of a variant TLD family to the family's key
	// (SetFamilies): the zone its conflict sets are stored under.
	families atomic.Pointer[families]

	retry    Retry
	retries  retryCounter
	resolved retryCounter

	replicaState // reads of read-only requests on a replica (replica.go)
}

// stmt returns the prepared statement of a query (with ? placeholders).
func (s *Store) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	return s.stmtOn(ctx, s.db, &s.stmts, query)
}

// stmtOn is stmt on db, whose statements m keeps.
func (s *Store) stmtOn(ctx context.Context, db *sql.DB, m *sync.Map, query string) (*sql.Stmt, error) {
	if s.d.NoPrepare {
		return nil, errNoPrepare
	}
	if st, ok := m.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := db.PrepareContext(ctx, s.q(query))
	if err != nil {
		return nil, err
	}
	if prev, loaded := m.LoadOrStore(query, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// queryRow runs a single-row query, prepared once. In a transaction only
// the statements prepared when the store opened are used (preparing one
// takes a connection of the pool, which a transaction holding its own must
// not wait for: with every connection in a transaction, that deadlocks);
// the others go through the transaction's connection unprepared.
func (s *Store) queryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if tx == nil {
		tx = s.inTx(ctx) // a command's transaction (atomic.go)
	}
	if tx != nil {
		if st, ok := s.stmts.Load(query); ok {
			return tx.StmtContext(ctx, st.(*sql.Stmt)).QueryRowContext(ctx, args...)
		}
		return tx.QueryRowContext(ctx, s.q(query), args...)
	}
	db, m := s.db, &s.stmts
	if on, ok := ctx.Value(onKey{}).(*sql.DB); ok && on != s.db {
		db, m = on, &s.replicaStmts // a read on the replica (replica.go)
	}
	st, err := s.stmtOn(ctx, db, m, query)
	if err != nil {
		return db.QueryRowContext(ctx, s.q(query), args...) // reports err on Scan
	}
	return st.QueryRowContext(ctx, args...)
}

// exec runs a statement in a transaction (see queryRow).
func (s *Store) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	var err error
	if st, ok := s.stmts.Load(query); ok {
		_, err = tx.StmtContext(ctx, st.(*sql.Stmt)).ExecContext(ctx, args...)
	} else {
		_, err = tx.ExecContext(ctx, s.q(query), args...)
	}
	return err
}

const (
	insertDomain = `INSERT INTO domains (zone, label, alabel, lang, registrar_id, created, data_version, expires, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`
	insertAudit  = `INSERT INTO audit (at, registrar, action, name, result, channel, cltrid, svtrid) VALUES (?, ?, 'create', ?, 'ok', ?, ?, ?) RETURNING id`
)

// insertBlocks is the statement that inserts n labels of a conflict set.
func insertBlocks(n int) string {
	return `INSERT INTO blocks (zone, label, domain_id) VALUES ` + strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", n), ", ")
}

// errNoPrepare: the dialect prepares nothing (Dialect.NoPrepare).
var errNoPrepare = errors.New("sqlstore: statements are not prepared")

// prepare prepares the statements transactions use, before any runs.
func (s *Store) prepare(ctx context.Context) error {
	if s.d.NoPrepare {
		return nil
	}
	queries := []string{insertDomain, insertAudit}
	for n := 1; n <= 16; n++ {
		queries = append(queries, insertBlocks(n))
	}
	for _, q := range queries {
		if _, err := s.stmt(ctx, q); err != nil {
			return err
		}
	}
	// a table of a later migration may be absent (a store opened with the
	// migrations up to one: the migration tests): its statements are
	// prepared when first used
	for _, q := range billingStatements { // billing.go
		s.stmt(ctx, q)
	}
	return nil
}

// New applies the migrations and returns the store.
func New(ctx context.Context, db *sql.DB, d Dialect) (*Store, error) {
	s := &Store{db: db, d: d, retry: DefaultRetry}
	if err := s.migrate(ctx); err != nil {
		return nil, fmt.Errorf("%s: migrating: %w", d.Name, err)
	}
	if err := s.prepare(ctx); err != nil {
		return nil, fmt.Errorf("%s: preparing statements: %w", d.Name, err)
	}
	return s, nil
}

// DB returns the database handle (for benchmarks and tests).
func (s *Store) DB() *sql.DB { return s.db }

// Rebind writes a query with ? placeholders in the dialect's form.
func (s *Store) Rebind(query string) string { return s.q(query) }

// q rewrites ? placeholders for the dialect.
func (s *Store) q(query string) string {
	if !s.d.Dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied BIGINT NOT NULL)`); err != nil {
		return err
	}
	names, err := fs.Glob(s.d.Migrations, "*.sql")
	if err != nil {
		return err
	}
	versions := map[string]int{}
	for _, name := range names {
		v, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with its number", name)
		}
		versions[name] = v
	}
	// in numeric order (9_x before 10_y), whatever the zero padding
	sort.Slice(names, func(i, j int) bool { return versions[names[i]] < versions[names[j]] })
	for i, name := range names {
		v := versions[name]
		if i > 0 && versions[names[i-1]] == v {
			return fmt.Errorf("migrations %s and %s have the same number", names[i-1], name)
		}
		body, err := fs.ReadFile(s.d.Migrations, name)
		if err != nil {
			return err
		}
		if fk := s.d.MigrateForeignKeys; fk != nil && firstLine(string(body)) == ForeignKeysOff {
			err = s.do(ctx, func() error { return s.migrateUnchecked(ctx, fk, name, v, string(body)) })
		} else {
			err = s.tx(ctx, func(tx *sql.Tx) error {
				_, err := s.applyMigration(ctx, tx, name, v, string(body))
				return err
			})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// applyMigration runs the statements of migration name (version v) in tx
// and records it, unless it is recorded already (ran is false then).
func (s *Store) applyMigration(ctx context.Context, tx *sql.Tx, name string, v int, body string) (ran bool, err error) {
	var n int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), v).Scan(&n); err != nil || n > 0 {
		return false, err
	}
	for _, stmt := range SplitSQL(body) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return false, fmt.Errorf("%s: %w", name, err)
		}
	}
	_, err = tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, applied) VALUES (?, ?)`), v, time.Now().UnixNano())
	return err == nil, err
}

// ForeignKeysOff, the first line of a migration, has it run with the
// connection's foreign-key checks off (Dialect.MigrateForeignKeys): a
// migration that rebuilds a table others refer to, by SQLite's procedure
// for the schema changes ALTER TABLE cannot make
// (https://www.sqlite.org/lang_altertable.html#otheralter), whose DROP
// TABLE of the old table would otherwise first delete its rows, which
// the rows that refer to them forbid.
const ForeignKeysOff = "-- akshara: foreign-keys-off"

// ForeignKeys are the statements with which a migration marked
// ForeignKeysOff runs with the foreign-key checks off: on SQLite, PRAGMA
// foreign_keys, which cannot change inside a transaction.
type ForeignKeys struct {
	// Off and On are run on the migration's connection before its
	// transaction begins and after it ends.
	Off, On string
	// Probe reads, in one row and column, whether the checks are on.
	Probe string
	// Check returns one row per reference that does not hold, the first
	// column naming the table that holds it: run before COMMIT, a row
	// rolls the migration back.
	Check string
}

// migrateUnchecked is applyMigration in a transaction of its own on one
// connection of the pool, with the connection's foreign-key checks off
// (fk.Off before BEGIN, and fk.Probe reading them off inside), checking
// every reference of the database (fk.Check) before COMMIT. The checks
// are turned on again afterwards, and the connection is given back to the
// pool only if the migration was recorded already (nothing ran on it) and
// they read on: otherwise it is closed, and the pool opens a new one with
// the settings of every other. A migration's statements may leave more on
// their connection than the pragma: SQLite's ALTER TABLE RENAME opens the
// connection's temporary database, after which PRAGMA temp_store inside a
// transaction (an import batch's Dialect.ImportSetup) fails on it.
func (s *Store) migrateUnchecked(ctx context.Context, fk *ForeignKeys, name string, v int, body string) (err error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	ran := false
	defer func() { release(conn, fk, err == nil && !ran) }()
	if _, err := conn.ExecContext(ctx, fk.Off); err != nil {
		return fmt.Errorf("%s: turning the foreign-key checks off: %w", name, err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := func() error {
		var on bool
		if err := tx.QueryRowContext(ctx, fk.Probe).Scan(&on); err != nil {
			return fmt.Errorf("%s: reading whether the foreign-key checks are on: %w", name, err)
		}
		if on {
			return fmt.Errorf("%s: the foreign-key checks are still on (%s)", name, fk.Off)
		}
		var err error
		if ran, err = s.applyMigration(ctx, tx, name, v, body); err != nil || !ran {
			return err
		}
		return foreignKeyCheck(ctx, tx, fk.Check, name)
	}(); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return &commitError{err}
	}
	return nil
}

// foreignKeyCheck runs check in tx and reports the references it returns
// (at most five of them, and how many there are) as an error.
func foreignKeyCheck(ctx context.Context, tx *sql.Tx, check, name string) error {
	rows, err := tx.QueryContext(ctx, check)
	if err != nil {
		return fmt.Errorf("%s: checking the foreign keys: %w", name, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	var bad []string
	n := 0
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if n++; len(bad) < 5 {
			var b strings.Builder
			fmt.Fprintf(&b, "%s", vals[0])
			for i := 1; i < len(cols); i++ {
				fmt.Fprintf(&b, " %s=%s", cols[i], fkValue(vals[i]))
			}
			bad = append(bad, b.String())
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%s: rolled back: %d foreign-key references do not hold after it: %s", name, n, strings.Join(bad, "; "))
	}
	return nil
}

// fkValue is a value of a row as foreignKeyCheck shows it.
func fkValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(v)
	}
	return fmt.Sprint(v)
}

// release turns the foreign-key checks of a migration's connection on
// again and gives it back to the pool if keep and they read on; otherwise
// it closes it (driver.ErrBadConn: the pool does not take it back).
func release(conn *sql.Conn, fk *ForeignKeys, keep bool) {
	ctx := context.Background()
	var on bool
	if _, err := conn.ExecContext(ctx, fk.On); err != nil || conn.QueryRowContext(ctx, fk.Probe).Scan(&on) != nil || !on {
		keep = false
	}
	if !keep {
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	conn.Close()
}

// firstLine is the first line of a migration, without the line end and
// trailing blanks.
func firstLine(body string) string {
	line, _, _ := strings.Cut(body, "\n")
	return strings.TrimRight(line, " \t\r")
}

// tx runs f in a transaction, committing if it returns nil, and runs it
// again on a transient fault (retry.go); with GroupWrites, in a group
// commit (group.go).
func (s *Store) tx(ctx context.Context, f func(*sql.Tx) error) error {
	if tx := s.inTx(ctx); tx != nil {
		return f(tx) // a command's (atomic.go): it retries and commits
	}
	if s.group != nil {
		return s.do(ctx, func() error { return s.groupTx(ctx, f) })
	}
	return s.do(ctx, func() error { return s.tx1(ctx, f) })
}

// tx1 runs f in a transaction of its own, once.
func (s *Store) tx1(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	err = tx.Commit()
	s.wrote(ctx)
	if err != nil {
		return &commitError{err}
	}
	return nil
}

func internal(what string, err error) error {
	if err == nil {
		return nil
	}
	var re *registry.Error
	if errors.As(err, &re) {
		return err
	}
	if unreachable(err) {
		return unavailable(fmt.Errorf("%s: %w", what, err))
	}
	return &registry.Error{Code: registry.CodeInternal, Message: what, Err: err}
}

// unreachable reports an error that says the database could not be
// reached at all (a refused or lost connection), whatever the dialect:
// the database is down, not the request wrong.
func unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, driver.ErrBadConn)
}

// internal is internalErr for a store whose dialect can tell a full disk.
func (s *Store) internal(what string, err error) error {
	if err != nil && s.d.IsFull != nil && s.d.IsFull(err) {
		return &registry.Error{Code: registry.CodeUnavailable, Message: what + ": the database cannot take writes now", Err: err}
	}
	if err != nil && s.transient(err) { // a lost database, met outside s.do
		return unavailable(err)
	}
	return internal(what, err)
}

// EnsureZones implements registry.Store.
func (s *Store) EnsureZones(ctx context.Context, zones []registry.Zone) error {
	return internal("creating zones", s.tx(ctx, func(tx *sql.Tx) error {
		for _, z := range zones {
			var n int
			if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM zones WHERE name = ?`), z.Name).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				continue
			}
			_, err := tx.ExecContext(ctx, s.q(`INSERT INTO zones (name, alabel, languages, ldh, min_length, max_length) VALUES (?, ?, ?, ?, ?, ?)`),
				z.Name, z.ALabel, strings.Join(z.Languages, " "), boolInt(z.LDH), z.MinLength, z.MaxLength)
			if err != nil {
				return err
			}
		}
		return nil
	}))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Zones implements registry.Store.
func (s *Store) Zones(ctx context.Context) (zones []registry.Zone, err error) {
	err = s.do(ctx, func() error {
		zones, err = s.zones(ctx)
		return err
	})
	return zones, err
}

func (s *Store) zones(ctx context.Context) ([]registry.Zone, error) {
	rows, err := s.conn(ctx).QueryContext(ctx, `SELECT name, alabel, languages, ldh, min_length, max_length FROM zones ORDER BY name`)
	if err != nil {
		return nil, internal("listing zones", err)
	}
	defer rows.Close()
	var zones []registry.Zone
	for rows.Next() {
		var z registry.Zone
		var langs string
		var ldh int
		if err := rows.Scan(&z.Name, &z.ALabel, &langs, &ldh, &z.MinLength, &z.MaxLength); err != nil {
			return nil, internal("listing zones", err)
		}
		z.Languages, z.LDH = strings.Fields(langs), ldh != 0
		zones = append(zones, z)
	}
	return zones, internal("listing zones", rows.Err())
}

// CreateRegistrar implements registry.Store.
func (s *Store) CreateRegistrar(ctx context.Context, name string, tokenHash []byte) (*registry.Registrar, error) {
	r := &registry.Registrar{Name: name, Created: time.Now().UTC()}
	err := s.conn(ctx).QueryRowContext(ctx, s.q(`INSERT INTO registrars (name, token_hash, created) VALUES (?, ?, ?) RETURNING id`),
		name, tokenHash, r.Created.UnixNano()).Scan(&r.ID)
	if err != nil && s.d.IsUnique(err) {
		return nil, registry.Errorf(registry.CodeExists, "a registrar named %q exists", name)
	}
	return r, internal("creating registrar", err)
}

// RegistrarByToken implements registry.Store.
func (s *Store) RegistrarByToken(ctx context.Context, tokenHash []byte) (*registry.Registrar, error) {
	r := &registry.Registrar{}
	var created int64
	var allow string // the address allow-list (access.go)
	err := s.do(ctx, func() error {
		return s.queryRow(ctx, nil, `SELECT id, name, created, allow_from FROM registrars WHERE token_hash = ? AND revoked IS NULL`, tokenHash).Scan(&r.ID, &r.Name, &created, &allow)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, registry.Errorf(registry.CodeUnauthorized, "unknown API token")
	}
	r.Created = time.Unix(0, created).UTC()
	r.AllowFrom = registry.ReadAllowList(allow)
	return r, internal("finding registrar", err)
}

// CreateDomain implements registry.Store: the domain, every label of its
// conflict set and the audit record in one transaction. A label held by
// another domain violates the unique index on blocks (zone, label) (or on
// domains (zone, label)) and the transaction is rolled back: ErrConflict.
func (s *Store) CreateDomain(ctx context.Context, d *registry.Domain, registrarID int64) (*registry.Domain, error) {
	out := *d
	out.AuthInfoHash = ""
	if out.Created.IsZero() { // the service gives its clock's time
		out.Created = time.Now().UTC()
	}
	out.Updated = out.Created
	out.Statuses = []string{}
	ch := registry.ChannelOf(ctx)
	// a fault at COMMIT leaves the outcome unknown: the domain is looked up
	// (its creation time is this attempt's own) to tell
	committed := func() (bool, error) {
		got, err := s.Domain(ctx, d.Zone, d.Label)
		if errors.Is(err, registry.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		out.ID = got.ID
		return got.Created.Equal(out.Created), nil
	}
	err := s.txResolved(ctx, committed, func(tx *sql.Tx) error {
		err := s.queryRow(ctx, tx, insertDomain, d.Zone, d.Label, d.ALabel, d.Lang, registrarID, out.Created.UnixNano(), d.DataVersion, nanos(d.Expires), out.Created.UnixNano()).Scan(&out.ID)
		if err != nil {
			return err
		}
		args := make([]any, 0, 3*len(d.Blocks))
		key := s.key(d.Zone)
		for _, label := range d.Blocks {
			args = append(args, key, label, out.ID)
		}
		if err := s.exec(ctx, tx, insertBlocks(len(d.Blocks)), args...); err != nil {
			return err
		}
		if d.AuthInfoHash != "" {
			if err := s.exec(ctx, tx, `INSERT INTO domain_auth (domain_id, pw_hash, updated) VALUES (?, ?, ?)`, out.ID, d.AuthInfoHash, out.Created.UnixNano()); err != nil {
				return err
			}
		}
		return s.noteAudit(ctx, s.queryRow(ctx, tx, insertAudit, out.Created.UnixNano(), d.Registrar, d.Name, ch.Name, ch.ClTRID, ch.SvTRID))
	})
	if err != nil && s.d.IsUnique(err) {
		return nil, registry.Errorf(registry.CodeConflict, "%s conflicts with a registered domain", d.Name)
	}
	if err != nil {
		return nil, s.internal("creating domain", err)
	}
	return &out, nil
}

const domainColumns = `d.id, d.zone, d.label, d.alabel, d.lang, r.name, d.created, d.data_version, d.legacy, ` + lifeColumns

func scanDomain(row interface{ Scan(...any) error }) (*registry.Domain, error) {
	d := &registry.Domain{}
	var created int64
	var legacy string
	var lc lifeScan
	if err := row.Scan(append([]any{&d.ID, &d.Zone, &d.Label, &d.ALabel, &d.Lang, &d.Registrar, &created, &d.DataVersion, &legacy}, lc.dest()...)...); err != nil {
		return nil, err
	}
	lc.set(d)
	d.Legacy = strings.Fields(legacy)
	d.Name = d.Label + "." + d.Zone
	d.Created = time.Unix(0, created).UTC()
	return d, nil
}

// blocksOf loads a domain's conflict set (a variant group's member: its
// group's, which its carrier holds: variantgroup.go).
func (s *Store) blocksOf(ctx context.Context, d *registry.Domain) error {
	q, arg := `SELECT label FROM blocks WHERE domain_id = ? ORDER BY label`, d.ID
	if d.Group != 0 {
		q, arg = `SELECT b.label FROM blocks b JOIN domains d ON d.id = b.domain_id WHERE d.variant_group = ? ORDER BY b.label`, d.Group
	}
	rows, err := s.rdb(ctx).QueryContext(ctx, s.q(q), arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	d.Blocks = []string{}
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return err
		}
		d.Blocks = append(d.Blocks, l)
	}
	return rows.Err()
}

// FindBlocker implements registry.Store.
func (s *Store) FindBlocker(ctx context.Context, zone string, labels []string) (*registry.Domain, error) {
	if len(labels) == 0 {
		return nil, registry.Errorf(registry.CodeNotFound, "nothing to look for")
	}
	e, err := s.cached(ctx, 'b', zone, labels, func() (cacheEntry, error) {
		d, err := s.findBlocker(ctx, zone, labels)
		return cacheEntry{blocker: d}, err
	})
	if err != nil {
		return nil, internal("finding blocker", err)
	}
	if e.blocker == nil {
		return nil, registry.Errorf(registry.CodeNotFound, "no domain of %s holds these labels", zone)
	}
	return copyDomain(e.blocker), nil
}

// findBlocker is FindBlocker's query; nil if no domain holds the labels.
func (s *Store) findBlocker(ctx context.Context, zone string, labels []string) (*registry.Domain, error) {
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(labels)), ", ")
	args := make([]any, 0, 1+len(labels))
	args = append(args, s.key(zone))
	for _, l := range labels {
		args = append(args, l)
	}
	d := &registry.Domain{}
	err := s.read(ctx, func(ctx context.Context) error {
		row := s.queryRow(ctx, nil, `SELECT `+domainColumns+`, (SELECT COUNT(*) FROM exemptions e WHERE e.domain_id = d.id) FROM blocks b JOIN domains d ON d.id = b.domain_id JOIN registrars r ON r.id = d.registrar_id
		WHERE b.zone = ? AND b.label IN (`+marks+`) ORDER BY d.id LIMIT 1`, args...)
		var created, exempt int64
		var legacy string
		var lc lifeScan
		if err := row.Scan(append(append([]any{&d.ID, &d.Zone, &d.Label, &d.ALabel, &d.Lang, &d.Registrar, &created, &d.DataVersion, &legacy}, lc.dest()...), &exempt)...); err != nil {
			return err
		}
		lc.set(d)
		d.Name = d.Label + "." + d.Zone
		d.Created = time.Unix(0, created).UTC()
		d.Legacy = strings.Fields(legacy)
		d.Exempted = exempt > 0
		return nil
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Domain implements registry.Store.
func (s *Store) Domain(ctx context.Context, zone, label string) (d *registry.Domain, err error) {
	err = s.read(ctx, func(ctx context.Context) error {
		row := s.queryRow(ctx, nil, domainByLabelQuery, zone, label)
		if d, err = scanDomain(row); err != nil {
			return err
		}
		if err := s.blocksOf(ctx, d); err != nil {
			return err
		}
		return s.exemptionsOf(ctx, d)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, registry.Errorf(registry.CodeNotFound, "%s.%s is not registered", label, zone)
	}
	if err != nil {
		return nil, internal("finding domain", err)
	}
	return d, nil
}

// DomainState implements registry.LifecycleStore: the domain's row alone
// (one indexed read; a command in a group commit reads it on the writer).
func (s *Store) DomainState(ctx context.Context, zone, label string) (d *registry.Domain, err error) {
	err = s.read(ctx, func(ctx context.Context) error {
		d, err = scanDomain(s.queryRow(ctx, nil, domainByLabelQuery, zone, label))
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, registry.Errorf(registry.CodeNotFound, "%s.%s is not registered", label, zone)
	}
	if err != nil {
		return nil, internal("finding domain", err)
	}
	return d, nil
}

// DeleteDomain implements registry.Store.
func (s *Store) DeleteDomain(ctx context.Context, zone, label string, registrarID int64) error {
	// a fault at COMMIT: the domain gone means the delete took effect (only
	// its owner deletes it, and that is this call)
	committed := func() (bool, error) {
		_, err := s.Domain(ctx, zone, label)
		if errors.Is(err, registry.ErrNotFound) {
			return true, nil
		}
		return false, err
	}
	return s.internal("deleting domain", s.txResolved(ctx, committed, func(tx *sql.Tx) error {
		var id, owner int64
		var name string
		err := tx.QueryRowContext(ctx, s.q(`SELECT d.id, d.registrar_id, r.name FROM domains d JOIN registrars r ON r.id = ? WHERE d.zone = ? AND d.label = ?`),
			registrarID, zone, label).Scan(&id, &owner, &name)
		if errors.Is(err, sql.ErrNoRows) {
			return registry.Errorf(registry.CodeNotFound, "%s.%s is not registered", label, zone)
		}
		if err != nil {
			return err
		}
		if owner != registrarID {
			return registry.Errorf(registry.CodeForbidden, "%s.%s belongs to another registrar", label, zone)
		}
		if err := s.noPendingTransfer(ctx, tx, id, label+"."+zone); err != nil {
			return err
		}
		if err := s.deleteDelegation(ctx, tx, id, label+"."+zone); err != nil { // hosts.go
			return err
		}
		if err := s.regroup(ctx, tx, id, map[int64]bool{id: true}); err != nil { // variantgroup.go
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM blocks WHERE domain_id = ?`), id); err != nil {
			return err
		}
		if err := s.release(ctx, tx, id); err != nil {
			return err
		}
		if err := s.EndTransfers(ctx, tx, id, time.Now().UTC()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM domains WHERE id = ? AND registrar_id = ?`), id, registrarID); err != nil {
			return err
		}
		ch := registry.ChannelOf(ctx)
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result, channel, cltrid, svtrid) VALUES (?, ?, 'delete', ?, 'ok', ?, ?, ?)`),
			time.Now().UnixNano(), name, label+"."+zone, ch.Name, ch.ClTRID, ch.SvTRID)
		return err
	}))
}

// DomainsOf implements registry.Store.
func (s *Store) DomainsOf(ctx context.Context, registrarID int64) (ds []*registry.Domain, err error) {
	err = s.do(ctx, func() error {
		ds, err = s.domainsOf(ctx, registrarID)
		return err
	})
	return ds, err
}

// The queries of a registrar's domains: by the index on (registrar_id,
// id) (migration 070; TestIndexedQueryPlans).
var (
	domainsOfQuery   = `SELECT ` + domainColumns + ` FROM domains d JOIN registrars r ON r.id = d.registrar_id WHERE d.registrar_id = ? ORDER BY d.id`
	domainsPageQuery = `SELECT ` + domainColumns + ` FROM domains d JOIN registrars r ON r.id = d.registrar_id WHERE d.registrar_id = ? AND d.id > ? ORDER BY d.id LIMIT ?`
)

// domainByLabelQuery reads a domain by its zone and label: by the unique
// index on (zone, label) (on SQLite domains_zone_label, migration 180;
// TestLabelLookupPlans).
var domainByLabelQuery = `SELECT ` + domainColumns + ` FROM domains d JOIN registrars r ON r.id = d.registrar_id WHERE d.zone = ? AND d.label = ?`

func (s *Store) domainsOf(ctx context.Context, registrarID int64) ([]*registry.Domain, error) {
	rows, err := s.conn(ctx).QueryContext(ctx, s.q(domainsOfQuery), registrarID)
	if err != nil {
		return nil, internal("listing domains", err)
	}
	var ds []*registry.Domain
	for rows.Next() {
		d, err := scanDomain(rows)
		if err != nil {
			rows.Close()
			return nil, internal("listing domains", err)
		}
		ds = append(ds, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, internal("listing domains", err)
	}
	for _, d := range ds {
		if err := s.blocksOf(ctx, d); err != nil {
			return nil, internal("loading conflict set", err)
		}
		if err := s.exemptionsOf(ctx, d); err != nil {
			return nil, internal("loading exemptions", err)
		}
	}
	return ds, nil
}

// DomainsPage implements registry.Store: one keyset page, its conflict
// sets and exemptions read in one query each for the page.
func (s *Store) DomainsPage(ctx context.Context, registrarID, after int64, limit int) (ds []*registry.Domain, err error) {
	err = s.do(ctx, func() error {
		ds, err = s.domainsPage(ctx, registrarID, after, limit)
		return err
	})
	return ds, err
}

func (s *Store) domainsPage(ctx context.Context, registrarID, after int64, limit int) ([]*registry.Domain, error) {
	rows, err := s.conn(ctx).QueryContext(ctx, s.q(domainsPageQuery), registrarID, after, limit)
	if err != nil {
		return nil, internal("listing domains", err)
	}
	ds := []*registry.Domain{}
	byID := map[int64]*registry.Domain{}
	for rows.Next() {
		d, err := scanDomain(rows)
		if err != nil {
			rows.Close()
			return nil, internal("listing domains", err)
		}
		d.Blocks = []string{}
		ds = append(ds, d)
		byID[d.ID] = d
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, internal("listing domains", err)
	}
	if len(ds) == 0 {
		return ds, nil
	}
	// the page's ids, as a list (a range of ids could hold many of other
	// registrars' domains)
	in := strings.Repeat("?, ", len(ds)-1) + "?"
	ids := make([]any, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	rows, err = s.conn(ctx).QueryContext(ctx, s.q(`SELECT domain_id, label FROM blocks WHERE domain_id IN (`+in+`) ORDER BY domain_id, label`), ids...)
	if err != nil {
		return nil, internal("loading conflict sets", err)
	}
	for rows.Next() {
		var id int64
		var l string
		if err := rows.Scan(&id, &l); err != nil {
			rows.Close()
			return nil, internal("loading conflict sets", err)
		}
		if d := byID[id]; d != nil {
			d.Blocks = append(d.Blocks, l)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, internal("loading conflict sets", err)
	}
	for _, d := range ds {
		if d.Group != 0 { // a variant group's member: its group's set (variantgroup.go)
			if err := s.blocksOf(ctx, d); err != nil {
				return nil, internal("loading conflict sets", err)
			}
		}
	}
	// the exempted domains of the page (few): their own reading
	rows, err = s.conn(ctx).QueryContext(ctx, s.q(`SELECT DISTINCT domain_id FROM exemptions WHERE domain_id IN (`+in+`)`), ids...)
	if err != nil {
		return nil, internal("loading exemptions", err)
	}
	var exempted []*registry.Domain
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, internal("loading exemptions", err)
		}
		if d := byID[id]; d != nil {
			exempted = append(exempted, d)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, internal("loading exemptions", err)
	}
	for _, d := range exempted {
		if err := s.exemptionsOf(ctx, d); err != nil {
			return nil, internal("loading exemptions", err)
		}
	}
	return ds, nil
}

// Audit implements registry.Store.
func (s *Store) Audit(ctx context.Context, e registry.AuditEntry) error {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		return s.noteAudit(ctx, tx.QueryRowContext(ctx, s.q(`INSERT INTO audit (at, registrar, action, name, result, channel, cltrid, svtrid) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			e.At.UnixNano(), e.Registrar, e.Action, e.Name, e.Result, e.Channel, e.ClTRID, e.SvTRID))
	})
	return s.internal("writing audit log", err)
}

// AuditLog implements registry.Store.
func (s *Store) AuditLog(ctx context.Context, n int) ([]registry.AuditEntry, error) {
	return s.auditRows(ctx, `SELECT id, at, registrar, action, name, result, channel, cltrid, svtrid FROM audit ORDER BY id DESC LIMIT ?`, n)
}

// Close implements registry.Store.
func (s *Store) Close() error {
	s.dropBulkConn(nil)
	s.closeGroup()
	if s.cache != nil {
		s.cache.close()
	}
	s.stmts.Range(func(_, st any) bool { st.(*sql.Stmt).Close(); return true })
	if s.replica != nil {
		s.replicaStmts.Range(func(_, st any) bool { st.(*sql.Stmt).Close(); return true })
		s.replica.Close()
	}
	return s.db.Close()
}

// families is what SetFamilies was told: each zone of a family's key,
// and its members (sorted).
type families struct {
	key     map[string]string
	members map[string][]string
}

// SetFamilies implements registry.Store: the conflict sets of the zones
// of a family (zone -> family key, its first member) are stored under
// the family's key, so that the unique index on blocks (zone, label)
// gives a label of the family to one domain; a reserved name holds its
// set in every member. A zone not in m is its own key.
func (s *Store) SetFamilies(m map[string]string) {
	f := &families{key: map[string]string{}, members: map[string][]string{}}
	for z, k := range m {
		f.key[z] = k
		f.members[k] = append(f.members[k], z)
	}
	for k := range f.members {
		sort.Strings(f.members[k])
	}
	s.families.Store(f)
}

// key is the zone under which zone's conflict sets are stored: its
// family's key, or itself.
func (s *Store) key(zone string) string {
	if f := s.families.Load(); f != nil {
		if k, ok := f.key[zone]; ok {
			return k
		}
	}
	return zone
}

// members returns the zones of zone's family (sorted), or zone alone.
func (s *Store) members(zone string) []string {
	if f := s.families.Load(); f != nil {
		if k, ok := f.key[zone]; ok {
			return f.members[k]
		}
	}
	return []string{zone}
}
