package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestDNSSECScanCLI: akshara dnssec scan against a child that knotd signs
// (Knot publishes the CDS of its first KSK while it waits for its DS,
// cds-cdnskey-publish: rollover, the default): the child asked at its name
// server's -ns address, validated, the outcome printed as a JSON line
// (in-sync: the DS are the KSK's), its DS kept; a
// child whose server does not answer is rejected; -zone is required.
func TestDNSSECScanCLI(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db := filepath.Join(dir, "r.db")
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}}) // the test seeds names by Go calls, without contacts
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	zone := "kid.in. 3600 IN SOA a.nic.example.org. hostmaster.kid.in. 1 7200 3600 1209600 3600\nkid.in. 3600 IN NS ns.example.net.\n"
	if err := os.WriteFile(filepath.Join(dir, "kid.in.zone"), []byte(zone), 0o644); err != nil {
		t.Fatal(err)
	}
	k := startKnotZone(t, dir, "kid.in", nil)
	var ds registry.DS
	for _, rr := range k.dnsExchange(t, "kid.in", dns.TypeDNSKEY).Answer {
		if key, ok := rr.(*dns.DNSKEY); ok && key.Flags == 257 {
			d := key.ToDS(dns.SHA256)
			ds = registry.DS{KeyTag: int(d.KeyTag), Algorithm: int(d.Algorithm), DigestType: 2, Digest: strings.ToUpper(d.Digest)}
		}
	}
	if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns.example.net"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns.example.com"}); err != nil {
		t.Fatal(err)
	}
	for n, ns := range map[string]string{"kid.in": "ns.example.net", "gone.in": "ns.example.com"} {
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: n}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: n, AddNS: []string{ns}, AddDS: []registry.DS{ds}}); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()

	out, errOut, code := runCLI(t, "", "dnssec", "scan", "-db", db, "-zone", "in", "-timeout", "1s",
		"-ns", fmt.Sprintf("ns.example.net=127.0.0.1:%d", k.port), "-ns", "ns.example.com=127.0.0.1:1")
	if code != exitOK {
		t.Fatalf("akshara dnssec scan: exit %d: %s", code, errOut)
	}
	got := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		got[m["domain"].(string)] = m
	}
	if got["kid.in"]["outcome"] != registry.CDSInSync || got["gone.in"]["outcome"] != registry.CDSRejected ||
		!strings.Contains(fmt.Sprint(got["gone.in"]["reason"]), "ns.example.com") {
		t.Errorf("akshara dnssec scan:\n%s\nwant kid.in in-sync, gone.in rejected (its server does not answer)", out)
	}
	if !strings.Contains(fmt.Sprint(got["kid.in"]["ds"]), ds.Digest) {
		t.Errorf("kid.in's DS after the scan: %v, want %v", got["kid.in"]["ds"], ds)
	}
	if _, errOut, code := runCLI(t, "", "dnssec", "scan", "-db", db); code != exitUsage || !strings.Contains(errOut, "-zone") {
		t.Errorf("without -zone: exit %d, %q", code, errOut)
	}
}

// TestCDSWorker: serve's -cds-interval runs a pass at once and then every
// interval, its counters on serve's metrics; 0 (the default) runs none.
func TestCDSWorker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}}) // the test seeds names by Go calls, without contacts
	if err != nil {
		t.Fatal(err)
	}
	passes := func(reg *prometheus.Registry) float64 {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "akshara_cds_scans_total" {
				return mf.GetMetric()[0].GetCounter().GetValue()
			}
		}
		return -1
	}
	fs := newFlags("serve", "", io.Discard)
	set := addCDSFlags(fs, "cds-")
	if err := fs.Parse([]string{"-cds-zone", "in"}); err != nil {
		t.Fatal(err)
	}
	off := prometheus.NewRegistry()
	cdsWorker(ctx, svc, set, 0, off, nil)
	if n := passes(off); n != -1 {
		t.Errorf("-cds-interval 0: %v passes counted, want no scanner", n)
	}
	on := prometheus.NewRegistry()
	cdsWorker(ctx, svc, set, 20*time.Millisecond, on, nil)
	for i := 0; passes(on) < 3; i++ {
		if i == 500 {
			t.Fatalf("%v passes after 5 s of a 20 ms interval", passes(on))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
