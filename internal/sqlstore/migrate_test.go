package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	_ "modernc.org/sqlite"
)

// TestMigrate applies migrations with semicolons in comments, strings and
// a trigger body, in numeric order (9 before 10 whatever the padding), once.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	migrations := fstest.MapFS{
		"010_more.sql": {Data: []byte(`-- runs after 9_base.sql; it alters its table
ALTER TABLE notes ADD COLUMN extra TEXT NOT NULL DEFAULT 'x;y';
INSERT INTO notes (body) VALUES ('after; 10');`)},
		"9_base.sql": {Data: []byte(`/* the base; with a semicolon */
CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL); -- a note; table
CREATE TABLE counts (n INTEGER NOT NULL);
INSERT INTO counts VALUES (0);
CREATE TRIGGER count_notes AFTER INSERT ON notes BEGIN
	UPDATE counts SET n = n + 1;
	UPDATE counts SET n = n + CASE WHEN NEW.body LIKE '%;%' THEN 10 ELSE 0 END;
END;
INSERT INTO notes (body) VALUES ('it''s; here');`)},
	}
	path := filepath.Join(t.TempDir(), "m.db")
	for i := 0; i < 2; i++ {
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		s := &Store{db: db, d: Dialect{Name: "sqlite", Migrations: migrations}, retry: DefaultRetry}
		if err := s.migrate(ctx); err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		var bodies, n, versions int
		var extra string
		if err := db.QueryRow(`SELECT COUNT(*), MIN(extra) FROM notes`).Scan(&bodies, &extra); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`SELECT n FROM counts`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&versions); err != nil {
			t.Fatal(err)
		}
		// two notes, each with a semicolon: the trigger added 11 twice
		if bodies != 2 || extra != "x;y" || n != 22 || versions != 2 {
			t.Errorf("open %d: %d notes (extra %q), count %d, %d versions; want 2, x;y, 22, 2", i, bodies, extra, n, versions)
		}
		s.Close()
	}

	dup := fstest.MapFS{"1_a.sql": {Data: []byte("SELECT 1")}, "001_b.sql": {Data: []byte("SELECT 1")}}
	db, _ := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "d.db"))
	defer db.Close()
	if err := (&Store{db: db, d: Dialect{Name: "sqlite", Migrations: dup}, retry: DefaultRetry}).migrate(ctx); err == nil {
		t.Error("two migrations numbered 1 were accepted")
	}
}

