package registry_test

import (
	"fmt"
	"testing"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// BenchmarkContacts measures a contact create (the checks, the argon2id
// hash of its authInfo, one transaction) and a contact info (one read) on
// each store: go test ./registry -run '^$' -bench Contacts (PostgreSQL
// with AKSHARA_TEST_POSTGRES_DSN).
func BenchmarkContacts(b *testing.B) {
	for _, st := range registrytest.StoresWith {
		b.Run(st.Name, func(b *testing.B) {
			svc := st.Service(b, registry.ServiceOptions{})
			ctx := b.Context()
			r, _, err := svc.AddRegistrar(ctx, "bench")
			if err != nil {
				b.Fatal(err)
			}
			data := registrytest.DevanagariContact()
			n := 0
			b.Run("create", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := svc.CreateContact(ctx, r, fmt.Sprintf("b-%d", n), data, "Contact-pw-1"); err != nil {
						b.Fatal(err)
					}
					n++
				}
			})
			if n == 0 {
				b.Skip("no contact created")
			}
			b.Run("info", func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if _, err := svc.ContactInfo(ctx, r, fmt.Sprintf("b-%d", i%n), ""); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		})
	}
}
