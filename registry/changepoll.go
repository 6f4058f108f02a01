package registry

import (
	"context"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/idna"
)

// Hearing of changes (issue 38; RFC 8590, docs/epp.md "Change poll"):
// every change of a registrar's object that the registrar did not make
// itself (the operator's statuses, a registry lock, unlock and relock, the
// worker's auto-renewals, deletions at expiry, ends of redemption and
// purges, the server's approval of a transfer, a variant group's members
// moved by a transfer, exemptions by a re-audit) queues a poll message
// with a ChangeData, in the change's transaction. EPP renders it as
// <changePoll:changeData> with the object's info data.

// The changePoll operations (RFC 8590 §3.1 operationEnum).
const (
	ChangeCreate     = "create"
	ChangeDelete     = "delete"
	ChangeRenew      = "renew"
	ChangeTransfer   = "transfer"
	ChangeUpdate     = "update"
	ChangeRestore    = "restore"
	ChangeAutoRenew  = "autoRenew"
	ChangeAutoDelete = "autoDelete"
	ChangeAutoPurge  = "autoPurge"
	ChangeCustom     = "custom"
)

// PollChange is the kind of a poll message of a change (not a transfer's).
const PollChange = "change"

// ChangeData is what a change poll message says of a change (RFC 8590
// changePoll:changeData) and of the object (its info data in the state
// the message carries).
type ChangeData struct {
	Operation string    `json:"operation"`          // one of the Change* operations
	Op        string    `json:"op,omitempty"`       // the operation's own name (custom: required)
	State     string    `json:"state,omitempty"`    // "before" (the object as it was: a purge) or "" for after
	Date      time.Time `json:"date"`               // when
	SvTRID    string    `json:"sv_trid"`            // the server transaction of the change
	Who       string    `json:"who"`                // who made it: operator, lifecycle, registry, a registrar
	Reason    string    `json:"reason,omitempty"`   // why (at most 32 characters: eppcom:reasonType)
	Object    string    `json:"object"`             // "domain" or "host"
	ObjectID  int64     `json:"object_id"`          // the object's ID (its ROID)
	Statuses  []string  `json:"statuses,omitempty"` // the object's statuses in that state
	Sponsor   string    `json:"sponsor"`            // its sponsoring registrar in that state
	Created   time.Time `json:"created,omitzero"`   // the object's creation
	Expires   time.Time `json:"expires,omitzero"`   // a domain's expiry date in that state
}

// maxReason is eppcom:reasonType's length.
const maxReason = 32

// changeMessage is the change poll message of domain d (as it is after
// the change, or before for state "before") for its sponsor.
func changeMessage(ctx context.Context, d *Domain, at time.Time, operation, op, who, reason, text string) PollMessage {
	st := slices.Clone(d.Statuses)
	if len(st) == 0 {
		st = []string{StatusOK}
	}
	if len([]rune(reason)) > maxReason {
		reason = string([]rune(reason)[:maxReason])
	}
	return PollMessage{RegistrarID: d.RegistrarID, Queued: at, Kind: PollChange, Name: d.Name, ALabel: d.ALabel, Text: text,
		Change: &ChangeData{Operation: operation, Op: op, Date: at, SvTRID: svTRIDOf(ctx), Who: who, Reason: reason,
			Object: "domain", ObjectID: d.ID, Statuses: st, Sponsor: d.Registrar, Created: d.Created, Expires: d.Expires}}
}

// hostChangeMessage is the change poll message of a host for its sponsor.
func hostChangeMessage(ctx context.Context, h *Host, registrarID int64, at time.Time, operation, op, who, reason, text string) PollMessage {
	st := slices.Clone(h.Statuses)
	if len(st) == 0 {
		st = []string{StatusOK}
	}
	return PollMessage{RegistrarID: registrarID, Queued: at, Kind: PollChange, Name: h.Name, ALabel: h.Name, Text: text,
		Change: &ChangeData{Operation: operation, Op: op, Date: at, SvTRID: svTRIDOf(ctx), Who: who, Reason: reason,
			Object: "host", ObjectID: h.ID, Statuses: st, Sponsor: h.Registrar, Created: h.Created}}
}

