package main

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// importState is every domain with its registrar, language, legacy codes,
// held labels, whole set and exemption partners: two stores with the
// same importState hold the same registrations.
func importState(t *testing.T, db *sql.DB) string {
	t.Helper()
	var lines []string
	for _, q := range []string{
		`SELECT 'domain ' || d.label || ' ' || r.name || ' ' || d.lang || ' ' || d.legacy FROM domains d JOIN registrars r ON r.id = d.registrar_id`,
		`SELECT 'held ' || b.label || ' by ' || d.label FROM blocks b JOIN domains d ON d.id = b.domain_id`,
		`SELECT 'set ' || e.label || ' of ' || d.label FROM exempt_sets e JOIN domains d ON d.id = e.domain_id`,
		`SELECT 'exempt ' || a.label || ' with ' || b.label FROM exemptions x JOIN domains a ON a.id = x.domain_id JOIN domains b ON b.id = x.other_id`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, s)
		}
		rows.Close()
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// crashImport kills "akshara import" with SIGKILL after some batches have
// committed, runs it again to the end, and compares the store with one an
// uninterrupted import made.
func crashImport(t *testing.T, open func(name string) (*sqlstore.Store, []string)) {
	dir := t.TempDir()
	file := filepath.Join(dir, "names.csv")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	want, err := registrytest.GenerateImport(f, 8_000, 3)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	args := func(storeArgs []string) []string {
		return append(append([]string{"import"}, storeArgs...), "-zone", "भारत", "-contacts-exempt", "-create-registrars", "-batch", "300", "-batched", "-no-progress", file)
	}

	// the reference: uninterrupted
	ref, refArgs := open("ref")
	if _, stderr, code := runCLI(t, "", args(refArgs)...); code != exitInvalid {
		t.Fatalf("reference import: exit %d: %s", code, stderr)
	}

	crashed, crashArgs := open("crash")
	cmd := exec.Command(os.Args[0], args(crashArgs)...)
	cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// wait for a few batches, then kill
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n int
		crashed.DB().QueryRow(`SELECT COUNT(*) FROM audit WHERE action = 'import'`).Scan(&n)
		if n >= 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the import committed no 3 batches in 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	var line, domains int64
	crashed.DB().QueryRow(`SELECT line FROM import_checkpoints`).Scan(&line)
	crashed.DB().QueryRow(`SELECT COUNT(*) FROM domains`).Scan(&domains)
	if domains == 0 || line >= want.Records+10 {
		t.Fatalf("after the kill: %d domains, checkpoint at line %d", domains, line)
	}
	// consistent as it stands: nothing half-written
	var orphans int
	crashed.DB().QueryRow(`SELECT COUNT(*) FROM domains d WHERE NOT EXISTS (SELECT 1 FROM blocks b WHERE b.domain_id = d.id) AND NOT EXISTS (SELECT 1 FROM exempt_sets e WHERE e.domain_id = d.id)`).Scan(&orphans)
	if orphans != 0 {
		t.Errorf("after the kill: %d domains with no conflict set", orphans)
	}
	out, stderr, code := runCLI(t, "", args(crashArgs)...)
	if code != exitInvalid || !strings.Contains(out, "skipped") {
		t.Fatalf("resumed import: exit %d\n%s%s", code, out, stderr)
	}
	got, wantState := importState(t, crashed.DB()), importState(t, ref.DB())
	if got != wantState {
		t.Errorf("killed and resumed import differs from an uninterrupted one (%d vs %d lines)", strings.Count(got, "\n"), strings.Count(wantState, "\n"))
	}
	t.Logf("killed after line %d (%d domains); resumed; %d lines of state equal", line, domains, strings.Count(got, "\n")+1)
}

func TestImportCrashSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped with -short")
	}
	dir := t.TempDir()
	crashImport(t, func(name string) (*sqlstore.Store, []string) {
		path := filepath.Join(dir, name+".db")
		s, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, []string{"-db", path}
	})
}

func TestImportCrashPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped with -short")
	}
	pgtest.DSN(t)
	crashImport(t, func(name string) (*sqlstore.Store, []string) {
		dsn := pgtest.DSN(t)
		s, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, []string{"-dsn", dsn}
	})
}

// TestImportBuildCrashSQLite kills "akshara import" with SIGKILL inside
// the transaction of a built import (an empty zone): the file holds
// nothing of it, whole (integrity_check), and the import run again builds
// what an uninterrupted batched import stores.
func TestImportBuildCrashSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped with -short")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "names.csv")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	want, err := registrytest.GenerateImport(f, 20_000, 3)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	open := func(name string) (*sqlstore.Store, string) {
		path := filepath.Join(dir, name+".db")
		s, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, path
	}
	args := func(path string, more ...string) []string {
		return append(append([]string{"import", "-db", path, "-zone", "भारत", "-contacts-exempt", "-create-registrars", "-no-progress"}, more...), file)
	}
	ref, refPath := open("ref")
	if _, stderr, code := runCLI(t, "", args(refPath, "-batched")...); code != exitInvalid {
		t.Fatalf("reference import: exit %d: %s", code, stderr)
	}
	crashed, path := open("crash")
	// a connection that never waits for the write lock: BUSY while the
	// build's transaction holds it
	probe, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	cmd := exec.Command(os.Args[0], args(path)...)
	cmd.Env = append(os.Environ(), "AKSHARA_TEST_RUN_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var regs int
		crashed.DB().QueryRow(`SELECT COUNT(*) FROM registrars`).Scan(&regs)
		if regs == len(want.Registrars) {
			// the registrars are created one transaction each, before
			// the build: a write lock held now is the build's
			if _, err := probe.Exec(`BEGIN IMMEDIATE`); err != nil {
				break
			}
			probe.Exec(`ROLLBACK`)
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the build took no write lock in 60 s")
		}
		time.Sleep(time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	var domains, blocks, checkpoints int
	var integrity string
	db := crashed.DB()
	db.QueryRow(`SELECT COUNT(*) FROM domains`).Scan(&domains)
	db.QueryRow(`SELECT COUNT(*) FROM blocks`).Scan(&blocks)
	db.QueryRow(`SELECT COUNT(*) FROM import_checkpoints`).Scan(&checkpoints)
	db.QueryRow(`PRAGMA integrity_check`).Scan(&integrity)
	if domains+blocks+checkpoints != 0 || integrity != "ok" {
		t.Fatalf("after the kill: %d domains, %d labels held, %d checkpoints, integrity %q; want nothing, ok", domains, blocks, checkpoints, integrity)
	}
	out, stderr, code := runCLI(t, "", args(path)...)
	if code != exitInvalid || !strings.Contains(out, "built in one transaction") {
		t.Fatalf("import run again: exit %d\n%s%s", code, out, stderr)
	}
	got, wantState := importState(t, db), importState(t, ref.DB())
	if got != wantState {
		t.Errorf("killed and built again differs from an uninterrupted batched import (%d vs %d lines)", strings.Count(got, "\n"), strings.Count(wantState, "\n"))
	}
}
