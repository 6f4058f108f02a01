package registrytest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// absent requires that no host of the name was stored.
func (e *env) absent(name string) {
	e.t.Helper()
	if h, err := e.svc.HostInfo(e.ctx, name); err == nil || registry.CodeOf(err) == registry.CodeInternal {
		e.t.Fatalf("HostInfo(%q) = %+v, %v; want no host (nothing stored)", name, h, err)
	}
}

func v4(ip string) registry.Addr { return registry.Addr{IP: ip, Family: "v4"} }
func v6(ip string) registry.Addr { return registry.Addr{IP: ip, Family: "v6"} }

const nsKitab = "ns1." + kitab
const nsKitabA = "ns1." + kitabALabel

// testHosts: host objects (RFC 5732) — names canonicalized by the zone's
// policy, glue only under the registrar's own domains, statuses, rename,
// delete refused while in use; hostile input refused with nothing stored.
func testHosts(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := e.ctx
	a, _ := e.registrar("alpha")
	b, _ := e.registrar("beta")
	e.create(a, kitab, "hi", registry.Domain{Name: kitab, ALabel: kitabALabel, Label: "किताब", Zone: "भारत", Lang: "hi", Blocks: mustBlocks(t, e, kitab)})
	if _, err := e.svc.CreateDomain(ctx, b, registry.DomainCreate{Name: "betaexample.in"}); err != nil {
		t.Fatal(err)
	}

	// an IDN host, stored and answered in A-label form, with glue
	h, err := e.svc.CreateHost(ctx, a, registry.HostCreate{Name: nsKitab, Addrs: []registry.Addr{v4("8.8.8.8"), v6("2001:4860:4860:0::8888")}})
	must(t, "CreateHost", err)
	if h.Name != nsKitabA {
		t.Errorf("CreateHost: name %q, want %q", h.Name, nsKitabA)
	}
	for _, n := range []string{nsKitab, nsKitabA, strings.ToUpper("NS1.") + kitabALabel + "."} {
		got, err := e.svc.HostInfo(ctx, n)
		must(t, "HostInfo "+n, err)
		if got.Name != nsKitabA || got.ULabel != nsKitab || !slices.Equal(got.Addrs, []string{"2001:4860:4860::8888", "8.8.8.8"}) || got.Registrar != "alpha" || got.Linked {
			t.Errorf("HostInfo(%q) = %+v", n, got)
		}
	}
	wantCode(t, "CreateHost twice (U-label)", ignoreHost(e.svc.CreateHost(ctx, a, registry.HostCreate{Name: nsKitabA})), registry.CodeExists)
	if c, err := e.svc.CheckHost(ctx, nsKitab); err != nil || c.Avail || c.Name != nsKitabA {
		t.Errorf("CheckHost(existing) = %+v, %v", c, err)
	}
	if c, err := e.svc.CheckHost(ctx, "ns2."+kitab); err != nil || !c.Avail {
		t.Errorf("CheckHost(free) = %+v, %v", c, err)
	}

	// refused, nothing stored
	for _, tc := range []struct {
		name  string
		r     *registry.Registrar
		addrs []registry.Addr
		code  string
	}{
		{"ns2." + kitab, b, nil, registry.CodeHostPolicy},                                    // another registrar's domain
		{"ns2." + kitab, b, []registry.Addr{v4("8.8.4.4")}, registry.CodeHostPolicy},         // glue under another's domain
		{"ns1.example.com", a, []registry.Addr{v4("8.8.4.4")}, registry.CodeHostPolicy},      // out-of-zone glue
		{"ns1.notregistered.in", a, nil, registry.CodeHostPolicy},                            // no superordinate domain
		{"ns1.कि\u200dताब.भारत", a, nil, registry.CodeInvalid},                               // joiner in the domain label
		{"n\u200ds1." + kitab, a, nil, registry.CodeInvalid},                                 // joiner below it
		{"nsक." + kitab, a, nil, registry.CodeInvalid},                                       // mixed scripts in a label
		{"ns1.kitaबb.भारत", a, nil, registry.CodeInvalid},                                    // mixed scripts in the domain label
		{"ns\u200d1.example.com", a, nil, registry.CodeBadName},                              // joiner outside the zones
		{"ns1.exa\u200cmple.com", a, nil, registry.CodeBadName},                              // ZWNJ outside the zones
		{"\u200cns1." + kitab, a, nil, registry.CodeInvalid},                                 // ZWNJ leading a label below the domain
		{"কখ." + kitab, a, nil, registry.CodeInvalid},                                        // a Bengali label under a Hindi domain
		{"ns1.exampleक.com", a, nil, registry.CodeBadName},                                   // mixed scripts outside the zones
		{"ns1.example.com", a, []registry.Addr{v6("2001:4860::1")}, registry.CodeHostPolicy}, // out-of-zone glue (IPv6)
		{"ns2." + kitab, a, []registry.Addr{v4("10.0.0.1")}, registry.CodeAddressRange},      // private
		{"ns2." + kitab, a, []registry.Addr{v4("127.0.0.1")}, registry.CodeAddressRange},     // loopback
		{"ns2." + kitab, a, []registry.Addr{v4("2001:4860::1")}, registry.CodeBadAddress},    // family mismatch
		{"ns2." + kitab, a, []registry.Addr{v4("1.2.3")}, registry.CodeBadAddress},           // syntax
		{"ns2." + kitab, a, []registry.Addr{v6("::ffff:8.8.8.8")}, registry.CodeBadAddress},  // mapped
		{"com", a, nil, registry.CodeBadName},                                                // one label
		{"8.8.8.8", a, nil, registry.CodeBadName},                                            // an address, not a host name
		{kitab, a, nil, registry.CodeHostPolicy},                                             // the domain itself
	} {
		_, err := e.svc.CreateHost(ctx, tc.r, registry.HostCreate{Name: tc.name, Addrs: tc.addrs})
		wantCode(t, fmt.Sprintf("CreateHost(%q, %v) by %s", tc.name, tc.addrs, tc.r.Name), err, tc.code)
		e.absent(tc.name)
	}
	var many []registry.Addr
	for i := 1; i <= registry.MaxHostAddrs+1; i++ {
		many = append(many, v4(fmt.Sprintf("8.8.8.%d", i)))
	}
	wantCode(t, "CreateHost with 14 addresses", ignoreHost(e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns3." + kitab, Addrs: many})), registry.CodeLimit)
	e.absent("ns3." + kitab)

	// out-of-zone hosts, name servers of a domain
	var ns []string
	for i := 1; i <= 14; i++ {
		n := fmt.Sprintf("ns%d.example.com", i)
		_, err := e.svc.CreateHost(ctx, a, registry.HostCreate{Name: n})
		must(t, "CreateHost "+n, err)
		ns = append(ns, n)
	}
	wantCode(t, "14 name servers at once", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddNS: ns})), registry.CodeLimit)
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "fourteen.in", NameServers: ns})
	wantCode(t, "create with 14 name servers", err, registry.CodeLimit)
	if _, err := e.svc.Info(ctx, "fourteen.in"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("fourteen.in registered after a create with 14 name servers was refused: %v", err)
	}
	// glue added to a host outside the zones, a rename into a joiner or
	// into mixed scripts: refused, the host unchanged
	wantCode(t, "glue on an out-of-zone host", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1.example.com", AddAddrs: []registry.Addr{v4("8.8.8.8")}}), registry.CodeHostPolicy)
	wantCode(t, "rename into a joiner", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1.example.com", NewName: "ns1.कि\u200dताब.भारत"}), registry.CodeInvalid)
	wantCode(t, "rename into mixed scripts", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1.example.com", NewName: "nsক." + kitab}), registry.CodeInvalid)
	if h, err := e.svc.HostInfo(ctx, "ns1.example.com"); err != nil || len(h.Addrs) != 0 {
		t.Errorf("ns1.example.com after refused updates: %+v, %v; want it unchanged, without addresses", h, err)
	}
	must(t, "add 2 name servers", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddNS: []string{nsKitab, "NS1.EXAMPLE.COM."}})))
	wantCode(t, "12 more name servers", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddNS: ns[1:13]})), registry.CodeLimit)
	wantCode(t, "unknown name server", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddNS: []string{"ns1.unknown.net"}})), registry.CodeNotFound)
	wantCode(t, "name servers of another's domain", Err(e.svc.UpdateDomain(ctx, b, registry.DomainUpdate{Name: kitab, AddNS: []string{"ns2.example.com"}})), registry.CodeForbidden)
	d, err := e.svc.Info(ctx, kitab)
	must(t, "Info", err)
	if want := []string{"ns1.example.com", nsKitabA}; !slices.Equal(d.NameServers, want) {
		t.Errorf("Info name servers %q, want %q (nothing of the refused changes)", d.NameServers, want)
	}
	if h, _ := e.svc.HostInfo(ctx, nsKitab); h == nil || !h.Linked {
		t.Errorf("HostInfo of a name server: %+v, want linked", h)
	}

	// delete refused while in use; the domain refused while hosts are under it
	wantCode(t, "DeleteHost linked", e.svc.DeleteHost(ctx, a, registry.HostDelete{Name: "ns1.example.com"}), registry.CodeAssociated)
	wantCode(t, "DeleteHost by another registrar", e.svc.DeleteHost(ctx, b, registry.HostDelete{Name: "ns2.example.com"}), registry.CodeForbidden)
	wantCode(t, "Delete domain with a host under it", Err(e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: kitab})), registry.CodeAssociated)
	if _, err := e.svc.Info(ctx, kitab); err != nil {
		t.Fatalf("the domain is gone after a refused delete: %v", err)
	}

	// update: addresses, statuses, rename
	wantCode(t, "UpdateHost by another registrar", e.svc.UpdateHost(ctx, b, registry.HostUpdate{Name: nsKitab, AddStatuses: []string{registry.HostDeleteProhibited}}), registry.CodeForbidden)
	must(t, "UpdateHost addresses", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: nsKitab, AddAddrs: []registry.Addr{v4("1.1.1.1")}, RemAddrs: []registry.Addr{v4("8.8.8.8")}}))
	h, _ = e.svc.HostInfo(ctx, nsKitab)
	if !slices.Equal(h.Addrs, []string{"1.1.1.1", "2001:4860:4860::8888"}) {
		t.Errorf("addresses after update: %q", h.Addrs)
	}
	wantCode(t, "UpdateHost a server status", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: nsKitab, AddStatuses: []string{"serverUpdateProhibited"}}), registry.CodeHostPolicy)
	must(t, "UpdateHost statuses", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns2.example.com", AddStatuses: []string{registry.HostUpdateProhibited, registry.HostDeleteProhibited}}))
	wantCode(t, "UpdateHost with clientUpdateProhibited", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns2.example.com", NewName: "ns99.example.com"}), registry.CodeStatusProhibits)
	wantCode(t, "DeleteHost with clientDeleteProhibited", e.svc.DeleteHost(ctx, a, registry.HostDelete{Name: "ns2.example.com"}), registry.CodeStatusProhibits)
	must(t, "UpdateHost removing the statuses", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns2.example.com", RemStatuses: []string{registry.HostUpdateProhibited, registry.HostDeleteProhibited}}))
	must(t, "DeleteHost", e.svc.DeleteHost(ctx, a, registry.HostDelete{Name: "ns2.example.com"}))
	e.absent("ns2.example.com")

	wantCode(t, "rename onto another host", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1.example.com", NewName: "ns3.example.com"}), registry.CodeExists)
	wantCode(t, "rename a host with glue out of the zones", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: nsKitab, NewName: "ns1.example.net"}), registry.CodeHostPolicy)
	wantCode(t, "rename under another's domain", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: nsKitab, NewName: "ns1.betaexample.in"}), registry.CodeHostPolicy)
	must(t, "rename", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1.example.com", NewName: "ns0.example.org"}))
	d, _ = e.svc.Info(ctx, kitab)
	if want := []string{"ns0.example.org", nsKitabA}; !slices.Equal(d.NameServers, want) {
		t.Errorf("name servers after a rename: %q, want %q", d.NameServers, want)
	}
	e.absent("ns1.example.com")

	// unlink, delete, then the domain may go
	must(t, "remove name servers", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, RemNS: []string{nsKitab, "ns0.example.org"}})))
	wantCode(t, "remove a name server it does not have", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, RemNS: []string{"ns3.example.com"}})), registry.CodeHostPolicy)
	must(t, "DeleteHost unlinked", e.svc.DeleteHost(ctx, a, registry.HostDelete{Name: nsKitab}))
	must(t, "Delete domain", Err(e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: kitab})))
}

