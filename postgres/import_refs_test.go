package postgres_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestImportRefChecks: an import batch checks the references of the rows
// it COPYs once per batch, with the database's per-row checks off, when
// the role may turn them off (a superuser, or a role given SET on
// session_replication_role) and nothing else would be skipped; otherwise
// (a role that may not; an operator's trigger on domains) row by row, and
// it says so. Every way stores the same rows as the others, and a
// reference that does not hold is refused either way.
func TestImportRefChecks(t *testing.T) {
	pgtest.DSN(t) // skips, saying so, without a test database
	opener := registrytest.GeneratedImport(t, 1500, 11)
	opts := registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, BatchSize: 200, Workers: 2}
	run := func(t *testing.T, store *sqlstore.Store) *registry.ImportSummary {
		t.Helper()
		svc, err := registry.NewServiceWith(t.Context(), store, registry.ServiceOptions{ContactsExempt: []string{""}})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := svc.Import(t.Context(), opener, opts)
		if err != nil {
			t.Fatalf("import: %v", err)
		}
		return sum
	}
	same := func(t *testing.T, got, want *registry.ImportSummary) {
		t.Helper()
		if got.Records != want.Records || got.Registered != want.Registered || got.Exempted != want.Exempted ||
			got.Duplicates != want.Duplicates || got.Refused != want.Refused || got.Batches != want.Batches ||
			!slices.Equal(got.RefusedByCode, want.RefusedByCode) {
			t.Errorf("summary %+v\nwant    %+v", got, want)
		}
	}

	base := open(t).(*sqlstore.Store)
	want := run(t, base)
	if want.ReferenceChecks != "per batch" {
		t.Fatalf("superuser: reference checks %q, want per batch", want.ReferenceChecks)
	}
	if want.Exempted == 0 || want.Batches < 5 {
		t.Fatalf("the file gave %d exempted names in %d batches: want some, in several", want.Exempted, want.Batches)
	}
	wantRows := registrytest.ImportRows(t, base.DB())
	// with no check, a row naming a registrar that does not exist would be
	// written: refused, and nothing written
	bogus(t, base)

	t.Run("role that may not", func(t *testing.T) {
		store := roleStore(t, false)
		got := run(t, store)
		if !strings.HasPrefix(got.ReferenceChecks, "per row: the role may not turn them off") {
			t.Errorf("reference checks %q, want per row, saying why", got.ReferenceChecks)
		}
		same(t, got, want)
		if rows := registrytest.ImportRows(t, store.DB()); rows != wantRows {
			t.Errorf("rows differ from the superuser's import:\n%.2000s\nwant\n%.2000s", rows, wantRows)
		}
		bogus(t, store)
	})
	t.Run("role given SET", func(t *testing.T) {
		store := roleStore(t, true)
		got := run(t, store)
		if got.ReferenceChecks != "per batch" {
			t.Errorf("reference checks %q, want per batch", got.ReferenceChecks)
		}
		same(t, got, want)
		if rows := registrytest.ImportRows(t, store.DB()); rows != wantRows {
			t.Errorf("rows differ from the superuser's import:\n%.2000s\nwant\n%.2000s", rows, wantRows)
		}
	})
	t.Run("operator trigger", func(t *testing.T) {
		store := open(t).(*sqlstore.Store)
		for _, q := range []string{
			`CREATE TABLE seen (n BIGINT NOT NULL)`,
			`INSERT INTO seen VALUES (0)`,
			`CREATE FUNCTION count_domain() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE seen SET n = n + 1; RETURN NEW; END $$`,
			`CREATE TRIGGER count_domain AFTER INSERT ON domains FOR EACH ROW EXECUTE FUNCTION count_domain()`,
		} {
			if _, err := store.DB().Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		got := run(t, store)
		if !strings.Contains(got.ReferenceChecks, "per row: turning them off would skip domains.count_domain") {
			t.Errorf("reference checks %q, want per row, naming the trigger", got.ReferenceChecks)
		}
		same(t, got, want)
		var n int64
		if err := store.DB().QueryRow(`SELECT n FROM seen`).Scan(&n); err != nil || n != want.Registered+want.Exempted {
			t.Errorf("the operator's trigger ran %d times (%v), want once per domain (%d)", n, err, want.Registered+want.Exempted)
		}
		if rows := registrytest.ImportRows(t, store.DB()); rows != wantRows {
			t.Errorf("rows differ from the import without the trigger:\n%.2000s\nwant\n%.2000s", rows, wantRows)
		}
	})
}

// bogus writes a batch with a name of a registrar that does not exist:
// it must fail and write nothing.
func bogus(t *testing.T, store *sqlstore.Store) {
	t.Helper()
	var before int64
	if err := store.DB().QueryRow(`SELECT COUNT(*) FROM domains`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	b := &registry.ImportBatch{Source: "bogus", Zone: "भारत", LastLine: 1, Items: []*registry.ImportItem{{
		Line: 1, RegistrarID: 1 << 40,
		Domain: registry.ImportDomain{Name: "नहींहै.भारत", Label: "नहींहै", ALabel: "xn--x.xn--h2brj9c", Lang: "hi",
			Created: time.Unix(1e9, 0), Blocks: []string{"नहींहै"}},
	}}}
	err := store.ImportBatch(t.Context(), b)
	var after int64
	if qerr := store.DB().QueryRow(`SELECT COUNT(*) FROM domains`).Scan(&after); qerr != nil {
		t.Fatal(qerr)
	}
	if err == nil || after != before {
		t.Errorf("a batch naming registrar ID %d, which does not exist: %v, %d domains before and %d after; want it refused, nothing written",
			b.Items[0].RegistrarID, err, before, after)
	}
}

// roleStore opens a store as a role of its own (not a superuser), owning
// a schema of its own; given SET on session_replication_role if set.
func roleStore(t *testing.T, set bool) *sqlstore.Store {
	t.Helper()
	admin, err := sql.Open("pgx", os.Getenv(pgtest.EnvDSN))
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	rand.Read(b[:])
	role := "akshara_imp_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(`CREATE ROLE ` + role + ` LOGIN`); err != nil {
		admin.Close()
		t.Fatalf("creating role: %v", err)
	}
	t.Cleanup(func() { // after the schema is dropped (cleanups run last first)
		for _, q := range []string{
			`REVOKE SET ON PARAMETER session_replication_role FROM ` + role,
			`DROP OWNED BY ` + role,
			`DROP ROLE ` + role,
		} {
			if _, err := admin.Exec(q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
		admin.Close()
	})
	dsn := pgtest.DSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := u.Query().Get("search_path")
	grants := []string{`GRANT ALL ON SCHEMA ` + schema + ` TO ` + role}
	if set {
		grants = append(grants, `GRANT SET ON PARAMETER session_replication_role TO `+role)
	}
	for _, q := range grants {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	u.User = url.User(role)
	s, err := postgres.Open(t.Context(), u.String())
	if err != nil {
		t.Fatalf("postgres.Open as %s: %v", role, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
