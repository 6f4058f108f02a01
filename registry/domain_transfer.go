package registry

import (
	"context"
	"time"
)

// The operations of a domain <transfer> (RFC 5731 §3.2.4, §3.1.3).
const (
	TransferRequestOp = "request"
	TransferApproveOp = "approve"
	TransferRejectOp  = "reject"
	TransferCancelOp  = "cancel"
	TransferQueryOp   = "query"
)

// DomainTransfer is a domain <transfer>: an op and its parts.
type DomainTransfer struct {
	// Name is label.zone, in U-labels or A-labels.
	Name string
	// Op is one of the Transfer*Op.
	Op string
	// AuthInfo is the domain's authInfo: required for a request, and for
	// a query by a registrar that is no party to the domain's transfers.
	AuthInfo string
	// Years is how many years a request adds (0: none; at most 10).
	Years int
}

// TransferDomain runs a transfer command (RFC 5731 §3.2.4) for r: a
// request asks for the domain, with its authInfo, and is pending until
// the sponsor approves or rejects it, r cancels it, or the zone's
// transfer period passes (the server approves it); an approval moves the
// domain, its whole conflict set with it, to the requester. Each op is
// one transaction with its poll messages and audit record; a query only
// reads. A pending transfer that is due is approved by the server first
// (a transaction of its own), so that every command sees what the worker
// would have done.
//
// Refusals: BAD_NAME, UNKNOWN_ZONE, NOT_FOUND, PERIOD_RANGE (years),
// TRANSFER_INELIGIBLE (r's own domain, or within the lock period after a
// create or a transfer), BAD_AUTH_INFO, PENDING_TRANSFER (one is pending
// already), STATUS_PROHIBITS (a status of the domain forbids it),
// NOT_PENDING_TRANSFER (nothing to approve, reject, cancel or query),
// FORBIDDEN (approve and reject are the sponsor's, cancel the
// requester's; a query without the authInfo by a stranger), BAD_STATUS
// (an unknown op), AUTH_INFO_LOCKED (r gave too many wrong authInfo: a
// request, or a stranger's query, is refused before its authInfo is
// looked at) and TRANSFER_LIMITED (r requested the domain too often);
// authguard.go.
func (s *Service) TransferDomain(ctx context.Context, r *Registrar, req DomainTransfer) (*Transfer, error) {
	t, err := s.transferDomain(ctx, r, req)
	if req.Op == TransferQueryOp {
		return t, err // a read: not recorded
	}
	return t, s.refuse(ctx, r.Name, "transfer-"+req.Op, req.Name, err)
}

