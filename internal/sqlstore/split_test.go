package sqlstore

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitSQL(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"plain", "CREATE TABLE a (x INT);\nCREATE TABLE b (y INT);", []string{"CREATE TABLE a (x INT)", "CREATE TABLE b (y INT)"}},
		{"no final semicolon", "SELECT 1;SELECT 2", []string{"SELECT 1", "SELECT 2"}},
		{"empty statements", ";; ;\n;", nil},
		{"line comment", "-- a; b\nSELECT 1; -- c; d\n", []string{"-- a; b\nSELECT 1"}},
		{"comment only", "SELECT 1;\n-- the end; really\n", []string{"SELECT 1"}},
		{"block comment", "/* x; y */ SELECT 1; /* z; */", []string{"/* x; y */ SELECT 1"}},
		{"nested block comment", "/* a /* b; */ c; */ SELECT 1;", []string{"/* a /* b; */ c; */ SELECT 1"}},
		{"string", "INSERT INTO t VALUES ('a;b');SELECT 2", []string{"INSERT INTO t VALUES ('a;b')", "SELECT 2"}},
		{"escaped quote", "INSERT INTO t VALUES ('it''s; fine');", []string{"INSERT INTO t VALUES ('it''s; fine')"}},
		{"comment marks in a string", "INSERT INTO t VALUES ('-- no; /* no');SELECT 2;", []string{"INSERT INTO t VALUES ('-- no; /* no')", "SELECT 2"}},
		{"quoted identifier", `CREATE TABLE "a;b" (x INT);`, []string{`CREATE TABLE "a;b" (x INT)`}},
		{"backquoted and bracketed", "SELECT `a;b`, [c;d] FROM t;", []string{"SELECT `a;b`, [c;d] FROM t"}},
		{"dollar quote", "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;SELECT 2;",
			[]string{"CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql", "SELECT 2"}},
		{"tagged dollar quote", "DO $body$ BEGIN PERFORM 1; END $body$;", []string{"DO $body$ BEGIN PERFORM 1; END $body$"}},
		{"placeholder", "SELECT $1; SELECT $2;", []string{"SELECT $1", "SELECT $2"}},
		{"trigger", "CREATE TRIGGER t AFTER INSERT ON a BEGIN\n  INSERT INTO b VALUES (1);\n  UPDATE c SET x = CASE WHEN 1 THEN 2 END;\nEND;\nSELECT 1;",
			[]string{"CREATE TRIGGER t AFTER INSERT ON a BEGIN\n  INSERT INTO b VALUES (1);\n  UPDATE c SET x = CASE WHEN 1 THEN 2 END;\nEND", "SELECT 1"}},
		{"temp trigger after a comment", "-- x\nCREATE TEMP TRIGGER t AFTER DELETE ON a BEGIN DELETE FROM b; END;",
			[]string{"-- x\nCREATE TEMP TRIGGER t AFTER DELETE ON a BEGIN DELETE FROM b; END"}},
		{"BEGIN outside a trigger", "BEGIN; SELECT 1; END;", []string{"BEGIN", "SELECT 1", "END"}},
		{"unterminated string", "SELECT 'a;b", []string{"SELECT 'a;b"}},
		{"unterminated comment", "SELECT 1; /* a;", []string{"SELECT 1"}},
	} {
		if got := SplitSQL(tc.src); !slices.Equal(got, tc.want) {
			t.Errorf("%s: SplitSQL(%q) =\n%q\nwant\n%q", tc.name, tc.src, got, tc.want)
		}
	}
}

// FuzzSplitSQL: no panic, statements are trimmed non-empty pieces of the
// input in order, and a plain list (no quotes or comments) splits at
// every semicolon.
func FuzzSplitSQL(f *testing.F) {
	for _, s := range []string{"SELECT 1; SELECT 2", "'a;b'", "$$;$$", "/* ; */", "-- ;\n;", "CREATE TRIGGER x BEGIN a; END;", "$a$ $b$ ; $a$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		rest := src
		for _, stmt := range SplitSQL(src) {
			if stmt == "" || stmt != strings.TrimSpace(stmt) {
				t.Fatalf("statement %q is empty or untrimmed", stmt)
			}
			i := strings.Index(rest, stmt)
			if i < 0 {
				t.Fatalf("statement %q is not in order in %q", stmt, src)
			}
			rest = rest[i+len(stmt):]
		}
		if !strings.ContainsAny(src, "'\"`[$-/") && !strings.Contains(strings.ToUpper(src), "TRIGGER") {
			var want []string
			for _, p := range strings.Split(src, ";") {
				if p = strings.TrimSpace(p); p != "" {
					want = append(want, p)
				}
			}
			if got := SplitSQL(src); !slices.Equal(got, want) {
				t.Fatalf("SplitSQL(%q) = %q, want %q", src, got, want)
			}
		}
	})
}
