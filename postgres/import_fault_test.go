package postgres_test

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestImportBatchFault: a fault injected into one import batch (a
// trigger on the checkpoint raising an SQLSTATE the second time it runs,
// inside the batch or at its COMMIT) is retried like any transaction's
// (internal/sqlstore retry.go), and the import ends as an unfaulted one
// does: the same summary and the same rows. A fault that is not transient
// stops the import.
func TestImportBatchFault(t *testing.T) {
	pgtest.DSN(t) // skips, saying so, without a test database
	opener := registrytest.GeneratedImport(t, 700, 5)
	opts := registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, BatchSize: 100, Workers: 2}
	run := func(t *testing.T, inject func(db *sql.DB)) (*sqlstore.Store, *registry.ImportSummary, error) {
		store := open(t).(*sqlstore.Store)
		store.SetRetry(sqlstore.Retry{Attempts: 5, Base: time.Millisecond, Max: 10 * time.Millisecond})
		svc, err := registry.NewServiceWith(t.Context(), store, registry.ServiceOptions{ContactsExempt: []string{""}})
		if err != nil {
			t.Fatal(err)
		}
		if inject != nil {
			inject(store.DB())
		}
		sum, err := svc.Import(t.Context(), opener, opts)
		return store, sum, err
	}
	base, want, err := run(t, nil)
	if err != nil {
		t.Fatalf("unfaulted import: %v", err)
	}
	if want.Batches < 3 {
		t.Fatalf("unfaulted import: %d batches, want several", want.Batches)
	}
	wantRows := registrytest.ImportRows(t, base.DB())

	for _, tc := range []struct {
		name     string
		code     string
		deferred bool // raised at COMMIT
		fails    bool // not transient: the import stops
		resolved bool // a fault at COMMIT whose outcome is read back
	}{
		{name: "serialization failure", code: "40001"},
		{name: "deadlock", code: "40P01"},
		{name: "connection exception", code: "08006"},
		{name: "serialization failure at COMMIT", code: "40001", deferred: true},
		{name: "connection exception at COMMIT", code: "08006", deferred: true, resolved: true},
		{name: "not transient", code: "P0001", fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inject := func(db *sql.DB) {
				trigger := `CREATE TRIGGER fault BEFORE INSERT ON import_checkpoints FOR EACH ROW EXECUTE FUNCTION fault()`
				if tc.deferred {
					trigger = `CREATE CONSTRAINT TRIGGER fault AFTER INSERT OR UPDATE ON import_checkpoints DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fault()`
				}
				for _, q := range []string{
					// a sequence is not rolled back: the fault comes once, in the second batch
					`CREATE SEQUENCE fault_n`,
					fmt.Sprintf(`CREATE FUNCTION fault() RETURNS trigger LANGUAGE plpgsql AS $$
					BEGIN IF nextval('fault_n') = 2 THEN RAISE EXCEPTION 'injected fault' USING ERRCODE = '%s'; END IF; RETURN NEW; END $$`, tc.code),
					trigger,
				} {
					if _, err := db.Exec(q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
			}
			store, got, err := run(t, inject)
			var n int64
			if err := store.DB().QueryRow(`SELECT last_value FROM fault_n`).Scan(&n); err != nil || n < 2 {
				t.Fatalf("the fault trigger ran %d times (%v): the fault was not injected", n, err)
			}
			if tc.fails {
				if err == nil || !strings.Contains(err.Error(), "injected fault") || got.Batches != 1 {
					t.Fatalf("import: %d batches, %v; want it stopped after one by the injected fault", got.Batches, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			if store.Retries() == 0 {
				t.Errorf("no retry counted")
			}
			if tc.resolved && store.Resolved() == 0 {
				t.Errorf("the fault at COMMIT was not read back")
			}
			if got.Records != want.Records || got.Registered != want.Registered || got.Exempted != want.Exempted ||
				got.Duplicates != want.Duplicates || got.Refused != want.Refused || got.Batches != want.Batches ||
				!slices.Equal(got.RefusedByCode, want.RefusedByCode) {
				t.Errorf("faulted import: %+v\nunfaulted:      %+v", got, want)
			}
			if rows := registrytest.ImportRows(t, store.DB()); rows != wantRows {
				t.Errorf("faulted import's rows differ from an unfaulted one's:\n%.2000s\nwant\n%.2000s", rows, wantRows)
			}
		})
	}
}
