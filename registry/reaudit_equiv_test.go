package registry_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// wholeStore is the store's side of the re-audit as it was before it
// streamed (internal/sqlstore ZoneDomains and ApplyReaudit of the zone in
// memory), on the store's database; q writes a query's ? placeholders in
// the store's form.
type wholeStore struct {
	db *sql.DB
	q  func(string) string
}

func (w wholeStore) ZoneDomains(ctx context.Context, zone string) ([]*registry.Domain, error) {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, w.q(`SELECT d.id, d.zone, d.label, d.lang, r.name, d.data_version, d.legacy FROM domains d JOIN registrars r ON r.id = d.registrar_id WHERE d.zone = ? ORDER BY d.id`), zone)
	if err != nil {
		return nil, err
	}
	var ds []*registry.Domain
	byID := map[int64]*registry.Domain{}
	for rows.Next() {
		d := &registry.Domain{Blocks: []string{}}
		var legacy string
		if err := rows.Scan(&d.ID, &d.Zone, &d.Label, &d.Lang, &d.Registrar, &d.DataVersion, &legacy); err != nil {
			return nil, err
		}
		d.Name, d.Legacy = d.Label+"."+d.Zone, strings.Fields(legacy)
		ds = append(ds, d)
		byID[d.ID] = d
	}
	rows.Close()
	held, whole := map[int64][]string{}, map[int64][]string{}
	for q, m := range map[string]map[int64][]string{
		`SELECT domain_id, label FROM blocks WHERE zone = ?`:      held,
		`SELECT domain_id, label FROM exempt_sets WHERE zone = ?`: whole,
	} {
		rows, err := tx.QueryContext(ctx, w.q(q), zone)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var l string
			if err := rows.Scan(&id, &l); err != nil {
				return nil, err
			}
			m[id] = append(m[id], l)
		}
		rows.Close()
	}
	rows, err = tx.QueryContext(ctx, w.q(`SELECT e.domain_id, e.other_id FROM exemptions e JOIN domains d ON d.id = e.domain_id WHERE d.zone = ? ORDER BY e.domain_id, e.other_id`), zone)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id, other int64
		if err := rows.Scan(&id, &other); err != nil {
			return nil, err
		}
		if d, o := byID[id], byID[other]; d != nil && o != nil {
			d.Exempted = true
			d.ExemptWith = append(d.ExemptWith, o.Name)
		}
	}
	rows.Close()
	for _, d := range ds {
		set := held[d.ID]
		if d.Exempted {
			set = whole[d.ID]
		}
		d.Blocks = append(d.Blocks, set...)
		sort.Strings(d.Blocks)
	}
	return ds, rows.Err()
}

