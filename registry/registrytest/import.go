package registrytest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// ImportSize is the number of records the import suite generates: 100,000
// with AKSHARA_LONG_TESTS=1, else 3,000 (and 1,000 under -short).
func ImportSize() int {
	switch {
	case os.Getenv("AKSHARA_LONG_TESTS") == "1":
		return 100_000
	case testing.Short():
		return 1_000
	}
	return 3_000
}

// RunImport is the bulk import suite (registry.Importer) on a store: a
// generated file with seeded conflicts, invalid names, duplicates, unknown
// registrars, bad UTF-8 and CRLF lines; idempotence; resuming after an
// interruption; legacy names.
func RunImport(t *testing.T, open func(t *testing.T) registry.Store) {
	n := ImportSize()
	var file bytes.Buffer
	want, err := GenerateImport(&file, n, 12)
	if err != nil {
		t.Fatal(err)
	}
	opener := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file.Bytes())), nil }
	batch := max(n/7, 50) // several batches, the last one partial
	t.Run("Generated", func(t *testing.T) { testImportGenerated(t, open, want, opener, batch, false) })
	t.Run("GeneratedBatched", func(t *testing.T) { testImportGenerated(t, open, want, opener, batch, true) })
	t.Run("BuiltAsBatched", func(t *testing.T) { testImportBuiltAsBatched(t, open, opener) })
	t.Run("BuildInterrupted", func(t *testing.T) { testImportBuildInterrupted(t, open, want, opener) })
	t.Run("Resume", func(t *testing.T) { testImportResume(t, open, want, opener, batch) })
	t.Run("Legacy", func(t *testing.T) { testImportLegacy(t, open) })
	t.Run("Concurrent", func(t *testing.T) { testImportConcurrent(t, open, false, "") })
	t.Run("ConcurrentFree", func(t *testing.T) { testImportConcurrent(t, open, true, "") })
	// creates racing a built import: from when it decides (the build
	// finds the zone no longer empty and writes batches), and from inside
	// its transaction (they wait for it, and meet what it wrote)
	t.Run("ConcurrentDeciding", func(t *testing.T) { testImportConcurrent(t, open, true, "deciding") })
	t.Run("ConcurrentWriting", func(t *testing.T) { testImportConcurrent(t, open, true, "writing the domains") })
	t.Run("Reserved", func(t *testing.T) { testImportReserved(t, open) })
	t.Run("HostileFile", func(t *testing.T) { testImportHostileFile(t, open) })
	t.Run("LegacyJoiner", func(t *testing.T) { testImportLegacyJoiner(t, open) })
	t.Run("Ahead", func(t *testing.T) { testImportAhead(t, open) })
	t.Run("AheadHook", func(t *testing.T) { testImportAheadHook(t, open) })
	t.Run("ClockCreated", func(t *testing.T) { testImportClockCreated(t, open) })
	t.Run("Expires", func(t *testing.T) { testImportExpires(t, open) })
	t.Run("Contacts", func(t *testing.T) { testImportContacts(t, open) })
	t.Run("ConflictsRefuse", func(t *testing.T) { testImportConflictsRefuse(t, open) })
}

