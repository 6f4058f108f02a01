package sqlstore_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestSearchQueryPlans: the domain search (RDAP domains?name=PREFIX*.ZONE)
// reads a range of one index by zone and both bounds of the label or
// A-label, in the order of the index (no sort), on both stores: on
// SQLite domains_zone_label and domains_zone_alabel, on PostgreSQL the
// byte-order indexes domains_zone_label_c (migration 190) and
// domains_zone_alabel_c (migration 140). A plan that reads the zone's
// whole range (the unique index on (zone, label) in the database's
// collation, with the label as a filter) is the one a million domains
// make slow.
func TestSearchQueryPlans(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "plans.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		index := map[string]string{"label": "domains_zone_label", "alabel": "domains_zone_alabel"}
		for column, qs := range s.SearchQueries() {
			for _, q := range qs {
				plan := sqlitePlan(t, s.DB(), q)
				want := " INDEX " + index[column] + " (zone=? AND " + column + ">? AND " + column + "<?)"
				if !slices.ContainsFunc(plan, func(line string) bool { return strings.Contains(line, want) }) {
					t.Errorf("%s\ndoes not search %q: %s", q, want, strings.Join(plan, "; "))
				}
				if slices.ContainsFunc(plan, func(line string) bool { return strings.Contains(line, "TEMP B-TREE") }) {
					t.Errorf("%s\nsorts: %s", q, strings.Join(plan, "; "))
				}
				// the pending transfers, by the partial index of them
				if !slices.ContainsFunc(plan, func(line string) bool {
					return strings.HasPrefix(line, "SEARCH t USING ") && strings.HasSuffix(line, "INDEX transfers_pending (domain_id=?)")
				}) {
					t.Errorf("%s\ndoes not find a pending transfer by its index: %s", q, strings.Join(plan, "; "))
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
		if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
			t.Fatal(err)
		}
		index := map[string]string{"label": "domains_zone_label_c", "alabel": "domains_zone_alabel_c"}
		prefix := map[string]string{"label": "किता", "alabel": "xn--11b4"}
		for column, qs := range s.SearchQueries() {
			for _, q := range qs {
				rows, err := conn.QueryContext(ctx, "EXPLAIN "+q, "भारत", prefix[column], prefix[column]+"\U0010FFFF", 51)
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
				all := strings.Join(plan, "\n")
				// the condition of the scan of domains: the line after it
				cond := ""
				for i, line := range plan {
					if strings.Contains(line, "Index Scan using "+index[column]+" on domains") && i+1 < len(plan) {
						cond = plan[i+1]
					}
				}
				if !strings.HasPrefix(cond, "Index Cond:") || !strings.Contains(cond, "(zone = ") ||
					!strings.Contains(cond, "(("+column+")::text >") || !strings.Contains(cond, "(("+column+")::text < ") {
					t.Errorf("%s\ndoes not read a range of %s by zone and %s:\n%s", q, index[column], column, all)
				}
				if strings.Contains(all, "Sort") {
					t.Errorf("%s\nsorts:\n%s", q, all)
				}
				if strings.Contains(all, "Seq Scan") { // the pending transfers: transfers_pending
					t.Errorf("%s\nreads a table whole:\n%s", q, all)
				}
			}
		}
	})
}
