package registrytest

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// testImportConcurrent imports a generated file while registrars create
// the file's names and their variants: whatever the interleaving, two
// domains whose conflict sets meet are exempted with each other, and every
// domain's set holds its own label.
//
// With free set, the racers also free names while the import runs
// (Delete of their own domains, inside the add grace period: purged at
// once, the set released) and create exempted domains (CreateExempt):
// every path that takes or frees a label races the import's batches and
// their look-ahead.
//
// With start set, the racers start when a built import (ImportBuilder)
// enters that stage (ImportOptions.StageHook), not before the import.
func testImportConcurrent(t *testing.T, open func(*testing.T) registry.Store, free bool, start string) {
	e := newEnv(t, open)
	if start != "" && !canBuild(t, e) {
		t.Skip("the store does not build imports (registry.ImportBuilder): the import is written in batches, raced by the other Concurrent tests")
	}
	n := min(ImportSize(), 5000) // the race is in the first batches
	var file bytes.Buffer
	if _, err := GenerateImport(&file, n, 21); err != nil {
		t.Fatal(err)
	}
	r, _ := e.registrar("racer")
	done := make(chan struct{})
	var wg sync.WaitGroup
	var created, refused, exempted, deleted int
	var mu sync.Mutex
	race := func() {
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(g), 7))
				var mine []string // the names this racer registered
				for {
					select {
					case <-done:
						return
					default:
					}
					x := Label(rng.IntN(n))
					name := []string{x, "त" + x, "त्त" + x}[rng.IntN(3)] + ".भारत"
					op := 0
					if free {
						op = rng.IntN(3)
					}
					var err error
					switch op {
					case 0:
						_, err = e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: name})
					case 1:
						_, err = e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: name, Exempt: true})
					case 2:
						if len(mine) == 0 {
							continue
						}
						k := rng.IntN(len(mine))
						name = mine[k]
						mine = append(mine[:k], mine[k+1:]...)
						err = Err(e.svc.DeleteDomain(e.ctx, r, registry.DomainDelete{Name: name}))
					}
					if err == nil && op < 2 {
						mine = append(mine, name)
					}
					mu.Lock()
					switch {
					case err != nil:
						refused++
					case op == 0:
						created++
					case op == 1:
						exempted++
					default:
						deleted++
					}
					mu.Unlock()
				}
			}(g)
		}
	}
	opts := registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true, BatchSize: max(n/10, 50)}
	if start == "" {
		race()
	} else {
		var once sync.Once
		opts.StageHook = func(stage string) {
			if stage == start {
				once.Do(func() {
					race()
					// the racers have created something (they wait for
					// the build's transaction if it holds the lock)
					if start == "deciding" {
						waitFor(t, &mu, func() bool { return created > 0 })
					}
				})
			}
		}
	}
	sum, err := e.svc.Import(e.ctx, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file.Bytes())), nil }, opts)
	if start != "" && err == nil {
		// racing from inside the transaction, the build commits; from
		// before it, it finds the zone taken and writes batches
		if built := start != "deciding"; sum.Built != built {
			t.Errorf("racers from %q: built %v, want %v", start, sum.Built, built)
		}
		// let the racers run beside the imported zone a while: every
		// kind of write done again after the import
		mu.Lock()
		c0, x0, d0 := created, exempted, deleted
		mu.Unlock()
		waitFor(t, &mu, func() bool { return created > c0+20 && (!free || exempted > x0 && deleted > d0) })
	}
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if created == 0 || sum.Exempted == 0 || free && (exempted == 0 || deleted == 0) {
		t.Fatalf("no race: %d created, %d created exempted, %d deleted beside the import, %d exempted", created, exempted, deleted, sum.Exempted)
	}
	own, pairs, bad := checkExemptInvariant(t, e)
	t.Logf("import %+v beside %d creates, %d exempted creates, %d deletes (%d refused): %d domains, %d exempted pairs, %s", *sum, created, exempted, deleted, refused, own, pairs, fmt.Sprint(bad, " violations"))
}

// waitFor waits until cond (called with mu held) holds, for 10 s at most.
func waitFor(t *testing.T, mu *sync.Mutex, cond func() bool) {
	t.Helper()
	for i := 0; i < 10000; i++ {
		mu.Lock()
		ok := cond()
		mu.Unlock()
		if ok {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("the racers did not race within 10 s")
}

// checkExemptInvariant checks the store's rows: every two domains whose
// conflict sets meet are exempted with each other, and every domain's
// set holds its own label. It returns the domains, the exempted pairs
// and the violations.
func checkExemptInvariant(t *testing.T, e *env) (domains, pairs int, violations int) {
	t.Helper()
	db := e.store.(interface{ DB() *sql.DB }).DB()
	members := map[string][]int64{}
	own := map[int64]string{}
	rows, err := db.QueryContext(e.ctx, `SELECT b.label, b.domain_id FROM blocks b WHERE NOT EXISTS (SELECT 1 FROM exemptions x WHERE x.domain_id = b.domain_id)
		UNION SELECT s.label, s.domain_id FROM exempt_sets s`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var l string
		var id int64
		if err := rows.Scan(&l, &id); err != nil {
			t.Fatal(err)
		}
		members[l] = append(members[l], id)
	}
	rows.Close()
	pairset := map[[2]int64]bool{}
	rows, err = db.QueryContext(e.ctx, `SELECT domain_id, other_id FROM exemptions`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var a, b int64
		rows.Scan(&a, &b)
		pairset[[2]int64{a, b}] = true
	}
	rows.Close()
	rows, err = db.QueryContext(e.ctx, `SELECT id, label FROM domains`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var l string
		rows.Scan(&id, &l)
		own[id] = l
	}
	rows.Close()
	bad := 0
	for l, ids := range members {
		for i := range ids {
			for j := range ids {
				if i != j && !pairset[[2]int64{ids[i], ids[j]}] {
					if bad++; bad <= 5 {
						t.Errorf("%s and %s both have %s in their sets and are not exempted with each other", own[ids[i]], own[ids[j]], l)
					}
				}
			}
		}
	}
	for id, l := range own {
		found := false
		for _, m := range members[l] {
			found = found || m == id
		}
		if !found {
			if bad++; bad <= 5 {
				t.Errorf("%s: its own label is not in its set", l)
			}
		}
	}
	return len(own), len(pairset) / 2, bad
}