// TestMigrateForeignKeysOff: a migration marked ForeignKeysOff runs on one
// connection with its foreign-key checks off (a parent table rebuilt by
// SQLite's twelve-step procedure, whose DROP TABLE fails with them on),
// is rolled back if a reference does not hold before COMMIT, closes the
// connection it ran on, and leaves no connection of the pool with the
// checks off, even when they cannot be turned on again. Without the
// dialect's statements, or without the marker, it runs as any migration
// (and the rebuild fails).
func TestMigrateForeignKeysOff(t *testing.T) {
	ctx := context.Background()
	base := `CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT NOT NULL, UNIQUE (name));
CREATE TABLE c (id INTEGER PRIMARY KEY, p_id INTEGER NOT NULL REFERENCES p (id));
INSERT INTO p VALUES (1, 'a'), (2, 'b');
INSERT INTO c VALUES (1, 1), (2, 2);`
	rebuild := `CREATE TABLE p_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO p_new (id, name) SELECT id, name FROM p;
DROP TABLE p;
ALTER TABLE p_new RENAME TO p;
CREATE UNIQUE INDEX p_name ON p (name);`
	sqlite := &ForeignKeys{Off: "PRAGMA foreign_keys = OFF", On: "PRAGMA foreign_keys = ON", Probe: "PRAGMA foreign_keys", Check: "PRAGMA foreign_key_check"}
	with := func(f func(*ForeignKeys)) *ForeignKeys { fk := *sqlite; f(&fk); return &fk }
	for _, tc := range []struct {
		name    string
		fk      *ForeignKeys
		body    string
		wantErr string // a part of the error; "": none
	}{
		{"rebuild", sqlite, ForeignKeysOff + "\n" + rebuild, ""},
		{"rebuild, marker with CRLF", sqlite, ForeignKeysOff + " \r\n" + rebuild, ""},
		{"reference broken", sqlite, ForeignKeysOff + "\n" + rebuild + "\nDELETE FROM p WHERE id = 2;", "rolled back: 1 foreign-key references do not hold after it: c rowid=2 parent=p fkid=0"},
		{"no marker", sqlite, "-- rebuilds p\n" + rebuild, "FOREIGN KEY constraint failed"},
		{"marker not first", sqlite, "-- rebuilds p\n" + ForeignKeysOff + "\n" + rebuild, "FOREIGN KEY constraint failed"},
		{"dialect without the statements", nil, ForeignKeysOff + "\n" + rebuild, "FOREIGN KEY constraint failed"},
		{"checks not turned off", with(func(fk *ForeignKeys) { fk.Off = "SELECT 1" }), ForeignKeysOff + "\n" + rebuild, "the foreign-key checks are still on"},
		// the checks cannot be turned on again: the migration stands,
		// and its connection is closed rather than pooled
		{"on fails", with(func(fk *ForeignKeys) { fk.On = "SELECT * FROM nowhere" }), ForeignKeysOff + "\n" + rebuild, ""},
		{"on does nothing", with(func(fk *ForeignKeys) { fk.On = "SELECT 1" }), ForeignKeysOff + "\n" + rebuild, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			migrations := fstest.MapFS{
				"001_base.sql":    {Data: []byte(base)},
				"002_rebuild.sql": {Data: []byte(tc.body)},
			}
			db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "m.db")+"?_pragma=foreign_keys(1)")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// one connection: the one the migration turned the checks
			// off on is the one every later query gets, unless closed
			db.SetMaxOpenConns(1)
			s := &Store{db: db, d: Dialect{Name: "sqlite", Migrations: migrations, MigrateForeignKeys: tc.fk}, retry: DefaultRetry}
			for i := range 2 { // the second time: nothing to do
				err = s.migrate(ctx)
				if tc.wantErr == "" && err != nil {
					t.Fatalf("migrate %d: %v", i, err)
				}
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("migrate: %v, want an error with %q", err, tc.wantErr)
					}
					break
				}
			}
			var parents, children, indexes, versions int
			for q, n := range map[string]*int{
				`SELECT COUNT(*) FROM p`:                                   &parents,
				`SELECT COUNT(*) FROM c`:                                   &children,
				`SELECT COUNT(*) FROM sqlite_master WHERE name = 'p_name'`: &indexes,
				`SELECT COUNT(*) FROM schema_migrations WHERE version = 2`: &versions,
			} {
				if err := db.QueryRowContext(ctx, q).Scan(n); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			applied := 0
			if tc.wantErr == "" {
				applied = 1
			}
			if parents != 2 || children != 2 || indexes != applied || versions != applied {
				t.Errorf("%d parents, %d children, index p_name %d, version 2 recorded %d; want 2, 2, %d, %d", parents, children, indexes, versions, applied, applied)
			}
			var on int
			if err := db.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil || on != 1 {
				t.Errorf("PRAGMA foreign_keys on the pool's connection = %d, %v; want 1", on, err)
			}
			if _, err := db.ExecContext(ctx, `DELETE FROM p WHERE id = 1`); err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
				t.Errorf("deleting a parent with a child: %v, want a foreign key error", err)
			}
			// the connection the rebuild ran on (its RENAME opened its
			// temporary database) is not the pool's: an import batch
			// sets temp_store inside its transaction (ImportSetup)
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if _, err := tx.ExecContext(ctx, `PRAGMA temp_store = MEMORY`); err != nil {
				t.Errorf("PRAGMA temp_store in a transaction: %v", err)
			}
		})
	}
}
