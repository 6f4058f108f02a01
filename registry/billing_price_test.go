package registry_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestPickPrice: the price a fee check computes from a zone's price list
// read once (registry.pickPrice) is the one a command's transaction
// reads from the store (PriceAt's ORDER BY), for random price lists of
// two zones of a family, commands with a fallback, periods, labels and
// times, on both stores.
func TestPickPrice(t *testing.T) {
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			svc := st.Service(t, registry.ServiceOptions{})
			store := registry.StoreOf(svc).(registry.BillingStore)
			ctx := t.Context()
			rng := rand.New(rand.NewPCG(36, 8748))
			t0 := registrytest.T0
			zones := []string{"भारत", "in"}
			cmds := []string{registry.BillRenew, registry.BillAutoRenew}
			labels := []string{"", "", "कमल"}
			for range 60 {
				p := registry.Price{Zone: zones[rng.IntN(2)], Command: cmds[rng.IntN(2)], Years: 1 + rng.IntN(3), Label: labels[rng.IntN(3)],
					Amount: registry.Money(rng.IntN(100000)), From: t0.Add(time.Duration(rng.IntN(100)) * time.Hour)}
				if err := store.SetPrice(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			rows, err := store.Prices(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			for range 400 {
				zs := []string{zones[rng.IntN(2)]}
				if rng.IntN(2) == 0 {
					zs = append(zs, zones[0])
				}
				years, label := 1+rng.IntN(3), labels[rng.IntN(3)]
				at := t0.Add(time.Duration(rng.IntN(110)) * time.Hour)
				fallback := ""
				if rng.IntN(2) == 0 {
					fallback = registry.BillRenew
				}
				want, err := store.PriceAt(ctx, zs, registry.BillAutoRenew, fallback, years, label, at)
				if err != nil {
					t.Fatal(err)
				}
				got := registry.PickPrice(rows, zs, registry.BillAutoRenew, fallback, years, label, at)
				if (want == nil) != (got == nil) || (want != nil && (want.Zone != got.Zone || want.Command != got.Command || want.Years != got.Years ||
					want.Label != got.Label || !want.From.Equal(got.From) || want.Amount != got.Amount)) {
					t.Fatalf("zones %v years %d label %q at %v fallback %q: the store's %+v, pickPrice's %+v", zs, years, label, at, fallback, want, got)
				}
			}
		})
	}
}
