package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// knotServer is a knotd serving one zone from a file of dir, signed
// (automatic DNSSEC), on 127.0.0.1:port, with its control socket in dir.
type knotServer struct {
	dir, socket, file string
	port              int
}

// startKnot starts knotd serving the zone "in" from dir/in.zone, AXFR
// allowed to 127.0.0.1 without a key.
func startKnot(t testing.TB, dir string) *knotServer {
	t.Helper()
	return startKnotZone(t, dir, "in", nil)
}

// startKnotZone starts knotd for the test serving the zone origin (its
// A-label, no final dot) from dir/ORIGIN.zone, or skips where it is not
// installed (fails when CI=true: .ci/run installs Debian knot and
// knot-dnsutils). With key, AXFR is allowed to 127.0.0.1 signed by that
// TSIG key only (Knot's acl with a key); without, unsigned.
// The zone file must exist first: publish it before calling.
func startKnotZone(t testing.TB, dir, origin string, key *tsigKey) *knotServer {
	t.Helper()
	for _, p := range []string{"knotd", "knotc", "kdig"} {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required in CI (Debian knot, knot-dnsutils): %v", p, err)
			}
			t.Skipf("%s is not installed (Debian knot, knot-dnsutils): the Knot end-to-end test did not run", p)
		}
	}
	port := freePort(t)
	k := &knotServer{dir: dir, socket: filepath.Join(dir, "knot.sock"), file: filepath.Join(dir, origin+".zone"), port: port}
	keys, aclKey := "", ""
	if key != nil {
		keys = fmt.Sprintf("key:\n  - id: %s\n    algorithm: %s\n    secret: %s\n", key.name, strings.TrimSuffix(key.alg, "."), key.secret)
		aclKey = "    key: " + key.name + "\n"
	}
	conf := fmt.Sprintf(`server:
    listen: 127.0.0.1@%d
    rundir: %[2]s
database:
    storage: %[2]s/db
%[5]sacl:
  - id: local
    address: 127.0.0.1
%[6]s    action: transfer
policy:
  - id: tld
    algorithm: ecdsap256sha256
    nsec3: off
template:
  - id: default
    storage: %[2]s
zone:
  - domain: %[4]s
    file: %[3]s
    zonefile-sync: -1
    zonefile-load: whole
    journal-content: none
    serial-policy: increment
    dnssec-signing: on
    dnssec-policy: tld
    acl: local
log:
  - target: stderr
    any: warning
`, port, dir, k.file, origin, keys, aclKey)
	logs := startKnotd(t, dir, conf, nil)
	// wait for the zone to be loaded and signed (at most 10 s)
	for i := 0; ; i++ {
		out, err := exec.Command("kdig", "@127.0.0.1", "-p", fmt.Sprint(port), "+tcp", "+short", "-t", "SOA", "-q", origin+".").CombinedOutput()
		if err == nil && strings.Contains(string(out), "a.nic.example.org.") {
			break
		}
		if i == 100 {
			t.Fatalf("knotd did not serve the zone: %v %s\n%s", err, out, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return k
}

// startKnotd writes conf into dir/knot.conf (dir/db made), starts knotd
// with it and kills it when the test ends, logging then what knotd wrote
// if the test failed (the lines keep accepts; nil: all of them). It
// returns knotd's output.
func startKnotd(t testing.TB, dir, conf string, keep func(line string) bool) *strings.Builder {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	cf := filepath.Join(dir, "knot.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("knotd", "-c", cf)
	logs := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if !t.Failed() {
			return
		}
		var lines []string
		for _, l := range strings.Split(logs.String(), "\n") {
			if keep == nil || keep(l) {
				lines = append(lines, l)
			}
		}
		t.Logf("knotd log:\n%s", strings.Join(lines, "\n"))
	})
	return logs
}

// freePort is a port of 127.0.0.1 free for both TCP and UDP.
func freePort(t testing.TB) int {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", port))
		l.Close()
		if err == nil {
			u.Close()
			return port
		}
	}
	t.Fatal("no port free for both TCP and UDP")
	return 0
}

