package epp_test

import (
	"io"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestInfoExempted: an imported pair kept exempted says so in info,
// naming the other domain, in a response the schemas accept.
func TestInfoExempted(t *testing.T) {
	svc := registrytest.SQLiteService(t)
	e := newEnvOn(t, svc, epp.Options{})
	sum, err := svc.Import(t.Context(), func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader("किताब\nकित्ताब\nकमल\n")), nil
	},
		registry.ImportOptions{ContactsExempt: true, Zone: "भारत", Registrar: "acme"})
	if err != nil || sum.Exempted != 1 {
		t.Fatalf("Import: %+v, %v", sum, err)
	}
	c := e.dial()
	c.login("acme", "secret12")
	for _, w := range []struct{ name, status string }{
		{"कित्ताब.भारत", `<domain:status s="ok" lang="en">exempted with किताब.भारत</domain:status>`},
		{"किताब.भारत", `<domain:status s="ok" lang="en">exempted with कित्ताब.भारत</domain:status>`},
		{"कमल.भारत", `<domain:status s="ok"/>`},
	} {
		r := c.do(domainCmd("info", w.name))
		if code(r) != 1000 || !strings.Contains(r, w.status) {
			t.Errorf("info %s: %s\nwant %s", w.name, r, w.status)
		}
	}
}
