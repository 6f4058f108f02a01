package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/akshara-idn/akshara/sqlite"
)

// TestRun makes a small registry and changes part of it: every generated
// name is a domain, with a registrant for every two and two name servers
// for every ten (it once imported nothing, refused by the contact policy,
// and said so only as "imported 0 domains").
func TestRun(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gen.db")
	const n = 400
	if err := run(db, n, 0); err != nil {
		t.Fatal(err)
	}
	if err := run(db, 0, 40); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var domains, contacts, hosts, registrants, held int
	err = store.DB().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM domains), (SELECT COUNT(*) FROM contacts),
		(SELECT COUNT(*) FROM hosts), (SELECT COUNT(*) FROM domain_contacts WHERE role = 'registrant'),
		(SELECT COUNT(*) FROM domains WHERE statuses = 'clientHold')`).Scan(&domains, &contacts, &hosts, &registrants, &held)
	if err != nil {
		t.Fatal(err)
	}
	// GenerateImport writes some duplicates and bad lines among its n.
	if domains < n*8/10 || domains > n {
		t.Errorf("%d domains of %d names", domains, n)
	}
	if contacts < domains/2-1 || contacts > domains/2+1 || registrants < domains-2 || hosts < domains/5-2 || held != 40 {
		t.Errorf("%d domains: %d contacts, %d registrants, %d hosts, %d held", domains, contacts, registrants, hosts, held)
	}
}
