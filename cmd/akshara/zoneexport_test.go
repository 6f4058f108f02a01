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
	svc, err := registry.NewService(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Create(ctx, r, "example.in", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateHost(ctx, r, "ns1.example.in", []registry.Addr{{IP: "8.8.8.8"}}); err != nil {
		t.Fatal(err)
	}
	if err := svc.UpdateDelegation(ctx, r, "example.in", registry.Delegation{AddNS: []string{"ns1.example.in"}}); err != nil {
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
