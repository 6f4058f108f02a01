package registrytest

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// dbOf returns the database of a SQL store (sqlstore.Store).
func dbOf(t testing.TB, s registry.Store) *sql.DB {
	t.Helper()
	h, ok := s.(interface{ DB() *sql.DB })
	if !ok {
		t.Fatalf("the store %T has no database", s)
	}
	return h.DB()
}

// withoutSet counts the domains whose conflict set is gone: their own
// label held by no domain, or, not exempted, holding no label.
func withoutSet(t testing.TB, db *sql.DB) int {
	t.Helper()
	var n int
	err := db.QueryRow(`SELECT COUNT(*) FROM domains d WHERE NOT EXISTS (SELECT 1 FROM blocks b WHERE b.zone = d.zone AND b.label = d.label)
		OR (NOT EXISTS (SELECT 1 FROM blocks b WHERE b.domain_id = d.id) AND NOT EXISTS (SELECT 1 FROM exemptions e WHERE e.domain_id = d.id))`).Scan(&n)
	if err != nil {
		t.Fatalf("counting the domains without a set: %v", err)
	}
	return n
}

// ReauditRaceSize is how many names the re-audit race imports before it
// starts: 50,000 with AKSHARA_LONG_TESTS=1, else 3,000.
func ReauditRaceSize() int {
	if os.Getenv("AKSHARA_LONG_TESTS") == "1" {
		return 50_000
	}
	return 3_000
}

// RunReauditRace is the re-audit beside a serving registry (issue 21):
// the creates that land between the re-audit's scan and its writes, and
// creates racing the writes.
func RunReauditRace(t *testing.T, open func(t *testing.T) registry.Store) {
	t.Run("CreateAfterScan", func(t *testing.T) { testReauditCreateAfterScan(t, open) })
	t.Run("Load", func(t *testing.T) { testReauditLoad(t, open) })
}

