package registrytest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// testZoneExport: the master file of a zone — SOA and the TLD's NS, one
// delegation per domain with name servers (NS, DS, glue), nothing for a
// domain without — byte for byte, the same twice, and accepted by Knot's
// kzonecheck (where installed; required when CI=true).
func testZoneExport(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := e.ctx
	a, _ := e.registrar("alpha")
	e.create(a, kitab, "hi", registry.Domain{Name: kitab, ALabel: kitabALabel, Label: "किताब", Zone: "भारत", Lang: "hi", Blocks: mustBlocks(t, e, kitab)})
	for _, n := range []string{"कमल.भारत", "नदी.भारत"} {
		if _, err := e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: n, Lang: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.svc.CreateHost(ctx, a, registry.HostCreate{Name: nsKitab, Addrs: []registry.Addr{v4("8.8.8.8"), v6("2001:4860:4860::8888")}})
	must(t, "CreateHost", err)
	_, err = e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1.example.net"})
	must(t, "CreateHost", err)
	_, err = e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns2.कमल.भारत", Addrs: []registry.Addr{v4("1.1.1.1")}}) // under a domain that is not published
	must(t, "CreateHost", err)
	must(t, "delegate", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddNS: []string{nsKitab, "ns1.example.net"},
		AddDS: []registry.DS{{KeyTag: 12345, Algorithm: 13, DigestType: 2, Digest: digest256}}})))
	must(t, "delegate", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "नदी.भारत", AddNS: []string{"ns1.example.net"}})))
	// कमल.भारत has no name servers (and a DS-less, NS-less state): not published
	o := registry.ZoneExportOptions{NS: []string{"a.nic.example.org", "b.nic.example.org."}, Serial: 2026112601}
	var out, again bytes.Buffer
	must(t, "ExportZone", e.svc.ExportZone(ctx, "भारत", o, &out))
	must(t, "ExportZone again", e.svc.ExportZone(ctx, "xn--h2brj9c", o, &again))
	want := `; zone भारत (xn--h2brj9c.), written by akshara zone export
$ORIGIN xn--h2brj9c.
$TTL 3600
xn--h2brj9c.	3600	IN	SOA	a.nic.example.org. hostmaster.xn--h2brj9c. 2026112601 1800 900 604800 3600
xn--h2brj9c.	3600	IN	NS	a.nic.example.org.
xn--h2brj9c.	3600	IN	NS	b.nic.example.org.
xn--11b4aya5ed.xn--h2brj9c.	3600	IN	NS	ns1.example.net.
xn--11b4aya5ed.xn--h2brj9c.	3600	IN	NS	ns1.xn--11b4aya5ed.xn--h2brj9c.
xn--11b4aya5ed.xn--h2brj9c.	3600	IN	DS	12345 13 2 ` + digest256 + `
ns1.xn--11b4aya5ed.xn--h2brj9c.	3600	IN	AAAA	2001:4860:4860::8888
ns1.xn--11b4aya5ed.xn--h2brj9c.	3600	IN	A	8.8.8.8
xn--j2bd7e.xn--h2brj9c.	3600	IN	NS	ns1.example.net.
`
	if out.String() != want {
		t.Errorf("ExportZone:\n%s\nwant:\n%s", out.String(), want)
	}
	if !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Errorf("two exports of the same data differ:\n%s\n%s", out.String(), again.String())
	}
	// read one and two domains at a time: the pages' seams change nothing
	// (the glue of ns1.किताब.भारत is named by किताब.भारत on the same page)
	for _, size := range []int{1, 2} {
		var paged bytes.Buffer
		po := o
		po.PageSize = size
		must(t, "ExportZone by pages", e.svc.ExportZone(ctx, "भारत", po, &paged))
		if paged.String() != want {
			t.Errorf("ExportZone by pages of %d:\n%s\nwant:\n%s", size, paged.String(), want)
		}
	}
	if err := e.svc.ExportZone(ctx, "भारत", registry.ZoneExportOptions{NS: []string{"ns.nic.xn--h2brj9c"}}, &out); registry.CodeOf(err) != registry.CodeHostPolicy {
		t.Errorf("export with an in-zone apex name server: %v, want HOST_POLICY", err)
	}
	KZoneCheck(t, "xn--h2brj9c.", out.Bytes())
}

// KZoneCheck runs Knot's kzonecheck on a master file: skipped with a
// message where knot-dnsutils is not installed, required when CI=true.
func KZoneCheck(t testing.TB, origin string, zone []byte) {
	t.Helper()
	kz, err := exec.LookPath("kzonecheck")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kzonecheck is required in CI (Debian knot-dnsutils): %v", err)
		}
		t.Logf("kzonecheck is not installed (Debian knot-dnsutils): the zone file was not checked")
		return
	}
	p := filepath.Join(t.TempDir(), "zone")
	if err := os.WriteFile(p, zone, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(kz, "-o", origin, p).CombinedOutput()
	if err != nil || strings.Contains(string(out), "error") {
		t.Errorf("kzonecheck: %v\n%s\n%s", err, out, zone)
	}
}

