package epp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestRevokedRegistrarEPP (issue 22): a registrar revoked by the operator
// through another connection to the same database (as the separate
// "akshara registrar revoke" process does) loses EPP at once: its open
// session is ended at its next command with 2501, nothing of that command
// is done, and a new login is refused with 2200. Another registrar's
// session goes on. Reinstated, it logs in again. On both stores.
func TestRevokedRegistrarEPP(t *testing.T) {
	stores := []struct {
		name string
		open func(t *testing.T) (server, operator registry.Store)
	}{
		{"sqlite", func(t *testing.T) (registry.Store, registry.Store) {
			db := t.TempDir() + "/r.db"
			return openSQLite(t, db), openSQLite(t, db)
		}},
		{"postgres", func(t *testing.T) (registry.Store, registry.Store) {
			dsn := pgtest.DSN(t)
			return openPostgres(t, dsn), openPostgres(t, dsn)
		}},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			server, operator := st.open(t)
			svc, err := registry.NewServiceWith(t.Context(), server, registrytest.ContactsOptional())
			if err != nil {
				t.Fatal(err)
			}
			op, err := registry.NewService(t.Context(), operator)
			if err != nil {
				t.Fatal(err)
			}
			e := newEnvOn(t, svc, epp.Options{})
			gamma := e.dial()
			gamma.login("acme", "secret12")
			other := e.dial()
			other.login("other", "secret34")
			if r := gamma.do(createFrame(kitab, "hi", "")); code(r) != 1000 {
				t.Fatalf("create before the revocation: %s", r)
			}

			if err := op.RevokeRegistrar(t.Context(), "acme"); err != nil {
				t.Fatal(err)
			}
			r := gamma.do(createFrame("कमल.भारत", "hi", ""))
			if code(r) != 2501 || !strings.Contains(r, "revoked") {
				t.Errorf("create in a session opened before the revocation: %s; want 2501 naming the revocation", r)
			}
			if !gamma.closed() {
				t.Error("the revoked registrar's session stays open")
			}
			if res, err := svc.Check(t.Context(), "कमल.भारत", ""); err != nil || res.Status != registry.Available {
				t.Errorf("कमल.भारत after the refused create: %+v, %v; want available", res, err)
			}
			again := e.dial()
			if r := again.do(loginFrame("acme", "secret12", "")); code(r) != 2200 || !strings.Contains(r, "revoked") {
				t.Errorf("login of the revoked registrar: %s; want 2200 saying it is revoked", r)
			}
			if r := again.do(loginFrame("acme", "wrongpass", "")); code(r) != 2200 || strings.Contains(r, "revoked") {
				t.Errorf("login of the revoked registrar with a wrong password: %s; want the common 2200", r)
			}
			if r := other.do(domainCmd("check", "कमल.भारत")); code(r) != 1000 {
				t.Errorf("another registrar's session after the revocation: %s", r)
			}

			if _, err := op.ReinstateRegistrar(t.Context(), "acme"); err != nil {
				t.Fatal(err)
			}
			back := e.dial()
			back.login("acme", "secret12")
			if r := back.do(createFrame("कमल.भारत", "hi", "")); code(r) != 1000 {
				t.Errorf("create after reinstating: %s", r)
			}
			es, err := op.Audit(context.Background(), registry.AuditFilter{Registrar: "acme"})
			if err != nil {
				t.Fatal(err)
			}
			var actions []string
			for _, x := range es {
				actions = append(actions, x.Action+":"+x.Result)
			}
			if got := strings.Join(actions, " "); !strings.Contains(got, "registrar-revoke:ok registrar-reinstate:ok") {
				t.Errorf("audit of acme: %s", got)
			}
		})
	}
}

func openSQLite(t *testing.T, file string) registry.Store {
	s, err := sqlite.Open(t.Context(), file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openPostgres(t *testing.T, dsn string) registry.Store {
	s, err := postgres.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() }) // before the schema is dropped
	return s
}