func ignoreHost(_ *registry.Host, err error) error { return err }

func mustBlocks(t *testing.T, e *env, name string) []string {
	t.Helper()
	res, err := e.svc.Check(e.ctx, name, "hi")
	if err != nil {
		t.Fatal(err)
	}
	out := append([]string{strings.SplitN(res.ULabel, ".", 2)[0]}, res.Variants...)
	slices.Sort(out)
	return out
}

const digest256 = "2BB183AF5F22588179A53B0A98631FAD1A292118B0A7C5B7E4B1F1A2E8C4D9A1"

// testDNSSEC: DS records (RFC 5910 dsData, RFC 8624) on create and update.
func testDNSSEC(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := e.ctx
	a, _ := e.registrar("alpha")
	_, err := e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1.example.com"})
	must(t, "CreateHost", err)
	ok := registry.DS{KeyTag: 12345, Algorithm: 13, DigestType: 2, Digest: strings.ToLower(digest256)}
	d, err := e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "dnssec.in", NameServers: []string{"ns1.example.com"}, DS: []registry.DS{ok}})
	must(t, "CreateDelegated", err)
	got, err := e.svc.Info(ctx, d.Name)
	must(t, "Info", err)
	want := []registry.DS{{KeyTag: 12345, Algorithm: 13, DigestType: 2, Digest: digest256}}
	if !slices.Equal(got.DS, want) || !slices.Equal(got.NameServers, []string{"ns1.example.com"}) {
		t.Errorf("Info = DS %+v NS %q, want %+v and ns1.example.com", got.DS, got.NameServers, want)
	}
	// refused creates store nothing
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "nohost.in", NameServers: []string{"ns1.nowhere.net"}})
	wantCode(t, "create with an unknown name server", err, registry.CodeNotFound)
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "badds.in", NameServers: nil, DS: []registry.DS{{KeyTag: 1, Algorithm: 5, DigestType: 2, Digest: digest256}}})
	wantCode(t, "create with RSASHA1", err, registry.CodeBadDS)
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "unknownalg.in", NameServers: []string{"ns1.example.com"}, DS: []registry.DS{{KeyTag: 1, Algorithm: 200, DigestType: 2, Digest: digest256}}})
	wantCode(t, "create with an unknown algorithm", err, registry.CodeBadDS)
	for _, n := range []string{"nohost.in", "badds.in", "unknownalg.in"} {
		if _, err := e.svc.Info(ctx, n); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("%s registered after a refused create: %v", n, err)
		}
	}
	bad := []struct {
		ds   registry.DS
		what string
	}{
		{registry.DS{KeyTag: 1, Algorithm: 1, DigestType: 2, Digest: digest256}, "RSAMD5"},
		{registry.DS{KeyTag: 1, Algorithm: 3, DigestType: 2, Digest: digest256}, "DSA"},
		{registry.DS{KeyTag: 1, Algorithm: 5, DigestType: 2, Digest: digest256}, "RSASHA1"},
		{registry.DS{KeyTag: 1, Algorithm: 6, DigestType: 2, Digest: digest256}, "DSA-NSEC3"},
		{registry.DS{KeyTag: 1, Algorithm: 7, DigestType: 2, Digest: digest256}, "RSASHA1-NSEC3"},
		{registry.DS{KeyTag: 1, Algorithm: 12, DigestType: 2, Digest: digest256}, "GOST"},
		{registry.DS{KeyTag: 1, Algorithm: 99, DigestType: 2, Digest: digest256}, "unknown algorithm"},
		{registry.DS{KeyTag: 1, Algorithm: 0, DigestType: 2, Digest: digest256}, "algorithm 0 (reserved)"},
		{registry.DS{KeyTag: 1, Algorithm: 17, DigestType: 2, Digest: digest256}, "algorithm 17 (not in RFC 8624)"},
		{registry.DS{KeyTag: 1, Algorithm: 253, DigestType: 2, Digest: digest256}, "PRIVATEDNS"},
		{registry.DS{KeyTag: 1, Algorithm: 254, DigestType: 2, Digest: digest256}, "PRIVATEOID"},
		{registry.DS{KeyTag: 1, Algorithm: 255, DigestType: 2, Digest: digest256}, "algorithm 255 (reserved)"},
		{registry.DS{KeyTag: 1, Algorithm: -1, DigestType: 2, Digest: digest256}, "negative algorithm"},
		{registry.DS{KeyTag: 1, Algorithm: 13, DigestType: 0, Digest: digest256}, "digest type 0"},
		{registry.DS{KeyTag: 1, Algorithm: 13, DigestType: 5, Digest: digest256}, "unknown digest type"},
		{registry.DS{KeyTag: 1, Algorithm: 13, DigestType: 1, Digest: digest256[:40]}, "SHA-1 digest"},
		{registry.DS{KeyTag: 1, Algorithm: 13, DigestType: 3, Digest: digest256}, "GOST digest"},
		{registry.DS{KeyTag: 1, Algorithm: 13, DigestType: 4, Digest: digest256}, "SHA-384 with a SHA-256 length"},
		{registry.DS{KeyTag: 1, Algorithm: 13, DigestType: 2, Digest: digest256[:62]}, "short digest"},
		{registry.DS{KeyTag: 1, Algorithm: 13, DigestType: 2, Digest: "ZZ" + digest256[2:]}, "not hex"},
		{registry.DS{KeyTag: 70000, Algorithm: 13, DigestType: 2, Digest: digest256}, "key tag"},
	}
	for _, tc := range bad {
		wantCode(t, "add DS "+tc.what, Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: d.Name, AddDS: []registry.DS{tc.ds}})), registry.CodeBadDS)
	}
	var eight []registry.DS
	for i := 0; i < registry.MaxDS; i++ {
		eight = append(eight, registry.DS{KeyTag: 100 + i, Algorithm: 15, DigestType: 4, Digest: strings.Repeat("AB", 48)})
	}
	wantCode(t, "a ninth DS", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: d.Name, AddDS: eight})), registry.CodeLimit)
	got, _ = e.svc.Info(ctx, d.Name)
	if !slices.Equal(got.DS, want) {
		t.Errorf("DS after refused changes: %+v, want %+v", got.DS, want)
	}
	// replace: remove all, add eight
	must(t, "replace DS", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: d.Name, RemAllDS: true, AddDS: eight})))
	got, _ = e.svc.Info(ctx, d.Name)
	if len(got.DS) != 8 || got.DS[0].KeyTag != 100 {
		t.Errorf("DS after replace: %+v", got.DS)
	}
	must(t, "remove one DS", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: d.Name, RemDS: eight[:1]})))
	wantCode(t, "remove a DS it does not have", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: d.Name, RemDS: eight[:1]})), registry.CodeBadDS)
	got, _ = e.svc.Info(ctx, d.Name)
	if len(got.DS) != 7 {
		t.Errorf("DS after removing one: %d records", len(got.DS))
	}
	must(t, "Delete a signed domain", Err(e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: d.Name})))
	if got, err := e.svc.Info(ctx, d.Name); err == nil && got.Deleted() {
		// in redemption the domain keeps its delegation (a restore gets
		// it back), until its purge
		wantCode(t, "DeleteHost while its domain is in redemption", e.svc.DeleteHost(ctx, a, registry.HostDelete{Name: "ns1.example.com"}), registry.CodeAssociated)
		e.purge()
	}
	must(t, "DeleteHost after its domain went", e.svc.DeleteHost(ctx, a, registry.HostDelete{Name: "ns1.example.com"}))
}

