package registrytest

import (
	"context"
	"testing"

	"github.com/akshara-idn/akshara/registry"
)

// The atomicity suite's calls of the registry's commands (atomicity.go):
// the world's setup and the service level, each Op as the one request
// value of its command.

// RunService runs op as a call of the registry service's command.
func (w *World) RunService(ctx context.Context, op Op) error {
	svc, r := w.Svc, w.Registrars[op.As]
	switch op.Kind {
	case OpDomainCreate:
		_, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: op.Name, Period: years(op.Years), AuthInfo: op.AuthInfo,
			Contacts: op.Contacts, NameServers: op.NS, DS: op.DS})
		return err
	case OpDomainUpdate:
		_, err := svc.UpdateDomain(ctx, r, registry.DomainUpdate{Name: op.Name, AddStatuses: op.AddStatuses, RemStatuses: op.RemStatuses,
			AddContacts: op.AddContacts, RemContacts: op.RemContacts, Registrant: op.Registrant,
			AddNS: op.AddNS, RemNS: op.RemNS, AddDS: op.AddDS, RemDS: op.RemDS, AuthInfo: op.SetAuth})
		return err
	case OpDomainRenew:
		_, err := svc.RenewDomain(ctx, r, registry.DomainRenew{Name: op.Name, CurExpiry: op.CurExpiry, Period: years(op.Years)})
		return err
	case OpDomainDelete:
		_, err := svc.DeleteDomain(ctx, r, registry.DomainDelete{Name: op.Name})
		return err
	case OpDomainRestore:
		_, err := svc.RestoreDomain(ctx, r, registry.DomainRestore{Name: op.Name, Op: op.Verb})
		return err
	case OpDomainTransfer:
		_, err := svc.TransferDomain(ctx, r, registry.DomainTransfer{Name: op.Name, Op: op.Verb, AuthInfo: op.AuthInfo, Years: op.Years})
		return err
	case OpHostCreate:
		_, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: op.Name, Addrs: addrsOf(op.Addrs)})
		return err
	case OpHostUpdate:
		return svc.UpdateHost(ctx, r, registry.HostUpdate{Name: op.Name, AddAddrs: addrsOf(op.AddAddrs), RemAddrs: addrsOf(op.RemAddrs),
			AddStatuses: op.AddStatuses, RemStatuses: op.RemStatuses, NewName: op.NewName})
	case OpHostDelete:
		return svc.DeleteHost(ctx, r, registry.HostDelete{Name: op.Name})
	case OpContactCreate:
		_, err := svc.CreateContact(ctx, r, registry.ContactCreate{ID: op.Name, ContactData: op.Contact, AuthInfo: op.AuthInfo})
		return err
	case OpContactUpdate:
		u := registry.ContactUpdate{ID: op.Name, AddStatuses: op.AddStatuses, RemStatuses: op.RemStatuses, Email: op.Email, AuthInfo: op.AuthInfo}
		if op.Voice != "" {
			u.Voice = &registry.Phone{Number: op.Voice}
		}
		return svc.UpdateContact(ctx, r, u)
	case OpContactDelete:
		return svc.DeleteContact(ctx, r, registry.ContactDelete{ID: op.Name})
	}
	w.t.Fatalf("no command %q", op.Kind)
	return nil
}

// years is a period of n years (0: the zone's default).
func years(n int) registry.Period {
	if n == 0 {
		return registry.Period{}
	}
	return registry.Period{N: n, Unit: 'y'}
}

// addrsOf is a list of addresses as the service takes them.
func addrsOf(in []string) []registry.Addr {
	var out []registry.Addr
	for _, a := range in {
		out = append(out, registry.Addr{IP: a})
	}
	return out
}

// setup runs op as part of the world's setup: it must succeed.
func (w *World) setup(t testing.TB, op Op) {
	t.Helper()
	if err := w.RunService(w.ctx, op); err != nil {
		t.Fatalf("setup: %s %s as %s: %v", op.Kind, op.Name, op.As, err)
	}
}

// setupServerStatuses adds server statuses to a domain: the operator's
// update.
func (w *World) setupServerStatuses(t testing.TB, name string, add ...string) {
	t.Helper()
	if _, err := w.Svc.UpdateDomain(w.ctx, nil, registry.DomainUpdate{Name: name, AddStatuses: add}); err != nil {
		t.Fatalf("setup: server statuses of %s: %v", name, err)
	}
}
