package registry

import "context"

// HostCreate is a host <create> (RFC 5732 §3.2.1).
type HostCreate struct {
	// Name is the host's name (U-labels or A-labels).
	Name string
	// Addrs are its addresses: glue, only for a host inside a zone of the
	// registry, under a domain the registrar sponsors.
	Addrs []Addr
}

// CreateHost creates a host for the registrar, in one transaction with
// its audit record.
//
// Refusals: BAD_NAME and INVALID_LABEL (the name), EXISTS, BAD_ADDRESS,
// ADDRESS_RANGE, LIMIT (addresses), HOST_POLICY (glue outside the
// registry's zones, or under a domain another registrar sponsors or that
// is not registered).
func (s *Service) CreateHost(ctx context.Context, r *Registrar, req HostCreate) (*Host, error) {
	h, err := s.createHost(ctx, r, req)
	return h, s.refuse(ctx, r.Name, "host-create", req.Name, err)
}

func (s *Service) createHost(ctx context.Context, r *Registrar, req HostCreate) (*Host, error) {
	ds, err := s.delegationStore()
	if err != nil {
		return nil, err
	}
	hn, err := s.canonHost(req.Name)
	if err != nil {
		return nil, err
	}
	h := &Host{Name: hn.alabel, ULabel: hn.ulabel, Registrar: r.Name, Statuses: []string{}}
	if err := s.setAddrs(h, hn, req.Addrs); err != nil {
		return nil, err
	}
	if hn.zone != nil {
		h.SuperZone, h.SuperLabel = hn.zone.Name, hn.label
	}
	now := s.clock.Now().UTC()
	h.Created, h.Updated = now, now
	var out *Host
	err = s.transact(ctx, func(ctx context.Context) error {
		if err := s.superLocked(ctx, h.Name, h.SuperZone, h.SuperLabel, "the creation"); err != nil { // lock.go
			return err
		}
		// the store checks the superordinate domain is the registrar's
		if out, err = ds.CreateHost(ctx, h, r.ID); err != nil {
			return err
		}
		return s.record(ctx, r.Name, "host-create", h.Name, "")
	})
	return out, err
}
