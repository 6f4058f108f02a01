package registry

import (
	"context"
	"sort"
)

// HostUpdate is a host <update> (RFC 5732 §3.2.5): addresses and statuses
// added and removed (removals first), and a new name.
type HostUpdate struct {
	// Name is the host's name (U-labels or A-labels).
	Name                     string
	AddAddrs, RemAddrs       []Addr
	AddStatuses, RemStatuses []string
	NewName                  string // "" keeps the name
}

// UpdateHost changes a host the registrar sponsors, every part checked
// first and all written, with the audit record, in one transaction.
//
// Refusals: BAD_NAME and INVALID_LABEL (the names), NOT_FOUND, FORBIDDEN
// (another registrar's), HOST_POLICY (a status a registrar may not set, or
// one the host has already or lacks; an address it has already or lacks;
// glue outside the registry's zones or under another registrar's domain),
// STATUS_PROHIBITS (clientUpdateProhibited, unless the update removes it),
// EXISTS (the new name is another host's), BAD_ADDRESS, ADDRESS_RANGE,
// LIMIT.
func (s *Service) UpdateHost(ctx context.Context, r *Registrar, req HostUpdate) error {
	return s.refuse(ctx, r.Name, "host-update", req.Name, s.updateHost(ctx, r, req))
}

func (s *Service) updateHost(ctx context.Context, r *Registrar, req HostUpdate) error {
	ds, err := s.delegationStore()
	if err != nil {
		return err
	}
	hn, err := s.canonHost(req.Name)
	if err != nil {
		return err
	}
	for _, st := range append(append([]string(nil), req.AddStatuses...), req.RemStatuses...) {
		if st != HostDeleteProhibited && st != HostUpdateProhibited {
			return Errorf(CodeHostPolicy, "status %q: a registrar sets %s and %s only", st, HostDeleteProhibited, HostUpdateProhibited)
		}
	}
	nn := hn
	if req.NewName != "" {
		if nn, err = s.canonHost(req.NewName); err != nil {
			return err
		}
	}
	rem, err := canonAddrs(req.RemAddrs)
	if err != nil {
		return err
	}
	add, err := canonAddrs(req.AddAddrs)
	if err != nil {
		return err
	}
	return s.transact(ctx, func(ctx context.Context) error {
		h, err := sponsoredHost(ctx, ds, hn.alabel, r)
		if err != nil {
			return err
		}
		if err := s.hostLocked(ctx, h, "updates", StatusServerUpdateProhibited); err != nil { // lock.go
			return err
		}
		if nn.zone != nil && nn.alabel != hn.alabel {
			if err := s.superLocked(ctx, nn.alabel, nn.zone.Name, nn.label, "a rename into it"); err != nil {
				return err
			}
		}
		if has(h.Statuses, HostUpdateProhibited) && !has(req.RemStatuses, HostUpdateProhibited) {
			return Errorf(CodeStatusProhibits, "host %s has status %s: remove it first", h.Name, HostUpdateProhibited)
		}
		next := &Host{Name: nn.alabel, ULabel: nn.ulabel, Statuses: []string{}, Version: h.Version}
		if next.Statuses, err = changeSet(h.Statuses, req.AddStatuses, req.RemStatuses, "host "+h.Name, "status", CodeHostPolicy); err != nil {
			return err
		}
		addrs, err := changeSet(h.Addrs, add, rem, "host "+h.Name, "address", CodeHostPolicy)
		if err != nil {
			return err
		}
		all := make([]Addr, len(addrs))
		for i, a := range addrs {
			all[i] = Addr{IP: a}
		}
		if err := s.setAddrs(next, nn, all); err != nil {
			return err
		}
		if nn.zone != nil {
			next.SuperZone, next.SuperLabel = nn.zone.Name, nn.label
		}
		next.Updated = s.clock.Now().UTC()
		// the DNS outbox (dnsoutbox.go): new addresses or a new name change
		// the host's glue and the NS records naming it
		var w *dnsWatch
		if len(add)+len(rem) > 0 || next.Name != h.Name {
			if w, err = s.watchDNS(ctx, nil, h.Name); err != nil {
				return err
			}
		}
		// over the version read (STALE: the command runs again)
		if err := ds.UpdateHost(ctx, hn.alabel, next, r.ID); err != nil {
			return err
		}
		if w != nil {
			if err := w.record(ctx, next.Name); err != nil {
				return err
			}
		}
		return s.record(ctx, r.Name, "host-update", h.Name, "")
	})
}

// changeSet applies removals, then additions, to a set of values (an
// object's statuses, a host's addresses): code when one removed is absent
// or one added present. The result is sorted.
func changeSet(have, add, rem []string, object, what, code string) ([]string, error) {
	set := map[string]bool{}
	for _, x := range have {
		set[x] = true
	}
	for _, x := range rem {
		if !set[x] {
			return nil, Errorf(code, "%s does not have %s %s", object, what, x)
		}
		delete(set, x)
	}
	for _, x := range add {
		if set[x] {
			return nil, Errorf(code, "%s already has %s %s", object, what, x)
		}
		set[x] = true
	}
	out := make([]string, 0, len(set))
	for x := range set {
		out = append(out, x)
	}
	sort.Strings(out)
	return out, nil
}
