package registrytest

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// testImportConcurrent imports a generated file while registrars create
// the file's names and their variants: whatever the interleaving, two
// domains whose conflict sets meet are exempted with each other, and every
// domain's set holds its own label.
func testImportConcurrent(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	n := min(ImportSize(), 5000) // the race is in the first batches
	var file bytes.Buffer
	if _, err := GenerateImport(&file, n, 21); err != nil {
		t.Fatal(err)
	}
	r, _ := e.registrar("racer")
	done := make(chan struct{})
	var wg sync.WaitGroup
	var created, refused int
	var mu sync.Mutex
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for {
				select {
				case <-done:
					return
				default:
				}
				x := Label(rng.IntN(n))
				name := []string{x, "त" + x, "त्त" + x}[rng.IntN(3)] + ".भारत"
				_, err := e.svc.Create(e.ctx, r, name, "")
				mu.Lock()
				if err == nil {
					created++
				} else {
					refused++
				}
				mu.Unlock()
			}
		}(g)
	}
	sum, err := e.svc.Import(e.ctx, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file.Bytes())), nil },
		registry.ImportOptions{Zone: "भारत", CreateRegistrars: true, BatchSize: max(n/10, 50)})
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if created == 0 || sum.Exempted == 0 {
		t.Fatalf("no race: %d created beside the import, %d exempted", created, sum.Exempted)
	}
	own, pairs, bad := checkExemptInvariant(t, e)
	t.Logf("import %+v beside %d creates (%d refused): %d domains, %d exempted pairs, %s", *sum, created, refused, own, pairs, fmt.Sprint(bad, " violations"))
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
