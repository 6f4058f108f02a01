// Command escrowgen makes a SQLite registry of n generated domains with
// contacts and hosts, for measuring escrow deposits and restores
// (docs/escrow.md, "Figures"): the names of registrytest.GenerateImport
// imported into भारत (a built import), then, in one transaction on the
// store's own connection, a registrant contact for every two domains, an
// out-of-zone host for every ten (two name servers a domain) and an
// authInfo hash for every domain. With -changes k it changes k domains
// (a status and the update time) and k/10 contacts instead, for a DIFF.
//
//	go run ./internal/cmd/escrowgen -db big.db -n 1000000
//	go run ./internal/cmd/escrowgen -db big.db -changes 100000
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

func main() {
	db := flag.String("db", "escrow.db", "SQLite database `FILE` (made)")
	n := flag.Int("n", 100_000, "names to generate")
	changes := flag.Int("changes", 0, "change this many domains of an existing database instead")
	flag.Parse()
	if err := run(*db, *n, *changes); err != nil {
		fmt.Fprintln(os.Stderr, "escrowgen:", err)
		os.Exit(1)
	}
}

func run(path string, n, changes int) error {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer store.Close()
	svc, err := registry.NewService(ctx, store)
	if err != nil {
		return err
	}
	start := time.Now()
	if changes > 0 {
		now := time.Now().UnixNano()
		_, err := store.DB().ExecContext(ctx, `UPDATE domains SET statuses = 'clientHold', updated = ?, rev = rev + 1 WHERE id IN (SELECT id FROM domains ORDER BY id LIMIT ?)`, now, changes)
		if err == nil {
			_, err = store.DB().ExecContext(ctx, `UPDATE contacts SET data = replace(data, 'Delhi', 'Pune'), updated = ? WHERE id IN (SELECT id FROM contacts ORDER BY id DESC LIMIT ?)`, now, changes/10)
		}
		fmt.Printf("changed %d domains and %d contacts in %v\n", changes, changes/10, time.Since(start))
		return err
	}
	file := filepath.Join(os.TempDir(), fmt.Sprintf("escrowgen-%d.csv", os.Getpid()))
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer os.Remove(file)
	if _, err := registrytest.GenerateImport(f, n, 1); err != nil {
		return err
	}
	f.Close()
	sum, err := svc.Import(ctx, func() (io.ReadCloser, error) { return os.Open(file) },
		// ContactsExempt: the registrants are added below, in bulk.
		registry.ImportOptions{Zone: "भारत", Registrar: "gen-registrar", CreateRegistrars: true, AllowInvalid: true, ContactsExempt: true})
	if err != nil {
		return err
	}
	if sum.Registered+sum.Exempted == 0 {
		return fmt.Errorf("the import wrote none of %d names and refused %d (%v): no registry to measure", sum.Records, sum.Refused, sum.RefusedByCode)
	}
	fmt.Printf("imported %d domains (%d exempted, %d legacy; %d refused, %d duplicates: the generator's bad lines) in %v\n",
		sum.Registered+sum.Exempted, sum.Exempted, sum.Legacy, sum.Refused, sum.Duplicates, time.Since(start))
	start = time.Now()
	tx, err := store.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{
		`INSERT INTO contacts (handle, registrar_id, data, auth_hash, statuses, created, updated)
			SELECT 'ct-' || id, registrar_id, '{"postal":[{"type":"int","name":"Contact ' || id || '","street":["' || id || ' MG Marg"],"city":"Delhi","cc":"IN"}],"voice":{"number":"+91.1123456789"},"email":"c' || id || '@example.in","disclose":{"flag":false,"fields":["voice","email"]}}',
			'$argon2id$v=19$m=65536,t=1,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA', '', created, created FROM domains WHERE id % 2 = 0`,
		`INSERT INTO domain_contacts (domain_id, contact_id, role)
			SELECT d.id, c.id, 'registrant' FROM domains d JOIN contacts c ON c.handle = 'ct-' || (d.id - d.id % 2) WHERE d.id >= 2`,
		`INSERT INTO hosts (name, registrar_id, domain_id, statuses, created, updated)
			SELECT 'ns' || id || '.example.com', registrar_id, NULL, '', created, created FROM domains WHERE id % 10 = 0`,
		`INSERT INTO hosts (name, registrar_id, domain_id, statuses, created, updated)
			SELECT 'ns' || id || '.example.net', registrar_id, NULL, '', created, created FROM domains WHERE id % 10 = 0`,
		`INSERT INTO domain_hosts (domain_id, host_id)
			SELECT d.id, h.id FROM domains d JOIN hosts h ON h.name IN ('ns' || (d.id - d.id % 10) || '.example.com', 'ns' || (d.id - d.id % 10) || '.example.net') WHERE d.id >= 10`,
		`INSERT OR IGNORE INTO domain_auth (domain_id, pw_hash, updated)
			SELECT id, '$argon2id$v=19$m=65536,t=1,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA', created FROM domains`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q[:40], err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	var c, h int64
	store.DB().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM contacts), (SELECT COUNT(*) FROM hosts)`).Scan(&c, &h)
	fmt.Printf("added %d contacts, %d hosts in %v\n", c, h, time.Since(start))
	return nil
}
