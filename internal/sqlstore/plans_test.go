package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestIndexedQueryPlans: every query that reads domains by registrar or
// by a lifecycle time reads an index, not the whole table, on both
// stores. Migration 170 dropped the index on registrar_id alone (the one
// on (registrar_id, id) serves the same queries) and made the lifecycle
// indexes partial (WHERE expires > 0, ...): a query whose conditions do
// not imply the index's would scan domains, which a bulk import of
// millions of names fills.
func TestIndexedQueryPlans(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "plans.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, q := range s.IndexedQueries() {
			plan := sqlitePlan(t, s.DB(), q)
			for _, line := range plan {
				// "SCAN d", "SCAN domains USING INDEX x": the whole table
				// or a whole index; "SEARCH d USING INDEX x (...)" is a
				// range of one
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "SCAN" && (f[1] == "d" || f[1] == "domains") {
					t.Errorf("%s\nscans domains: %s", q, strings.Join(plan, "; "))
				}
			}
		}
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		ctx := context.Background()
		s, err := postgres.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		conn, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// an empty table is cheapest to read whole: forbid that, so that
		// a query no index can serve still shows a sequential scan
		if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
			t.Fatal(err)
		}
		for _, q := range s.IndexedQueries() {
			rows, err := conn.QueryContext(ctx, "EXPLAIN "+q, args(q, "$")...)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			var plan []string
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, strings.TrimSpace(line))
			}
			rows.Close()
			for _, line := range plan {
				if strings.Contains(line, "Seq Scan on domains") {
					t.Errorf("%s\nscans domains:\n%s", q, strings.Join(plan, "\n"))
				}
			}
		}
	})
}

// TestLabelLookupPlans: on SQLite the queries that read domains by
// (zone, label) search the unique index domains_zone_label on both
// columns (migration 180 made it of the table constraint's automatic
// index), not domains_zone_alabel on the zone alone (a range of the
// whole zone).
func TestLabelLookupPlans(t *testing.T) {
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "plans.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range s.LabelQueries() {
		plan := sqlitePlan(t, s.DB(), q)
		if !slices.ContainsFunc(plan, func(line string) bool {
			return strings.Contains(line, " INDEX domains_zone_label (zone=? AND label=?)")
		}) {
			t.Errorf("%s\ndoes not search domains_zone_label by zone and label: %s", q, strings.Join(plan, "; "))
		}
	}
}

// sqlitePlan is the detail lines of SQLite's EXPLAIN QUERY PLAN of q.
func sqlitePlan(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q, args(q, "?")...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return plan
}

// args gives 1 for each placeholder of q.
func args(q, mark string) []any {
	var a []any
	for range strings.Count(q, mark) {
		a = append(a, int64(1))
	}
	return a
}
