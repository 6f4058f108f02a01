package registrytest

import (
	"context"
	"testing"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// SQLiteService returns a registry service on a fresh SQLite store in a
// temporary directory, closed when the test ends.
func SQLiteService(tb testing.TB) *registry.Service {
	tb.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, tb.TempDir()+"/r.db")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	svc, err := registry.NewService(ctx, store)
	if err != nil {
		tb.Fatal(err)
	}
	return svc
}

// SQLiteServiceWith is SQLiteService with options.
func SQLiteServiceWith(tb testing.TB, o registry.ServiceOptions) *registry.Service {
	tb.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, tb.TempDir()+"/r.db")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	svc, err := registry.NewServiceWith(ctx, store, o)
	if err != nil {
		tb.Fatal(err)
	}
	return svc
}

// ContactsOptional is the ServiceOptions of a registry whose zones require
// no contacts of a domain create (the zones file's `contacts` replaced):
// for the tests of other features, whose EPP creates carry none.
func ContactsOptional() registry.ServiceOptions {
	return registry.ServiceOptions{Contacts: NoContacts()}
}

// NoContacts is ServiceOptions.Contacts requiring no contact in any zone.
func NoContacts() map[string]akshara.ZoneContacts {
	return map[string]akshara.ZoneContacts{"*": {}}
}
