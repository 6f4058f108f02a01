package registry_test

import (
	"fmt"
	"testing"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// sameEntityService is a SQLite registry whose family ভারত/ভাৰত has the
// variant policy given (the zones file's same-entity, or block), with a
// registrar, its registrant contact, and n holders under ভারত.
func sameEntityService(b *testing.B, policy string, n int) (*registry.Service, *registry.Registrar, []string) {
	opts := registrytest.ContactsOptional()
	if policy == akshara.VariantsBlock {
		opts.Variants = map[string]akshara.VariantPolicy{"ভারত": {}, "ভাৰত": {}}
	}
	svc := registrytest.SQLiteServiceWith(b, opts)
	ctx := b.Context()
	r, _, err := svc.AddRegistrar(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.CreateContact(ctx, r, registry.ContactCreate{ID: "rs-1", ContactData: registrytest.DevanagariContact(), AuthInfo: "Contact-pw-1-strong"}); err != nil {
		b.Fatal(err)
	}
	var labels []string
	for i := range n {
		l := benchLabel(i)
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: l + ".ভারত", Contacts: []registry.DomainContact{{Role: registry.RoleRegistrant, ID: "rs-1"}}}); err != nil {
			b.Fatal(err)
		}
		labels = append(labels, l)
	}
	return svc, r, labels
}

// benchLabel is the i-th of many valid Bangla labels without র.
func benchLabel(i int) string {
	cons := []rune("কখগঘচছজঝটঠডঢতথদধনপফবভমলশসহ")
	s := []rune{}
	for k := 0; k < 4; k++ {
		s = append(s, cons[i%len(cons)], 'া')
		i /= len(cons)
	}
	return string(s)
}

// BenchmarkCheckSameEntity: a check of the same label under the other
// member TLD (blocked by a holder) and of a free name, under the
// family's same-entity policy and under block: the figure of issue 38.
func BenchmarkCheckSameEntity(b *testing.B) {
	for _, policy := range []string{akshara.VariantsSameEntity, akshara.VariantsBlock} {
		svc, r, labels := sameEntityService(b, policy, 200)
		for _, kind := range []string{"blocked", "free"} {
			b.Run(policy+"/"+kind, func(b *testing.B) {
				b.ReportAllocs()
				ctx := b.Context()
				i := 0
				for b.Loop() {
					name := labels[i%len(labels)] + ".ভাৰত"
					if kind == "free" {
						name = benchLabel(100000+i%1000) + ".ভাৰত"
					}
					if _, err := svc.CheckFor(ctx, r, name, ""); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkCreateSameEntity: creates of free names under ভাৰত, under
// same-entity (the create first looks for a holder in its transaction)
// and block; and, under same-entity, the holder's registrant's creates
// of the same labels (each joins a holder's group).
func BenchmarkCreateSameEntity(b *testing.B) {
	reg := []registry.DomainContact{{Role: registry.RoleRegistrant, ID: "rs-1"}}
	for _, tc := range []struct{ policy, kind string }{
		{akshara.VariantsSameEntity, "free"}, {akshara.VariantsBlock, "free"}, {akshara.VariantsSameEntity, "join"},
	} {
		b.Run(tc.policy+"/"+tc.kind, func(b *testing.B) {
			svc, r, labels := sameEntityService(b, tc.policy, 0)
			ctx := b.Context()
			if tc.kind == "join" {
				_, r, labels = func() (*registry.Service, *registry.Registrar, []string) { return nil, r, labels }()
				for i := range b.N + 1 {
					l := benchLabel(i)
					if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: l + ".ভারত", Contacts: reg}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				l := benchLabel(i)
				if tc.kind == "free" {
					l = benchLabel(200000 + i)
				}
				if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: l + ".ভাৰত", Contacts: reg}); err != nil {
					b.Fatal(fmt.Errorf("%s: %w", l, err))
				}
			}
		})
	}
}
