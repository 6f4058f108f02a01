package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestZoneExport: akshara zone export writes the master file (to a file,
// atomically, or to standard output), the same bytes both ways, accepted
// by kzonecheck; an unknown zone or no -ns is refused.
func TestZoneExport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "example.in"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns1.example.in", Addrs: []registry.Addr{{IP: "8.8.8.8"}}}); err != nil {
		t.Fatal(err)
	}
	if err := registrytest.Err(svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: "example.in", AddNS: []string{"ns1.example.in"}})); err != nil {
		t.Fatal(err)
	}
	store.Close()
	out, errOut, code := runCLI(t, "", "zone", "export", "-db", db, "-zone", "in", "-ns", "a.nic.example.org,b.nic.example.org", "-serial", "7")
	if code != exitOK {
		t.Fatalf("zone export: exit %d: %s", code, errOut)
	}
	for _, w := range []string{"in.\t3600\tIN\tSOA\ta.nic.example.org. hostmaster.in. 7 ", "example.in.\t3600\tIN\tNS\tns1.example.in.\n", "ns1.example.in.\t3600\tIN\tA\t8.8.8.8\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("zone export lacks %q:\n%s", w, out)
		}
	}
	file := filepath.Join(t.TempDir(), "in.zone")
	if _, errOut, code := runCLI(t, "", "zone", "export", "-db", db, "-zone", "in", "-ns", "a.nic.example.org,b.nic.example.org", "-serial", "7", "-o", file); code != exitOK {
		t.Fatalf("zone export -o: exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != out {
		t.Errorf("zone export -o wrote %q (%v), want the standard output's bytes", b, err)
	}
	registrytest.KZoneCheck(t, "in.", []byte(out))
	if _, errOut, code := runCLI(t, "", "zone", "export", "-db", db, "-zone", "nozone", "-ns", "a.example.org"); code != exitInvalid || !strings.Contains(errOut, "UNKNOWN_ZONE") {
		t.Errorf("unknown zone: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", "zone", "export", "-db", db, "-zone", "in"); code != exitInvalid || !strings.Contains(errOut, "-ns") {
		t.Errorf("no -ns: exit %d: %s", code, errOut)
	}
}

// TestZonePublishCLI: akshara zone publish writes the file, runs -reload
// with the zone's A-label in $ZONE, raises the serial on every publish,
// and exits 1 with one line naming the change guard when too many
// delegations would go (nothing written, no reload), 0 with -force.
func TestZonePublishCLI(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{ContactsExempt: []string{""}})
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
	for _, n := range []string{"alpha.in", "bravo.in"} {
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: n}); err != nil {
			t.Fatal(err)
		}
		if err := registrytest.Err(svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: n, AddNS: []string{"ns.example.net"}})); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "in.zone")
	marker := filepath.Join(dir, "reloaded")
	publish := func(extra ...string) (string, string, int) {
		os.Remove(marker)
		args := append([]string{"zone", "publish", "-db", db, "-zone", "in", "-ns", "a.nic.example.org", "-o", file, "-reload", `echo "$ZONE" > ` + marker}, extra...)
		return runCLI(t, "", args...)
	}
	reloaded := func() string { b, _ := os.ReadFile(marker); return strings.TrimSpace(string(b)) }
	if out, errOut, code := publish(); code != exitOK || !strings.Contains(out, "2 delegations") || reloaded() != "in" {
		t.Fatalf("publish: exit %d, %q %q, reload %q", code, out, errOut, reloaded())
	}
	first, _ := os.ReadFile(file)
	s1, _ := zoneFileSerial(first)
	if _, errOut, code := publish(); code != exitOK {
		t.Fatalf("publish again: exit %d: %s", code, errOut)
	}
	second, _ := os.ReadFile(file)
	if s2, _ := zoneFileSerial(second); s2 <= s1 {
		t.Errorf("serial %d after %d, want it raised", s2, s1)
	}
	if err := registrytest.Err(svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: "bravo.in", RemNS: []string{"ns.example.net"}})); err != nil {
		t.Fatal(err)
	}
	store.Close()
	out, errOut, code := publish()
	if code != exitInvalid || !strings.Contains(errOut, "change guard") || strings.Count(errOut, "\n") != 1 || out != "" || reloaded() != "" {
		t.Errorf("publish dropping 1 of 2: exit %d, stdout %q, stderr %q, reload %q: want exit 1 and one line", code, out, errOut, reloaded())
	}
	if b, _ := os.ReadFile(file); string(b) != string(second) {
		t.Errorf("the refused publish changed the file")
	}
	if out, errOut, code := publish("-force"); code != exitOK || !strings.Contains(out, "1 delegations (were 2)") || reloaded() != "in" {
		t.Errorf("publish -force: exit %d, %q %q", code, out, errOut)
	}
	if _, _, code := publish("-max-drop", "101"); code != exitUsage {
		t.Errorf("-max-drop 101: exit %d, want %d", code, exitUsage)
	}
}
