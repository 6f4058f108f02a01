package sqlite_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/longtest"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestZoneExportLarge exports a zone of many delegated domains (100,000
// with AKSHARA_LONG_TESTS=1, else 2,000 imported records): every domain
// is published with two name servers, half of them with a DS record and
// a tenth with a third name server under it (glue),
// the file passes kzonecheck, and the time and size are logged.
func TestZoneExportLarge(t *testing.T) {
	n := longtest.Pick(2000, 100_000)
	ctx := t.Context()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc, err := registry.NewService(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Import(ctx, registrytest.GeneratedImport(t, n, 24), registry.ImportOptions{Zone: "भारत", Registrar: "r0", CreateRegistrars: true}); err != nil {
		t.Fatal(err)
	}
	r := &registry.Registrar{Name: "r0"}
	if err := store.DB().QueryRowContext(ctx, `SELECT id FROM registrars WHERE name = 'r0'`).Scan(&r.ID); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"ns1.example.net", "ns2.example.org"} {
		if _, err := svc.CreateHost(ctx, r, h, nil); err != nil {
			t.Fatal(err)
		}
	}
	// every domain delegated to both hosts, every other one signed (SQL:
	// the registry's methods are tested elsewhere; this is about size)
	for _, q := range []string{
		`INSERT INTO domain_hosts (domain_id, host_id) SELECT d.id, h.id FROM domains d, hosts h WHERE d.zone = 'भारत'`,
		`INSERT INTO ds_records (domain_id, key_tag, alg, digest_type, digest) SELECT id, id % 65536, 13, 2, '` + strings.Repeat("AB", 32) + `' FROM domains WHERE id % 2 = 0`,
		// every tenth domain also served by a host under it, with glue
		`INSERT INTO hosts (name, registrar_id, domain_id, statuses, created, updated) SELECT 'ns.' || alabel, registrar_id, id, '', 0, 0 FROM domains WHERE id % 10 = 0`,
		`INSERT INTO host_addrs (host_id, addr) SELECT id, '8.8.8.8' FROM hosts WHERE domain_id IS NOT NULL`,
		`INSERT INTO domain_hosts (domain_id, host_id) SELECT domain_id, id FROM hosts WHERE domain_id IS NOT NULL`,
	} {
		if _, err := store.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var domains int
	if err := store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM domains WHERE zone = 'भारत'`).Scan(&domains); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	start := time.Now()
	if err := svc.ExportZone(ctx, "भारत", registry.ZoneExportOptions{NS: []string{"a.nic.example.org", "b.nic.example.org"}, Serial: 1}, &out); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if got, want := strings.Count(out.String(), "\tIN\tNS\tns1.example.net.\n"), domains; got != want {
		t.Errorf("%d delegations to ns1.example.net, want %d (one per domain)", got, want)
	}
	var glue int
	if err := store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM host_addrs`).Scan(&glue); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "\tIN\tA\t8.8.8.8\n"); got != glue {
		t.Errorf("%d glue records, want %d", got, glue)
	}
	t.Logf("zone export: %d domains (%d with glue), %d bytes, %v", domains, glue, out.Len(), took)
	start = time.Now()
	registrytest.KZoneCheck(t, "xn--h2brj9c.", out.Bytes())
	t.Logf("kzonecheck: %v", time.Since(start))
}