// testReauditCreateAfterScan creates a domain while the re-audit lists
// what it found, that is after the zone's scan: the domain must keep its
// conflict set, and its variant stay refused to another registrar.
func testReauditCreateAfterScan(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	r, _ := e.registrar("old")
	a, _ := e.registrar("a")
	b, _ := e.registrar("b")
	for _, n := range []string{"बकक.भारत", "वकक.भारत", "कमल.भारत"} {
		if _, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: n, Lang: "hi"}); err != nil {
			t.Fatalf("Create(%s): %v", n, err)
		}
	}
	mod, err := registry.NewServiceWith(e.ctx, e.store, Exempt(ModifiedHindi(t), ""))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := registry.NewServiceWith(e.ctx, e.store, Exempt(registry.ServiceOptions{NoRecompute: true}, ""))
	if err != nil {
		t.Fatal(err)
	}
	// उद्गम and उद्रम are variants under both data
	pairs := [][2]string{{"उद्गम.भारत", "उद्रम.भारत"}, {"तकमल.भारत", "त्तकमल.भारत"}}
	for round, ra := range []*registry.Service{mod, plain} {
		created := false
		_, err := ra.Reaudit(e.ctx, true, func(*registry.ReauditFinding) error {
			if !created {
				created = true
				if _, err := e.svc.CreateDomain(e.ctx, a, registry.DomainCreate{Name: pairs[round][0], Lang: "hi"}); err != nil {
					return fmt.Errorf("Create(%s) during the re-audit: %w", pairs[round][0], err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("round %d: Reaudit: %v", round, err)
		}
		if !created {
			t.Fatalf("round %d: the re-audit found nothing: the create did not run", round)
		}
		d, err := e.svc.Info(e.ctx, pairs[round][0])
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Blocks) == 0 {
			t.Errorf("round %d: %s created during the re-audit has no conflict set", round, d.Name)
		}
		if _, err := e.svc.CreateDomain(e.ctx, b, registry.DomainCreate{Name: pairs[round][1], Lang: "hi"}); err == nil {
			t.Errorf("round %d: another registrar registered %s, a variant of %s created during the re-audit", round, pairs[round][1], pairs[round][0])
		}
		if n := withoutSet(t, dbOf(t, e.store)); n != 0 {
			t.Errorf("round %d: %d domains without a conflict set", round, n)
		}
		// so that the next round finds something again
		if round == 0 {
			if _, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: "बमल.भारत", Lang: "hi"}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// testReauditLoad re-audits a zone three times with -apply (under the
// modified Hindi data, which changes sets, and the compiled-in data,
// which changes them back) while two registrars race to create the two
// names of each of many pairs of variants: after it, no domain is left
// without its conflict set, and no pair has two winners.
func testReauditLoad(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	n := ReauditRaceSize()
	if _, err := e.svc.Import(e.ctx, GeneratedImport(t, n, 5), registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true}); err != nil {
		t.Fatalf("Import: %v", err)
	}
	mod, err := registry.NewServiceWith(e.ctx, e.store, Exempt(ModifiedHindi(t), ""))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := registry.NewServiceWith(e.ctx, e.store, Exempt(registry.ServiceOptions{NoRecompute: true}, ""))
	if err != nil {
		t.Fatal(err)
	}
	regs := [2]*registry.Registrar{}
	regs[0], _ = e.registrar("racer-a")
	regs[1], _ = e.registrar("racer-b")
	done := make(chan struct{})
	var wg sync.WaitGroup
	var next atomic.Int64
	var mu sync.Mutex
	winners := map[int]int{}
	var failed error
	const racers = 3
	for g := 0; g < racers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				i := int(next.Add(1))
				x := Label(1_500_000 - i) // beyond the imported labels
				names := [2]string{"त" + x + ".भारत", "त्त" + x + ".भारत"}
				var pw sync.WaitGroup
				var ok atomic.Int32
				for k := range 2 {
					pw.Add(1)
					go func() {
						defer pw.Done()
						_, err := e.svc.CreateDomain(e.ctx, regs[k], registry.DomainCreate{Name: names[k], Lang: "hi"})
						var re *registry.Error
						switch {
						case err == nil:
							ok.Add(1)
						case errors.As(err, &re) && (re.Code == registry.CodeConflict || re.Code == registry.CodeExists):
						default:
							mu.Lock()
							failed = fmt.Errorf("Create(%s): %w", names[k], err)
							mu.Unlock()
						}
					}()
				}
				pw.Wait()
				mu.Lock()
				winners[i] = int(ok.Load())
				mu.Unlock()
			}
		}()
	}
	rounds := []*registry.Service{mod, plain, mod}
	for round, ra := range rounds {
		if _, err := ra.Reaudit(e.ctx, true, func(*registry.ReauditFinding) error { return nil }); err != nil {
			close(done)
			wg.Wait()
			t.Fatalf("round %d: Reaudit: %v", round, err)
		}
	}
	close(done)
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	two, none := 0, 0
	for _, w := range winners {
		switch w {
		case 0: // both refused: a label of the pair held by another name under the data applied
			none++
		case 2:
			two++
		}
	}
	// after the rounds, the other registrar tries the other name of each
	// pair again: the variant of a registered name stays refused
	late := 0
	for i := range winners {
		x := Label(1_500_000 - i)
		for k, name := range [2]string{"त" + x + ".भारत", "त्त" + x + ".भारत"} {
			if _, err := e.svc.CreateDomain(e.ctx, regs[1-k], registry.DomainCreate{Name: name, Lang: "hi"}); err == nil {
				late++
			}
		}
	}
	if late > winners0(winners) {
		t.Errorf("%d names registered after the rounds, beside %d pairs with no winner", late, winners0(winners))
	}
	missing := withoutSet(t, dbOf(t, e.store))
	t.Logf("%d domains imported, %d pairs raced during %d apply rounds: %d domains without a set, %d pairs with two winners, %d with none", n, len(winners), len(rounds), missing, two, none)
	if missing != 0 {
		t.Errorf("%d domains without a conflict set after %d apply rounds", missing, len(rounds))
	}
	if two != 0 {
		t.Errorf("%d pairs of variants registered by both registrars", two)
	}
}

// winners0 counts the pairs with no winner (both of whose names may then
// be free after the rounds).
func winners0(w map[int]int) int {
	n := 0
	for _, v := range w {
		if v == 0 {
			n += 2
		}
	}
	return n
}