// testImportExpires: the expires column is stored as the domain's expiry,
// and the lifecycle worker picks the domain up at that instant (the zone
// auto-renews it); a domain without one is stored with none, counted in
// WithoutExpiry, and never due; a record whose expiry is not after its
// creation (the clock's time if it gives none) is refused with
// BAD_EXPIRY, one whose expiry is not a date with BAD_LINE.
func testImportExpires(t *testing.T, open func(*testing.T) registry.Store) {
	e := lifeEnv(t, open, nil) // the clock stands at T0, 2030-01-01
	e.registrar("old")
	file := "name,registrar,lang,created,expires\n" +
		"किताब,old,hi,2029-01-01,2031-01-01\n" + // due at 2031-01-01
		"कमल,old,hi,2029-01-01,\n" + // no expiry
		"नमक,old,hi,,2030-06-01T00:00:00Z\n" + // created at the clock's T0, due at 2030-06-01
		"सागर,old,hi,2029-01-01,2029-01-01\n" + // expires = created
		"पुस्तक,old,hi,2029-01-01,2028-01-01\n" + // expires before created
		"बादल,old,hi,,2029-12-31\n" + // expires before the clock's time
		"मकान,old,hi,2029-01-01,soon\n" // not a date
	var refusals []registry.ImportRefusal
	opener := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil }
	sum, err := e.svc.Import(e.ctx, opener, registry.ImportOptions{ContactsExempt: true, Zone: "भारत",
		Refused: func(r registry.ImportRefusal) { refusals = append(refusals, r) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Registered != 3 || sum.Refused != 4 || sum.WithoutExpiry != 1 {
		t.Errorf("summary %+v, want 3 registered, 4 refused, 1 without expiry", sum)
	}
	wantCodes := []registry.CodeCount{{Code: registry.CodeBadExpiry, Count: 3}, {Code: registry.CodeBadLine, Count: 1}}
	if !slices.Equal(sum.RefusedByCode, wantCodes) {
		t.Errorf("refused by code %v, want %v", sum.RefusedByCode, wantCodes)
	}
	for i, r := range refusals {
		if r.Code == registry.CodeBadExpiry && (r.Line != int64(5+i) || !strings.Contains(r.Reason, "is not after created")) {
			t.Errorf("refusal %+v, want line %d, reason 'expires … is not after created …'", r, 5+i)
		}
	}
	if j, err := json.Marshal(sum); err != nil || !strings.Contains(string(j), `"without_expiry":1`) {
		t.Errorf("JSON summary %s, %v; want \"without_expiry\":1", j, err)
	}
	date := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	for name, want := range map[string][2]time.Time{
		kitab:      {date("2029-01-01"), date("2031-01-01")},
		"कमल.भारत": {date("2029-01-01"), {}},
		"नमक.भारत": {T0, date("2030-06-01")},
	} {
		d, err := e.svc.Info(e.ctx, name)
		if err != nil {
			t.Fatalf("Info(%s): %v", name, err)
		}
		if !d.Created.Equal(want[0]) || !d.Expires.Equal(want[1]) {
			t.Errorf("Info(%s): created %v, expires %v; want %v, %v", name, d.Created, d.Expires, want[0], want[1])
		}
	}

	// the worker: nothing before an expiry, each domain at its own
	run := func(at time.Time, want registry.LifecycleReport) {
		t.Helper()
		e.clock.Set(at)
		rep, err := e.svc.RunLifecycle(e.ctx, 0)
		if err != nil || *rep != want {
			t.Errorf("RunLifecycle at %v = %+v, %v; want %+v", at, rep, err, want)
		}
	}
	run(date("2030-06-01").Add(-time.Second), registry.LifecycleReport{})
	run(date("2030-06-01"), registry.LifecycleReport{AutoRenewed: 1})
	run(date("2031-01-01").Add(-time.Second), registry.LifecycleReport{})
	run(date("2031-01-01"), registry.LifecycleReport{AutoRenewed: 1})
	for name, want := range map[string]time.Time{kitab: date("2032-01-01"), "नमक.भारत": date("2031-06-01")} {
		if d, err := e.svc.Info(e.ctx, name); err != nil || !d.Expires.Equal(want) {
			t.Errorf("Info(%s) after the worker: %v, %v; want auto-renewed until %v", name, d, err, want)
		}
	}
	// the domain without an expiry is never due
	due, err := e.store.LifecycleDue(e.ctx, date("2100-01-01"), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range due {
		if d.Label == "कमल" {
			t.Errorf("LifecycleDue in 2100 lists कमल.भारत, imported without an expiry")
		}
	}
	if d, err := e.svc.Info(e.ctx, "कमल.भारत"); err != nil || !d.Expires.IsZero() || len(d.Statuses) != 0 {
		t.Errorf("Info(कमल.भारत) = %+v, %v; want no expiry, no status", d, err)
	}
}

// testImportClockCreated: a record without a created date is created at
// the service's clock's time (ServiceOptions.Clock), not the wall
// clock's; one with a date keeps it.
func testImportClockCreated(t *testing.T, open func(*testing.T) registry.Store) {
	e := lifeEnv(t, open, nil) // the clock stands at T0
	e.registrar("old")
	at := T0.Add(90 * time.Minute)
	e.clock.Set(at)
	file := "name,registrar,lang,created\nकिताब,old,hi,\nकमल,old,hi,2012-05-01\n"
	opener := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil }
	sum, err := e.svc.Import(e.ctx, opener, registry.ImportOptions{ContactsExempt: true, Zone: "भारत"})
	if err != nil || sum.Registered != 2 {
		t.Fatalf("Import: %+v, %v; want 2 registered", sum, err)
	}
	for name, want := range map[string]time.Time{kitab: at, "कमल.भारत": time.Date(2012, 5, 1, 0, 0, 0, 0, time.UTC)} {
		d, err := e.svc.Info(e.ctx, name)
		if err != nil {
			t.Fatalf("Info(%s): %v", name, err)
		}
		if !d.Created.Equal(want) {
			t.Errorf("Info(%s): created %v, want %v", name, d.Created, want)
		}
	}
}

// testImportLegacyJoiner (issue 21): a legacy name with an invisible
// joiner (सागर + ZWJ, kept by -allow-invalid) also holds the label it
// shows, सागर, and that label's set: another registrar cannot register
// the name the customer sees, before or after a re-audit.
func testImportLegacyJoiner(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	e.registrar("old")
	file := "सागर\u200d\nक\u200cमल\n"
	opener := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil }
	sum, err := e.svc.Import(e.ctx, opener, registry.ImportOptions{ContactsExempt: true, Zone: "भारत", Registrar: "old", AllowInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Registered != 2 || sum.Legacy != 2 {
		t.Fatalf("Import: %+v, want 2 registered, 2 legacy", sum)
	}
	r, _ := e.registrar("new")
	try := func(when string) {
		t.Helper()
		for _, n := range []string{"सागर.भारत", "कमल.भारत"} {
			if _, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: n, Lang: "hi"}); err == nil {
				t.Errorf("%s: another registrar registered %s beside the legacy name with a joiner", when, n)
			}
		}
		// and the visible label's variants (its set)
		d, err := e.svc.Info(e.ctx, "सागर\u200d.भारत")
		if err != nil {
			t.Fatal(err)
		}
		c, err := e.svc.Check(e.ctx, "सागर.भारत", "hi")
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range append([]string{"सागर"}, c.Variants...) {
			if !slices.Contains(d.Blocks, v) {
				t.Errorf("%s: सागर+ZWJ holds %v, not %s", when, d.Blocks, v)
			}
		}
	}
	try("after the import")
	plain, err := registry.NewServiceWith(e.ctx, e.store, Exempt(registry.ServiceOptions{NoRecompute: true}, ""))
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	if _, err := plain.Reaudit(e.ctx, true, func(f *registry.ReauditFinding) error {
		if len(f.SetAdded)+len(f.SetRemoved) > 0 {
			changed = append(changed, f.Name)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(changed) > 0 {
		t.Errorf("a re-audit under the same data changes the sets of %v", changed)
	}
	try("after a re-audit")
}

// testImportHostileFile (issue 21): a file that starts with a UTF-8
// byte-order mark, a NUL in a column (even with -allow-invalid, which
// keeps names the policy refuses), registrar names with a bidi override
// or a zero-width space: the mark is dropped, the others are refused
// line by line, and the import goes on.
func testImportHostileFile(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	file := "\ufeffname,registrar\nकिताब,acme\nक\x00मल,acme\nकमल,ac\x00me\nनमक,ac\u202eme\nसागर,ac\u200bme\n"
	opener := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil }
	sum, err := e.svc.Import(e.ctx, opener, registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, AllowInvalid: true})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if sum.Registered != 1 || sum.Refused != 4 {
		t.Errorf("Import: %+v, want 1 registered, 4 refused", sum)
	}
	if _, err := e.svc.Info(e.ctx, "किताब.भारत"); err != nil {
		t.Errorf("Info(किताब.भारत) after an import starting with a byte-order mark: %v", err)
	}
	for _, n := range []string{"नमक.भारत", "सागर.भारत"} {
		if _, err := e.svc.Info(e.ctx, n); err == nil {
			t.Errorf("%s imported for a registrar whose name has a bidi or zero-width character", n)
		}
	}
}

func checkSummary(t *testing.T, what string, got *registry.ImportSummary, want *ImportWant) {
	t.Helper()
	if got.Records != want.Records || got.Registered != want.Registered || got.Exempted != want.Exempted || got.Duplicates != want.Duplicates {
		t.Errorf("%s: records %d registered %d exempted %d duplicates %d, want %d %d %d %d", what,
			got.Records, got.Registered, got.Exempted, got.Duplicates, want.Records, want.Registered, want.Exempted, want.Duplicates)
	}
	codes := map[string]int64{}
	var refused int64
	for _, c := range got.RefusedByCode {
		codes[c.Code] = c.Count
	}
	for _, c := range want.Refused {
		refused += c
	}
	if fmt.Sprint(codes) != fmt.Sprint(want.Refused) || got.Refused != refused {
		t.Errorf("%s: refused %d by code %v, want %d %v", what, got.Refused, codes, refused, want.Refused)
	}
}

// snapshot is every domain with its registrar, language, legacy codes,
// data version, the labels it holds, its whole set if exempted, and its
// exemption partners, read with SQL in a few queries (the stores are
// SQL stores: DB()).
func snapshot(t *testing.T, e *env, _ []string) string {
	t.Helper()
	db := e.store.(interface{ DB() *sql.DB }).DB()
	var lines []string
	for _, q := range []string{
		`SELECT 'domain ' || d.label || ' ' || d.alabel || ' ' || r.name || ' ' || d.lang || ' ' || d.legacy || ' ' || d.data_version FROM domains d JOIN registrars r ON r.id = d.registrar_id`,
		`SELECT 'held ' || b.label || ' by ' || d.label FROM blocks b JOIN domains d ON d.id = b.domain_id`,
		`SELECT 'set ' || x.label || ' of ' || d.label FROM exempt_sets x JOIN domains d ON d.id = x.domain_id`,
		`SELECT 'exempt ' || a.label || ' with ' || b.label FROM exemptions x JOIN domains a ON a.id = x.domain_id JOIN domains b ON b.id = x.other_id`,
	} {
		lines = append(lines, queryLines(t, e.ctx, db, q)...)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// queryLines is every row of a query that selects one text column.
func queryLines(t testing.TB, ctx context.Context, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// ImportRows describes what an import stored, by label (not by id: a
// rolled-back batch uses up sequence values): domains with registrar,
// language and legacy codes, held labels, exempt sets, exemption pairs,
// checkpoints and the number of import audit records. The stores' fault
// tests compare it with an unfaulted import's.
func ImportRows(t testing.TB, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT d.label || ' ' || d.lang || ' ' || r.name || ' ' || d.legacy FROM domains d JOIN registrars r ON r.id = d.registrar_id ORDER BY d.label`,
		`SELECT b.label || ' ' || d.label FROM blocks b JOIN domains d ON d.id = b.domain_id ORDER BY 1`,
		`SELECT s.label || ' ' || d.label FROM exempt_sets s JOIN domains d ON d.id = s.domain_id ORDER BY 1`,
		`SELECT a.label || ' ' || o.label FROM exemptions e JOIN domains a ON a.id = e.domain_id JOIN domains o ON o.id = e.other_id ORDER BY 1`,
		`SELECT zone || ' ' || line || ' ' || done FROM import_checkpoints ORDER BY 1`,
		`SELECT CAST(COUNT(*) AS TEXT) FROM audit WHERE action = 'import'`,
	} {
		for _, l := range queryLines(t, context.Background(), db, q) {
			b.WriteString(l + "\n")
		}
		b.WriteString("--\n")
	}
	return b.String()
}

// testImportGenerated imports the generated file into an empty zone:
// built if the store can (ImportBuilder) and batched is not set, in
// batches otherwise.
func testImportGenerated(t *testing.T, open func(*testing.T) registry.Store, want *ImportWant, opener func() (io.ReadCloser, error), batch int, batched bool) {
	e := newEnv(t, open)
	opts := registry.ImportOptions{ContactsExempt: true, Zone: "भारत", BatchSize: batch, Workers: 2, Batched: batched}
	built := !batched && canBuild(t, e)

	// registrars missing: nothing is written
	_, err := e.svc.Import(e.ctx, opener, opts)
	if !errors.Is(err, registry.ErrImportRegistrars) || !strings.Contains(err.Error(), want.Unknown) {
		t.Fatalf("Import without the registrars: %v, want ErrImportRegistrars naming %q", err, want.Unknown)
	}
	if s := snapshot(t, e, want.Registrars); s != "" {
		t.Fatalf("Import without the registrars wrote domains:\n%.500s", s)
	}

	// registrars r0..r4 exist; unknown is created
	for _, r := range want.Registrars[:5] {
		e.registrar(r)
	}
	opts.CreateRegistrars = true
	sum, err := e.svc.Import(e.ctx, opener, opts)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	checkSummary(t, "Import", sum, want)
	t.Logf("import of %d records: %+v", want.Records, *sum)
	if len(sum.RegistrarsCreated) != 1 || sum.RegistrarsCreated[want.Unknown] == "" {
		t.Errorf("RegistrarsCreated = %v, want only %q", sum.RegistrarsCreated, want.Unknown)
	}
	if sum.Skipped != 0 || sum.Built != built || !built && sum.Batches < 2 || built && sum.Batches != 1 || sum.DataVersion != e.svc.DataVersion() {
		t.Errorf("skipped %d, built %v, batches %d, data version %q; want 0, %v, several (1 built), %q", sum.Skipped, sum.Built, sum.Batches, sum.DataVersion, built, e.svc.DataVersion())
	}

	// every seeded pair is kept, exempted, each naming the other
	if len(want.Pairs) == 0 {
		t.Fatal("the generated file has no conflicting pair")
	}
	for _, p := range want.Pairs {
		for _, x := range [][2]string{p, {p[1], p[0]}} {
			d, err := e.svc.Info(e.ctx, x[0])
			if err != nil {
				t.Fatalf("Info(%s): %v", x[0], err)
			}
			if !d.Exempted || !slices.Contains(d.ExemptWith, x[1]) || d.DataVersion != e.svc.DataVersion() {
				t.Errorf("Info(%s): exempted %v with %v, version %q; want exempted with %s", x[0], d.Exempted, d.ExemptWith, d.DataVersion, x[1])
			}
		}
	}
	// a new create that conflicts with an exempted domain is refused
	r, _ := e.registrar("newcomer")
	p := want.Pairs[0]
	if _, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: p[0]}); !errors.Is(err, registry.ErrExists) {
		t.Errorf("Create(%s) again: %v, want EXISTS", p[0], err)
	}
	res, err := e.svc.Check(e.ctx, p[0], "")
	if err != nil || res.Status != registry.Registered || !res.Exempted || !slices.Contains(res.ExemptWith, p[1]) {
		t.Errorf("Check(%s) = %+v, %v; want registered, exempted with %s", p[0], res, err, p[1])
	}

	// deleting one member of an exempted pair leaves the other an
	// ordinary domain holding its whole set (on a copy of the pair: the
	// file's own names stay for the idempotence checks below)
	{
		first, second := "त"+Label(1_500_000)+".भारत", "त्त"+Label(1_500_000)+".भारत"
		pairFile := "name,registrar\n" + first + ",r0\n" + second + ",r1\n"
		sum, err := e.svc.Import(e.ctx, func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(pairFile)), nil }, registry.ImportOptions{ContactsExempt: true, Zone: "भारत"})
		if err != nil || sum.Registered != 1 || sum.Exempted != 1 {
			t.Fatalf("Import of a pair: %+v, %v", sum, err)
		}
		ids, err := e.store.(registry.Importer).RegistrarIDs(e.ctx, []string{"r0"})
		if err != nil {
			t.Fatal(err)
		}
		if err := Err(e.svc.DeleteDomain(e.ctx, &registry.Registrar{ID: ids["r0"], Name: "r0"}, registry.DomainDelete{Name: first})); err != nil {
			t.Fatalf("Delete(%s): %v", first, err)
		}
		// the zone has no add grace: the deleted domain holds its set
		// until it is purged (created at the clock's time, it is not
		// purged at once by the delete)
		e.purge()
		d, err := e.svc.Info(e.ctx, second)
		if err != nil {
			t.Fatal(err)
		}
		if d.Exempted || len(d.ExemptWith) != 0 || !slices.Contains(d.Blocks, strings.TrimSuffix(first, ".भारत")) {
			t.Errorf("after deleting %s: %s exempted %v with %v, blocks %v; want an ordinary domain holding its whole set", first, second, d.Exempted, d.ExemptWith, d.Blocks)
		}
		if _, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: first}); !errors.Is(err, registry.ErrConflict) {
			t.Errorf("Create(%s) after the delete: %v, want CONFLICT (held by %s)", first, err, second)
		}
	}

	before := snapshot(t, e, want.Registrars)
	// run again: resumes after the end, changes nothing
	again, err := e.svc.Import(e.ctx, opener, opts)
	if err != nil {
		t.Fatalf("Import again: %v", err)
	}
	if again.Skipped != want.Records || again.Registered+again.Exempted+again.Duplicates+again.Refused != 0 || len(again.RegistrarsCreated) != 0 || again.Batches != 0 {
		t.Errorf("Import again: %+v, want every record skipped", again)
	}
	// walk the whole file again: every name a duplicate, nothing changes
	opts.Restart = true
	re, err := e.svc.Import(e.ctx, opener, opts)
	if err != nil {
		t.Fatalf("Import -restart: %v", err)
	}
	if re.Registered != 0 || re.Exempted != 0 || re.Duplicates != want.Registered+want.Exempted+want.Duplicates {
		t.Errorf("Import -restart: registered %d exempted %d duplicates %d, want 0 0 %d", re.Registered, re.Exempted, re.Duplicates, want.Registered+want.Exempted+want.Duplicates)
	}
	if after := snapshot(t, e, want.Registrars); after != before {
		t.Errorf("importing the file again changed the registry")
	}
}

func testImportResume(t *testing.T, open func(*testing.T) registry.Store, want *ImportWant, opener func() (io.ReadCloser, error), batch int) {
	e := newEnv(t, open)
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	opts := registry.ImportOptions{ContactsExempt: true, Zone: "xn--h2brj9c", BatchSize: batch, CreateRegistrars: true, Batched: true,
		// stop after the first batch that reaches the middle of the file
		Refused: func(r registry.ImportRefusal) {
			if r.Line > want.Records/2 {
				cancel()
			}
		}}
	first, err := e.svc.Import(ctx, opener, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Import: %v, want context.Canceled", err)
	}
	if first.Batches == 0 || first.Registered >= want.Registered {
		t.Fatalf("interrupted Import committed %d batches, %d names; want some, not all", first.Batches, first.Registered)
	}
	opts.Refused = nil
	second, err := e.svc.Import(e.ctx, opener, opts)
	if err != nil {
		t.Fatalf("resumed Import: %v", err)
	}
	if second.Skipped == 0 {
		t.Errorf("resumed Import skipped nothing")
	}
	total := &registry.ImportSummary{Records: second.Records, Registered: first.Registered + second.Registered,
		Exempted: first.Exempted + second.Exempted, Duplicates: first.Duplicates + second.Duplicates, Refused: first.Refused + second.Refused}
	codes := map[string]int64{}
	for _, s := range []*registry.ImportSummary{first, second} {
		for _, c := range s.RefusedByCode {
			codes[c.Code] += c.Count
		}
	}
	for c, k := range codes {
		total.RefusedByCode = append(total.RefusedByCode, registry.CodeCount{Code: c, Count: k})
	}
	checkSummary(t, "interrupted and resumed Import", total, want)
}

func testImportLegacy(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	e.registrar("old")
	file := "क्अब\nकिताब\nकर\nकित्ताब\n"
	opener := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil }
	// batches of 2: the file ends right after a full batch
	opts := registry.ImportOptions{ContactsExempt: true, Zone: "भारत", Registrar: "old", BatchSize: 2}
	sum, err := e.svc.Import(e.ctx, opener, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Registered != 1 || sum.Exempted != 1 || sum.Legacy != 0 || sum.Refused != 2 {
		t.Errorf("without -allow-invalid: %+v, want 1 registered, 1 exempted, 2 refused", sum)
	}
	again, err := e.svc.Import(e.ctx, opener, opts)
	if err != nil || again.Skipped != 4 || again.Batches != 0 {
		t.Errorf("run again: %+v, %v; want the 4 records skipped, no batch", again, err)
	}
	opts.AllowInvalid, opts.Restart = true, true
	sum, err = e.svc.Import(e.ctx, opener, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Registered != 2 || sum.Legacy != 2 || sum.Refused != 0 || sum.Duplicates != 2 {
		t.Errorf("with -allow-invalid: %+v, want 2 registered, 2 legacy, 2 duplicates", sum)
	}
	for name, code := range map[string]string{"क्अब.भारत": "HALANT_FOLLOWER", "कर.भारत": "TOO_SHORT"} {
		d, err := e.svc.Info(e.ctx, name)
		if err != nil {
			t.Fatalf("Info(%s): %v", name, err)
		}
		if !slices.Contains(d.Legacy, code) || !slices.Equal(d.Blocks, []string{d.Label}) {
			t.Errorf("Info(%s): legacy %v, blocks %v; want %s and its own label", name, d.Legacy, d.Blocks, code)
		}
	}
	// an ordinary create of a legacy name is refused (the policy refuses it)
	r, _ := e.registrar("new")
	if _, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "कर.भारत"}); !errors.Is(err, registry.ErrInvalid) {
		t.Errorf("Create(कर.भारत): %v, want INVALID_LABEL", err)
	}
}

// testImportReserved: a name whose conflict set meets a reserved label
// (the label itself, or a variant of it) is refused with RESERVED, as a
// create is, unless AllowReserved.
func testImportReserved(t *testing.T, open func(*testing.T) registry.Store) {
	// line 1 is reserved, line 2 its variant, line 3 unrelated
	file := "किताब\nकित्ताब\nपुस्तक\n"
	cases := []struct {
		name        string
		allow       bool
		registered  int64
		exempted    int64
		refusals    []registry.ImportRefusal // Line, Name and Code
		imported    []string
		notImported []string
	}{
		{name: "refused", registered: 1,
			refusals:    []registry.ImportRefusal{{Line: 1, Name: "किताब", Code: registry.CodeReserved}, {Line: 2, Name: "कित्ताब", Code: registry.CodeReserved}},
			imported:    []string{"पुस्तक.भारत"},
			notImported: []string{"किताब.भारत", "कित्ताब.भारत"}},
		{name: "allowed", allow: true, registered: 2, exempted: 1,
			imported: []string{"किताब.भारत", "कित्ताब.भारत", "पुस्तक.भारत"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.registrar("old")
			if _, err := e.svc.Reserve(e.ctx, "किताब.भारत", "the operator's own"); err != nil {
				t.Fatalf("Reserve: %v", err)
			}
			var refusals []registry.ImportRefusal
			opts := registry.ImportOptions{ContactsExempt: true, Zone: "भारत", Registrar: "old", AllowReserved: tc.allow, BatchSize: 2,
				Refused: func(r registry.ImportRefusal) { refusals = append(refusals, r) }}
			opener := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil }
			sum, err := e.svc.Import(e.ctx, opener, opts)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Registered != tc.registered || sum.Exempted != tc.exempted || sum.Refused != int64(len(tc.refusals)) {
				t.Errorf("summary %+v, want %d registered, %d exempted, %d refused", sum, tc.registered, tc.exempted, len(tc.refusals))
			}
			wantCodes := []registry.CodeCount{}
			if len(tc.refusals) > 0 {
				wantCodes = []registry.CodeCount{{Code: registry.CodeReserved, Count: int64(len(tc.refusals))}}
			}
			if !slices.Equal(sum.RefusedByCode, wantCodes) {
				t.Errorf("refused by code %v, want %v", sum.RefusedByCode, wantCodes)
			}
			if len(refusals) != len(tc.refusals) {
				t.Fatalf("refusals %+v, want %+v", refusals, tc.refusals)
			}
			for i, r := range refusals {
				w := tc.refusals[i]
				if r.Line != w.Line || r.Name != w.Name || r.Code != w.Code || !strings.Contains(r.Reason, "reserved by the registry") {
					t.Errorf("refusal %d: %+v, want %+v (reserved by the registry)", i, r, w)
				}
			}
			for _, n := range tc.imported {
				if _, err := e.svc.Info(e.ctx, n); err != nil {
					t.Errorf("Info(%s): %v, want it imported", n, err)
				}
			}
			for _, n := range tc.notImported {
				if _, err := e.svc.Info(e.ctx, n); !errors.Is(err, registry.ErrNotFound) {
					t.Errorf("Info(%s): %v, want NOT_FOUND", n, err)
				}
			}
		})
	}
}
