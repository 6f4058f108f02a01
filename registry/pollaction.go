package registry

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// The data of the lifecycle's poll messages (issue 34 item 12): beside
// the English text, what a registrar's software can act on.
//
//   - A purge completes a deletion: the registrar's <delete>, which EPP
//     answered 1001 (action pending, RFC 5731 §3.2.2), or the registry's
//     deletion at expiry. RFC 5731 §3.3 has the server tell the client
//     when a pending action completes, with <domain:panData>: the name,
//     paResult, the transaction identifiers of the command that asked for
//     the action (paTRID) and when it completed (paDate). Pending carries
//     them; the identifiers are read from the audit log, where the
//     deletion's record keeps them (Channel, WithChannel).
//   - A deletion at expiry says what the domain is now: its roid and
//     statuses (pendingDelete, redemptionPeriod), rendered by EPP as a
//     <domain:infData>.
//   - An auto-renewal carries the new expiry (ExDate, <domain:renData>),
//     and a transfer's messages the transfer (<domain:trnData>).

// PendingAction is a pending action that completed (RFC 5731 §3.3).
type PendingAction struct {
	// Action is the audit log's action that made it pending: delete (the
	// registrar's) or expire (the registry's, at expiry).
	Action string `json:"action"`
	// OK is paResult: the action completed (a purge is always true).
	OK bool `json:"ok"`
	// ClTRID and SvTRID are the command's transaction identifiers
	// (paTRID). A deletion without an EPP server transaction identifier
	// (made over the HTTP API, by the operator's CLI, or by the lifecycle
	// worker at expiry) has the audit record's: AuditSvTRID.
	ClTRID string `json:"cltrid,omitempty"`
	SvTRID string `json:"svtrid"`
	// Date is when the action completed (paDate): the purge.
	Date time.Time `json:"date"`
}

// AuditSvTRID is the server transaction identifier of an audit record
// made without one: AKSHARA-AUDIT-<id> (akshara audit-log shows the id).
func AuditSvTRID(id int64) string { return "AKSHARA-AUDIT-" + strconv.FormatInt(id, 10) }

// pendingDeletion finds, for a purge's message, the deletion it completes:
// the last successful delete or expire of the name recorded before the
// purge. nil if the audit log has none.
func (s *Service) pendingDeletion(ctx context.Context, m *PollMessage) (*PendingAction, error) {
	var last *AuditEntry
	for _, action := range []string{"delete", "expire"} {
		es, err := s.store.AuditQuery(ctx, AuditFilter{Name: m.Name, Action: action, Until: m.Queued})
		if err != nil {
			return nil, err
		}
		for i := range es {
			if e := &es[i]; strings.HasPrefix(e.Result, "ok") && (last == nil || e.ID > last.ID) {
				last = e
			}
		}
	}
	if last == nil {
		return nil, nil
	}
	p := &PendingAction{Action: last.Action, OK: true, ClTRID: last.ClTRID, SvTRID: last.SvTRID, Date: m.Queued}
	if p.SvTRID == "" {
		p.SvTRID = AuditSvTRID(last.ID)
	}
	return p, nil
}
