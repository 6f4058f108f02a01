package sqlstore_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestAtomic: a command's writes, made through store methods called with
// its context, commit together or not at all; a store method inside it
// reads what it wrote so far; each committed command leaves one mark,
// and marks older than the cut are pruned (the newer kept).
func TestAtomic(t *testing.T) {
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "atomic.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	marks := func() int {
		var n int
		if err := s.DB().QueryRow(`SELECT COUNT(*) FROM tx_marks`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	audit := func(ctx context.Context, name string) error {
		return s.Audit(ctx, registry.AuditEntry{At: time.Unix(1, 0), Registrar: "r", Action: "test", Name: name, Result: "ok"})
	}
	count := func(name string) int {
		log, err := s.AuditLog(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range log {
			if e.Name == name {
				n++
			}
		}
		return n
	}
	refused := errors.New("refused")
	err = s.Atomic(ctx, func(ctx context.Context) error {
		if err := audit(ctx, "a"); err != nil {
			return err
		}
		if count("a") != 0 { // AuditLog does not run in the command: it sees nothing yet
			return errors.New("a read outside the command saw its write")
		}
		if err := audit(ctx, "a"); err != nil {
			return err
		}
		return refused
	})
	if !errors.Is(err, refused) || count("a") != 0 || marks() != 0 {
		t.Fatalf("refused command: %v, %d records, %d marks; want refused, 0, 0", err, count("a"), marks())
	}
	for i := 0; i < 3; i++ {
		if err := s.Atomic(ctx, func(ctx context.Context) error {
			return s.Atomic(ctx, func(ctx context.Context) error { return audit(ctx, "b") }) // joins
		}); err != nil {
			t.Fatal(err)
		}
	}
	if count("b") != 3 || marks() != 3 {
		t.Fatalf("3 commands: %d records, %d marks; want 3, 3", count("b"), marks())
	}
	if n, err := s.PruneMarks(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 || marks() != 3 {
		t.Fatalf("pruning marks older than an hour: %d, %v; %d left; want 0, 3 left", n, err, marks())
	}
	if n, err := s.PruneMarks(ctx, time.Now().Add(time.Second)); err != nil || n != 3 || marks() != 0 {
		t.Fatalf("pruning every mark: %d, %v; %d left; want 3, 0 left", n, err, marks())
	}
}
