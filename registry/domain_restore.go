package registry

import (
	"context"
	"slices"
	"time"
)

// The restore operations (RFC 3915 §4.2.5).
const (
	RestoreRequest = "request"
	RestoreReport  = "report"
)

// DomainRestore is a domain <update> with RFC 3915's <rgp:restore>.
type DomainRestore struct {
	// Name is label.zone, in U-labels or A-labels.
	Name string
	// Op is RestoreRequest or RestoreReport.
	Op string
}

// RestoreDomain restores a deleted domain the registrar sponsors (RFC
// 3915), judged by the clock, not only by the stored statuses (which the
// lifecycle worker moves on a little later): a request during the
// redemption period (before its end) makes it pendingRestore, and a
// report before the same end completes the restore: the domain is out of
// pendingDelete, back in the zone, and if its expiry date has passed it
// is renewed by whole years to the first after now. One transaction with
// the audit record.
//
// The domain returned is its row after the command (Info reads its
// conflict set, delegation and contacts too).
//
// Refusals: BAD_NAME, UNKNOWN_ZONE, NOT_FOUND, FORBIDDEN (another
// registrar's), BAD_STATUS (an op that is neither), STATUS_PROHIBITS
// (not in its redemption period, or its redemption period over; a report
// without a request).
func (s *Service) RestoreDomain(ctx context.Context, r *Registrar, req DomainRestore) (*Domain, error) {
	d, err := s.restoreDomain(ctx, r, req)
	return d, s.refuse(ctx, r.Name, "restore-"+req.Op, req.Name, err)
}

func (s *Service) restoreDomain(ctx context.Context, r *Registrar, req DomainRestore) (*Domain, error) {
	if req.Op != RestoreRequest && req.Op != RestoreReport {
		return nil, Errorf(CodeBadStatus, "a restore's op is request or report, not %q", req.Op)
	}
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
		now := s.clock.Now()
		if err := inRedemption(d, now); err != nil {
			return err
		}
		w, err := s.watchDNS(ctx, []DNSDomain{{z.Name, label}}) // the DNS outbox (dnsoutbox.go): a report publishes it again
		if err != nil {
			return err
		}
		ch := change(ctx, d, "restore-"+req.Op, r.Name, now)
		switch req.Op {
		case RestoreRequest:
			if d.HasStatus(StatusPendingRestore) {
				return Errorf(CodeStatusProhibits, "a restore of %s is requested already: report it", d.Name)
			}
			ch.Statuses = append(ch.Statuses, StatusPendingRestore)
		case RestoreReport:
			if !d.HasStatus(StatusPendingRestore) {
				return Errorf(CodeStatusProhibits, "%s has no restore requested: request one first", d.Name)
			}
			ch.Statuses = slices.DeleteFunc(ch.Statuses, func(st string) bool {
				return st == StatusPendingRestore || st == StatusPendingDelete || st == StatusRedemptionPeriod
			})
			ch.RedemptionEnds, ch.PurgeAt = time.Time{}, time.Time{}
			for !ch.Expires.IsZero() && !ch.Expires.After(now) {
				ch.Expires = addMonths(ch.Expires, 12)
			}
		}
		out, err = s.store.ApplyChange(ctx, d, ch)
		if err == nil { // the price of the restore (billing.go)
			err = s.chargeRestore(ctx, r, req.Op, d, out)
		}
		if err == nil && req.Op == RestoreReport {
			err = w.record(ctx)
		}
		return err
	})
	return out, err
}

// inRedemption refuses a domain that is not in its redemption period at
// now: not deleted, or deleted and past the period's end (even if the
// lifecycle worker has not yet moved it on).
func inRedemption(d *Domain, now time.Time) error {
	if !d.HasStatus(StatusRedemptionPeriod) {
		return Errorf(CodeStatusProhibits, "%s is not in its redemption period: it cannot be restored", d.Name)
	}
	if !d.RedemptionEnds.IsZero() && !now.Before(d.RedemptionEnds) {
		return Errorf(CodeStatusProhibits, "the redemption period of %s ended at %s: it cannot be restored, and is purged at %s",
			d.Name, d.RedemptionEnds.UTC().Format(time.RFC3339), d.PurgeAt.UTC().Format(time.RFC3339))
	}
	return nil
}