// query asks knotd with kdig (+noidn: A-labels whatever the locale;
// +norec, answer, authority and additional
// sections) and returns the records, one a line, sorted, without TTLs.
func (k *knotServer) query(t testing.TB, name, typ string, dnssec bool) string {
	t.Helper()
	args := []string{"@127.0.0.1", "-p", fmt.Sprint(k.port), "+noidn", "+norec", "+noall", "+answer", "+authority", "+additional", "+tcp", "-t", typ, "-q", name}
	if dnssec {
		args = append(args, "+dnssec")
	}
	out, err := exec.Command("kdig", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("kdig %v: %v: %s", args, err, out)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || strings.HasPrefix(l, ";") {
			continue
		}
		lines = append(lines, f[0]+" "+strings.Join(f[3:], " "))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

const knotDigest = "E2D3C916F6DEEAC73294E8268FB5885044A833FC5459588F4A9184CFC41A5766"

// TestKnotPublish: akshara zone publish against a real knotd signing the
// zone: domains registered over EPP (a host with glue, name servers, DS
// records by create and by update) and by the registry: NS, glue and DS
// come back from Knot, and the RRSIGs over DS, SOA, NS and DNSKEY
// validate against the zone's DNSKEYs (miekg/dns); a domain deleted over
// EPP (pendingDelete) and one on clientHold (EPP) are gone after the next
// publish (NXDOMAIN, signed NSEC), and back when the hold is removed, as
// is one on the operator's serverHold; the change guard
// refuses a publish that drops too many delegations, and -force overrides
// it; every publish raises the serial. zone verify (AXFR from the same
// knotd) finds no difference after a publish, and lists a change not yet
// published and a record the registry does not have.
func TestKnotPublish(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	clock := registry.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{Clock: clock, ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"alpha.in", "bravo.in", "charlie.in", "delta.in", "echo.in", "foxtrot.in", "golf.in", "hotel.in", "india.in", "juliett.in", "kilo.in", "lima.in"}
	for i := range 12 {
		names = append(names, fmt.Sprintf("filler%d.in", i)) // 24 delegations: two going is within the guard's 10%
	}
	for _, n := range names {
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns1.alpha.in", Addrs: []registry.Addr{{IP: "8.8.8.8"}, {IP: "2001:4860:4860::8888"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns.example.net"}); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		d := registry.Delegation{AddNS: []string{"ns.example.net"}}
		if n == "alpha.in" {
			d = registry.Delegation{AddNS: []string{"ns1.alpha.in", "ns.example.net"}, AddDS: []registry.DS{{KeyTag: 12345, Algorithm: 13, DigestType: 2, Digest: knotDigest}}}
		}
		if _, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: n, AddNS: d.AddNS, AddDS: d.AddDS}); err != nil {
			t.Fatal(err)
		}
	}
	// registered over EPP as a registrar's software does: a domain, a host
	// under it with glue, its name servers and a DS record by update; and
	// one created with its name server and DS record at once
	c := startEPP(t, svc, "acme")
	c.createDomain("epp.in", nil, nil)
	c.createHost("ns1.epp.in", "9.9.9.9", "2620:fe::fe")
	eppDS := registry.DS{KeyTag: 2371, Algorithm: 13, DigestType: 2, Digest: knotDigest}
	c.addDelegation("epp.in", []string{"ns1.epp.in", "ns.example.net"}, []registry.DS{eppDS})
	c.createDomain("zulu.in", []string{"ns.example.net"}, []registry.DS{{KeyTag: 4242, Algorithm: 15, DigestType: 2, Digest: knotDigest}})
	file := filepath.Join(dir, "in.zone")
	var k *knotServer
	var serials []uint32
	publish := func(force bool) error {
		t.Helper()
		po := publishOptions{Out: file, MaxDrop: 0.10, Force: force}
		if k != nil {
			po.Reload = func(z string) error {
				return runReload(exec.Command("knotc", "-s", k.socket, "-b", "zone-reload", z))
			}
		}
		s, _, _, err := publishZone(ctx, svc, "in", registry.ZoneExportOptions{NS: []string{"a.nic.example.org", "b.nic.example.org"}}, po)
		if err == nil {
			serials = append(serials, s)
		}
		return err
	}
	if err := publish(false); err != nil {
		t.Fatal(err)
	}
	k = startKnot(t, dir)

	if got, want := k.query(t, "alpha.in", "NS", false), strings.Join([]string{
		"alpha.in. NS ns.example.net.", "alpha.in. NS ns1.alpha.in.",
		"ns1.alpha.in. A 8.8.8.8", "ns1.alpha.in. AAAA 2001:4860:4860::8888"}, "\n"); got != want {
		t.Errorf("alpha.in NS from Knot:\n%s\nwant:\n%s", got, want)
	}
	ds := k.query(t, "alpha.in", "DS", true)
	if !strings.Contains(ds, "alpha.in. DS 12345 13 2 "+knotDigest) || !strings.Contains(ds, "alpha.in. RRSIG DS 13 2 ") {
		t.Errorf("alpha.in DS from Knot, want the DS and Knot's RRSIG over it:\n%s", ds)
	}
	if soa := k.query(t, "in", "SOA", true); !strings.Contains(soa, "in. RRSIG SOA 13 1 ") {
		t.Errorf("the zone is not signed:\n%s", soa)
	}
	// what EPP registered: NS and glue, and the DS records, whose RRSIGs
	// (and the SOA's, and the DNSKEY set's) validate against the zone's
	// DNSKEYs by miekg/dns
	if got, want := k.query(t, "epp.in", "NS", false), strings.Join([]string{
		"epp.in. NS ns.example.net.", "epp.in. NS ns1.epp.in.",
		"ns1.epp.in. A 9.9.9.9", "ns1.epp.in. AAAA 2620:fe::fe"}, "\n"); got != want {
		t.Errorf("epp.in NS from Knot:\n%s\nwant:\n%s", got, want)
	}
	keys := k.zoneKeys(t, "in")
	for name, want := range map[string]string{"epp.in": "2371 13 2 " + knotDigest, "zulu.in": "4242 15 2 " + knotDigest, "alpha.in": "12345 13 2 " + knotDigest} {
		got := k.signedAnswer(t, keys, name, dns.TypeDS)
		if len(got) != 1 || !strings.HasSuffix(got[0].String(), "\tDS\t"+want) {
			t.Errorf("%s DS: %v, want %s", name, got, want)
		}
	}
	k.signedAnswer(t, keys, "in", dns.TypeSOA)
	k.signedAnswer(t, keys, "in", dns.TypeNS)
	delegated := func(n string) bool {
		t.Helper()
		return strings.Contains(k.query(t, n, "NS", false), n+". NS ns.example.net.")
	}

	// delete over EPP (past the add grace: pendingDelete) and clientHold
	// over EPP: gone, Knot's denial signed (NXDOMAIN, NSEC with valid RRSIGs)
	clock.Set(clock.Now().AddDate(0, 0, 6))
	c.deleteDomain("bravo.in")
	if d, err := svc.Info(ctx, "bravo.in"); err != nil || !d.Deleted() {
		t.Fatalf("bravo.in after the EPP delete: %+v %v, want pendingDelete", d, err)
	}
	c.setStatus("charlie.in", registry.StatusClientHold, false)
	if err := publish(false); err != nil {
		t.Fatal(err)
	}
	if delegated("bravo.in") || delegated("charlie.in") || !delegated("delta.in") {
		t.Errorf("after delete and hold: bravo.in %v, charlie.in %v (want both gone), delta.in %v (want kept)", delegated("bravo.in"), delegated("charlie.in"), delegated("delta.in"))
	}
	k.signedDenial(t, keys, "bravo.in", dns.TypeNS)
	k.signedDenial(t, keys, "charlie.in", dns.TypeDS)
	// the hold removed: back
	c.setStatus("charlie.in", registry.StatusClientHold, true)
	if err := publish(false); err != nil {
		t.Fatal(err)
	}
	if !delegated("charlie.in") {
		t.Errorf("charlie.in is not back after its hold was removed")
	}
	// the operator's serverHold: gone, and back when it goes
	if _, err := svc.UpdateDomain(ctx, nil, registry.DomainUpdate{Name: "delta.in", AddStatuses: []string{registry.StatusServerHold}}); err != nil {
		t.Fatal(err)
	}
	if err := publish(false); err != nil {
		t.Fatal(err)
	}
	if delegated("delta.in") {
		t.Errorf("delta.in is still delegated on serverHold")
	}
	if _, err := svc.UpdateDomain(ctx, nil, registry.DomainUpdate{Name: "delta.in", RemStatuses: []string{registry.StatusServerHold}}); err != nil {
		t.Fatal(err)
	}
	if err := publish(false); err != nil {
		t.Fatal(err)
	}
	if !delegated("delta.in") {
		t.Errorf("delta.in is not back after its serverHold was removed")
	}
	// the change guard: 25 delegations, 3 go (12% > 10%): refused, nothing
	// changes in Knot; -force publishes
	for _, n := range []string{"echo.in", "foxtrot.in", "golf.in"} {
		if _, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: n, AddStatuses: []string{registry.StatusClientHold}}); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(file)
	if err := publish(false); err == nil || !strings.Contains(err.Error(), "change guard") {
		t.Errorf("a publish dropping 3 of 25 delegations: %v, want the change guard's refusal", err)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) || !delegated("echo.in") {
		t.Errorf("the refused publish changed the zone")
	}
	if err := publish(true); err != nil {
		t.Fatal(err)
	}
	if delegated("echo.in") {
		t.Errorf("echo.in is still delegated after the forced publish")
	}
	// zone verify: Knot serves what the registry publishes; a change not
	// yet published, and a record only Knot has, are listed
	server := fmt.Sprintf("127.0.0.1:%d", k.port)
	if diff, err := verifyZone(ctx, svc, "in", server, nil); err != nil || len(diff) != 0 {
		t.Errorf("verify after publish: %v %q, want no difference", err, diff)
	}
	if _, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: "echo.in", RemStatuses: []string{registry.StatusClientHold}}); err != nil {
		t.Fatal(err)
	}
	zf, _ := os.ReadFile(file)
	if err := os.WriteFile(file, append(zf, "rogue.in.\t3600\tIN\tNS\tns.example.com.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runReload(exec.Command("knotc", "-s", k.socket, "-b", "zone-reload", "in")); err != nil {
		t.Fatal(err)
	}
	want := []string{"- echo.in. NS ns.example.net.", "+ rogue.in. NS ns.example.com."}
	if diff, err := verifyZone(ctx, svc, "in", server, nil); err != nil || !slices.Equal(diff, want) {
		t.Errorf("verify: %v\n%q\nwant\n%q", err, diff, want)
	}
	out, errOut, code := runCLI(t, "", "zone", "verify", "-db", filepath.Join(dir, "r.db"), "-zone", "in", "-server", server)
	if code != exitInvalid || out != strings.Join(want, "\n")+"\n" || !strings.Contains(errOut, "other delegations") {
		t.Errorf("akshara zone verify: exit %d, %q %q, want exit 1 and the differences", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, "", "zone", "verify", "-db", filepath.Join(dir, "r.db"), "-zone", "in", "-server", "127.0.0.1:1"); code != exitUsage || !strings.Contains(errOut, "AXFR") {
		t.Errorf("verify against no server: exit %d, %q", code, errOut)
	}
	if !slices.IsSorted(serials) || len(slices.Compact(slices.Clone(serials))) != len(serials) {
		t.Errorf("serials %v, want strictly increasing", serials)
	}
}

// BenchmarkKnotPublishLatency: the time from an EPP create (a domain with
// its name server, one <domain:create> over a logged-in session) to the
// name resolving in Knot: the create, a publish (publishZone, what akshara
// zone publish runs: export, atomic rename, knotc -b zone-reload, which
// returns when Knot has loaded and re-signed the zone), then kdig until
// Knot answers the delegation. Publication is on command (akshara serve
// does not publish; an operator runs zone publish from a timer or after
// changes), so this is create → publish → resolves, one publish per
// create, the zone growing by one delegation each time. Reports the
// median, the 99th percentile and the worst over b.N creates:
//
//	go test ./cmd/akshara -run '^$' -bench KnotPublishLatency -benchtime 1000x
func BenchmarkKnotPublishLatency(b *testing.B) {
	dir := b.TempDir()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "r.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		b.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns.example.net"}); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, "in.zone")
	eo := registry.ZoneExportOptions{NS: []string{"a.nic.example.org"}}
	if _, _, _, err := publishZone(ctx, svc, "in", eo, publishOptions{Out: file}); err != nil {
		b.Fatal(err)
	}
	k := startKnot(b, dir)
	c := startEPP(b, svc, "acme")
	po := publishOptions{Out: file, MaxDrop: 0.1, Reload: func(z string) error {
		return runReload(exec.Command("knotc", "-s", k.socket, "-b", "zone-reload", z))
	}}
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		name := fmt.Sprintf("latency%d.in", i)
		t0 := time.Now()
		c.createDomain(name, []string{"ns.example.net"}, nil)
		if _, _, _, err := publishZone(ctx, svc, "in", eo, po); err != nil {
			b.Fatal(err)
		}
		for j := 0; !strings.Contains(k.query(b, name, "NS", false), name+". NS ns.example.net."); j++ {
			if j == 1000 {
				b.Fatalf("%s does not resolve", name)
			}
			time.Sleep(time.Millisecond)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
	b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}
