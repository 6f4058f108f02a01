package registry

import "context"

// HostDelete is a host <delete> (RFC 5732 §3.2.2).
type HostDelete struct {
	// Name is the host's name (U-labels or A-labels).
	Name string
}

// DeleteHost deletes a host the registrar sponsors, in one transaction
// with its audit record.
//
// Refusals: BAD_NAME, NOT_FOUND, FORBIDDEN (another registrar's),
// STATUS_PROHIBITS (clientDeleteProhibited), ASSOCIATED (a domain names
// it).
func (s *Service) DeleteHost(ctx context.Context, r *Registrar, req HostDelete) error {
	return s.refuse(ctx, r.Name, "host-delete", req.Name, s.deleteHost(ctx, r, req))
}

func (s *Service) deleteHost(ctx context.Context, r *Registrar, req HostDelete) error {
	ds, err := s.delegationStore()
	if err != nil {
		return err
	}
	hn, err := s.canonHost(req.Name)
	if err != nil {
		return err
	}
	return s.transact(ctx, func(ctx context.Context) error {
		h, err := sponsoredHost(ctx, ds, hn.alabel, r)
		if err != nil {
			return err
		}
		if err := s.hostLocked(ctx, h, "deletion", StatusServerDeleteProhibited); err != nil { // lock.go
			return err
		}
		if has(h.Statuses, HostDeleteProhibited) {
			return Errorf(CodeStatusProhibits, "host %s has status %s", h.Name, HostDeleteProhibited)
		}
		if err := ds.DeleteHost(ctx, hn.alabel, r.ID); err != nil { // ASSOCIATED while a domain names it
			return err
		}
		return s.record(ctx, r.Name, "host-delete", h.Name, "")
	})
}
