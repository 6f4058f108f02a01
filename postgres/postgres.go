// Package postgres is the production registry store: PostgreSQL (or a
// PostgreSQL-compatible distributed database) through pgx.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/akshara-idn/akshara/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Open connects to the database at dsn (a postgres:// URL or key=value
// string) and applies the migrations.
func Open(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	return OpenWith(ctx, dsn, Options{})
}

// OpenWith is Open with options: a read replica, a retry budget.
func OpenWith(ctx context.Context, dsn string, o Options) (*sqlstore.Store, error) {
	s, err := open(ctx, "pgx", dsn)
	if err != nil {
		return nil, err
	}
	if o.RetryBudget > 0 {
		r := sqlstore.DefaultRetry
		r.Budget = o.RetryBudget
		// enough attempts for the budget at the longest wait
		r.Attempts = max(r.Attempts, int(2*o.RetryBudget/r.Max)+10)
		s.SetRetry(r)
	}
	if o.ReplicaDSN != "" {
		rdb, err := sql.Open("pgx", o.ReplicaDSN)
		if err != nil {
			s.Close()
			return nil, err
		}
		rdb.SetMaxOpenConns(32)
		rdb.SetMaxIdleConns(32)
		// no ping: a standby that is down now is asked when it is up
		timeout := o.ReplicaTimeout
		if timeout <= 0 {
			timeout = DefaultReplicaTimeout
		}
		s.SetReplica(newStandby(s.DB(), rdb, o), timeout)
	}
	return s, nil
}

// open is Open through the database/sql driver registered as driverName
// (tests give a driver that wraps pgx's to inject faults).
func open(ctx context.Context, driverName, dsn string) (*sqlstore.Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	// default_query_exec_mode other than cache_statement (exec,
	// simple_protocol, ...) in the DSN: a pooler in transaction mode is
	// in front (pgbouncer), which keeps no named prepared statement from
	// one transaction to the next: the store prepares none
	noPrepare := cfg.DefaultQueryExecMode != pgx.QueryExecModeCacheStatement
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	sub, _ := fs.Sub(migrations, "migrations")
	s, err := sqlstore.New(ctx, db, sqlstore.Dialect{Name: "postgres", Dollar: true, ByteOrder: ` COLLATE "C"`, CheckInOneStatement: true, IsUnique: isUnique, Migrations: sub, NoPrepare: noPrepare,
		IsTransient: isTransient, IsRefused: isRefused, IsFull: isFull,
		// A bulk import's lookups are point lookups by (zone, label) in
		// tables that grow from nothing: with statistics of the small
		// table, the planner reads the whole zone from the index and
		// filters it for each IN list.
		// A sample of 3,000 rows (statistics target 10) is enough for
		// that: ANALYZE of the three tables at a million domains took
		// 1.0-2.4 s with the default target (100: 30,000 rows), 0.2 s
		// with 10. Autovacuum analyzes them again after the import, with
		// the default target.
		ImportAnalyze: []string{"SET LOCAL default_statistics_target = 10", "ANALYZE domains, blocks, exempt_sets, exemptions"},
		ImportBatch:   10000,
		// creates insert into domains, then blocks: the same order
		ImportLock:  "LOCK TABLE domains, blocks IN SHARE ROW EXCLUSIVE MODE",
		ArrayParams: true,
		// fewer, larger statements: a round trip each (the limit is 65535)
		ImportParams: 4000,
		CopyFrom:     copyFrom,
		// the sequence looked up once, not once per ID (94 ms a batch of
		// 10,000 IDs, 8 ms with it once)
		ReserveIDs: `WITH s AS MATERIALIZED (SELECT pg_get_serial_sequence('domains', 'id')::regclass AS seq)
			SELECT nextval(seq) FROM s, generate_series(1, ?)`,
		ImportRefs: importRefs,
		// An import batch's look-ahead (sqlstore/import.go): exempted
		// creates, imports, re-audits and the start-up recomputation lock
		// (UPDATE) the relation's settings row, and each UPDATE leaves a
		// version of its own (xmin, the writer's transaction ID); ordinary
		// creates are caught by the unique indexes, deletes by the look-
		// ahead's domains locked and found again.
		ImportMark:     `SELECT xmin::text FROM settings WHERE name = 'conflict-relation'`,
		ImportMarkLock: `SELECT xmin::text FROM settings WHERE name = 'conflict-relation' FOR UPDATE`,
		ImportKeep:     `SELECT id FROM domains WHERE id = ANY(?) FOR KEY SHARE`})
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// importRefs: an import batch checks the references of its COPYs itself,
// once per batch (internal/sqlstore import.go; docs/import.md). The
// per-row checks are RI triggers, which session_replication_role =
// replica skips for the transaction (a superuser may set it, or a role
// given GRANT SET ON PARAMETER session_replication_role, PostgreSQL 15).
// Guard lists every trigger on an insert into domains or blocks whose
// firing replica changes (enabled 'O' is skipped, 'R' fires instead; 'A'
// fires either way) that is not one of the three foreign-key checks the
// batch does itself. A COPY fires no rules.
var importRefs = &sqlstore.RefChecks{
	Off:  `SET LOCAL session_replication_role = replica`,
	On:   `SET LOCAL session_replication_role = origin`,
	Lock: `LOCK TABLE domains, blocks IN ROW EXCLUSIVE MODE`,
	Guard: `SELECT t.tgrelid::regclass::text || '.' || t.tgname FROM pg_trigger t
		LEFT JOIN pg_constraint c ON c.oid = t.tgconstraint
		WHERE t.tgrelid IN ('domains'::regclass, 'blocks'::regclass) AND t.tgenabled IN ('O', 'R') AND t.tgtype & 4 <> 0
		AND NOT (t.tgisinternal AND t.tgfoid = 'pg_catalog."RI_FKey_check_ins"'::regproc AND c.contype = 'f'
			AND (t.tgrelid::regclass::text, pg_get_constraintdef(c.oid)) IN (
				('domains', 'FOREIGN KEY (zone) REFERENCES zones(name)'),
				('domains', 'FOREIGN KEY (registrar_id) REFERENCES registrars(id)'),
				-- (migration 230: an import writes no variant group, NULL, which refers to nothing)
				('domains', 'FOREIGN KEY (variant_group) REFERENCES variant_groups(id)'),
				('blocks', 'FOREIGN KEY (domain_id) REFERENCES domains(id)')))
		ORDER BY 1`,
	Zone:       `SELECT name FROM zones WHERE name = ? FOR KEY SHARE`,
	Registrars: `SELECT id FROM registrars WHERE id = ANY(?) FOR KEY SHARE`,
}

// copyFrom loads rows into table with COPY, on the pgx connection under
// conn (in the transaction open on it).
func copyFrom(ctx context.Context, conn *sql.Conn, table string, columns []string, rows [][]any) error {
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: COPY needs a pgx connection, not %T", dc)
		}
		_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromRows(rows))
		return err
	})
}

// isUnique reports a unique_violation (SQLSTATE 23505).
func isUnique(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == "23505"
}
