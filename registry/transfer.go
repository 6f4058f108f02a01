package registry

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Transfers (RFC 5731 §3.2.4) and the authInfo that authorizes them
// (RFC 5731 §2.6, RFC 9154): the sponsor sets a domain's authInfo, which
// is kept only as an argon2id hash and never shown; another registrar that
// has it requests a transfer (pending), which the sponsor approves or
// rejects, the requester cancels, or the server approves by itself when
// the zone's transfer period has passed (ApproveDueTransfers, and on every
// read of the domain). The conflict set is held by the domain, so it moves
// with the name when the transfer is approved. docs/registry.md.

// The statuses of a transfer (eppcom:trStatusType).
const (
	TransferPending         = "pending"
	TransferClientApproved  = "clientApproved"
	TransferClientRejected  = "clientRejected"
	TransferClientCancelled = "clientCancelled"
	TransferServerApproved  = "serverApproved"
	TransferServerCancelled = "serverCancelled"
)

// Error codes of transfers (the code table maps them to EPP and HTTP).
const (
	CodeBadAuthInfo        = "BAD_AUTH_INFO"        // wrong or no authInfo (EPP 2202)
	CodePendingTransfer    = "PENDING_TRANSFER"     // a transfer is pending already (2300)
	CodeNotPendingTransfer = "NOT_PENDING_TRANSFER" // no transfer is pending (2301)
	CodeStatusProhibits    = "STATUS_PROHIBITS"     // a status of the domain forbids it (2304)
	CodeNotEligible        = "TRANSFER_INELIGIBLE"  // own domain, or within the lock period (2106)
	CodePeriodRange        = "PERIOD_RANGE"         // a period out of range (2004)
)

func init() {
	DefineCode(CodeBadAuthInfo, CodeInfo{HTTP: 403, EPP: 2202, Reason: "invalid authorization info"})
	DefineCode(CodePendingTransfer, CodeInfo{HTTP: 409, EPP: 2300, Reason: "pending transfer"})
	DefineCode(CodeNotPendingTransfer, CodeInfo{HTTP: 409, EPP: 2301, Reason: "not pending transfer"})
	DefineCode(CodeStatusProhibits, CodeInfo{HTTP: 409, EPP: 2304, Reason: "status prohibits operation"})
	DefineCode(CodeNotEligible, CodeInfo{HTTP: 409, EPP: 2106, Reason: "not eligible for transfer"})
	DefineCode(CodePeriodRange, CodeInfo{HTTP: 400, EPP: 2004, Reason: "period out of range"})
}

// The defaults of a zone's transfer policy: a pending transfer is approved
// by the server after 5 days; a domain cannot be transferred within 60
// days of its creation or its last transfer (ICANN's and .IN's practice).
const (
	DefaultTransferPeriod = 5 * 24 * time.Hour
	DefaultTransferLock   = 60 * 24 * time.Hour
)

