package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
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
