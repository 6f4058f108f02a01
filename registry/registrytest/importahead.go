package registrytest

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// testImportAhead: a write committed between a batch's look-ahead
// (registry.ImportAheader, done while the batch before is written) and
// the batch's own transaction is not missed. Deterministic: the store's
// steps are called in the order the pipeline may run them, the write
// injected between the look-ahead and the batch (the role of
// ImportOptions.AheadHook in a whole import, testImportAheadHook). The
// sets are given as they are: the store decides, the policy is not asked.
func testImportAhead(t *testing.T, open func(*testing.T) registry.Store) {
	for _, tc := range []struct {
		name string
		// the first batch's name and set, the second's, and the write
		// injected between the second's look-ahead and its transaction
		first, second []string
		inject        func(e *env, r *registry.Registrar) error
		// what the second batch's name must be, and with whom
		want     registry.ImportOutcome
		withWant []string
		holds    []string // labels the second's name must hold in blocks
	}{
		{
			// an exempted create: its set meets the imported name's at a
			// label the first batch holds (the import would insert
			// nothing it could collide on): only the marker tells
			name: "ExemptedCreate", first: []string{"pa", "pv"}, second: []string{"px", "pv"},
			inject: func(e *env, r *registry.Registrar) error {
				_, err := e.store.CreateExemptDomain(e.ctx, aheadDomain("pe", "pe", "pv"), r.ID)
				return err
			},
			want: registry.ImportExempted, withWant: []string{"pa.भारत", "pe.भारत"}, holds: []string{"px"},
		},
		{
			// a delete of the first batch's name, which held a label of
			// the second's: the label is free, the second holds it
			name: "Delete", first: []string{"da", "dv"}, second: []string{"dx", "dv"},
			inject: func(e *env, r *registry.Registrar) error {
				return e.store.DeleteDomain(e.ctx, "भारत", "da", r.ID)
			},
			want: registry.ImportRegistered, holds: []string{"dx", "dv"},
		},
		{
			// an ordinary create taking a label the look-ahead saw free
			// (caught by the unique index on PostgreSQL, the marker on
			// SQLite)
			name: "Create", first: []string{"ca"}, second: []string{"cx", "cv"},
			inject: func(e *env, r *registry.Registrar) error {
				_, err := e.store.CreateDomain(e.ctx, aheadDomain("cc", "cc", "cv"), r.ID)
				return err
			},
			want: registry.ImportExempted, withWant: []string{"cc.भारत"}, holds: []string{"cx"},
		},
		{
			// an ordinary create of the very name: a duplicate
			name: "SameName", first: []string{"sa"}, second: []string{"sx", "sv"},
			inject: func(e *env, r *registry.Registrar) error {
				_, err := e.store.CreateDomain(e.ctx, aheadDomain("sx", "sx", "sv"), r.ID)
				return err
			},
			want: registry.ImportDuplicate,
		},
		{
			// nothing injected: the look-ahead is used, corrected by
			// the first batch (its name counts as registered)
			name: "Nothing", first: []string{"na", "nv"}, second: []string{"nx", "nv"},
			want: registry.ImportExempted, withWant: []string{"na.भारत"}, holds: []string{"nx"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			r, _ := e.registrar("alpha")
			imp := e.store.(registry.Importer)
			ahead, ok := e.store.(registry.ImportAheader)
			if !ok {
				t.Skip("the store does not look ahead")
			}
			batch := func(line int64, set []string) *registry.ImportBatch {
				return &registry.ImportBatch{Source: "ahead-" + tc.name, Zone: "भारत", LastLine: line, Done: line == 2,
					Items: []*registry.ImportItem{{Line: line, Domain: aheadImportDomain(set[0], set...), RegistrarID: r.ID}}}
			}
			b1, b2 := batch(1, tc.first), batch(2, tc.second)
			// batch 2 looked up while batch 1 is not yet written (the
			// look-ahead may read before or after batch 1 commits)
			if err := ahead.ImportAhead(e.ctx, b2); err != nil {
				t.Fatalf("ImportAhead: %v", err)
			}
			if b2.Ahead == nil {
				t.Fatalf("ImportAhead left no look-ahead")
			}
			if err := imp.ImportBatch(e.ctx, b1); err != nil {
				t.Fatalf("ImportBatch 1: %v", err)
			}
			if tc.inject != nil {
				if err := tc.inject(e, r); err != nil {
					t.Fatalf("inject: %v", err)
				}
			}
			counts, _ := e.store.(interface{ ImportAheadCounts() (int64, int64, int64) })
			var used0 int64
			if counts != nil {
				used0, _, _ = counts.ImportAheadCounts()
			}
			if err := imp.ImportBatch(e.ctx, b2); err != nil {
				t.Fatalf("ImportBatch 2: %v", err)
			}
			if counts != nil && tc.inject == nil {
				// nothing else committed: the look-ahead must be used
				if used, _, _ := counts.ImportAheadCounts(); used != used0+1 {
					t.Errorf("the look-ahead was not used (used %d batches, before %d)", used, used0)
				}
			}
			it := b2.Items[0]
			if it.Outcome != tc.want || !slices.Equal(sorted(it.ExemptWith), tc.withWant) {
				t.Errorf("%s: outcome %d, exempted with %q; want %d with %q", it.Domain.Name, it.Outcome, it.ExemptWith, tc.want, tc.withWant)
			}
			db := e.store.(interface{ DB() *sql.DB }).DB()
			for _, l := range tc.holds {
				var holder string
				err := db.QueryRowContext(e.ctx, `SELECT d.label FROM blocks b JOIN domains d ON d.id = b.domain_id WHERE b.label = '`+l+`'`).Scan(&holder)
				if err != nil || holder != tc.second[0] {
					t.Errorf("%s is held by %q (%v), want %s", l, holder, err, tc.second[0])
				}
			}
			checkExemptInvariant(t, e)
		})
	}
}

