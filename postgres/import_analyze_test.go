package postgres_test

import (
	"bytes"
	"database/sql"
	"io"
	"testing"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestImportAnalyzesAtTheEnd: after an import the planner's statistics
// are those of the store as the import left it, exemptions included. A
// 10 M import kept the statistics of its 256th batch and none of
// exemptions, and an RDAP lookup of a domain's exemptions took a
// parallel plan (32 ms instead of 0.15). Three batches: statistics are
// refreshed after the first (1, 4, 16, ...) and, with the change, after
// the last; without it reltuples stays at the first batch's count.
func TestImportAnalyzesAtTheEnd(t *testing.T) {
	dsn := pgtest.DSN(t) // skips, saying so, without a test database
	_, svc := openService(t, dsn, postgres.Options{})
	var file bytes.Buffer
	if _, err := registrytest.GenerateImport(&file, 3000, 7); err != nil {
		t.Fatal(err)
	}
	sum, err := svc.Import(t.Context(), func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file.Bytes())), nil },
		registry.ImportOptions{ContactsExempt: true, Zone: "भारत", Registrar: "r0", CreateRegistrars: true, BatchSize: 1100})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Exempted == 0 {
		t.Fatalf("the generated file gave no exempted names: %+v", sum)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, table := range []string{"domains", "blocks", "exempt_sets", "exemptions"} {
		var rows, planned int64
		if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow("SELECT reltuples::bigint FROM pg_class WHERE oid = $1::regclass", table).Scan(&planned); err != nil {
			t.Fatal(err)
		}
		if rows == 0 || planned != rows {
			t.Errorf("%s: %d rows, the planner's statistics say %d", table, rows, planned)
		}
	}
}