func (s *Service) transferDomain(ctx context.Context, r *Registrar, req DomainTransfer) (*Transfer, error) {
	ts, err := s.transferStore()
	if err != nil {
		return nil, err
	}
	status := ""
	switch req.Op {
	case TransferRequestOp:
		if err := CheckPeriod(req.Years); err != nil {
			return nil, err
		}
	case TransferQueryOp:
		return s.queryTransfer(ctx, r, req)
	case TransferApproveOp:
		status = TransferClientApproved
	case TransferRejectOp:
		status = TransferClientRejected
	case TransferCancelOp:
		status = TransferClientCancelled
	default:
		return nil, Errorf(CodeBadStatus, "a transfer's op is request, approve, reject, cancel or query, not %q", req.Op)
	}
	z, label, err := s.locate(req.Name)
	if err != nil {
		return nil, err
	}
	if _, err := s.settled(ctx, req.Name); err != nil { // a due transfer approved by the server first
		return nil, err
	}
	if status == "" { // a request: r's attempts on the domain one at a time (authguard.go)
		defer guessLock(r, AuthObjectDomain, z.Name+"\x00"+label)()
	}
	var out *Transfer
	var guessed *Domain // a wrong authInfo was given for it: recorded after the rollback
	err = s.transact(ctx, func(ctx context.Context) error {
		guessed = nil
		d, err := s.domainIn(ctx, z, label)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		if status != "" {
			// the store checks who may act (approve and reject the
			// sponsor, cancel the requester) and that one is pending
			out, err = ts.ActOnTransfer(ctx, d.ID, r.ID, status, now, s.auditEntry(ctx, r.Name, "transfer-"+req.Op, d.Name))
			if err == nil { // the gaining registrar pays an approval (billing.go)
				err = s.chargeTransfer(ctx, r.Name, d, out)
			}
			return err
		}
		if d.Registrar == r.Name {
			return Errorf(CodeNotEligible, "%s is already yours", d.Name)
		}
		// a registrar backing off is refused before its authInfo is looked at
		if err := s.authLocked(ctx, r, AuthObjectDomain, d.ID, d.Name); err != nil {
			return err
		}
		st, hash, err := ts.TransferState(ctx, d.ID)
		if err != nil {
			return err
		}
		// the authInfo first: whoever lacks it learns nothing of the domain's state
		if hash == "" || req.AuthInfo == "" || len(req.AuthInfo) > maxAuthInfo || !VerifyEPPPassword(hash, req.AuthInfo) {
			if req.AuthInfo != "" {
				guessed = d
			}
			return Errorf(CodeBadAuthInfo, "the authInfo given for %s is not the domain's", d.Name)
		}
		if st.Pending != nil {
			return Errorf(CodePendingTransfer, "a transfer of %s is pending already (requested %s by %s)", d.Name, st.Pending.Requested.Format(time.RFC3339), st.Pending.Gaining)
		}
		if p := TransferProhibitedBy(d.Statuses); p != "" {
			return Errorf(CodeStatusProhibits, "%s has status %s, which prohibits a transfer", d.Name, p)
		}
		if err := s.groupTransferable(ctx, d); err != nil { // sameentity.go
			return err
		}
		period, lock, err := ts.TransferPolicy(ctx, d.Zone)
		if err != nil {
			return err
		}
		since := d.Created
		if st.Transferred.After(since) {
			since = st.Transferred
		}
		if now.Before(since.Add(lock)) {
			return Errorf(CodeNotEligible, "%s cannot be transferred until %s (%d days after its creation or last transfer)", d.Name, since.Add(lock).UTC().Format(time.RFC3339), int(lock/(24*time.Hour)))
		}
		if err := s.transferLimited(ctx, r, d); err != nil {
			return err
		}
		years, err := s.transferYears(ctx, r, d, req.Years) // a priced transfer adds a year at least (billing.go)
		if err != nil {
			return err
		}
		out, err = ts.RequestTransfer(ctx, &TransferRequest{
			DomainID: d.ID, Name: d.Name, ALabel: d.ALabel,
			GainingID: r.ID, Gaining: r.Name, Losing: d.Registrar,
			AuthHash: hash, Requested: now, Due: now.Add(period), Period: years,
			Audit: s.auditEntry(ctx, r.Name, "transfer-request", d.Name),
		})
		return err
	})
	if guessed != nil && CodeOf(err) == CodeBadAuthInfo {
		// the transaction rolled back: the failure is written in one of its own
		s.authGuessed(ctx, r, AuthObjectDomain, guessed.ID, guessed.Name, guessed.ALabel)
	}
	return out, err
}

// queryTransfer returns the latest transfer of a domain, to either party
// of it or to whoever has the domain's authInfo: NOT_PENDING_TRANSFER if
// it was never transferred.
func (s *Service) queryTransfer(ctx context.Context, r *Registrar, req DomainTransfer) (*Transfer, error) {
	d, st, hash, err := s.settledState(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	party := st.Last != nil && (st.Last.Gaining == r.Name || st.Last.Losing == r.Name) || d.Registrar == r.Name
	if !party {
		if req.AuthInfo == "" {
			return nil, Errorf(CodeForbidden, "%s is not yours and no transfer of it is yours", d.Name)
		}
		// a stranger's authInfo is a guess like a request's (authguard.go)
		defer guessLock(r, AuthObjectDomain, d.Zone+"\x00"+d.Label)()
		if err := s.authLocked(ctx, r, AuthObjectDomain, d.ID, d.Name); err != nil {
			return nil, err
		}
		if hash == "" || len(req.AuthInfo) > maxAuthInfo || !VerifyEPPPassword(hash, req.AuthInfo) {
			s.authGuessed(ctx, r, AuthObjectDomain, d.ID, d.Name, d.ALabel)
			return nil, Errorf(CodeBadAuthInfo, "the authInfo given for %s is not the domain's", d.Name)
		}
	}
	if st.Last == nil {
		return nil, Errorf(CodeNotPendingTransfer, "%s has never been transferred", d.Name)
	}
	return st.Last, nil
}
