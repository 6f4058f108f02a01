package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/sqlite"
)

// migrationsUpTo is the migrations of this package numbered up to last.
func migrationsUpTo(t *testing.T, last int) fs.FS {
	t.Helper()
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("migrations: %v, %d files", err, len(files))
	}
	m := fstest.MapFS{}
	for _, f := range files {
		name := filepath.Base(f)
		v, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if err != nil {
			t.Fatal(err)
		}
		if v > last {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[name] = &fstest.MapFile{Data: data}
	}
	return m
}

// snapshot is what migration 180 must keep of a database.
type snapshot struct {
	rows    map[string][]string // every table's rows (but schema_migrations and the statistics), sorted
	objects map[string]string   // the indexes and triggers of domains: name -> sql
	columns []string            // PRAGMA table_info(domains)
	refs    []string            // PRAGMA foreign_key_list(domains)
	stats   []string            // the statistics of the other tables (sqlite_stat1, sqlite_stat4), sorted
	seq     int64               // sqlite_sequence of domains (0: no row)
}

// rows is every row of a query, each as one string, sorted.
func rowStrings(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range vals {
			if b2, ok := v.([]byte); ok {
				v = fmt.Sprintf("x'%x'", b2)
			}
			fmt.Fprintf(&b, "%s=%#v ", cols[i], v)
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func takeSnapshot(t *testing.T, db *sql.DB) snapshot {
	t.Helper()
	s := snapshot{rows: map[string][]string{}, objects: map[string]string{}}
	for _, table := range rowStrings(t, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations' AND name NOT LIKE 'sqlite\_stat%' ESCAPE '\'`) {
		name := strings.TrimSuffix(strings.TrimPrefix(table, `name="`), `" `)
		s.rows[name] = rowStrings(t, db, `SELECT * FROM "`+name+`"`)
	}
	rows, err := db.Query(`SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE tbl_name = 'domains' AND type IN ('index', 'trigger')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, q string
		if err := rows.Scan(&name, &q); err != nil {
			t.Fatal(err)
		}
		s.objects[name] = q
	}
	rows.Close()
	s.columns = rowStrings(t, db, `PRAGMA table_info(domains)`)
	s.refs = rowStrings(t, db, `PRAGMA foreign_key_list(domains)`)
	for _, table := range []string{"sqlite_stat1", "sqlite_stat4"} {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = ?`, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			s.stats = append(s.stats, rowStrings(t, db, `SELECT '`+table+`', * FROM `+table+` WHERE tbl <> 'domains'`)...)
		}
	}
	if err := db.QueryRow(`SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE name = 'domains'`).Scan(&s.seq); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMigration180 stages databases at migration 170 (the old domains,
// with UNIQUE (zone, label) as a table constraint), with rows in every
// table that refers to domains, and opens them with this binary, which
// rebuilds domains (180_domains_unique_index.sql): the rows, ids,
// columns, references, indexes, triggers and AUTOINCREMENT
// counter are kept, the uniqueness is the index domains_zone_label, no
// reference is broken and the connections have their foreign-key checks
// on. A database with an index of domains that the migration does not
// know of is left as it was.
func TestMigration180(t *testing.T) {
	ctx := context.Background()
	base := []string{
		`INSERT INTO zones VALUES ('z1', 'z1', 'hi', 0, 1, 63), ('z2', 'z2', 'hi', 0, 1, 63)`,
		`INSERT INTO registrars (name, token_hash, created) VALUES ('r1', x'01', 1), ('r2', x'02', 2)`,
	}
	populated := append(slices.Clone(base),
		`INSERT INTO domains (zone, label, alabel, lang, registrar_id, created, data_version, legacy, expires, statuses, redemption_end, purge_at, renewed, autorenewed, updated, rev) VALUES
			('z1', 'क', 'xn--11b', 'hi', 1, 10, '1.0', '', 100, '', 0, 0, 0, 0, 11, 1),
			('z1', 'ख', 'xn--21b', 'hi', 2, 20, '1.0', 'TOO_SHORT', 0, 'clientHold', 0, 0, 5, 6, 21, 2),
			('z2', 'क', 'xn--11b', 'mr', 1, 30, '', '', 300, 'pendingDelete redemptionPeriod', 400, 500, 0, 0, 31, 3),
			('z2', 'ग', 'xn--31b', 'hi', 2, 40, '', '', 0, '', 0, 0, 0, 0, 0, 0),
			('z1', 'घ', 'xn--41b', 'hi', 1, 50, '', '', 0, '', 0, 0, 0, 0, 0, 0),
			('z1', 'ङ', 'xn--51b', 'hi', 1, 60, '', '', 0, '', 0, 0, 0, 0, 0, 0)`,
		`INSERT INTO blocks VALUES ('z1', 'क', 1), ('z1', 'क़', 1), ('z1', 'ख', 2), ('z2', 'क', 3), ('z2', 'ग', 4)`,
		`INSERT INTO exemptions VALUES (1, 2), (2, 1)`,
		`INSERT INTO exempt_sets VALUES ('z1', 'क', 1), ('z1', 'क', 2), ('z1', 'ख', 2)`,
		`INSERT INTO hosts (name, registrar_id, domain_id, statuses, created, updated) VALUES ('ns1.xn--11b.z1', 1, 1, '', 1, 1), ('ns.example', 2, NULL, '', 1, 1)`,
		`INSERT INTO host_addrs VALUES (1, '192.0.2.1')`,
		`INSERT INTO domain_hosts VALUES (1, 1), (2, 2), (3, 2)`,
		`INSERT INTO ds_records VALUES (1, 12345, 13, 2, 'ab'), (4, 1, 8, 2, 'cd')`,
		`INSERT INTO contacts (handle, registrar_id, data, auth_hash, statuses, created, updated) VALUES ('C1', 1, '{}', 'h', '', 1, 1)`,
		`INSERT INTO domain_contacts VALUES (1, 1, 'registrant'), (3, 1, 'admin')`,
		`INSERT INTO domain_auth VALUES (2, 'hash', 1)`,
		// the highest id and one between deleted: the counter (6) is
		// above the highest id left (4)
		`DELETE FROM domains WHERE id IN (5, 6)`,
		`ANALYZE`,
	)
	emptied := append(slices.Clone(base),
		`INSERT INTO domains (zone, label, alabel, lang, registrar_id, created) VALUES ('z1', 'क', 'xn--11b', 'hi', 1, 10), ('z1', 'ख', 'xn--21b', 'hi', 1, 10)`,
		`DELETE FROM domains`)
	for _, tc := range []struct {
		name    string
		setup   []string
		seq     int64  // sqlite_sequence of domains before
		domains int    // rows of domains
		wantErr string // migration 180 refused: a part of the error
	}{
		{name: "populated", setup: populated, seq: 6, domains: 4},
		{name: "every domain deleted", setup: emptied, seq: 2},
		{name: "never a domain", setup: base},
		{name: "an index of the operator's", setup: append(slices.Clone(populated), `CREATE INDEX my_domains_created ON domains (created)`), seq: 6, domains: 4,
			wantErr: "migration 180 would drop an index or trigger of domains it does not know of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "registry.db")
			db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)")
			if err != nil {
				t.Fatal(err)
			}
			old, err := sqlstore.New(ctx, db, sqlstore.Dialect{Name: "sqlite", IsUnique: sqlite.IsUnique, Migrations: migrationsUpTo(t, 170)})
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range tc.setup {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			before := takeSnapshot(t, db)
			old.Close()
			if before.seq != tc.seq || len(before.rows["domains"]) != tc.domains {
				t.Fatalf("staged: counter %d, %d domains; want %d, %d", before.seq, len(before.rows["domains"]), tc.seq, tc.domains)
			}
			if _, ok := before.objects["sqlite_autoindex_domains_1"]; !ok {
				t.Fatalf("staged at 170 without the constraint's index: %v", slices.Sorted(maps.Keys(before.objects)))
			}

			s, err := sqlite.Open(ctx, path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					if err == nil {
						s.Close()
					}
					t.Fatalf("sqlite.Open: %v, want an error with %q", err, tc.wantErr)
				}
				// nothing changed: still at 170
				db, err := sql.Open("sqlite", "file:"+path)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if after := takeSnapshot(t, db); !equalSnapshots(before, after) {
					t.Errorf("a refused migration changed the database:\nbefore %+v\nafter  %+v", before, after)
				}
				var n int
				if err := db.QueryRow(`SELECT COUNT(*) FROM schema_migrations WHERE version = 180`).Scan(&n); err != nil || n != 0 {
					t.Errorf("migration 180 recorded %d times (%v), want 0", n, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("sqlite.Open: %v", err)
			}
			defer s.Close()
			db = s.DB()
			after := takeSnapshot(t, db)

			// every row kept; a later migration may add columns at the
			// end of a row (190: the abuse contact of registrars)
			kept := func(before, after []string) bool {
				return slices.EqualFunc(before, after, func(b, a string) bool { return strings.HasPrefix(a, b) })
			}
			for _, table := range slices.Sorted(maps.Keys(before.rows)) {
				if !kept(before.rows[table], after.rows[table]) {
					t.Errorf("%s: rows\n%q\nwant\n%q", table, after.rows[table], before.rows[table])
				}
			}
			// every table kept; a table more is a later migration's (185's
			// tx_marks, …), empty
			for table, rows := range after.rows {
				if _, ok := before.rows[table]; !ok && len(rows) > 0 {
					t.Errorf("table %s appeared with %d rows", table, len(rows))
				}
			}
			for table := range before.rows {
				if _, ok := after.rows[table]; !ok {
					t.Errorf("tables %v, want %v", slices.Sorted(maps.Keys(after.rows)), slices.Sorted(maps.Keys(before.rows)))
				}
			}
			// migration 230 adds domains.variant_group (a reference to
			// variant_groups) and its index: not 180's
			after.columns = slices.DeleteFunc(after.columns, func(c string) bool { return strings.Contains(c, `name="variant_group"`) })
			after.refs = slices.DeleteFunc(after.refs, func(r string) bool { return strings.Contains(r, `table="variant_groups"`) })
			for i, r := range after.refs { // the ids of the references renumbered without it
				after.refs[i] = strings.Replace(r, "id="+strings.Fields(r)[0][3:], fmt.Sprintf("id=%d", i), 1)
			}
			delete(after.objects, "domains_variant_group")
			if !slices.Equal(after.columns, before.columns) {
				t.Errorf("columns of domains\n%q\nwant\n%q", after.columns, before.columns)
			}
			if !slices.Equal(after.refs, before.refs) || len(after.refs) != 2 {
				t.Errorf("references of domains\n%q\nwant\n%q", after.refs, before.refs)
			}
			if after.seq != before.seq {
				t.Errorf("AUTOINCREMENT counter %d, want %d", after.seq, before.seq)
			}
			// the indexes and triggers, the constraint's index now the
			// named one
			var table string
			if err := db.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'domains'`).Scan(&table); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(strings.ToUpper(table), "UNIQUE") || !strings.Contains(table, "INTEGER PRIMARY KEY AUTOINCREMENT") {
				t.Errorf("domains: %s\nwant no UNIQUE, an INTEGER PRIMARY KEY AUTOINCREMENT", table)
			}
			wantObjects := maps.Clone(before.objects)
			delete(wantObjects, "sqlite_autoindex_domains_1")
			wantObjects["domains_zone_label"] = "CREATE UNIQUE INDEX domains_zone_label ON domains (zone, label)"
			if !maps.Equal(after.objects, wantObjects) {
				t.Errorf("indexes and triggers of domains:\n%q\nwant\n%q", after.objects, wantObjects)
			}
			if got := rowStrings(t, db, `SELECT name, "unique", origin FROM pragma_index_list('domains') WHERE "unique" OR origin <> 'c'`); !slices.Equal(got, []string{`name="domains_zone_label" unique=1 origin="c" `}) {
				t.Errorf("unique indexes of domains: %q, want domains_zone_label alone, created by CREATE INDEX", got)
			}
			if got := rowStrings(t, db, `SELECT seqno, name FROM pragma_index_info('domains_zone_label')`); !slices.Equal(got, []string{`seqno=0 name="zone" `, `seqno=1 name="label" `}) {
				t.Errorf("columns of domains_zone_label: %q", got)
			}
			// (those of domains go with the old table: see the migration)
			if !slices.Equal(after.stats, before.stats) {
				t.Errorf("statistics of the other tables:\n%q\nwant\n%q", after.stats, before.stats)
			}
			if problems := rowStrings(t, db, `PRAGMA foreign_key_check`); len(problems) > 0 {
				t.Errorf("foreign_key_check: %q", problems)
			}

			// the uniqueness holds, as the store's unique error
			if tc.domains > 0 {
				_, err = db.ExecContext(ctx, `INSERT INTO domains (zone, label, alabel, lang, registrar_id, created) VALUES ('z1', 'क', 'xn--11b', 'hi', 2, 99)`)
				if err == nil || !sqlite.IsUnique(err) {
					t.Errorf("a second domain z1/क: %v, want a unique violation", err)
				}
			}
			// a new domain's id is above every id the old table gave
			var id int64
			if err := db.QueryRowContext(ctx, `INSERT INTO domains (zone, label, alabel, lang, registrar_id, created) VALUES ('z2', 'नया', 'xn--new', 'hi', 1, 99) RETURNING id`).Scan(&id); err != nil {
				t.Fatal(err)
			}
			if id != before.seq+1 {
				t.Errorf("new domain id %d, want %d (the counter was %d)", id, before.seq+1, before.seq)
			}

			// every connection of the pool has its foreign-key checks on:
			// hold as many as the pool has, and one more
			n := db.Stats().OpenConnections + 1
			var conns []*sql.Conn
			for range n {
				c, err := db.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				conns = append(conns, c)
				var on int
				if err := c.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil || on != 1 {
					t.Errorf("connection %d: PRAGMA foreign_keys = %d, %v; want 1", len(conns), on, err)
				}
			}
			for _, c := range conns {
				c.Close()
			}
			// and the references into the new table are enforced
			if tc.domains > 0 {
				if _, err := db.ExecContext(ctx, `DELETE FROM domains WHERE id = 1`); err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
					t.Errorf("deleting a domain with conflict-set rows: %v, want a foreign key error", err)
				}
			}
		})
	}
}

func equalSnapshots(a, b snapshot) bool {
	if len(a.rows) != len(b.rows) {
		return false
	}
	for k, v := range a.rows {
		if !slices.Equal(v, b.rows[k]) {
			return false
		}
	}
	return maps.Equal(a.objects, b.objects) && slices.Equal(a.columns, b.columns) && slices.Equal(a.refs, b.refs) &&
		slices.Equal(a.stats, b.stats) && a.seq == b.seq
}
