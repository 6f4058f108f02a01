package registry

import (
	"context"
	"strconv"
	"time"
)

// The poll queue (RFC 5730 §2.9.2.3): each registrar has an outbox of
// service messages, in the order their transactions committed. Transfers
// queue theirs (requested, approved, rejected, cancelled); the lifecycle
// queues auto-renewal, deletion and purge messages with Enqueue, or, in
// its own store transaction, with the store's enqueue (sqlstore
// EnqueuePoll). A registrar reads the oldest with PollRequest and removes
// it with PollAck.

// The kinds of poll messages.
const (
	PollTransferRequested = "transfer-requested"
	PollTransferApproved  = "transfer-approved" // by the losing registrar
	PollTransferRejected  = "transfer-rejected"
	PollTransferCancelled = "transfer-cancelled"
	PollTransferAuto      = "transfer-auto-approved" // by the server, at the end of the transfer period
	PollAutoRenew         = "auto-renew"
	PollDeletion          = "deletion"
	PollPurge             = "purge"
	// PollAuthFailures tells a sponsor that wrong authInfo was given for
	// its domain or contact AuthAlertFailures times in the window
	// (authguard.go): once per window, not once per failure.
	PollAuthFailures = "authinfo-failures"
)

// PollMessage is one message of a registrar's queue.
type PollMessage struct {
	ID          int64     `json:"id"`
	RegistrarID int64     `json:"-"`
	Queued      time.Time `json:"queued"` // qDate
	Kind        string    `json:"kind"`   // PollTransferRequested, …
	Name        string    `json:"name"`   // the domain (label.zone, U-labels)
	ALabel      string    `json:"alabel"` // and its A-label form
	Text        string    `json:"text"`   // a human-readable message (msg)
	// Transfer is the transfer as it was when the message was queued (for
	// the transfer kinds).
	Transfer *Transfer `json:"transfer,omitempty"`
	// ExDate is the domain's new expiry (auto-renew); zero: none.
	ExDate time.Time `json:"ex_date,omitzero"`
	// DomainID and Statuses are, for the registry's deletion at expiry
	// (PollDeletion), the domain's ID (its EPP roid) and its statuses after
	// the deletion (pollaction.go).
	DomainID int64    `json:"domain_id,omitempty"`
	Statuses []string `json:"statuses,omitempty"`
	// Pending is, for a purge (PollPurge), the deletion the purge
	// completes, read from the audit log when the message is read
	// (pollaction.go); nil if the log has no record of it.
	Pending *PendingAction `json:"pending,omitempty"`
	// AuthFailures is, for PollAuthFailures, the object (Name is the
	// domain or the contact's id) and how many failures.
	AuthFailures *AuthFailureNotice `json:"auth_failures,omitempty"`
	// Change says what changed, who changed it, when and why, for a
	// change the registrar did not make itself (RFC 8590; changepoll.go).
	Change *ChangeData `json:"change,omitempty"`
	// Maint is the maintenance window a maintenance message is of, with
	// its poll type (RFC 9167; maintenance.go).
	Maint *MaintNote `json:"maint,omitempty"`
}

// PollStore keeps the poll queues.
type PollStore interface {
	// Enqueue appends messages to their registrars' queues, in one
	// transaction.
	Enqueue(ctx context.Context, msgs []PollMessage) error
	// PollHead returns the oldest message of a registrar's queue and how
	// many are queued (nil, 0 if none), read at once.
	PollHead(ctx context.Context, registrarID int64) (*PollMessage, int, error)
	// PollAck removes a message from a registrar's queue and returns how
	// many are left; ErrNotFound if the queue has no such message.
	PollAck(ctx context.Context, registrarID, id int64) (int, error)
}

// Enqueue queues messages (Queued is set to the clock's time where zero).
// It is for messages not written with a transition of the store; a
// transition queues its messages in its own transaction.
func (s *Service) Enqueue(ctx context.Context, msgs ...PollMessage) error {
	ts, err := s.transferStore()
	if err != nil {
		return err
	}
	now := s.clock.Now()
	for i := range msgs {
		if msgs[i].Queued.IsZero() {
			msgs[i].Queued = now
		}
	}
	return ts.Enqueue(ctx, msgs)
}

// PollRequest returns the oldest message of r's queue and how many are
// queued (nil, 0 when the queue is empty). It does not remove it.
func (s *Service) PollRequest(ctx context.Context, r *Registrar) (*PollMessage, int, error) {
	ts, err := s.transferStore()
	if err != nil {
		return nil, 0, err
	}
	// the queue has the messages of the transfers due by now
	if err := s.settleDue(ctx); err != nil {
		return nil, 0, err
	}
	m, n, err := ts.PollHead(ctx, r.ID)
	if err == nil && m != nil && m.Kind == PollPurge {
		m.Pending, err = s.pendingDeletion(ctx, m) // pollaction.go
	}
	return m, n, err
}

// PollAck removes message id from r's queue and returns how many are
// left: ErrNotFound if r's queue has no such message.
func (s *Service) PollAck(ctx context.Context, r *Registrar, id int64) (int, error) {
	ts, err := s.transferStore()
	if err != nil {
		return 0, err
	}
	return ts.PollAck(ctx, r.ID, id)
}

// transferText is the text of a transfer's poll message.
func transferText(kind, name string) string {
	switch kind {
	case PollTransferRequested:
		return "Transfer requested: " + name
	case PollTransferApproved:
		return "Transfer approved by the sponsoring registrar: " + name
	case PollTransferRejected:
		return "Transfer rejected by the sponsoring registrar: " + name
	case PollTransferCancelled:
		return "Transfer cancelled by the requesting registrar: " + name
	case PollTransferAuto:
		return "Transfer approved by the registry at the end of the transfer period: " + name
	}
	return kind + ": " + name
}

// TransferMessage is the poll message of a transfer for a registrar.
func TransferMessage(kind string, registrarID int64, t *Transfer, at time.Time) PollMessage {
	c := *t
	m := PollMessage{RegistrarID: registrarID, Queued: at, Kind: kind, Name: t.Name, ALabel: t.ALabel, Text: transferText(kind, t.Name), Transfer: &c}
	if kind == PollTransferAuto { // the registry's own act: a change poll message (changepoll.go)
		m.Change = &ChangeData{Operation: ChangeTransfer, Date: at, SvTRID: "AK-transfer-" + strconv.FormatInt(t.ID, 10), Who: "registry",
			Reason: "transfer period over", Object: "domain", Sponsor: t.Gaining}
	}
	return m
}
