package rdap_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestSecureDNS: a domain's name servers (an IDN host in both forms) and
// DS records are in its RDAP answer (RFC 9083 §5.3 nameservers and
// secureDNS); an unsigned domain says delegationSigned false.
func TestSecureDNS(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	r := &registry.Registrar{ID: 1, Name: "acme"}
	if _, err := e.svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns1." + kitab, Addrs: []registry.Addr{{IP: "8.8.8.8"}}}); err != nil {
		t.Fatal(err)
	}
	digest := strings.Repeat("AB", 32)
	if err := registrytest.Err(e.svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: kitab, AddNS: []string{"ns1." + kitab}, AddDS: []registry.DS{{KeyTag: 4242, Algorithm: 13, DigestType: 2, Digest: digest}}})); err != nil {
		t.Fatal(err)
	}
	_, doc := e.get(t, "/rdap/domain/"+kitabA)
	b, _ := json.Marshal(map[string]any{"nameservers": doc["nameservers"], "secureDNS": doc["secureDNS"]})
	want := `{"nameservers":[{"ldhName":"ns1.` + kitabA + `","links":[{"href":"` + e.srv.URL + `/rdap/nameserver/ns1.` + kitabA + `","rel":"self","type":"application/rdap+json","value":"` + e.srv.URL + `/rdap/nameserver/ns1.` + kitabA + `"}],"objectClassName":"nameserver","unicodeName":"ns1.` + kitab + `"}],` +
		`"secureDNS":{"delegationSigned":true,"dsData":[{"algorithm":13,"digest":"` + digest + `","digestType":2,"keyTag":4242}]}}`
	if string(b) != want {
		t.Errorf("RDAP delegation:\n got %s\nwant %s", b, want)
	}
	_, doc = e.get(t, "/rdap/domain/example.in")
	if sec, _ := doc["secureDNS"].(map[string]any); sec == nil || sec["delegationSigned"] != false || doc["nameservers"] != nil {
		t.Errorf("unsigned domain: secureDNS %v, nameservers %v", doc["secureDNS"], doc["nameservers"])
	}
}
