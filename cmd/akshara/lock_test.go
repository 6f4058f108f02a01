package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestLockCommands: the operator enrols a registrant's secret (the URI
// printed), confirms it with the registrant's first code, locks a domain
// with a later code (its statuses then the lock's), and announces,
// lists and cancels a maintenance window; a wrong code is refused.
func TestLockCommands(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "r.db")
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := registry.NewServiceWith(ctx, store, registrytest.ContactsOptional())
	if err != nil {
		t.Fatal(err)
	}
	r, _, _ := svc.AddRegistrar(ctx, "acme")
	if _, err := svc.CreateContact(ctx, r, registry.ContactCreate{ID: "rs-1", ContactData: registrytest.DevanagariContact(), AuthInfo: "Contact-pw-1-strong"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "किताब.भारत", Contacts: []registry.DomainContact{{Role: registry.RoleRegistrant, ID: "rs-1"}}}); err != nil {
		t.Fatal(err)
	}
	store.Close()
	ak := func(want int, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(append(args[:2:2], append([]string{"-db", db}, args[2:]...)...), strings.NewReader(""), &out, &errOut); code != want {
			t.Fatalf("akshara %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out.String(), errOut.String())
		}
		return out.String()
	}
	uri := strings.TrimSpace(ak(0, "lock", "enrol", "rs-1"))
	key, err := otp.NewKeyFromURL(uri)
	if err != nil || !strings.HasPrefix(uri, "otpauth://totp/") {
		t.Fatalf("enrol printed %q: %v", uri, err)
	}
	code := func(at time.Time) string {
		c, err := totp.GenerateCode(key.Secret(), at)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	now := time.Now()
	ak(0, "lock", "confirm", "rs-1", code(now)) // step S; the lock takes S+1 (a code is good once; one step of skew either way)
	ak(1, "lock", "lock", "किताब.भारत", "000000")
	out := ak(0, "lock", "lock", "किताब.भारत", code(now.Add(30*time.Second)))
	for _, st := range registry.LockStatuses {
		if !strings.Contains(out, st) {
			t.Errorf("lock printed %s, want %s", out, st)
		}
	}
	var m registry.Maintenance
	if err := json.Unmarshal([]byte(ak(0, "maintenance", "add", "-start", "2031-03-01T02:00:00Z", "-end", "2031-03-01T04:00:00Z", "-system", "EPP:partial:epp.registry.in")), &m); err != nil || m.ID == "" || m.Systems[0].Impact != "partial" {
		t.Fatalf("maintenance add: %+v, %v", m, err)
	}
	if out := ak(0, "maintenance", "list"); !strings.Contains(out, m.ID) {
		t.Errorf("maintenance list: %s, want %s", out, m.ID)
	}
	ak(0, "maintenance", "cancel", m.ID)
	if out := ak(0, "maintenance", "list"); strings.Contains(out, m.ID) {
		t.Errorf("maintenance list after the cancel: %s", out)
	}
}
