package registrytest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// canBuild reports whether e's store builds an import into its empty
// zone भारत (registry.ImportBuilder).
func canBuild(t *testing.T, e *env) bool {
	t.Helper()
	b, ok := e.store.(registry.ImportBuilder)
	if !ok {
		return false
	}
	empty, err := b.ImportBuildable(e.ctx, "भारत")
	if err != nil {
		t.Fatalf("ImportBuildable: %v", err)
	}
	return empty
}

// importedRows is everything an import stores, by ID: the domains with
// every column an import sets, the labels held, the exempted sets, the
// exemption pairs, the checkpoints.
func importedRows(t *testing.T, e *env) string {
	t.Helper()
	db := e.store.(interface{ DB() *sql.DB }).DB()
	var b strings.Builder
	for _, q := range []string{
		`SELECT CAST(id AS TEXT) || ' ' || zone || ' ' || label || ' ' || alabel || ' ' || lang || ' ' || CAST(registrar_id AS TEXT) || ' ' || CAST(created AS TEXT) || ' ' || CAST(expires AS TEXT) || ' ' || data_version || ' ' || legacy || ' ' || statuses FROM domains ORDER BY id`,
		`SELECT zone || ' ' || label || ' ' || CAST(domain_id AS TEXT) FROM blocks ORDER BY zone, label`,
		`SELECT zone || ' ' || label || ' ' || CAST(domain_id AS TEXT) FROM exempt_sets ORDER BY domain_id, label`,
		`SELECT CAST(domain_id AS TEXT) || ' ' || CAST(other_id AS TEXT) FROM exemptions ORDER BY domain_id, other_id`,
		`SELECT source || ' ' || zone || ' ' || CAST(line AS TEXT) || ' ' || CAST(done AS TEXT) FROM import_checkpoints ORDER BY 1`,
	} {
		for _, l := range queryLines(t, e.ctx, db, q) {
			b.WriteString(l + "\n")
		}
		b.WriteString("--\n")
	}
	return b.String()
}

// testImportBuiltAsBatched: a built import stores what the same import
// written in batches stores, row for row and ID for ID, and reports the
// same summary and the same refusals in the same order; with and without
// legacy names.
func testImportBuiltAsBatched(t *testing.T, open func(*testing.T) registry.Store, opener func() (io.ReadCloser, error)) {
	for _, allowInvalid := range []bool{false, true} {
		t.Run(fmt.Sprintf("AllowInvalid=%v", allowInvalid), func(t *testing.T) {
			var rows [2]string
			var sums [2]registry.ImportSummary
			var refusals [2][]registry.ImportRefusal
			var now = [2]*env{}
			for i, batched := range []bool{false, true} {
				e := newEnv(t, open)
				now[i] = e
				if i == 0 && !canBuild(t, e) {
					t.Skip("the store does not build imports (registry.ImportBuilder)")
				}
				if i == 1 {
					e.clock.Set(now[0].clock.Now())
				}
				sum, err := e.svc.Import(e.ctx, opener, registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, BatchSize: 300,
					AllowInvalid: allowInvalid, Batched: batched,
					Refused: func(r registry.ImportRefusal) { refusals[i] = append(refusals[i], r) }})
				if err != nil {
					t.Fatalf("Import (batched %v): %v", batched, err)
				}
				if sum.Built == batched {
					t.Fatalf("Import (batched %v): built %v", batched, sum.Built)
				}
				rows[i] = importedRows(t, e)
				s := *sum
				s.Built, s.Batches, s.LookAhead, s.ReferenceChecks, s.RegistrarsCreated = false, 0, "", "", nil
				sums[i] = s
			}
			if sums[0].Registered == 0 || sums[0].Exempted == 0 || sums[0].Duplicates == 0 || sums[0].Refused == 0 || allowInvalid && sums[0].Legacy == 0 {
				t.Fatalf("the file does not test every outcome: %+v", sums[0])
			}
			if fmt.Sprintf("%+v", sums[0]) != fmt.Sprintf("%+v", sums[1]) {
				t.Errorf("summaries differ:\nbuilt   %+v\nbatched %+v", sums[0], sums[1])
			}
			if rows[0] != rows[1] {
				a, b := strings.Split(rows[0], "\n"), strings.Split(rows[1], "\n")
				for k := 0; k < min(len(a), len(b)); k++ {
					if a[k] != b[k] {
						t.Fatalf("the stored rows differ (%d and %d lines), first at line %d:\nbuilt   %s\nbatched %s", len(a), len(b), k, a[k], b[k])
					}
				}
				t.Fatalf("the stored rows differ: %d lines built, %d batched", len(a), len(b))
			}
			if fmt.Sprint(refusals[0]) != fmt.Sprint(refusals[1]) || len(refusals[0]) == 0 {
				t.Errorf("refusals differ: %d built, %d batched\nbuilt   %.300v\nbatched %.300v", len(refusals[0]), len(refusals[1]), refusals[0], refusals[1])
			}
		})
	}
}

// testImportBuildInterrupted: a built import interrupted before its
// transaction or inside it writes nothing (the zone stays empty, no
// checkpoint), and run again it builds the whole file.
func testImportBuildInterrupted(t *testing.T, open func(*testing.T) registry.Store, want *ImportWant, opener func() (io.ReadCloser, error)) {
	for _, at := range []string{"deciding", "writing the domains", "writing the conflict sets", "building the indexes"} {
		t.Run(strings.ReplaceAll(at, " ", "_"), func(t *testing.T) {
			e := newEnv(t, open)
			if !canBuild(t, e) {
				t.Skip("the store does not build imports (registry.ImportBuilder)")
			}
			ctx, cancel := context.WithCancel(e.ctx)
			defer cancel()
			seen := false
			sum, err := e.svc.Import(ctx, opener, registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true,
				StageHook: func(stage string) {
					if stage == at {
						seen = true
						cancel()
					}
				}})
			if !seen || !errors.Is(err, context.Canceled) {
				t.Fatalf("Import cancelled at %q: %v (stage seen %v), want context.Canceled", at, err, seen)
			}
			if sum == nil || !sum.Built {
				t.Errorf("Import cancelled at %q: summary %+v, want built", at, sum)
			}
			if rows := importedRows(t, e); rows != strings.Repeat("--\n", 5) {
				t.Fatalf("Import cancelled at %q wrote:\n%.500s", at, rows)
			}
			if !canBuild(t, e) {
				t.Fatalf("the zone is not empty after the interrupted build")
			}
			again, err := e.svc.Import(e.ctx, opener, registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true})
			if err != nil || !again.Built || again.Skipped != 0 {
				t.Fatalf("Import again: %+v, %v; want built from the first line", again, err)
			}
			checkSummary(t, "Import again", again, want)
		})
	}
}
