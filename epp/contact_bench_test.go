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
			n := 0
			b.Run("create", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if r := c.do(contactCreate(fmt.Sprintf("b-%d", n), nil)); code(r) != 1000 {
						b.Fatalf("create: %s", r)
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
					if r := c.do(contactCmd("info", contactID(fmt.Sprintf("b-%d", i%n)))); code(r) != 1000 {
						b.Fatalf("info: %s", r)
					}
					i++
				}
			})
		})
	}
}
