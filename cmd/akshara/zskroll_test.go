package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// The ZSK rollover's timings in the test's Knot policy (seconds, where
// Knot's defaults are days): the ZSK lives zskLife; a new one is
// published propagation-delay + dnskey-ttl before it signs, the old one
// kept propagation-delay + zone-max-ttl after it stopped signing
// (pre-publication, RFC 6781 §4.1.1.1, RFC 7583 §3.2).
const (
	zskLife  = 12 * time.Second
	rollTTL  = 2 * time.Second // dnskey-ttl, zone-max-ttl and the zone's TTLs
	rollProp = 1 * time.Second // propagation-delay
)

// startKnotRoll starts knotd signing zone "in" from dir/in.zone with
// short ZSK lifetimes (the constants above), automatic rollovers.
func startKnotRoll(t *testing.T, dir string) *knotServer {
	t.Helper()
	for _, p := range []string{"knotd", "knotc"} {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required in CI (Debian knot): %v", p, err)
			}
			t.Skipf("%s is not installed (Debian knot): the ZSK rollover test did not run", p)
		}
	}
	k := &knotServer{dir: dir, socket: filepath.Join(dir, "knot.sock"), file: filepath.Join(dir, "in.zone"), port: freePort(t)}
	conf := fmt.Sprintf(`server:
    listen: 127.0.0.1@%d
    rundir: %[2]s
database:
    storage: %[2]s/db
policy:
  - id: roll
    algorithm: ecdsap256sha256
    nsec3: off
    zsk-lifetime: %[4]ds
    ksk-lifetime: 0
    propagation-delay: %[5]ds
    dnskey-ttl: %[6]ds
    zone-max-ttl: %[6]ds
zone:
  - domain: in
    storage: %[2]s
    file: %[3]s
    zonefile-sync: -1
    zonefile-load: whole
    journal-content: none
    serial-policy: increment
    dnssec-signing: on
    dnssec-policy: roll
log:
  - target: stderr
    any: info
`, k.port, dir, k.file, int(zskLife/time.Second), int(rollProp/time.Second), int(rollTTL/time.Second))
	// Knot's rollover steps are logged, without its KSK's waits for the parent's DS
	logs := startKnotd(t, dir, conf, func(l string) bool { return !strings.Contains(l, "KSK submission") })
	for i := 0; ; i++ {
		m := new(dns.Msg)
		m.SetQuestion("in.", dns.TypeSOA)
		m.SetEdns0(4096, true)
		c := &dns.Client{Net: "tcp", Timeout: time.Second}
		if r, _, err := c.Exchange(m, fmt.Sprintf("127.0.0.1:%d", k.port)); err == nil && len(r.Answer) > 1 {
			break
		}
		if i == 100 {
			t.Fatalf("knotd did not serve the zone:\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return k
}

// seen is one answer: when, the RRSIGs' key tags over each RRset of it
// that validated, and the DNSKEY set of the same moment.
type seenAnswer struct {
	at   time.Time
	what string
	rrs  []dns.RR
}

// TestKnotZSKRollover: Knot rolls the ZSK of the published zone (automatic
// signing, a ZSK lifetime of seconds) while the registry keeps publishing
// (a create every second, zone publish and reload); every answer asked
// throughout (the DNSKEY set, SOA, the DS of the new names, a signed
// denial) validates (miekg/dns) against the DNSKEY set of its moment, and
// against every DNSKEY set a resolver could still hold from the dnskey-ttl
// before; a key that signed an answer stays in the DNSKEY set for the
// zone's max TTL after (an answer still cached validates). At least one
// rollover must be seen: two ZSKs signing in turn.
func TestKnotZSKRollover(t *testing.T) {
	if testing.Short() {
		t.Skip("the ZSK rollover runs about 40 s")
	}
	dir := t.TempDir()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}}) // the test seeds names by Go calls, without contacts
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns.example.net"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "in.zone")
	eo := registry.ZoneExportOptions{NS: []string{"a.nic.example.org"}, TTL: int(rollTTL / time.Second)}
	create := func(i int) string {
		t.Helper()
		name := fmt.Sprintf("roll%d.in", i)
		ds := registry.DS{KeyTag: 1000 + i, Algorithm: 13, DigestType: 2, Digest: knotDigest}
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: name, NameServers: []string{"ns.example.net"}, DS: []registry.DS{ds}}); err != nil {
			t.Fatal(err)
		}
		return name
	}
	names := []string{create(0)}
	if _, _, _, err := publishZone(ctx, svc, "in", eo, publishOptions{Out: file}); err != nil {
		t.Fatal(err)
	}
	k := startKnotRoll(t, dir)
	po := publishOptions{Out: file, MaxDrop: 0.1, Reload: func(z string) error {
		return runReload(exec.Command("knotc", "-s", k.socket, "-b", "zone-reload", z))
	}}

	type keySet struct {
		at   time.Time
		keys map[uint16]*dns.DNSKEY
	}
	var sets []keySet
	var answers []seenAnswer
	signers := map[uint16]bool{} // the ZSKs that signed an answer
	deadline := time.Now().Add(zskLife*2 + 4*(rollProp+rollTTL))
	next := time.Now()
	for i := 1; time.Now().Before(deadline); i++ {
		if time.Now().After(next) { // the registry publishes
			names = append(names, create(i))
			if _, _, _, err := publishZone(ctx, svc, "in", eo, po); err != nil {
				t.Fatal(err)
			}
			next = time.Now().Add(time.Second)
		}
		now := time.Now()
		r := k.dnsExchange(t, "in", dns.TypeDNSKEY)
		keys := map[uint16]*dns.DNSKEY{}
		for _, rr := range r.Answer {
			if key, ok := rr.(*dns.DNSKEY); ok {
				keys[key.KeyTag()] = key
			}
		}
		if n, errs := checkSigs(keys, r.Answer); n[dns.TypeDNSKEY] == 0 || len(errs) > 0 {
			t.Fatalf("at %s the DNSKEY set does not validate: %v\n%v", now.Format(time.StampMilli), errs, r)
		}
		sets = append(sets, keySet{now, keys})
		for _, q := range []struct {
			name string
			t    uint16
			sec  func(*dns.Msg) []dns.RR
		}{
			{"in", dns.TypeSOA, func(m *dns.Msg) []dns.RR { return m.Answer }},
			{names[len(names)-1], dns.TypeDS, func(m *dns.Msg) []dns.RR { return m.Answer }},
			{names[0], dns.TypeDS, func(m *dns.Msg) []dns.RR { return m.Answer }},
			{"nosuch.in", dns.TypeNS, func(m *dns.Msg) []dns.RR { return m.Ns }},
		} {
			m := k.dnsExchange(t, q.name, q.t)
			rrs := q.sec(m)
			n, errs := checkSigs(keys, rrs)
			what := q.name + " " + dns.TypeToString[q.t]
			if q.t == dns.TypeDS && len(rrs) == 0 {
				continue // the newest name not yet loaded
			}
			if len(errs) > 0 || len(n) == 0 {
				t.Fatalf("at %s, %s does not validate against the DNSKEY set of the moment: %v %v\n%v", now.Format(time.StampMilli), what, n, errs, m)
			}
			for _, rr := range rrs {
				if s, ok := rr.(*dns.RRSIG); ok {
					signers[s.KeyTag] = true
				}
			}
			answers = append(answers, seenAnswer{now, what, rrs})
		}
		time.Sleep(100 * time.Millisecond)
	}
	// a resolver's caches: a DNSKEY set held for dnskey-ttl validates every
	// answer of that time; an answer held for its TTL validates against
	// every DNSKEY set of that time
	for _, a := range answers {
		for _, s := range sets {
			if s.at.Before(a.at.Add(-rollTTL)) || s.at.After(a.at.Add(rollTTL)) {
				continue
			}
			if _, errs := checkSigs(s.keys, a.rrs); len(errs) > 0 {
				t.Errorf("%s at %s does not validate against the DNSKEY set of %s (within the TTL): %v",
					a.what, a.at.Format(time.StampMilli), s.at.Format(time.StampMilli), errs)
			}
		}
	}
	var zsks []uint16
	for tag := range signers {
		zsks = append(zsks, tag)
	}
	slices.Sort(zsks)
	t.Logf("%d DNSKEY sets, %d answers validated, %d creates published; ZSKs that signed: %v", len(sets), len(answers), len(names), zsks)
	if len(zsks) < 2 {
		t.Errorf("no ZSK rollover seen: one key signed throughout (%v)", zsks)
	}
}
