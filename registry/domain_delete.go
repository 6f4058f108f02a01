package registry

import "context"

// DomainDelete is a domain <delete> (RFC 5731 §3.2.2).
type DomainDelete struct {
	// Name is label.zone, in U-labels or A-labels.
	Name string
}

// DeleteDomain deletes a domain the registrar sponsors (RFC 3915): inside
// the zone's add grace period it is purged at once, its conflict set
// freed, and nil is returned; otherwise it enters pendingDelete with
// redemptionPeriod, out of the published zone but holding its whole
// conflict set until it is purged (after the redemption and the pending
// delete periods), and is returned. Its pending transfer is ended and its
// authInfo removed. One transaction with the audit record.
//
// The domain returned is its row after the command (Info reads its
// conflict set, delegation and contacts too).
//
// Refusals: BAD_NAME, UNKNOWN_ZONE, NOT_FOUND, FORBIDDEN (another
// registrar's), STATUS_PROHIBITS (deleted already, pendingTransfer, on
// delete prohibition), ASSOCIATED (hosts under the domain).
func (s *Service) DeleteDomain(ctx context.Context, r *Registrar, req DomainDelete) (*Domain, error) {
	d, err := s.deleteDomain(ctx, r, req)
	return d, s.refuse(ctx, r.Name, "delete", req.Name, err)
}

func (s *Service) deleteDomain(ctx context.Context, r *Registrar, req DomainDelete) (*Domain, error) {
	z, label, err := s.locate(req.Name)
	if err != nil {
		return nil, err
	}
	var out *Domain
	err = s.transact(ctx, func(ctx context.Context) error {
		d, err := s.sponsoredDomain(ctx, z, label, r)
		if err != nil {
			return err
		}
		if err := prohibits(d, "deletion", StatusPendingDelete, StatusClientDeleteProhibited, StatusServerDeleteProhibited, StatusPendingTransfer); err != nil {
			return err
		}
		if err := s.groupDeletable(ctx, d); err != nil { // sameentity.go
			return err
		}
		w, err := s.watchDNS(ctx, []DNSDomain{{z.Name, label}}) // the DNS outbox (dnsoutbox.go)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		ch := change(ctx, d, "delete", r.Name, now)
		// the store refuses a pending transfer and hosts under the domain,
		// and ends the transfer state (Change)
		ch.RefusePendingTransfer, ch.EndTransfers, ch.RefuseHosts = true, true, true
		if now.Before(d.Created.Add(z.Lifecycle.AddGrace)) {
			ch.Purge, ch.Result = true, "ok purged in add grace"
		} else {
			enterDeletion(ch, z, now)
		}
		out, err = s.store.ApplyChange(ctx, d, ch)
		if err == nil { // a delete in a grace period refunds it (billing.go)
			err = s.refundDeleted(ctx, z, d, now)
		}
		if err == nil {
			err = w.record(ctx)
		}
		return err
	})
	return out, err
}