// svTRIDOf is the server transaction id of the command ctx runs (the
// worker's and the CLI's have none: the message's own is made then).
func svTRIDOf(ctx context.Context) string {
	if id := ChannelOf(ctx).SvTRID; id != "" {
		return id
	}
	return "AK-" + ChannelOf(ctx).Name
}

// after is d as change ch leaves it.
func after(d *Domain, ch *Change) *Domain {
	a := *d
	a.Statuses, a.Expires, a.RedemptionEnds, a.PurgeAt = slices.Clone(ch.Statuses), ch.Expires, ch.RedemptionEnds, ch.PurgeAt
	return &a
}

// notifyOperator queues the change poll message of the operator's update
// of a domain (its server statuses), for its sponsor.
func notifyOperator(ctx context.Context, d *Domain, ch *Change, reason string) {
	if reason == "" {
		reason = "registry operator"
	}
	ch.Notices = append(ch.Notices, changeMessage(ctx, after(d, ch), ch.At, ChangeUpdate, "", "operator", reason,
		"The registry operator changed the statuses of "+d.Name+": "+ch.Result))
}

// workerChange is the ChangeData of a lifecycle worker's transition of
// domain before (notify): the domain after it, or before a purge.
func workerChange(ctx context.Context, before *Domain, ch *Change) *ChangeData {
	op, custom, state, reason := "", "", "", ""
	d := after(before, ch)
	switch ch.Action {
	case "autorenew":
		op, reason = ChangeAutoRenew, "expiry, auto-renew policy"
	case "expire":
		op, reason = ChangeAutoDelete, "expiry, no auto-renew"
	case "redemption-end":
		op, custom, reason = ChangeCustom, "redemptionEnd", "redemption period over"
	case "purge":
		op, state, reason, d = ChangeAutoPurge, "before", "pending delete over", before
	}
	m := changeMessage(ctx, d, ch.At, op, custom, "lifecycle", reason, "")
	m.Change.State = state
	return m.Change
}

// reauditNotices returns the hook that gives a re-audit's row the change
// poll message of its domain's new exemptions (those it was not exempted
// with before), for its sponsor.
func (s *Service) reauditNotices(ctx context.Context, a *zoneAudit) (func(*auditRec, []int, *ReauditRow), error) {
	regs, err := s.store.Registrars(ctx)
	if err != nil {
		return nil, err
	}
	ids := map[string]int64{}
	for _, r := range regs {
		ids[r.Name] = r.ID
	}
	now := s.clock.Now()
	return func(rec *auditRec, others []int, r *ReauditRow) {
		var with []string
		for _, o := range others {
			if !slices.Contains(rec.exempt, a.ownLabel(o)) {
				with = append(with, a.name(o))
			}
		}
		reg := a.str[rec.reg]
		if len(with) == 0 || ids[reg] == 0 {
			return
		}
		name := rec.label + "." + a.str[rec.zone]
		d := &Domain{ID: rec.id, Name: name, ALabel: name, Registrar: reg, RegistrarID: ids[reg]}
		if z := s.zones[a.str[rec.zone]]; z != nil {
			if al, err := toALabel(rec.label); err == nil {
				d.ALabel = al + "." + z.ALabel
			}
		}
		m := changeMessage(ctx, d, now, ChangeUpdate, "exempt", "re-audit", "exempted by a re-audit",
			"Exempted by a re-audit (kept with "+strings.Join(with, ", ")+", which its conflict set meets under the current policy data): "+name)
		m.Change.Statuses = nil // not read by the re-audit
		r.Notices = append(r.Notices, m)
	}, nil
}

// toALabel is a label's A-label.
func toALabel(label string) (string, error) { return idna.Punycode.ToASCII(label) }
