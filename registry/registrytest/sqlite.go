package registrytest

import (
	"context"
	"testing"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// SQLiteService returns a registry service on a fresh SQLite store in a
// temporary directory, closed when the test ends. Its zones' contact
// policy binds every front end but Go calls that name none (Exempt(o,
// "")): the tests of other features seed their domains through Go
// without contacts; the HTTP API, EPP, the CLI and the import stay bound.
func SQLiteService(tb testing.TB) *registry.Service {
	tb.Helper()
	return SQLiteServiceWith(tb, Exempt(registry.ServiceOptions{}, ""))
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

// Exempt is o with the zones' contact policy not binding the front ends
// chs (ServiceOptions.ContactsExempt: "http", "epp", "cli", "import"; ""
// for Go calls that name none), as `akshara serve -contacts-exempt` sets
// it: for the tests of other features, whose creates carry no contacts
// (docs/contacts.md, "Front ends").
func Exempt(o registry.ServiceOptions, chs ...string) registry.ServiceOptions {
	o.ContactsExempt = append(append([]string(nil), o.ContactsExempt...), chs...)
	return o
}