// testHostRace: concurrent updates of one host, each adding an address,
// lose none of them (an update writes only over the version it read).
func testHostRace(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := e.ctx
	a, _ := e.registrar("alpha")
	if _, err := e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "race.in"}); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1.race.in"})
	must(t, "CreateHost", err)
	const n = 8
	errs := make(chan error, n)
	for i := 1; i <= n; i++ {
		go func() {
			errs <- e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1.race.in", AddAddrs: []registry.Addr{v4(fmt.Sprintf("9.9.9.%d", i))}})
		}()
	}
	failed := 0
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			if registry.CodeOf(err) != registry.CodeStale {
				t.Errorf("UpdateHost: %v", err)
			}
			failed++ // refused as changed meanwhile: said, not lost
		}
	}
	h, err := e.svc.HostInfo(ctx, "ns1.race.in")
	must(t, "HostInfo", err)
	if len(h.Addrs) != n-failed {
		t.Errorf("after %d concurrent updates (%d refused) the host has %d addresses %q: updates were lost", n, failed, len(h.Addrs), h.Addrs)
	}
}

// Err is the error of a command that answers something else too (a
// domain, a host, a contact, a transfer).
func Err[T any](_ T, err error) error { return err }

// SetAuthInfo sets (or, with "", removes) a domain's authInfo: an update
// of that part alone.
func SetAuthInfo(svc *registry.Service, ctx context.Context, r *registry.Registrar, name, pw string) error {
	_, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: name, AuthInfo: &pw})
	return err
}
