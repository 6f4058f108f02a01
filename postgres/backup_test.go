package postgres_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
)

// TestPostgresBackupRestore: the procedure of docs/operations.md. A
// schema dumped with pg_dump -Fc and restored with pg_restore into a fresh
// database has every domain, each with its conflict set, and its
// registrars' tokens still work.
func TestPostgresBackupRestore(t *testing.T) {
	dsn := pgtest.DSN(t)
	for _, tool := range []string{"pg_dump", "pg_restore"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: PostgreSQL backup test skipped", tool)
		}
	}
	ctx := context.Background()
	store, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc, _ := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	r, token, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, label := range []string{"किताब", "कमल", "नमक", "मकान"} {
		for _, name := range []string{label + ".भारत", fmt.Sprintf("name-%d.in", i)} {
			if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: name}); err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
		}
	}

	u, _ := url.Parse(dsn)
	schema := u.Query().Get("search_path")
	base := os.Getenv(pgtest.EnvDSN)
	dump := filepath.Join(t.TempDir(), "akshara.dump")
	if out, err := exec.Command("pg_dump", "-Fc", "-n", schema, "-f", dump, "-d", base).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}

	// a fresh database of its own, dropped at the end
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var b [6]byte
	rand.Read(b[:])
	dbname := "akshara_restore_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(`CREATE DATABASE ` + dbname); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(`DROP DATABASE ` + dbname + ` WITH (FORCE)`) })
	ru, _ := url.Parse(base)
	ru.Path = "/" + dbname
	if out, err := exec.Command("pg_restore", "--no-owner", "-d", ru.String(), dump).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, out)
	}
	q := ru.Query()
	q.Set("search_path", schema)
	ru.RawQuery = q.Encode()
	restored, err := postgres.Open(ctx, ru.String())
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	rsvc, err := registry.NewServiceWith(ctx, restored, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if d, err := rsvc.Info(ctx, name); err != nil || len(d.Blocks) == 0 {
			t.Errorf("restored: %s: %+v, %v", name, d, err)
		}
	}
	if res, err := rsvc.Check(ctx, "कित्ताब.भारत", "hi"); err != nil || res.Status != registry.Blocked {
		t.Errorf("restored: the variant of किताब.भारत: %+v, %v; want blocked", res, err)
	}
	if _, err := rsvc.Authenticate(ctx, token); err != nil {
		t.Errorf("restored: the registrar's token: %v", err)
	}
	if _, err := rsvc.CreateDomain(ctx, r, registry.DomainCreate{Name: "after-restore.in"}); err != nil {
		t.Errorf("restored: a create: %v", err)
	}
}
