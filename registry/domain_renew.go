package registry

import (
	"context"
	"time"
)

// DomainRenew is a domain <renew> (RFC 5731 §3.2.3).
type DomainRenew struct {
	// Name is label.zone, in U-labels or A-labels.
	Name string
	// CurExpiry is the domain's current expiry date as the registrar
	// knows it (compared as a date).
	CurExpiry time.Time
	// Period is how much longer; the zero Period is the zone's default.
	Period Period
}

// RenewDomain extends the registration of a domain the registrar
// sponsors by the period, from its current expiry date, in one
// transaction with its audit record.
//
// The domain returned is its row after the command (Info reads its
// conflict set, delegation and contacts too).
//
// Refusals: BAD_NAME, UNKNOWN_ZONE, NOT_FOUND, FORBIDDEN (another
// registrar's), PERIOD_RANGE, STATUS_PROHIBITS (deleted, or on renew
// prohibition), WRONG_EXPIRY (CurExpiry is not the domain's expiry date),
// NOT_RENEWABLE (no expiry date, or past the 10-year horizon).
func (s *Service) RenewDomain(ctx context.Context, r *Registrar, req DomainRenew) (*Domain, error) {
	d, err := s.renewDomain(ctx, r, req)
	return d, s.refuse(ctx, r.Name, "renew", req.Name, err)
}

func (s *Service) renewDomain(ctx context.Context, r *Registrar, req DomainRenew) (*Domain, error) {
	z, label, err := s.locate(req.Name)
	if err != nil {
		return nil, err
	}
	months, err := z.period(req.Period)
	if err != nil {
		return nil, err
	}
	var out *Domain
	err = s.transact(ctx, func(ctx context.Context) error {
		d, err := s.sponsoredDomain(ctx, z, label, r)
		if err != nil {
			return err
		}
		if err := prohibits(d, "renewal", StatusPendingDelete, StatusClientRenewProhibited, StatusServerRenewProhibited); err != nil {
			return err
		}
		if d.Expires.IsZero() {
			return Errorf(CodeNotRenewable, "%s has no expiry date to renew from", d.Name)
		}
		if !sameDate(d.Expires, req.CurExpiry) {
			return Errorf(CodeWrongExpiry, "the current expiry date of %s is %s, not %s", d.Name, d.Expires.Format(time.DateOnly), req.CurExpiry.UTC().Format(time.DateOnly))
		}
		now := s.clock.Now()
		next := addMonths(d.Expires, months)
		if next.After(addMonths(now, 12*MaxHorizon)) {
			return Errorf(CodeNotRenewable, "renewing %s by %s would take it to %s, beyond %d years from now", d.Name, req.Period, next.Format(time.DateOnly), MaxHorizon)
		}
		ch := change(ctx, d, "renew", r.Name, now)
		ch.Expires, ch.Renewed = next, now
		ch.Result = "ok until " + next.Format(time.RFC3339)
		out, err = s.store.ApplyChange(ctx, d, ch)
		if err == nil { // the price of the renewal (billing.go)
			err = s.charge(ctx, r.ID, r.Name, BillRenew, out, months)
		}
		return err
	})
	return out, err
}

// sameDate reports whether a and b are the same date (UTC).
func sameDate(a, b time.Time) bool {
	a, b = a.UTC(), b.UTC()
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}
