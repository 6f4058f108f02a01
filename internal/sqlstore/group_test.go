package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// groupStore is a Store on a fresh SQLite file with one table, t(k UNIQUE),
// grouping its transactions.
func groupStore(t *testing.T) *Store {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+t.TempDir()+"/g.db?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(8)
	// the store's own schema (New prepares its statements), and t
	s, err := New(context.Background(), db, Dialect{Name: "sqlite", IsUnique: func(error) bool { return false }, Migrations: os.DirFS("../../sqlite/migrations")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t (k TEXT NOT NULL UNIQUE)"); err != nil {
		t.Fatal(err)
	}
	s.GroupWrites()
	t.Cleanup(func() { s.Close() })
	return s
}

func rows(t *testing.T, s *Store) map[string]int {
	t.Helper()
	rs, err := s.db.Query("SELECT k FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	got := map[string]int{}
	for rs.Next() {
		var k string
		rs.Scan(&k)
		got[k]++
	}
	return got
}

// runConcurrently runs the functions as transactions at once, after a
// slow one that makes them queue into one group, and returns their errors.
func runConcurrently(s *Store, fs []func(*sql.Tx) error) []error {
	ctx := context.Background()
	errs := make([]error, len(fs))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.tx(ctx, func(*sql.Tx) error { time.Sleep(50 * time.Millisecond); return nil })
	}()
	time.Sleep(10 * time.Millisecond)
	for i, f := range fs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.tx(ctx, f)
		}()
	}
	wg.Wait()
	return errs
}

func insert(k string) func(*sql.Tx) error {
	return func(tx *sql.Tx) error {
		_, err := tx.Exec("INSERT INTO t (k) VALUES (?)", k)
		return err
	}
}

var errRefused = errors.New("refused")

// TestGroupCommitIsolation: in a group, a member that fails (its own error
// after writing, or a unique violation) leaves no trace, and the others
// are committed, each answered with its own result.
func TestGroupCommitIsolation(t *testing.T) {
	s := groupStore(t)
	var fs []func(*sql.Tx) error
	want := map[string]int{}
	for i := 0; i < 40; i++ {
		k := fmt.Sprint("k", i)
		switch i % 4 {
		case 0: // writes, then fails
			fs = append(fs, func(tx *sql.Tx) error {
				if err := insert(k)(tx); err != nil {
					return err
				}
				return errRefused
			})
		case 1: // a duplicate of the key of the member before it (case 0, rolled back) and after
			fs = append(fs, insert(fmt.Sprint("dup", i/4)))
			fs = append(fs, insert(fmt.Sprint("dup", i/4)))
			want[fmt.Sprint("dup", i/4)] = 1
		default:
			fs = append(fs, insert(k))
			want[k] = 1
		}
	}
	errs := runConcurrently(s, fs)
	dups := map[string]int{}
	for i, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, errRefused):
		default:
			dups[fmt.Sprint(i)]++ // a unique violation: one per pair
		}
	}
	if len(dups) != 10 {
		t.Errorf("%d members failed on a duplicate key, want 10: %v", len(dups), errs)
	}
	got := rows(t, s)
	if len(got) != len(want) {
		t.Errorf("table holds %d keys, want %d: %v", len(got), len(want), got)
	}
	for k := range want {
		if got[k] != 1 {
			t.Errorf("key %s: %d rows, want 1", k, got[k])
		}
	}
}

// TestGroupCommitBroken: a member that ends the group's transaction (as
// SQLite does on some errors) breaks the group; nothing of it is
// committed, and every member runs again alone: the others are committed
// once each, the breaker fails.
func TestGroupCommitBroken(t *testing.T) {
	s := groupStore(t)
	var fs []func(*sql.Tx) error
	for i := 0; i < 20; i++ {
		fs = append(fs, insert(fmt.Sprint("k", i)))
	}
	fs = append(fs, func(tx *sql.Tx) error {
		if err := insert("breaker")(tx); err != nil {
			return err
		}
		_, err := tx.Exec("ROLLBACK")
		return err
	})
	errs := runConcurrently(s, fs)
	got := rows(t, s)
	for i := 0; i < 20; i++ {
		if errs[i] != nil {
			t.Errorf("member %d: %v", i, errs[i])
		}
		if k := fmt.Sprint("k", i); got[k] != 1 {
			t.Errorf("key %s: %d rows, want 1", k, got[k])
		}
	}
	if errs[20] == nil {
		t.Errorf("the member that rolled back was told it committed")
	}
	if got["breaker"] != 0 {
		t.Errorf("the breaker's row was committed")
	}
}

// TestGroupCommitCanceled: a member whose context is canceled fails alone.
func TestGroupCommitCanceled(t *testing.T) {
	s := groupStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.tx(ctx, insert("x")); err == nil {
		t.Fatal("a canceled transaction succeeded")
	}
	if err := s.tx(context.Background(), insert("y")); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, s); got["x"] != 0 || got["y"] != 1 {
		t.Errorf("rows %v, want only y", got)
	}
}

// TestGroupCommitPanic: a function that panics in a group panics in its
// caller, as without grouping; the others are committed.
func TestGroupCommitPanic(t *testing.T) {
	s := groupStore(t)
	var fs []func(*sql.Tx) error
	for i := 0; i < 10; i++ {
		fs = append(fs, insert(fmt.Sprint("k", i)))
	}
	fs = append(fs, func(tx *sql.Tx) error {
		insert("panicker")(tx)
		panic("boom")
	})
	recovered := make(chan any, 1)
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.tx(ctx, func(*sql.Tx) error { time.Sleep(50 * time.Millisecond); return nil })
	}()
	time.Sleep(10 * time.Millisecond)
	errs := make([]error, len(fs))
	for i, f := range fs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == len(fs)-1 {
				defer func() { recovered <- recover() }()
			}
			errs[i] = s.tx(ctx, f)
		}()
	}
	wg.Wait()
	if v := <-recovered; v != "boom" {
		t.Errorf("the panicking function's caller recovered %v, want boom", v)
	}
	got := rows(t, s)
	for i := 0; i < 10; i++ {
		if errs[i] != nil || got[fmt.Sprint("k", i)] != 1 {
			t.Errorf("member %d: %v, %d rows", i, errs[i], got[fmt.Sprint("k", i)])
		}
	}
	if got["panicker"] != 0 {
		t.Errorf("the panicking function's row was committed")
	}
}
