package cds_test

import (
	"context"
	"crypto"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/akshara-idn/akshara/cds"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// needKnot skips the test where knotd is not installed, or fails it when
// CI=true (.ci/run installs Debian knot).
func needKnot(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("knotd"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("knotd is required in CI (Debian knot): %v", err)
		}
		t.Skipf("knotd is not installed (Debian knot): the CDS scanner's Knot test did not run")
	}
}

// freePort is a port of 127.0.0.1 free for both TCP and UDP.
func freePort(t *testing.T) int {
	t.Helper()
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

// startKnotd runs knotd with conf (%[1]s is its directory, %[2]d its
// port) and waits until it serves each zone of wait with the record type
// wanted (the zones signed, the secondaries transferred).
func startKnotd(t *testing.T, conf string, wait map[string]uint16) string {
	t.Helper()
	dir, port := t.TempDir(), freePort(t)
	if err := os.MkdirAll(filepath.Join(dir, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	cf := filepath.Join(dir, "knot.conf")
	if err := os.WriteFile(cf, []byte(fmt.Sprintf(conf, dir, port)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("knotd", "-c", cf)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("knotd log (%s):\n%s", dir, logs.String())
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for zone, qt := range wait {
		for i := 0; ; i++ {
			if rrs := ask(addr, zone, qt); len(rrs) > 0 {
				break
			}
			if i == 200 {
				t.Fatalf("knotd at %s does not serve %s %s:\n%s", addr, zone, dns.TypeToString[qt], logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return addr
}

// ask returns the records of type qt at name from addr (nil on error).
func ask(addr, name string, qt uint16) []dns.RR {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qt)
	m.SetEdns0(4096, true)
	c := &dns.Client{Net: "tcp", Timeout: 2 * time.Second}
	r, _, err := c.Exchange(m, addr)
	if err != nil {
		return nil
	}
	var out []dns.RR
	for _, rr := range r.Answer {
		if rr.Header().Rrtype == qt {
			out = append(out, rr)
		}
	}
	return out
}

// kskDS is the SHA-256 DS of zone's key-signing key (flags 257) at addr.
func kskDS(t *testing.T, addr, zone string) registry.DS {
	t.Helper()
	for _, rr := range ask(addr, zone, dns.TypeDNSKEY) {
		if k := rr.(*dns.DNSKEY); k.Flags == 257 {
			d := k.ToDS(dns.SHA256)
			return registry.DS{KeyTag: int(d.KeyTag), Algorithm: int(d.Algorithm), DigestType: int(d.DigestType), Digest: strings.ToUpper(d.Digest)}
		}
	}
	t.Fatalf("%s has no KSK at %s", zone, addr)
	return registry.DS{}
}

const soaNS = `%[1]s. 3600 IN SOA ns1.example.net. hostmaster.%[1]s. 1 7200 3600 1209600 3600
%[1]s. 3600 IN NS ns1.example.net.
%[1]s. 3600 IN NS ns2.example.net.
`

// badZone is a zone signed here (miekg/dns) whose CDS record was changed
// after its RRSIG was made: its DNSKEY set validates, its CDS does not.
// It returns the zone file and the DS of its key.
func badZone(t *testing.T, zone string) (string, registry.DS) {
	t.Helper()
	key := &dns.DNSKEY{Hdr: dns.RR_Header{Name: zone + ".", Rrtype: dns.TypeDNSKEY, Class: dns.ClassINET, Ttl: 3600}, Flags: 257, Protocol: 3, Algorithm: dns.ECDSAP256SHA256}
	priv, err := key.Generate(256)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(rrs []dns.RR) *dns.RRSIG {
		sig := &dns.RRSIG{Hdr: dns.RR_Header{Name: zone + ".", Rrtype: dns.TypeRRSIG, Class: dns.ClassINET, Ttl: 3600}, KeyTag: key.KeyTag(), SignerName: zone + ".", Algorithm: key.Algorithm,
			Inception: uint32(time.Now().Add(-time.Hour).Unix()), Expiration: uint32(time.Now().Add(24 * time.Hour).Unix())}
		if err := sig.Sign(priv.(crypto.Signer), rrs); err != nil {
			t.Fatal(err)
		}
		return sig
	}
	d := key.ToDS(dns.SHA256)
	cds := &dns.CDS{DS: *d}
	cds.Hdr.Rrtype = dns.TypeCDS
	cdsSig := sign([]dns.RR{cds})
	cds.Digest = strings.Repeat("AB", 32) // changed after signing
	// the SOA signed too: Knot serves RRSIGs of a zone whose SOA is signed
	head := fmt.Sprintf(soaNS, zone)
	var soa, ns []dns.RR
	for _, l := range strings.Split(strings.TrimSpace(head), "\n") {
		rr, err := dns.NewRR(l)
		if err != nil {
			t.Fatal(err)
		}
		if rr.Header().Rrtype == dns.TypeSOA {
			soa = append(soa, rr)
		} else {
			ns = append(ns, rr)
		}
	}
	file := head + strings.Join([]string{sign(soa).String(), sign(ns).String(), key.String(), sign([]dns.RR{key}).String(), cds.String(), cdsSig.String()}, "\n") + "\n"
	return file, registry.DS{KeyTag: int(d.KeyTag), Algorithm: int(d.Algorithm), DigestType: int(d.DigestType), Digest: strings.ToUpper(d.Digest)}
}

// TestKnotCDS: the scanner against child zones that real knotd servers
// sign and serve on loopback, each child at two servers (ns1, ns2: two
// knotd, the second a secondary of the first for most zones):
//
//   - good.in publishes CDS of its KSK (Knot's cds-cdnskey-publish:
//     always); its DS in the registry are the KSK's and an old one: after
//     the acceptance period (3 scans over 2 h) the DS are the CDS's, and
//     the sponsor has a change poll message;
//   - split.in is signed by each server with its own keys: the servers
//     disagree, nothing changes;
//   - bad.in's CDS RRSIG does not validate: nothing changes;
//   - del.in publishes CDS delete (cds-cdnskey-publish: delete-dnssec):
//     its DS are removed;
//   - boot.in has no DS: bootstrapped after the longer age (accept after
//     delay), the scanner's Bootstrap on.
func TestKnotCDS(t *testing.T) {
	needKnot(t)
	ctx := context.Background()
	zonesDir := t.TempDir()
	for _, z := range []string{"good.in", "split.in", "del.in", "boot.in"} {
		if err := os.WriteFile(filepath.Join(zonesDir, z+".zone"), []byte(fmt.Sprintf(soaNS, z)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	badFile, badDS := badZone(t, "bad.in")
	if err := os.WriteFile(filepath.Join(zonesDir, "bad.in.zone"), []byte(badFile), 0o644); err != nil {
		t.Fatal(err)
	}
	common := `server:
    listen: 127.0.0.1@%[2]d
    rundir: %[1]s
database:
    storage: %[1]s/db
acl:
  - id: local
    address: 127.0.0.1
    action: [transfer, notify]
policy:
  - id: always
    algorithm: ecdsap256sha256
    cds-cdnskey-publish: always
  - id: delete
    algorithm: ecdsap256sha256
    cds-cdnskey-publish: delete-dnssec
template:
  - id: default
    storage: %[1]s
    zonefile-sync: -1
    journal-content: none
    acl: local
log:
  - target: stderr
    any: warning
`
	zone := func(name, extra string) string {
		return fmt.Sprintf("  - domain: %s\n%s", name, extra)
	}
	signed := func(name, policy string) string {
		return zone(name, fmt.Sprintf("    file: %s/%s.zone\n    dnssec-signing: on\n    dnssec-policy: %s\n", zonesDir, name, policy))
	}
	a := startKnotd(t, common+"zone:\n"+signed("good.in", "always")+signed("split.in", "always")+signed("del.in", "delete")+signed("boot.in", "always")+
		zone("bad.in", fmt.Sprintf("    file: %s/bad.in.zone\n", zonesDir)),
		map[string]uint16{"good.in": dns.TypeCDS, "split.in": dns.TypeCDS, "del.in": dns.TypeCDS, "boot.in": dns.TypeCDS, "bad.in": dns.TypeCDS})
	_, aport, _ := net.SplitHostPort(a)
	secondary := func(name string) string {
		return zone(name, "    master: primary\n    file: %[1]s/"+name+".zone\n")
	}
	b := startKnotd(t, common+"remote:\n  - id: primary\n    address: 127.0.0.1@"+aport+"\nzone:\n"+secondary("good.in")+secondary("del.in")+secondary("boot.in")+
		signed("split.in", "always")+zone("bad.in", fmt.Sprintf("    file: %s/bad.in.zone\n", zonesDir)),
		map[string]uint16{"good.in": dns.TypeCDS, "split.in": dns.TypeCDS, "del.in": dns.TypeCDS, "boot.in": dns.TypeCDS, "bad.in": dns.TypeCDS})

	clock := registry.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	opts := registrytest.ContactsOptional()
	opts.Clock = clock
	svc := registrytest.SQLiteServiceWith(t, opts)
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"ns1.example.net", "ns2.example.net"} {
		if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: h}); err != nil {
			t.Fatal(err)
		}
	}
	old := registry.DS{KeyTag: 11111, Algorithm: 13, DigestType: 2, Digest: strings.Repeat("0F", 32)}
	sorted := func(ds ...registry.DS) []registry.DS {
		slices.SortFunc(ds, func(a, b registry.DS) int { return a.KeyTag - b.KeyTag })
		return ds
	}
	initial := map[string][]registry.DS{
		"good.in":  sorted(kskDS(t, a, "good.in"), old),
		"split.in": {kskDS(t, a, "split.in")},
		"bad.in":   sorted(badDS, old),
		"del.in":   {kskDS(t, a, "del.in")},
		"boot.in":  nil,
	}
	for name, ds := range initial {
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: name}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: name, AddNS: []string{"ns1.example.net", "ns2.example.net"}, AddDS: ds}); err != nil {
			t.Fatal(err)
		}
	}
	for m, _, _ := svc.PollRequest(ctx, r); m != nil; m, _, _ = svc.PollRequest(ctx, r) {
		svc.PollAck(ctx, r, m.ID)
	}
	servers := map[string]string{"ns1.example.net": a, "ns2.example.net": b}
	reg := prometheus.NewRegistry()
	sc := &cds.Scanner{Service: svc, Zone: "in", Bootstrap: true, Parallel: 4, Metrics: cds.NewMetrics(reg),
		Accept: registry.CDSAcceptance{Scans: 3, Age: 2 * time.Hour, BootstrapAge: 72 * time.Hour},
		Resolve: func(ctx context.Context, host string, glue []string) ([]string, error) {
			if s, ok := servers[host]; ok {
				return []string{s}, nil
			}
			return nil, fmt.Errorf("no server %s", host)
		}}
	scan := func() map[string]cds.Result {
		t.Helper()
		res, err := sc.Scan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]cds.Result{}
		for _, x := range res {
			if x.Err != nil {
				t.Fatalf("%s: %v", x.Name, x.Err)
			}
			out[x.Name] = x
		}
		clock.Advance(time.Hour)
		return out
	}
	dsOf := func(name string) []registry.DS {
		d, err := svc.Info(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return d.DS
	}
	want := func(round int, got map[string]cds.Result, name, outcome string) {
		t.Helper()
		if x := got[name]; x.Outcome == nil || x.Outcome.Outcome != outcome {
			t.Errorf("scan %d, %s: %+v (%+v), want %s", round, name, x.Outcome, x.Report, outcome)
		}
	}
	for i := 1; i <= 2; i++ {
		got := scan()
		for _, n := range []string{"good.in", "del.in", "boot.in"} {
			want(i, got, n, registry.CDSPending)
		}
		want(i, got, "split.in", registry.CDSRejected)
		want(i, got, "bad.in", registry.CDSRejected)
		if i == 1 {
			t.Logf("split.in: %s; bad.in: %s", got["split.in"].Report.Problem, got["bad.in"].Report.Problem)
			if p := got["split.in"].Report.Problem; !strings.Contains(p, "disagree") {
				t.Errorf("split.in's problem: %q, want the servers disagreeing", p)
			}
			if p := got["bad.in"].Report.Problem; !strings.Contains(p, "CDS set has no valid signature") {
				t.Errorf("bad.in's problem: %q, want the CDS signature", p)
			}
		}
	}
	for n, ds := range initial {
		if got := dsOf(n); !slices.Equal(got, ds) && !(len(got) == 0 && len(ds) == 0) {
			t.Errorf("%s within the acceptance period: DS %v, want %v", n, got, ds)
		}
	}
	got := scan()
	want(3, got, "good.in", registry.CDSApplied)
	want(3, got, "del.in", registry.CDSDeleted)
	want(3, got, "boot.in", registry.CDSPending)
	if ds := dsOf("good.in"); !slices.Equal(ds, []registry.DS{kskDS(t, a, "good.in")}) {
		t.Errorf("good.in after the acceptance: DS %v, want the KSK's only", ds)
	}
	if ds := dsOf("del.in"); len(ds) != 0 {
		t.Errorf("del.in after the CDS delete: DS %v, want none", ds)
	}
	for _, n := range []string{"split.in", "bad.in"} {
		if ds := dsOf(n); !slices.Equal(ds, initial[n]) {
			t.Errorf("%s changed: %v", n, ds)
		}
	}
	var heard []string
	for m, _, _ := svc.PollRequest(ctx, r); m != nil; m, _, _ = svc.PollRequest(ctx, r) {
		if m.Change != nil && m.Change.Op == "cds" {
			heard = append(heard, m.Name)
		}
		svc.PollAck(ctx, r, m.ID)
	}
	slices.Sort(heard)
	if !slices.Equal(heard, []string{"del.in", "good.in"}) {
		t.Errorf("change poll messages of the CDS for %v, want del.in and good.in", heard)
	}
	// the bootstrap after its age; the others in sync
	clock.Advance(72 * time.Hour)
	got = scan()
	want(4, got, "boot.in", registry.CDSApplied)
	want(4, got, "good.in", registry.CDSInSync)
	if ds := dsOf("boot.in"); !slices.Equal(ds, []registry.DS{kskDS(t, a, "boot.in")}) {
		t.Errorf("boot.in after the bootstrap: DS %v", ds)
	}
	want(4, got, "del.in", registry.CDSNone) // a delete with no DS: nothing to do
	// the counters
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() == "akshara_cds_scans_total" {
			counts["scans"] = mf.GetMetric()[0].GetCounter().GetValue()
		}
		if mf.GetName() == "akshara_cds_domains_total" {
			for _, m := range mf.GetMetric() {
				counts[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	if counts["scans"] != 4 || counts[registry.CDSApplied] != 2 || counts[registry.CDSDeleted] != 1 || counts[registry.CDSRejected] != 8 {
		t.Errorf("akshara_cds_domains_total: %v, want scans 4, applied 2, deleted 1, rejected 8", counts)
	}
}
