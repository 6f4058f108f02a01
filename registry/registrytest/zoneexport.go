package registrytest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara"
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

// testZoneExportHostsOfUnpublished (issue 34): a published domain naming
// a host inside the zone whose own domain is not published
// (docs/delegation.md, "Name servers under a domain that is not
// published"). The host of a domain that merely has no name servers is
// published with its address, as the zone's own data; the host of a
// domain withdrawn from the DNS (clientHold here, and a deletion at
// expiry: redemptionPeriod) is not, and the NS records naming it are left
// out, in every zone of the registry; so is an NS naming a host inside
// the zone that has no address; a domain left with no name server is not
// published, its DS records neither. Byte for byte on both zones, by
// pages of 1 and 2 domains, and accepted by kzonecheck (which said
// "missing glue" of such files before); when the hold goes, its host
// and the NS records naming it come back.
func testZoneExportHostsOfUnpublished(t *testing.T, open func(*testing.T) registry.Store) {
	noRenew := akshara.DefaultLifecycle()
	noRenew.AutoRenew, noRenew.AddGrace = false, 0
	e := lifeEnv(t, open, map[string]akshara.ZoneLifecycle{"in": noRenew})
	ctx := e.ctx
	a, _ := e.registrar("alpha")
	kamal, nadi, gagan, sagar := "कमल.भारत", "नदी.भारत", "गगन.भारत", "सागर.भारत"
	for _, n := range []string{kitab, kamal, nadi, gagan, sagar} {
		_, err := e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: n, Lang: "hi"})
		must(t, "create "+n, err)
	}
	_, err := e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "expired.in"}) // one year, not renewed
	must(t, "create expired.in", err)
	for _, n := range []string{"user.in", "cross.in"} {
		_, err := e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: n, Period: registry.Period{N: 3, Unit: 'y'}})
		must(t, "create "+n, err)
	}
	for h, addrs := range map[string][]registry.Addr{
		"ns1.example.net": nil,
		nsKitab:           {v4("8.8.8.8")},                             // under a domain put on hold
		"ns1." + kamal:    {v4("1.1.1.1"), v6("2606:4700:4700::1111")}, // under a domain without name servers
		"ns2." + kamal:    nil,                                         // the same, no address
		"ns1." + sagar:    nil,                                         // named by its own domain, no address
		"ns2." + sagar:    nil,                                         // under a published domain, no address
		"ns1.expired.in":  {v4("9.9.9.9")},                             // under a domain deleted at its expiry
	} {
		_, err := e.svc.CreateHost(ctx, a, registry.HostCreate{Name: h, Addrs: addrs})
		must(t, "CreateHost "+h, err)
	}
	ds := []registry.DS{{KeyTag: 12345, Algorithm: 13, DigestType: 2, Digest: digest256}}
	for n, d := range map[string]registry.Delegation{
		kitab:        {AddNS: []string{"ns1.example.net"}},
		nadi:         {AddNS: []string{"ns1." + kamal, "ns2." + kamal, nsKitab, "ns2." + sagar, "ns1.example.net"}, AddDS: ds},
		gagan:        {AddNS: []string{nsKitab}, AddDS: ds},
		sagar:        {AddNS: []string{"ns1." + sagar, "ns1.example.net"}},
		"expired.in": {AddNS: []string{"ns1.example.net"}},
		"user.in":    {AddNS: []string{"ns1.expired.in", "ns1.example.net"}},
		"cross.in":   {AddNS: []string{nsKitab, "ns1.example.net"}},
	} {
		must(t, "delegate "+n, Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: n, AddNS: d.AddNS, AddDS: d.AddDS})))
	}
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddStatuses: []string{registry.StatusClientHold}})
	must(t, "clientHold", err)
	e.clock.Set(T0.AddDate(1, 0, 1)) // expired.in expires and is deleted (redemptionPeriod)
	_, err = e.svc.RunLifecycle(ctx, 0)
	must(t, "RunLifecycle", err)
	if d, err := e.svc.Info(ctx, "expired.in"); err != nil || !d.Deleted() {
		t.Fatalf("expired.in after its expiry: %+v, %v; want deleted", d, err)
	}
	al := func(n string) string {
		t.Helper()
		d, err := e.svc.Info(ctx, n)
		must(t, "Info "+n, err)
		return d.ALabel + "."
	}
	export := func(zone string, size int) string {
		t.Helper()
		var out bytes.Buffer
		must(t, "ExportZone "+zone, e.svc.ExportZone(ctx, zone, registry.ZoneExportOptions{NS: []string{"a.nic.example.org"}, Serial: 1, PageSize: size}, &out))
		return out.String()
	}
	rec := func(owner, typ, rdata string) string { return owner + "\t3600\tIN\t" + typ + "\t" + rdata + "\n" }
	check := func(step, zone, origin, want string) {
		t.Helper()
		head := "; zone " + zone + " (" + origin + "), written by akshara zone export\n$ORIGIN " + origin + "\n$TTL 3600\n" +
			rec(origin, "SOA", "a.nic.example.org. hostmaster."+origin+" 1 1800 900 604800 3600") + rec(origin, "NS", "a.nic.example.org.")
		for _, size := range []int{0, 1, 2} {
			if got := export(zone, size); got != head+want {
				t.Errorf("%s: zone %s by pages of %d:\n%s\nwant:\n%s", step, zone, size, got, head+want)
			}
		}
		KZoneCheck(t, origin, []byte(export(zone, 0)))
	}
	dsRec := "12345 13 2 " + digest256
	// each domain's lines; the file has them in the byte order of the
	// domains' A-labels (the held किताब.भारत and गगन.भारत, left with no
	// name server, have none)
	ordered := func(lines map[string]string) string {
		var names []string
		for n := range lines {
			names = append(names, n)
		}
		slices.SortFunc(names, func(x, y string) int { return strings.Compare(al(x), al(y)) })
		var b strings.Builder
		for _, n := range names {
			b.WriteString(lines[n])
		}
		return b.String()
	}
	bharat := map[string]string{
		kamal: rec("ns1."+al(kamal), "A", "1.1.1.1") + rec("ns1."+al(kamal), "AAAA", "2606:4700:4700::1111"),
		nadi:  rec(al(nadi), "NS", "ns1.example.net.") + rec(al(nadi), "NS", "ns1."+al(kamal)) + rec(al(nadi), "DS", dsRec),
		sagar: rec(al(sagar), "NS", "ns1.example.net."),
	}
	check("on hold and deleted", "भारत", "xn--h2brj9c.", ordered(bharat))
	in := map[string]string{
		"cross.in": rec("cross.in.", "NS", "ns1.example.net."),
		"user.in":  rec("user.in.", "NS", "ns1.example.net."),
	}
	check("on hold and deleted", "in", "in.", ordered(in))

	// the hold goes: किताब.भारत's host is published again, and the NS
	// records naming it, गगन.भारत's delegation with them
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, RemStatuses: []string{registry.StatusClientHold}})
	must(t, "remove clientHold", err)
	bharat[nadi] = rec(al(nadi), "NS", "ns1.example.net.") + rec(al(nadi), "NS", nsKitabA+".") + rec(al(nadi), "NS", "ns1."+al(kamal)) + rec(al(nadi), "DS", dsRec)
	bharat[kitab] = rec(kitabALabel+".", "NS", "ns1.example.net.") + rec(nsKitabA+".", "A", "8.8.8.8")
	bharat[gagan] = rec(al(gagan), "NS", nsKitabA+".") + rec(al(gagan), "DS", dsRec)
	check("hold removed", "भारत", "xn--h2brj9c.", ordered(bharat))
	in["cross.in"] = rec("cross.in.", "NS", "ns1.example.net.") + rec("cross.in.", "NS", nsKitabA+".")
	check("hold removed", "in", "in.", ordered(in))
}
