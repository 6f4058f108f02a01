package epp_test

import (
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestFamily: over EPP, a name under ভারত blocks the same label and its
// র/ৰ variant under ভাৰত, its variant TLD (docs/variants.md, "Zone
// families"): check says "blocked variant" ("blocked: same entity only"
// for the same label, which the family's same-entity policy leaves to the
// holder's registrant: available to its registrar), create is refused
// naming the blocker with its zone; both stores. Before families both
// were available.
func TestFamily(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testFamily(t, newEnv(t, epp.Options{}))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		testFamily(t, newEnvOn(t, registrytest.PostgresServiceWith(t, registrytest.ContactsOptional()), epp.Options{}))
	})
}

func testFamily(t *testing.T, e *env) {
	a := e.dial()
	b := e.dial()
	a.login("acme", "secret12")
	b.login("other", "secret34")
	for _, n := range []string{"কিতাব.ভারত", "সরকার.ভারত"} {
		if r := a.do(createFrame(n, "", "")); code(r) != 1000 {
			t.Fatalf("create %s: %s", n, r)
		}
	}
	r := b.do(domainCmd("check", "কিতাব.ভাৰত", "সৰকাৰ.ভাৰত", "ন্যায়.ভাৰত"))
	for _, want := range []string{
		// the same label under the other member: the holder's registrant's
		// alone (zones.txt: variants same-label=same-entity)
		`<domain:name avail="0">কিতাব.ভাৰত</domain:name><domain:reason>blocked: same entity only</domain:reason>`,
		`<domain:name avail="0">সৰকাৰ.ভাৰত</domain:name><domain:reason>blocked variant</domain:reason>`,
		`<domain:name avail="1">ন্যায়.ভাৰত</domain:name>`,
	} {
		if !strings.Contains(r, want) {
			t.Errorf("check across the family: %s\nwant %s", r, want)
		}
	}
	// to the holder's registrar it is available, for the holder's
	// registrant (docs/variants.md, "Same entity")
	if r := a.do(domainCmd("check", "কিতাব.ভাৰত", "সৰকাৰ.ভাৰত")); !strings.Contains(r, `<domain:name avail="1">কিতাব.ভাৰত</domain:name><domain:reason>for the holder registrant only</domain:reason>`) ||
		!strings.Contains(r, `<domain:name avail="0">সৰকাৰ.ভাৰত</domain:name><domain:reason>blocked variant</domain:reason>`) {
		t.Errorf("check by the holder's registrar: %s", r)
	}
	for n, blocker := range map[string]string{"কিতাব.ভাৰত": "কিতাব.ভারত", "সৰকাৰ.ভাৰত": "সরকার.ভারত"} {
		r := b.do(createFrame(n, "", ""))
		if code(r) != 2302 || !strings.Contains(r, "blocked by the registered domain "+blocker+" (") {
			t.Errorf("create %s: %s\nwant 2302 blocked by %s", n, r, blocker)
		}
	}
	e.validate()
}
