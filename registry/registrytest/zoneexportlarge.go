package registrytest

import (
	"bytes"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/longtest"
	"github.com/akshara-idn/akshara/registry"
)

// SQLStore is a store whose tables a test may fill by SQL (both stores).
type SQLStore interface {
	registry.Store
	DB() *sql.DB
}

// RunZoneExportLarge exports a zone of many delegated domains (100,000
// with AKSHARA_LONG_TESTS=1, else 2,000 imported records): every domain
// is published with two name servers, half of them with a DS record and
// a tenth with a third name server under it (glue). The export reads the
// zone by pages (registry.ZonePageSize domains); the file has one
// delegation per domain and every glue record, is the same bytes when
// exported twice, and passes kzonecheck; the time and size are logged.
func RunZoneExportLarge(t *testing.T, open func(*testing.T) SQLStore) {
	n := longtest.Pick(2000, 100_000)
	ctx := t.Context()
	store := open(t)
	svc, err := registry.NewServiceWith(ctx, store, Exempt(registry.ServiceOptions{}, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Import(ctx, GeneratedImport(t, n, 24), registry.ImportOptions{ContactsExempt: true, Zone: "भारत", Registrar: "r0", CreateRegistrars: true}); err != nil {
		t.Fatal(err)
	}
	r := &registry.Registrar{Name: "r0"}
	if err := store.DB().QueryRowContext(ctx, `SELECT id FROM registrars WHERE name = 'r0'`).Scan(&r.ID); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"ns1.example.net", "ns2.example.org"} {
		if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: h}); err != nil {
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
	var domains, glue int
	if err := store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM domains WHERE zone = 'भारत'`).Scan(&domains); err != nil {
		t.Fatal(err)
	}
	if err := store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM host_addrs`).Scan(&glue); err != nil {
		t.Fatal(err)
	}
	if domains <= registry.ZonePageSize {
		t.Fatalf("%d domains: fewer than a page (%d), the pages' seams are not tested", domains, registry.ZonePageSize)
	}
	o := registry.ZoneExportOptions{NS: []string{"a.nic.example.org", "b.nic.example.org"}, Serial: 1}
	var out, again bytes.Buffer
	start := time.Now()
	if err := svc.ExportZone(ctx, "भारत", o, &out); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if got, want := strings.Count(out.String(), "\tIN\tNS\tns1.example.net.\n"), domains; got != want {
		t.Errorf("%d delegations to ns1.example.net, want %d (one per domain)", got, want)
	}
	if got := strings.Count(out.String(), "\tIN\tA\t8.8.8.8\n"); got != glue {
		t.Errorf("%d glue records, want %d", got, glue)
	}
	// the delegations in the byte order of their owners
	var prev string
	for _, l := range strings.Split(out.String(), "\n") {
		f := strings.Split(l, "\t")
		if len(f) == 5 && f[3] == "NS" && f[0] != "xn--h2brj9c." {
			if f[0] < prev {
				t.Fatalf("%s after %s: not in byte order", f[0], prev)
			}
			prev = f[0]
		}
	}
	if err := svc.ExportZone(ctx, "भारत", o, &again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Errorf("two exports of the same %d domains differ (%d and %d bytes)", domains, out.Len(), again.Len())
	}
	t.Logf("zone export: %d domains (%d with glue), %d bytes, %v", domains, glue, out.Len(), took)
	start = time.Now()
	KZoneCheck(t, "xn--h2brj9c.", out.Bytes())
	t.Logf("kzonecheck: %v", time.Since(start))
}