// testZoneExportLifecycle: a domain on hold (clientHold) and a deleted one
// (pendingDelete, redemptionPeriod) are left out of the zone, though they
// keep their name servers (which do not change: STATUS_PROHIBITS, as for
// a domain on update prohibition); a domain with a host under it is not
// deleted (ASSOCIATED); the purge of a delegated domain removes its name servers
// and DS records (the export afterwards has it nowhere).
func testZoneExportLifecycle(t *testing.T, open func(*testing.T) registry.Store) {
	e := lifeEnv(t, open, nil)
	ctx := e.ctx
	a, _ := e.registrar("alpha")
	for _, n := range []string{kitab, "कमल.भारत", "नदी.भारत"} {
		if _, err := e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: n, Lang: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1.example.net"})
	must(t, "CreateHost", err)
	_, err = e.svc.CreateHost(ctx, a, registry.HostCreate{Name: nsKitab, Addrs: []registry.Addr{v4("8.8.8.8")}})
	must(t, "CreateHost", err)
	for _, n := range []string{kitab, "कमल.भारत", "नदी.भारत"} {
		must(t, "delegate "+n, Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: n, AddNS: []string{"ns1.example.net"},
			AddDS: []registry.DS{{KeyTag: 12345, Algorithm: 13, DigestType: 2, Digest: digest256}}})))
	}
	e.clock.Set(T0.AddDate(0, 0, 6)) // past the add grace: a delete is kept
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "कमल.भारत", AddStatuses: []string{registry.StatusClientHold}})
	must(t, "clientHold", err)
	d, err := e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: "नदी.भारत"})
	must(t, "delete", err)
	if d == nil || !d.Deleted() {
		t.Fatalf("delete: %+v, want pendingDelete", d)
	}
	_, err = e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: kitab})
	wantCode(t, "delete of a domain with a host under it", err, registry.CodeAssociated)
	// the name servers of a deleted domain, or one on update prohibition,
	// do not change
	wantCode(t, "delegation of a deleted domain", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "नदी.भारत", RemNS: []string{"ns1.example.net"}})), registry.CodeStatusProhibits)
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddStatuses: []string{registry.StatusClientUpdateProhibited}})
	must(t, "clientUpdateProhibited", err)
	wantCode(t, "delegation on update prohibition", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, RemNS: []string{"ns1.example.net"}})), registry.CodeStatusProhibits)
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, RemStatuses: []string{registry.StatusClientUpdateProhibited}})
	must(t, "remove clientUpdateProhibited", err)
	export := func() string {
		t.Helper()
		var out bytes.Buffer
		must(t, "ExportZone", e.svc.ExportZone(ctx, "भारत", registry.ZoneExportOptions{NS: []string{"a.nic.example.org"}, Serial: 1}, &out))
		return out.String()
	}
	out := export()
	if !strings.Contains(out, "xn--11b4aya5ed.xn--h2brj9c.\t3600\tIN\tNS\tns1.example.net.") {
		t.Errorf("the published domain is missing:\n%s", out)
	}
	for _, n := range []string{"कमल.भारत", "नदी.भारत"} {
		d, err := e.svc.Info(ctx, n)
		must(t, "Info "+n, err)
		if len(d.NameServers) != 1 {
			t.Errorf("%s: name servers %v, want them kept", n, d.NameServers)
		}
		if strings.Contains(out, d.ALabel+".") {
			t.Errorf("%s (statuses %v) is in the zone:\n%s", n, d.Statuses, out)
		}
	}
	// past the purge: नदी.भारत is gone, with its delegation
	e.clock.Set(T0.AddDate(0, 2, 0))
	_, err = e.svc.RunLifecycle(ctx, 0)
	must(t, "RunLifecycle", err)
	if _, err := e.svc.Info(ctx, "नदी.भारत"); registry.CodeOf(err) != registry.CodeNotFound {
		t.Errorf("नदी.भारत after its purge: %v, want NOT_FOUND", err)
	}
	// registered again, it starts with no name servers nor DS records
	if _, err := e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "नदी.भारत", Lang: "hi"}); err != nil {
		t.Fatal(err)
	}
	d, err = e.svc.Info(ctx, "नदी.भारत")
	must(t, "Info", err)
	if len(d.NameServers)+len(d.DS) != 0 {
		t.Errorf("नदी.भारत registered again has the old delegation: %v %v", d.NameServers, d.DS)
	}
}
