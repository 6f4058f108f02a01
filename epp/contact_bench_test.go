package epp_test

import (
	"fmt"
	"testing"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// BenchmarkContactEPP measures a contact create (with a Devanagari loc
// postal info; its authInfo hashed with argon2id) and a contact info
// over one EPP session on each store: the latency a registrar sees, on
// loopback. go test ./epp -run '^$' -bench ContactEPP (PostgreSQL with
// AKSHARA_TEST_POSTGRES_DSN).
func BenchmarkContactEPP(b *testing.B) {
	for _, st := range registrytest.StoresWith {
		b.Run(st.Name, func(b *testing.B) {
			e := newEnvOn(b, st.Service(b, registry.ServiceOptions{}), epp.Options{})
			e.mu.Lock()
			e.norecord = true
			e.mu.Unlock()
			c := e.dialT(b)
			c.login("acme", "secret12")
			expect := func(what, r string) error {
				if code(r) != 1000 {
					return fmt.Errorf("%s: %s", what, r)
				}
				return nil
			}
			registrytest.BenchCreateRead(b, func(i int) error {
				return expect("create", c.do(contactCreate(fmt.Sprintf("b-%d", i), nil)))
			}, func(i int) error {
				return expect("info", c.do(contactCmd("info", contactID(fmt.Sprintf("b-%d", i)))))
			})
		})
	}
}
