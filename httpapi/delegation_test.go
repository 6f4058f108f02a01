package httpapi_test

import (
	"slices"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestDomainDelegation: GET /v1/domains/{name} shows the name servers and
// DS records set over EPP (the same Service.Info).
func TestDomainDelegation(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	ctx := t.Context()
	r := &registry.Registrar{ID: 1, Name: "a"}
	if _, err := e.svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "example.in"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns1.example.net"}); err != nil {
		t.Fatal(err)
	}
	ds := registry.DS{KeyTag: 7, Algorithm: 15, DigestType: 2, Digest: "2BB183AF5F22588179A53B0A98631FAD1A292118B0A7C5B7E4B1F1A2E8C4D9A1"}
	if err := registrytest.Err(e.svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: "example.in", AddNS: []string{"ns1.example.net"}, AddDS: []registry.DS{ds}})); err != nil {
		t.Fatal(err)
	}
	var d registry.Domain
	if resp := e.do("GET", "/v1/domains/example.in", "", "", &d); resp.StatusCode != 200 || !slices.Equal(d.NameServers, []string{"ns1.example.net"}) || !slices.Equal(d.DS, []registry.DS{ds}) {
		t.Errorf("GET /v1/domains/example.in: %d %+v", resp.StatusCode, d)
	}
}
