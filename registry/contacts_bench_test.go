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
			registrytest.BenchCreateRead(b, func(i int) error {
				_, err := svc.CreateContact(ctx, r, registry.ContactCreate{ID: fmt.Sprintf("b-%d", i), ContactData: data, AuthInfo: "Contact-pw-1-strong"})
				return err
			}, func(i int) error {
				_, err := svc.ContactInfo(ctx, r, fmt.Sprintf("b-%d", i), "")
				return err
			})
		})
	}
}
