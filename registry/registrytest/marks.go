package registrytest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// testKashmiriMarks: a Kashmiri label with vowel marks and the same label
// without them (or marked otherwise) are one family (ks.lang null-variants,
// issue 25): whichever is registered first blocks the others, in بارت and
// in in, and of concurrent creates of the family exactly one wins.
func testKashmiriMarks(t *testing.T, open func(*testing.T) registry.Store) {
	const (
		marked   = "سِرینَگَر" // Srinagar with its vowel marks
		unmarked = "سرینگر"
		other    = "سَرینگر" // another marking of the same letters
	)
	for _, tc := range []struct{ zone, first, second string }{
		{"بارت", marked, unmarked},
		{"بارت", unmarked, marked},
		{"بارت", marked, other},
		{"in", other, marked},
	} {
		t.Run(tc.zone+"/"+tc.first+"-"+tc.second, func(t *testing.T) {
			e := newEnv(t, open)
			alpha, _ := e.registrar("alpha")
			beta, _ := e.registrar("beta")
			first, second := tc.first+"."+tc.zone, tc.second+"."+tc.zone
			d, err := e.svc.CreateDomain(e.ctx, alpha, registry.DomainCreate{Name: first, Lang: "ks"})
			if err != nil {
				t.Fatalf("Create(%s): %v", first, err)
			}
			if !slices.Contains(d.Blocks, unmarked) {
				t.Errorf("Create(%s).Blocks = %q, want the unmarked %s in it", first, d.Blocks, unmarked)
			}
			e.check(second, "ks", registry.Blocked, first)
			_, err = e.svc.CreateDomain(e.ctx, beta, registry.DomainCreate{Name: second, Lang: "ks"})
			wantConflict(t, "Create("+second+")", err, first)
		})
	}
	t.Run("race", func(t *testing.T) {
		e := newEnv(t, open)
		names := []string{marked, unmarked, other, "سرِینگر", "سرینگَر"}
		var wg sync.WaitGroup
		won := make(chan string, len(names)*2)
		for i := 0; i < len(names)*2; i++ {
			r, _ := e.registrar(fmt.Sprintf("racer-%02d", i))
			wg.Add(1)
			go func(name string) {
				defer wg.Done()
				if _, err := e.svc.CreateDomain(e.ctx, r, registry.DomainCreate{Name: name + ".بارت", Lang: "ks"}); err == nil {
					won <- name
				} else if !errors.Is(err, registry.ErrConflict) && !errors.Is(err, registry.ErrExists) {
					t.Errorf("Create(%s): %v", name, err)
				}
			}(names[i%len(names)])
		}
		wg.Wait()
		close(won)
		if n := len(won); n != 1 {
			t.Errorf("%d creates of one family won, want exactly one", n)
		}
	})
}