func aheadDomain(label string, set ...string) *registry.Domain {
	return &registry.Domain{Name: label + ".भारत", ALabel: label, Label: label, Zone: "भारत", Lang: "hi", Registrar: "alpha", Blocks: set}
}

// aheadImportDomain is aheadDomain as an import batch's item holds it.
func aheadImportDomain(label string, set ...string) registry.ImportDomain {
	d := aheadDomain(label, set...)
	return registry.ImportDomain{Name: d.Name, ALabel: d.ALabel, Label: d.Label, Lang: d.Lang, Blocks: d.Blocks}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// testImportAheadHook: a whole import, with writes injected by
// ImportOptions.AheadHook after each batch's look-ahead, while the batch
// before it is written: for names of the batch whose set meets a label
// held by an earlier domain, an exempted create whose set meets theirs at
// that label only, or the earlier domain deleted. Every two domains whose
// sets meet must end exempted with each other, every domain holding its
// own label.
func testImportAheadHook(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	if _, ok := e.store.(registry.ImportAheader); !ok {
		t.Skip("the store does not look ahead")
	}
	n := min(ImportSize(), 3000)
	var file bytes.Buffer
	if _, err := GenerateImport(&file, n, 5); err != nil {
		t.Fatal(err)
	}
	r, _ := e.registrar("hook")
	db := e.store.(interface{ DB() *sql.DB }).DB()
	var created, deleted, hooks int
	hook := func(b *registry.ImportBatch, done bool) {
		if !done {
			return
		}
		hooks++
		k := 0
		for _, it := range b.Items {
			if k >= 4 {
				break
			}
			for _, l := range it.Domain.Blocks {
				var holder string
				var reg int64
				err := db.QueryRowContext(e.ctx, sqlFor(db, `SELECT d.label, d.registrar_id FROM blocks b JOIN domains d ON d.id = b.domain_id WHERE b.zone = ? AND b.label = ?`), "भारत", l).Scan(&holder, &reg)
				if err != nil {
					continue // free (or the batch before holds it: not committed yet)
				}
				k++
				if k%2 == 1 {
					z := fmt.Sprintf("z%d", created)
					if _, err := e.store.CreateExemptDomain(e.ctx, aheadDomain(z, z, l), r.ID); err != nil {
						t.Errorf("CreateExemptDomain(%s, %s): %v", z, l, err)
					}
					created++
				} else {
					if err := e.store.DeleteDomain(e.ctx, "भारत", holder, reg); err != nil {
						t.Errorf("DeleteDomain(%s): %v", holder, err)
					}
					deleted++
				}
				break
			}
		}
	}
	sum, err := e.svc.Import(e.ctx, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file.Bytes())), nil },
		registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, Batched: true, BatchSize: max(n/15, 20), AheadHook: hook})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if created == 0 || deleted == 0 {
		t.Fatalf("nothing injected: %d exempted creates, %d deletes in %d hooks", created, deleted, hooks)
	}
	domains, pairs, bad := checkExemptInvariant(t, e)
	t.Logf("import (look-ahead %s) with %d exempted creates and %d deletes injected: %d domains, %d exempted pairs, %d violations",
		sum.LookAhead, created, deleted, domains, pairs, bad)
}

// sqlFor turns ? into $1, $2, ... for PostgreSQL's driver.
func sqlFor(db *sql.DB, q string) string {
	if _, ok := db.Driver().(interface {
		Open(string) (driver.Conn, error)
	}); ok && strings.Contains(fmt.Sprintf("%T", db.Driver()), "stdlib") {
		n := 0
		var out strings.Builder
		for _, c := range q {
			if c == '?' {
				n++
				fmt.Fprintf(&out, "$%d", n)
				continue
			}
			out.WriteRune(c)
		}
		return out.String()
	}
	return q
}
