package sqlite_test

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/akshara-idn/akshara/internal/faultdriver"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// faults is the SQLite driver wrapped to inject faults, registered once.
var faults = &faultdriver.Driver{Base: &msqlite.Driver{}}

var registerFaults sync.Once

// openFaulted opens a store on a new file through the faulting driver
// (no fault planned until the caller sets one) with short retries, and
// its service.
func openFaulted(t *testing.T) (*sqlstore.Store, *registry.Service) {
	t.Helper()
	faults.SetPlan(faultdriver.Plan{})
	t.Cleanup(func() { faults.SetPlan(faultdriver.Plan{}) })
	store, err := sqlite.OpenDriver(t.Context(), "sqlite-faults", filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	store.SetRetry(sqlstore.Retry{Attempts: 5, Base: time.Millisecond, Max: 10 * time.Millisecond})
	svc, err := registry.NewServiceWith(t.Context(), store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	return store, svc
}

// busyError returns a real SQLITE_BUSY error: a second writer of a file
// locked by a first one, with no busy timeout.
func busyError(t *testing.T) error {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "busy.db")+"?_pragma=busy_timeout(0)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (x)`); err != nil {
		t.Fatal(err)
	}
	a, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.ExecContext(t.Context(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer a.ExecContext(t.Context(), `ROLLBACK`)
	_, err = b.ExecContext(t.Context(), `BEGIN IMMEDIATE`)
	var e *msqlite.Error
	if !errors.As(err, &e) || e.Code()&0xff != 5 {
		t.Fatalf("a second writer: %v, want SQLITE_BUSY", err)
	}
	return err
}

// TestImportBatchFault is postgres.TestImportBatchFault for SQLite: a
// fault injected into one import batch (SQLITE_BUSY instead of a
// statement that writes the checkpoint, or at its COMMIT, the
// transaction rolled back) is retried like any transaction's
// (internal/sqlstore retry.go), and the import ends as an unfaulted one
// does: the same summary and the same rows. A fault that is not transient
// stops the import. And a COMMIT that took effect though the client was
// told it failed (FailAfter: the connection lost after the COMMIT) is
// read back from the checkpoint's stamp: the batch is not run again.
func TestImportBatchFault(t *testing.T) {
	registerFaults.Do(func() { sql.Register("sqlite-faults", faults) })
	busy := busyError(t)
	opener := registrytest.GeneratedImport(t, 700, 5)
	opts := registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, Batched: true, BatchSize: 100, Workers: 2}
	checkpoint := func(q string) bool { return strings.Contains(q, "INSERT INTO import_checkpoints") }
	run := func(t *testing.T, plan faultdriver.Plan) (*sqlstore.Store, *registry.ImportSummary, error) {
		store, svc := openFaulted(t)
		faults.SetPlan(plan)
		sum, err := svc.Import(t.Context(), opener, opts)
		faults.SetPlan(faultdriver.Plan{})
		return store, sum, err
	}
	base, want, err := run(t, faultdriver.Plan{})
	if err != nil {
		t.Fatalf("unfaulted import: %v", err)
	}
	if want.Batches < 3 {
		t.Fatalf("unfaulted import: %d batches, want several", want.Batches)
	}
	wantRows := registrytest.ImportRows(t, base.DB())

	injected := errors.New("injected fault")
	for _, tc := range []struct {
		name     string
		err      error
		commit   faultdriver.Commit // 0: the fault instead of the checkpoint's statement
		fails    bool               // not transient: the import stops
		resolved bool               // a fault at COMMIT whose outcome is read back
	}{
		{name: "busy", err: busy},
		{name: "busy at COMMIT", err: busy, commit: faultdriver.FailBefore},
		{name: "not transient", err: injected, fails: true},
		{name: "not transient at COMMIT", err: injected, commit: faultdriver.FailBefore, fails: true, resolved: true},
		{name: "connection lost after COMMIT", err: driverBadConn{}, commit: faultdriver.FailAfter, resolved: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0 // checkpoint statements (or COMMITs of batches) seen: the fault comes at the second
			plan := faultdriver.Plan{Mark: checkpoint}
			if tc.commit == 0 {
				plan.Statement = func(q string, _ bool) error {
					if checkpoint(q) {
						if n++; n == 2 {
							return tc.err
						}
					}
					return nil
				}
			} else {
				plan.Commit = func(marked bool) (faultdriver.Commit, error) {
					if marked {
						if n++; n == 2 {
							return tc.commit, tc.err
						}
					}
					return faultdriver.Pass, nil
				}
			}
			store, got, err := run(t, plan)
			if n < 2 {
				t.Fatalf("the fault was not injected (%d batches seen)", n)
			}
			if tc.resolved && store.Resolved() == 0 {
				t.Errorf("the fault at COMMIT was not read back")
			}
			if tc.fails {
				if err == nil || !strings.Contains(err.Error(), tc.err.Error()) || got.Batches != 1 {
					t.Fatalf("import: %d batches, %v; want it stopped after one by the injected fault", got.Batches, err)
				}
				if registrytest.ImportRows(t, store.DB()) == wantRows {
					t.Errorf("the stopped import stored every row")
				}
				return
			}
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			if tc.commit != faultdriver.FailAfter && store.Retries() == 0 {
				t.Errorf("no retry counted")
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

// driverBadConn is the error of a connection lost: not SQLITE_BUSY, so
// not a refusal the store may retry blindly.
type driverBadConn struct{}

func (driverBadConn) Error() string { return "connection lost after COMMIT" }

// TestReauditScanFault: SQLITE_BUSY in the middle of the re-audit's scan
// of a zone (at its fifth row) makes the store run the scan again, and the
// re-audit starts the zone over: it lists what an unfaulted one lists.
func TestReauditScanFault(t *testing.T) {
	registerFaults.Do(func() { sql.Register("sqlite-faults", faults) })
	busy := busyError(t)
	store, svc := openFaulted(t)
	r, _, err := svc.AddRegistrar(t.Context(), "old")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"बकक.भारत", "वकक.भारत", "स्त्रीकक.भारत", "कमल.भारत"} {
		if _, err := svc.CreateDomain(t.Context(), r, registry.DomainCreate{Name: n, Lang: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	mod, err := registry.NewServiceWith(t.Context(), store, registrytest.Exempt(registrytest.ModifiedHindi(t), ""))
	if err != nil {
		t.Fatal(err)
	}
	reaudit := func() string {
		var b strings.Builder
		sum, err := mod.Reaudit(t.Context(), false, func(f *registry.ReauditFinding) error {
			fmt.Fprintf(&b, "%+v\n", *f)
			return nil
		})
		if err != nil {
			t.Fatalf("Reaudit: %v", err)
		}
		fmt.Fprintf(&b, "%+v\n", *sum)
		return b.String()
	}
	want := reaudit()
	if strings.Count(want, "\n") < 4 {
		t.Fatalf("the unfaulted re-audit lists too little to compare:\n%s", want)
	}
	faulted := 0
	faults.SetPlan(faultdriver.Plan{Row: func(q string, n int) error {
		if strings.Contains(q, "UNION ALL") && n == 5 && faulted == 0 {
			faulted++
			return busy
		}
		return nil
	}})
	retries := store.Retries()
	got := reaudit()
	faults.SetPlan(faultdriver.Plan{})
	if faulted != 1 || store.Retries() == retries {
		t.Fatalf("the fault was injected %d times, %d retries; want once, retried", faulted, store.Retries()-retries)
	}
	if got != want {
		t.Errorf("re-audit with a fault in its scan:\n%s\nwant\n%s", got, want)
	}
}