func (w wholeStore) ApplyWhole(ctx context.Context, zone, relation string, ds []*registry.Domain) error {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	exec := func(q string, args ...any) {
		if err == nil {
			_, err = tx.ExecContext(ctx, w.q(q), args...)
		}
	}
	exec(`DELETE FROM exemptions WHERE domain_id IN (SELECT id FROM domains WHERE zone = ?)`, zone)
	exec(`DELETE FROM exempt_sets WHERE zone = ?`, zone)
	exec(`DELETE FROM blocks WHERE zone = ?`, zone)
	held := map[string]bool{}
	members := map[string][]int64{}
	setOf := map[int64][]string{}
	isExempt := map[int64]bool{}
	for _, d := range ds {
		var others []int64
		for _, l := range d.Blocks {
			for _, o := range members[l] {
				if !slices.Contains(others, o) {
					others = append(others, o)
				}
			}
		}
		for _, l := range d.Blocks {
			if !held[l] {
				held[l] = true
				exec(`INSERT INTO blocks (zone, label, domain_id) VALUES (?, ?, ?)`, zone, l, d.ID)
			}
			members[l] = append(members[l], d.ID)
		}
		setOf[d.ID] = d.Blocks
		if len(others) == 0 {
			continue
		}
		for _, id := range append([]int64{d.ID}, others...) {
			if !isExempt[id] {
				isExempt[id] = true
				for _, l := range setOf[id] {
					exec(`INSERT INTO exempt_sets (zone, label, domain_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, zone, l, id)
				}
			}
		}
		for _, o := range others {
			exec(`INSERT INTO exemptions (domain_id, other_id) VALUES (?, ?), (?, ?) ON CONFLICT DO NOTHING`, d.ID, o, o, d.ID)
		}
	}
	exec(`UPDATE domains SET data_version = ?, legacy = '' WHERE zone = ?`, ds[0].DataVersion, zone)
	for _, d := range ds {
		if len(d.Legacy) > 0 || d.DataVersion != ds[0].DataVersion {
			exec(`UPDATE domains SET data_version = ?, legacy = ? WHERE id = ?`, d.DataVersion, strings.Join(d.Legacy, " "), d.ID)
		}
	}
	if relation != "" {
		exec(`INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`, "conflict-relation", relation)
	}
	exec(`INSERT INTO audit (at, registrar, action, name, result) VALUES (?, '', 'reaudit', ?, ?)`, time.Now().UnixNano(), zone,
		"ok "+itoa(len(ds))+" domains, "+itoa(len(isExempt))+" exempted")
	if err != nil {
		return err
	}
	return tx.Commit()
}

func itoa(n int) string { return strings.TrimSpace(strings.Replace(string(mustJSON(n)), "\n", "", -1)) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// dump is the rows the re-audit writes, sorted: the conflict sets, the
// exemptions, each domain's data version and legacy codes, the setting of
// the relation and the results of the reaudit audit entries.
func dump(t *testing.T, db *sql.DB) string {
	t.Helper()
	var lines []string
	for _, q := range []string{
		`SELECT 'domain ' || id || ' ' || label || ' ' || data_version || ' [' || legacy || ']' FROM domains`,
		`SELECT 'held ' || zone || ' ' || label || ' by ' || domain_id FROM blocks`,
		`SELECT 'set ' || zone || ' ' || label || ' of ' || domain_id FROM exempt_sets`,
		`SELECT 'exempt ' || domain_id || ' with ' || other_id FROM exemptions`,
		`SELECT 'setting ' || name || ' ' || value FROM settings`,
		`SELECT 'audit ' || action || ' ' || name || ' ' || result FROM audit WHERE action = 'reaudit'`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, l)
		}
		rows.Close()
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestReauditSameAsWhole: the streaming re-audit lists the same JSON
// lines and summary, and -apply writes the same rows, as the re-audit
// that held the zone in memory (ReauditWhole, wholeStore), on copies of
// one seeded database: 3,000 generated names (exempted pairs, legacy
// names kept with -allow-invalid) and names the modified Hindi file
// judges otherwise, re-audited under the modified file (report, apply),
// then under the compiled-in data again (the exemptions made undone).
func TestReauditSameAsWhole(t *testing.T) {
	dir := t.TempDir()
	n := 0
	reauditSameAsWhole(t, func(t *testing.T) equivStore {
		n++
		s, err := sqlite.Open(t.Context(), filepath.Join(dir, itoa(n)+".db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestReauditSameAsWholePostgres is TestReauditSameAsWhole on PostgreSQL
// (its streaming scan is one query the server sorts, and -apply writes
// the conflict sets by COPY: other code than SQLite's).
func TestReauditSameAsWholePostgres(t *testing.T) {
	reauditSameAsWhole(t, func(t *testing.T) equivStore {
		dsn := pgtest.DSN(t) // skips, saying so, without a test database
		s, err := postgres.Open(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// equivStore is a store whose database the comparison reads.
type equivStore interface {
	registry.Store
	DB() *sql.DB
	Rebind(string) string
}

// seedEquiv fills a store with the same names every time (the domain IDs
// come out the same in a fresh store): generated names with exempted
// pairs, legacy names and names the modified Hindi file judges otherwise.
func seedEquiv(t *testing.T, s registry.Store) {
	ctx := t.Context()
	svc, err := registry.NewServiceWith(ctx, s, registrytest.Exempt(registry.ServiceOptions{}, ""))
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if _, err := registrytest.GenerateImport(&file, 3000, 7); err != nil {
		t.Fatal(err)
	}
	// legacy names: refused now, kept with their codes
	file.WriteString("क्अबक,r0\nकक्अ,r1\n")
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file.Bytes())), nil }
	sum, err := svc.Import(ctx, open, registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, AllowInvalid: true, BatchSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Exempted == 0 || sum.Legacy == 0 {
		t.Fatalf("the seeded database has %d exempted, %d legacy names; want some of each", sum.Exempted, sum.Legacy)
	}
	r, _, err := svc.AddRegistrar(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"बतखम.भारत", "वतखम.भारत", "स्त्रीखम.भारत", "बलमख.भारत", "वलमख.भारत"} {
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: n, Lang: "hi"}); err != nil {
			t.Fatalf("Create(%s): %v", n, err)
		}
	}
}

// reauditSameAsWhole compares the streaming re-audit with the one that
// held the zone in memory (ReauditWhole), each on a store of its own
// seeded the same way: 3,000 generated names (exempted pairs, legacy
// names kept with -allow-invalid) and names the modified Hindi file
// judges otherwise, re-audited under the modified file (report, apply),
// then under the compiled-in data again (the exemptions made undone).
func reauditSameAsWhole(t *testing.T, open func(t *testing.T) equivStore) {
	ctx := t.Context()
	stores := map[string]equivStore{}
	for _, v := range []string{"stream", "spilled", "whole"} {
		stores[v] = open(t)
		seedEquiv(t, stores[v])
	}
	mod := registrytest.ModifiedHindi(t)
	listed := 0
	for _, step := range []struct {
		opts  registry.ServiceOptions
		apply bool
	}{{mod, false}, {mod, true}, {mod, false}, {registry.ServiceOptions{NoRecompute: true}, false}, {registry.ServiceOptions{NoRecompute: true}, true}} {
		out := map[string]string{}
		for v, s := range stores {
			svc, err := registry.NewServiceWith(ctx, s, step.opts)
			if err != nil {
				t.Fatal(err)
			}
			var lines bytes.Buffer
			enc := json.NewEncoder(&lines)
			found := func(f *registry.ReauditFinding) error { return enc.Encode(f) }
			var sum *registry.ReauditSummary
			switch v {
			case "stream":
				sum, err = svc.Reaudit(ctx, step.apply, found)
			case "spilled":
				// the temporary files from the first kilobyte, a run of
				// fingerprints every 64 labels, and 4-bit fingerprints:
				// nearly every label collides with others; the apply sets
				// the data versions of 7 IDs and deletes the rows of 7
				// domains at a time
				restore := registry.SetReauditSpill(1<<10, 64, 4)
				kept, every, del := sqlstore.ReauditKeptInMemory, sqlstore.ReauditVersionEvery, sqlstore.ReauditDeleteEvery
				sqlstore.ReauditKeptInMemory, sqlstore.ReauditVersionEvery, sqlstore.ReauditDeleteEvery = 64, 7, 7
				sum, err = svc.Reaudit(ctx, step.apply, found)
				restore()
				sqlstore.ReauditKeptInMemory, sqlstore.ReauditVersionEvery, sqlstore.ReauditDeleteEvery = kept, every, del
			default:
				sum, err = svc.ReauditWhole(ctx, wholeStore{s.DB(), s.Rebind}, step.apply, found)
			}
			if err != nil {
				t.Fatalf("%s re-audit (apply %v): %v", v, step.apply, err)
			}
			out[v] = lines.String() + string(mustJSON(sum)) + "\n" + dump(t, s.DB())
			if v == "stream" {
				listed += strings.Count(lines.String(), "\n")
			}
		}
		for _, v := range []string{"stream", "spilled"} {
			if out[v] == out["whole"] {
				continue
			}
			a, b := strings.Split(out[v], "\n"), strings.Split(out["whole"], "\n")
			for i := 0; i < max(len(a), len(b)); i++ {
				if i >= len(a) || i >= len(b) || a[i] != b[i] {
					t.Fatalf("re-audit (apply %v, version %q), line %d:\n%-10s %.400s\nwhole:     %.400s", step.apply, step.opts.DataVersion, i+1, v+":", at(a, i), at(b, i))
				}
			}
		}
	}
	if listed < 100 {
		t.Errorf("the re-audits listed %d domains in all; the comparison wants more", listed)
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}
