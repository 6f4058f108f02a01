package whois_test

import (
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/whois"
)

// TestVariantGroup: WHOIS lists the other members of a domain's variant
// group (docs/variants.md, "Same entity") as Registered Variants.
func TestVariantGroup(t *testing.T) {
	svc := registrytest.SQLiteServiceWith(t, registrytest.ContactsOptional())
	e := newEnv(t, svc, whois.Options{RateLimit: -1})
	ctx := t.Context()
	r := &registry.Registrar{ID: 1, Name: "acme"}
	if _, err := svc.CreateContact(ctx, r, registry.ContactCreate{ID: "rs-9", ContactData: registrytest.DevanagariContact(), AuthInfo: "Contact-pw-1-strong"}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"কিতাব.ভারত", "কিতাব.ভাৰত"} {
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: n, Contacts: []registry.DomainContact{{Role: registry.RoleRegistrant, ID: "rs-9"}}}); err != nil {
			t.Fatalf("Create(%s): %v", n, err)
		}
	}
	out := e.query(t, "কিতাব.ভাৰত\r\n")
	if !strings.Contains(out, "Registered Variant: কিতাব.ভারত (xn--") {
		t.Errorf("WHOIS of কিতাব.ভাৰত:\n%s\nwant its group's কিতাব.ভারত as a Registered Variant", out)
	}
}