// Transfer is a transfer request and its outcome (RFC 5731 trnData).
type Transfer struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`      // label.zone, U-labels
	ALabel    string    `json:"alabel"`    // label.zone, A-labels
	Status    string    `json:"status"`    // TransferPending, …
	Gaining   string    `json:"gaining"`   // the requesting registrar (reID)
	Losing    string    `json:"losing"`    // the sponsor when requested (acID)
	Requested time.Time `json:"requested"` // reDate
	// ActDate is, while pending, when the server approves it by itself;
	// after, when it was approved, rejected or cancelled (acDate).
	ActDate time.Time `json:"act_date"`
	Period  int       `json:"period_years,omitempty"` // years the transfer adds (0: none)
}

// TransferState is what a domain's record says of transfers.
type TransferState struct {
	Pending *Transfer // the transfer pending, if any (status pendingTransfer)
	Last    *Transfer // the latest transfer, pending or not; nil: never
	// Transferred is when the domain last changed sponsor by a transfer
	// (trDate); zero if never.
	Transferred time.Time
	// AuthInfoSet reports whether the domain has an authInfo.
	AuthInfoSet bool
}

// TransferRequest is a request as the store records it.
type TransferRequest struct {
	DomainID  int64
	Name      string // label.zone, U-labels, for the audit log and the poll messages
	ALabel    string
	GainingID int64
	Gaining   string
	LosingID  int64  // filled in by the store, from the domain's row
	Losing    string // the sponsor the request was checked against
	AuthHash  string // the authInfo hash that was verified: it must be unchanged
	Requested time.Time
	Due       time.Time
	Period    int
	Audit     AuditEntry
}

// TransferStore is implemented by stores that keep authInfo, transfers
// and poll queues (the SQL stores do).
type TransferStore interface {
	// SetAuthInfo stores the hash of a domain's authInfo ("" removes it)
	// if registrarID sponsors it (ErrForbidden if not, ErrNotFound if the
	// domain is gone), with an audit record, atomically.
	SetAuthInfo(ctx context.Context, domainID, registrarID int64, hash string, e AuditEntry) error
	// TransferState reads a domain's transfer state and its authInfo hash.
	TransferState(ctx context.Context, domainID int64) (*TransferState, string, error)
	// RequestTransfer records a pending transfer, a poll message to the
	// losing registrar and an audit record, atomically, if the domain is
	// still sponsored by the registrar named r.Losing, with the authInfo hash r.AuthHash
	// (CodeBadAuthInfo if not) and no transfer is pending
	// (CodePendingTransfer).
	RequestTransfer(ctx context.Context, r *TransferRequest) (*Transfer, error)
	// ActOnTransfer moves the domain's pending transfer to status at
	// instant at, for registrarID (0: the server, which approves only a
	// transfer due by at): approving moves the domain (and with it its
	// conflict set) to the gaining registrar and removes its authInfo;
	// the other party is told by a poll message (both, for the server's
	// approval), except that a cancel whose request's message is still in
	// the sponsor's queue removes that message instead (a request/cancel
	// storm cannot fill the queue); an audit record is written. All atomically, once:
	// CodeNotPendingTransfer if nothing is pending (or, for the server,
	// due), ErrForbidden if registrarID may not.
	ActOnTransfer(ctx context.Context, domainID, registrarID int64, status string, at time.Time, e AuditEntry) (*Transfer, error)
	// DueTransfers lists the domains with a pending transfer due at or
	// before now, at most limit.
	DueTransfers(ctx context.Context, now time.Time, limit int) ([]int64, error)
	// TransferPolicy returns a zone's transfer period and lock period
	// (the defaults if none was set); SetTransferPolicy sets them.
	TransferPolicy(ctx context.Context, zone string) (period, lock time.Duration, err error)
	SetTransferPolicy(ctx context.Context, zone string, period, lock time.Duration) error

	PollStore
}

func (s *Service) transferStore() (TransferStore, error) {
	ts, ok := s.store.(TransferStore)
	if !ok {
		return nil, Errorf(CodeInternal, "the store keeps no transfers")
	}
	return ts, nil
}

// maxAuthInfo bounds an authInfo (RFC 9154 asks for at least 128 bits of
// entropy; nothing needs more than a few hundred characters).
const maxAuthInfo = 256

// CheckAuthInfo applies the limits of an authInfo a registrar sets (of a
// domain or a contact): at most 256 characters of a normalized string (no
// tabs or line breaks: BAD_NAME), and strong (authInfoStrength: at least
// 16 characters of three kinds, or as strong as 128 random bits;
// WEAK_AUTH_INFO). An authInfo set before the rule stays until changed.
func CheckAuthInfo(pw string) error {
	n := len([]rune(pw))
	if n > maxAuthInfo {
		return Errorf(CodeBadName, "an authInfo password has at most %d characters (this one has %d)", maxAuthInfo, n)
	}
	if strings.ContainsAny(pw, "\t\r\n") {
		return Errorf(CodeBadName, "an authInfo password has no tabs or line breaks")
	}
	return authInfoStrength(pw)
}

// The argon2id parameters of authInfo hashes: one pass over 256 KiB
// (about 0.4 ms), not the EPP password's 19 MiB and two passes (about 50
// ms): every EPP create carries an authInfo (the schema requires one) and
// hashes it, and RFC 9154 §4.1 asks for no more than a salted SHA-256 of
// a random authInfo of 128 bits or more. A weak registrar-chosen one
// still costs an attacker with the database a memory-hard hash per guess.
// (BenchmarkFrontEnds, SQLite: with 1 MiB, EPP creates ran at 470/s with
// one session and 614/s with 16, against 1236 and 3849 for the HTTP API's
// creates without an authInfo; with 256 KiB, 768 and 1748 against 1380
// and 4916.) VerifyEPPPassword reads the parameters from
// the hash, so they may be raised later without a migration.
const (
	authTime   = 1
	authMemory = 256
)

// HashAuthInfo hashes an authInfo with argon2id and a random salt, in the
// PHC string form of HashEPPPassword.
func HashAuthInfo(pw string) (string, error) { return hashArgon2(pw, authTime, authMemory) }

// domainOf locates a registered domain for a transfer command.
func (s *Service) domainOf(ctx context.Context, input string) (*Domain, error) {
	z, label, err := s.locate(input)
	if err != nil {
		return nil, err
	}
	return s.store.Domain(ctx, z.Name, label)
}

// auditEntry is an audit record of a transition at the clock's time, with
// the channel of ctx.
func (s *Service) auditEntry(ctx context.Context, registrar, action, name string) AuditEntry {
	e := AuditEntry{At: s.clock.Now(), Registrar: registrar, Action: action, Name: name, Result: "ok"}
	e.withChannel(ctx)
	return e
}

// TransferPolicy returns a zone's transfer period (after which the server
// approves a pending transfer) and lock period (after a create or a
// transfer, during which the domain cannot be transferred).
func (s *Service) TransferPolicy(ctx context.Context, zone string) (period, lock time.Duration, err error) {
	ts, err := s.transferStore()
	if err != nil {
		return 0, 0, err
	}
	z := s.zones[zoneKey(zone)]
	if z == nil {
		return 0, 0, Errorf(CodeUnknownZone, "there is no zone %q", zone)
	}
	return ts.TransferPolicy(ctx, z.Name)
}

// SetTransferPolicy sets a zone's transfer and lock periods (an operator's
// command).
func (s *Service) SetTransferPolicy(ctx context.Context, zone string, period, lock time.Duration) error {
	ts, err := s.transferStore()
	if err != nil {
		return err
	}
	z := s.zones[zoneKey(zone)]
	if z == nil {
		return Errorf(CodeUnknownZone, "there is no zone %q", zone)
	}
	if period < 0 || lock < 0 || period > 60*24*time.Hour || lock > 366*24*time.Hour {
		return Errorf(CodePeriodRange, "a transfer period is 0 to 60 days, a lock period 0 to 366 days")
	}
	err = ts.SetTransferPolicy(ctx, z.Name, period, lock)
	s.audit(ctx, AuditEntry{Registrar: "operator", Action: "transfer-policy", Name: z.Name, Result: resultOf(err)})
	return err
}

// TransferProhibitedBy returns the status among statuses that forbids a
// transfer (RFC 5731 §2.3: client/serverTransferProhibited, and the
// pending and redemption states of RFC 3915), or "".
func TransferProhibitedBy(statuses []string) string {
	for _, st := range statuses {
		switch st {
		case "clientTransferProhibited", "serverTransferProhibited", "pendingDelete", "pendingRestore",
			"redemptionPeriod", "pendingTransfer":
			return st
		}
	}
	return ""
}

// CheckPeriod checks a transfer's period in years: 0 (none) or 1 to 10.
func CheckPeriod(years int) error {
	if years < 0 || years > 10 {
		return Errorf(CodePeriodRange, "a period is 1 to 10 years (this one is %d)", years)
	}
	return nil
}

// DomainTransferState returns the transfer state of a domain as r may see
// it: AuthInfoSet only for its sponsor.
func (s *Service) DomainTransferState(ctx context.Context, r *Registrar, d *Domain) (*TransferState, error) {
	ts, err := s.transferStore()
	if err != nil {
		return nil, err
	}
	st, _, err := ts.TransferState(ctx, d.ID)
	if err != nil {
		return nil, err
	}
	if r == nil || d.Registrar != r.Name {
		st.AuthInfoSet = false
	}
	return st, nil
}

// settled locates a domain after approving its transfer if it is due, so
// that every read agrees with what the worker will do.
func (s *Service) settled(ctx context.Context, input string) (*Domain, error) {
	d, _, _, err := s.settledState(ctx, input)
	return d, err
}

// settledState is settled with the domain's transfer state and authInfo
// hash as they are after it (nil, "" for a store without transfers).
func (s *Service) settledState(ctx context.Context, input string) (*Domain, *TransferState, string, error) {
	d, err := s.domainOf(ctx, input)
	if err != nil {
		return nil, nil, "", err
	}
	ts, ok := s.store.(TransferStore)
	if !ok {
		return d, nil, "", nil
	}
	moved, st, hash, err := s.settle(ctx, ts, d.ID)
	if err != nil || !moved {
		return d, st, hash, err
	}
	if d, err = s.store.Domain(ctx, d.Zone, d.Label); err != nil {
		return nil, nil, "", err
	}
	st, hash, err = ts.TransferState(ctx, d.ID)
	return d, st, hash, err
}

// settle approves the transfer of a domain if it is due; it reports
// whether it did, and the state it read before.
func (s *Service) settle(ctx context.Context, ts TransferStore, domainID int64) (bool, *TransferState, string, error) {
	st, hash, err := ts.TransferState(ctx, domainID)
	if err != nil || st.Pending == nil {
		return false, st, hash, err
	}
	now := s.clock.Now()
	if now.Before(st.Pending.ActDate) {
		return false, st, hash, nil
	}
	e := AuditEntry{At: now, Registrar: "server", Action: "transfer-auto-approve", Name: st.Pending.Name, Result: "ok"}
	e.withChannel(ctx)
	err = s.transact(ctx, func(ctx context.Context) error { // the approval and its charge (billing.go), one transaction
		out, err := ts.ActOnTransfer(ctx, domainID, 0, TransferServerApproved, now, e)
		if err == nil {
			err = s.chargeTransfer(ctx, "server", s.pendingDomain(st.Pending, domainID), out)
		}
		return err
	})
	if CodeOf(err) == CodeBillingFailure { // the gaining registrar cannot pay: the server cancels it (billing.go)
		err = s.cancelUnpaid(ctx, ts, domainID, st.Pending, now)
		return false, st, hash, err
	}
	if CodeOf(err) == CodeNotPendingTransfer {
		// another server (or reader) approved it: read what it did
		st, hash, err = ts.TransferState(ctx, domainID)
		return false, st, hash, err
	}
	return err == nil, st, hash, err
}

// ApproveDueTransfers approves the pending transfers whose transfer
// period has passed, each in a transaction of its own, at most limit (0:
// 1000); it returns how many it approved. The background worker calls it;
// several servers may at once (each transfer is approved once), and a
// crash between two leaves the rest for the next call.
func (s *Service) ApproveDueTransfers(ctx context.Context, limit int) (int, error) {
	ts, err := s.transferStore()
	if err != nil {
		return 0, err
	}
	if limit <= 0 {
		limit = 1000
	}
	ids, err := ts.DueTransfers(ctx, s.clock.Now(), limit)
	if err != nil {
		return 0, err
	}
	if ChannelOf(ctx).Name == "" {
		ctx = WithChannel(ctx, Channel{Name: "worker"})
	}
	n := 0
	for _, id := range ids {
		moved, _, _, err := s.settle(ctx, ts, id)
		if err != nil {
			return n, fmt.Errorf("approving the transfer of domain %d: %w", id, err)
		}
		if moved {
			n++
		}
	}
	return n, nil
}

// settleDue approves the transfers due by now before a read that spans
// domains (a registrar's list, its poll queue), so that it agrees with
// what the worker does; with none due it is one indexed query.
func (s *Service) settleDue(ctx context.Context) error {
	if _, ok := s.store.(TransferStore); !ok {
		return nil
	}
	_, err := s.ApproveDueTransfers(ctx, 0)
	return err
}

// Channel says through which front end a command came: its name (epp,
// http, cli, worker) and, over EPP, the transaction identifiers. The
// audit log records it with every transition (WithChannel).
type Channel struct {
	Name   string
	ClTRID string
	SvTRID string
}

type channelKey struct{}

// WithChannel returns a context that carries c to the service's audit
// records.
func WithChannel(ctx context.Context, c Channel) context.Context {
	return context.WithValue(ctx, channelKey{}, c)
}

// ChannelOf returns the channel ctx carries (zero if none).
func ChannelOf(ctx context.Context) Channel {
	c, _ := ctx.Value(channelKey{}).(Channel)
	return c
}

// withChannel fills the channel fields of e from ctx, where empty.
func (e *AuditEntry) withChannel(ctx context.Context) {
	c := ChannelOf(ctx)
	if e.Channel == "" {
		e.Channel = c.Name
	}
	if e.ClTRID == "" {
		e.ClTRID = c.ClTRID
	}
	if e.SvTRID == "" {
		e.SvTRID = c.SvTRID
	}
}

// RunTransferWorker approves due transfers (ApproveDueTransfers) every
// interval until ctx ends: the background half of the automatic approval
// (reads approve a due transfer themselves). Several servers may run it
// on one database. MERGE (issue 23): the lifecycle's worker may call
// ApproveDueTransfers in its own loop instead.
func (s *Service) RunTransferWorker(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, err := s.ApproveDueTransfers(ctx, 0); err != nil && ctx.Err() == nil {
			s.logger().Error("approving due transfers", "error", err)
		} else if n > 0 {
			s.logger().Info("transfers approved at the end of their transfer period", "count", n)
		}
	}
}
