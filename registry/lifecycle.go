package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/idna"
)

// The domain lifecycle (issue 23; docs/lifecycle.md): periods and expiry
// (RFC 5731 §3.2.1, §3.2.3), the grace and deletion periods of RFC 3915,
// restore, and the statuses a registrar (client*) or the operator
// (server*) sets. Every change of a domain's lifecycle goes through one
// place, Service.transition: it reads the domain, decides the change with
// the service's clock, calls notify (the poll messages the change queues,
// written in its transaction) and has the store apply it to the revision
// it was decided on. The worker's purges are decided and notified the same
// way and applied in batches (purgeBatches).
//
// A deleted domain keeps its whole conflict set until it is purged: the
// security of the variant policy is that nobody may register a variant of
// a name its owner can still restore.

// The EPP statuses (RFC 5731 §2.3, RFC 3915 §3).
const (
	StatusOK                       = "ok"
	StatusClientHold               = "clientHold"
	StatusClientUpdateProhibited   = "clientUpdateProhibited"
	StatusClientDeleteProhibited   = "clientDeleteProhibited"
	StatusClientRenewProhibited    = "clientRenewProhibited"
	StatusClientTransferProhibited = "clientTransferProhibited"
	StatusServerHold               = "serverHold"
	StatusServerUpdateProhibited   = "serverUpdateProhibited"
	StatusServerDeleteProhibited   = "serverDeleteProhibited"
	StatusServerRenewProhibited    = "serverRenewProhibited"
	StatusServerTransferProhibited = "serverTransferProhibited"
	StatusPendingDelete            = "pendingDelete"
	StatusPendingRestore           = "pendingRestore"
	StatusPendingTransfer          = "pendingTransfer"
	StatusRedemptionPeriod         = "redemptionPeriod"
	StatusAddPeriod                = "addPeriod"
	StatusRenewPeriod              = "renewPeriod"
	StatusAutoRenewPeriod          = "autoRenewPeriod"
)

// ClientStatuses are the statuses a registrar sets and removes on its
// domains (EPP <update>); ServerStatuses the operator's (akshara status).
var (
	ClientStatuses = []string{StatusClientHold, StatusClientUpdateProhibited, StatusClientDeleteProhibited, StatusClientRenewProhibited, StatusClientTransferProhibited}
	ServerStatuses = []string{StatusServerHold, StatusServerUpdateProhibited, StatusServerDeleteProhibited, StatusServerRenewProhibited, StatusServerTransferProhibited}
)

// MaxHorizon is how far ahead an expiry date may be (RFC 5731 §3.2.3: a
// renewal may not take the registration beyond 10 years from now).
const MaxHorizon = 10

// HasStatus reports whether the domain's stored statuses include st.
func (d *Domain) HasStatus(st string) bool { return slices.Contains(d.Statuses, st) }

// Deleted reports whether the domain is deleted and waiting for its purge
// (it still holds its conflict set).
func (d *Domain) Deleted() bool { return d.HasStatus(StatusPendingDelete) }

// OnHold reports whether the domain is kept out of the published zone:
// deleted, or on client or server hold.
func (d *Domain) OnHold() bool {
	return d.Deleted() || d.HasStatus(StatusClientHold) || d.HasStatus(StatusServerHold)
}

// StatusesNow is Statuses with pendingTransfer (in place of ok) while a
// transfer of d is pending: one read of its transfer state. HTTP, RDAP and
// WHOIS report a domain's statuses with it, as EPP info does.
func (s *Service) StatusesNow(ctx context.Context, d *Domain) ([]string, error) {
	out := s.Statuses(d)
	ts, ok := s.store.(TransferStore)
	if !ok {
		return out, nil
	}
	st, _, err := ts.TransferState(ctx, d.ID)
	if err != nil {
		return nil, err
	}
	if st.Pending != nil {
		out = slices.DeleteFunc(out, func(x string) bool { return x == StatusOK })
		out = append(out, StatusPendingTransfer)
		slices.Sort(out)
	}
	return out, nil
}

// Statuses returns the EPP statuses of d now: those stored, those of the
// grace periods running (addPeriod, renewPeriod, autoRenewPeriod, from the
// zone's settings and the service's clock), or ok; sorted.
func (s *Service) Statuses(d *Domain) []string {
	out := slices.Clone(d.Statuses)
	now := s.clock.Now()
	if z := s.zones[d.Zone]; z != nil && !d.Deleted() {
		lc := z.Lifecycle
		if lc.AddGrace > 0 && now.Before(d.Created.Add(lc.AddGrace)) {
			out = append(out, StatusAddPeriod)
		}
		if lc.RenewGrace > 0 && !d.Renewed.IsZero() && now.Before(d.Renewed.Add(lc.RenewGrace)) {
			out = append(out, StatusRenewPeriod)
		}
		if lc.AutoRenewGrace > 0 && !d.AutoRenewed.IsZero() && now.Before(d.AutoRenewed.Add(lc.AutoRenewGrace)) {
			out = append(out, StatusAutoRenewPeriod)
		}
	}
	if len(out) == 0 {
		return []string{StatusOK}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Period is a registration period (RFC 5731 §3.2.1): N years (Unit 'y')
// or months ('m'). The zero Period is the zone's default.
type Period struct {
	N    int
	Unit byte
}

func (p Period) String() string {
	if p.Unit == 'm' {
		return fmt.Sprintf("%d months", p.N)
	}
	return fmt.Sprintf("%d years", p.N)
}

// period checks p against the zone's policy and returns it in months.
func (z *Zone) period(p Period) (int, error) {
	lc := z.Lifecycle
	if p.N == 0 && p.Unit == 0 {
		return 12 * lc.DefaultYears, nil
	}
	switch p.Unit {
	case 'y', 0:
		if p.N < lc.MinYears || p.N > lc.MaxYears {
			return 0, Errorf(CodePeriodRange, "a period of %d years is outside zone %s's %d to %d years", p.N, z.Name, lc.MinYears, lc.MaxYears)
		}
		return 12 * p.N, nil
	case 'm':
		if !lc.Months {
			return 0, Errorf(CodePeriodRange, "zone %s takes periods in years, not months", z.Name)
		}
		if p.N < 12*lc.MinYears || p.N > 12*lc.MaxYears {
			return 0, Errorf(CodePeriodRange, "a period of %d months is outside zone %s's %d to %d years", p.N, z.Name, lc.MinYears, lc.MaxYears)
		}
		return p.N, nil
	}
	return 0, Errorf(CodePeriodRange, "a period's unit is y (years) or m (months)")
}

// Change is one lifecycle transition of a domain, decided by the service
// and applied by the store in one transaction with its audit record. The
// fields but Action, Actor, Result, the channel and Purge are the
// domain's lifecycle state after the change.
type Change struct {
	Action string // the audit action: renew, delete, restore-request, ...
	Actor  string // the registrar, "operator" or "lifecycle" (the worker)
	Result string // the audit result ("" for ok)
	At     time.Time

	Expires        time.Time
	Statuses       []string
	RedemptionEnds time.Time
	PurgeAt        time.Time
	Renewed        time.Time
	AutoRenewed    time.Time
	// Purge deletes the domain and frees its conflict set.
	Purge bool
	// RefusePendingTransfer: the change is refused (STATUS_PROHIBITS) if
	// a transfer of the domain is pending (a registrar's delete, RFC 5731
	// §2.3); EndTransfers: a pending transfer is cancelled by the server
	// and the authInfo removed (a delete, an expiry's deletion, a purge).
	// Both are checked and done in the change's transaction.
	RefusePendingTransfer, EndTransfers bool
	// RefuseHosts: the change is refused (ASSOCIATED) while hosts are
	// under the domain (RFC 5731 §3.2.2; docs/delegation.md).
	RefuseHosts bool

	Channel, ClTRID, SvTRID string

	// Notices are the poll messages the change enqueues (notify); the
	// store writes them in the change's transaction (the registrar's
	// outbox, in commit order).
	Notices []PollMessage
}

// DueDomain is a domain the lifecycle worker has something to do with.
// For a purge due, the store gives what deciding it needs (ID, Rev,
// PurgeAt, Registrar), so that purges are decided and applied in batches
// without reading each domain; for the other steps ID is 0.
type DueDomain struct {
	Zone, Label string
	ID, Rev     int64
	PurgeAt     time.Time
	Registrar   string
	RegistrarID int64
}

// LifecycleStore is what the lifecycle needs of a store.
type LifecycleStore interface {
	// ApplyChange applies ch to the domain d was read as, in one
	// transaction with its audit record, only if the domain is still at
	// revision d.Rev: ErrStale if not (the caller reads it again and
	// decides again). It returns the domain after, or nil after a purge.
	ApplyChange(ctx context.Context, d *Domain, ch *Change) (*Domain, error)
	// LifecycleDue lists up to limit domains with a purge, the end of a
	// redemption or an expiry at or before now, in that order.
	LifecycleDue(ctx context.Context, now time.Time, limit int) ([]DueDomain, error)
	// ApplyChanges applies chs[i] to ds[i] as ApplyChange does, all in one
	// transaction; a domain no longer at revision ds[i].Rev is left as it
	// is (applied[i] false), the others are changed.
	ApplyChanges(ctx context.Context, ds []*Domain, chs []*Change) (applied []bool, err error)
}

// ErrStale says a change was decided on a revision of the domain that is
// no longer the stored one.
var ErrStale = &Error{Code: "STALE"}

// change starts a Change that keeps d's state, made now by actor.
func change(ctx context.Context, d *Domain, action, actor string, now time.Time) *Change {
	c := ChannelOf(ctx)
	return &Change{Action: action, Actor: actor, At: now, Expires: d.Expires, Statuses: slices.Clone(d.Statuses),
		RedemptionEnds: d.RedemptionEnds, PurgeAt: d.PurgeAt, Renewed: d.Renewed, AutoRenewed: d.AutoRenewed,
		Channel: c.Name, ClTRID: c.ClTRID, SvTRID: c.SvTRID}
}

// decider decides the change of a domain at now; nil for none (the
// domain is returned as it is).
type decider func(d *Domain, z *Zone, now time.Time) (*Change, error)

// transition is the one place every lifecycle change of a domain goes
// through: read, decide with the clock, notify, apply at the revision
// read (again if another change came between).
func (s *Service) transition(ctx context.Context, z *Zone, label string, decide decider) (*Domain, *Change, error) {
	for attempt := 0; ; attempt++ {
		d, err := s.store.Domain(ctx, z.Name, label)
		if err != nil {
			return nil, nil, err
		}
		ch, err := decide(d, z, s.clock.Now())
		if err != nil || ch == nil {
			return d, nil, err
		}
		slices.Sort(ch.Statuses)
		ch.Statuses = slices.Compact(ch.Statuses)
		s.notify(ctx, d, ch)
		out, err := s.store.ApplyChange(ctx, d, ch)
		if errors.Is(err, ErrStale) && attempt < 100 {
			continue
		}
		return out, ch, err
	}
}

// notify is where a transition's poll messages are made (into
// ch.Notices, which the store writes in the change's transaction): the
// sponsor is told what the registry did by itself (an auto-renewal, a
// deletion at expiry, a purge); what the registrar did itself (renew,
// delete, restore, statuses) it knows from the answer.
func (s *Service) notify(ctx context.Context, before *Domain, ch *Change) {
	if before.RegistrarID == 0 {
		return
	}
	m := PollMessage{RegistrarID: before.RegistrarID, Queued: ch.At, Name: before.Name, ALabel: before.ALabel}
	switch ch.Action {
	case "autorenew":
		m.Kind, m.ExDate = PollAutoRenew, ch.Expires
		m.Text = "Auto-renewed until " + ch.Expires.Format(time.DateOnly) + ": " + before.Name
	case "expire":
		m.Kind = PollDeletion
		m.Text = "Deleted at its expiry, restorable until " + ch.RedemptionEnds.Format(time.DateOnly) + ": " + before.Name
	case "purge":
		m.Kind = PollPurge
		m.Text = "Purged, its conflict set freed: " + before.Name
	default:
		return
	}
	ch.Notices = append(ch.Notices, m)
}

// lifecycleCall runs a registrar's lifecycle operation on input, and
// records a refused one in the audit log (a successful one is recorded
// in its transaction).
func (s *Service) lifecycleCall(ctx context.Context, actor, action, input string, decide decider) (*Domain, *Change, error) {
	z, label, err := s.locate(input)
	var d *Domain
	var ch *Change
	if err == nil {
		d, ch, err = s.transition(ctx, z, label, decide)
	}
	if err != nil {
		s.audit(ctx, AuditEntry{Registrar: actor, Action: action, Name: input, Result: CodeOf(err)})
	}
	return d, ch, err
}

// owned refuses a domain of another registrar.
func owned(d *Domain, r *Registrar) error {
	if d.Registrar != r.Name {
		return Errorf(CodeForbidden, "%s belongs to another registrar", d.Name)
	}
	return nil
}

// prohibits returns STATUS_PROHIBITS if d has one of the statuses.
func prohibits(d *Domain, what string, statuses ...string) error {
	for _, st := range statuses {
		if d.HasStatus(st) {
			return Errorf(CodeStatusProhibits, "%s has status %s, which prohibits %s", d.Name, st, what)
		}
	}
	return nil
}

// AddMonths is addMonths, for the stores (a transfer's period).
func AddMonths(t time.Time, n int) time.Time { return addMonths(t, n) }

// addMonths adds n months to t (a date past the end of a shorter month
// goes to the month's last day, as registries do for 29 February).
func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(n), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	if last := first.AddDate(0, 1, -1).Day(); d > last {
		d = last
	}
	return first.AddDate(0, 0, d-1)
}

// Renew extends the registration of a domain the registrar owns by p
// (the zone's default for the zero Period) from its current expiry date,
// which the registrar must give (curExp, compared as a date:
// WRONG_EXPIRY if it is not the domain's, RFC 5731 §3.2.3). PERIOD_RANGE,
// NOT_RENEWABLE past the 10-year horizon, STATUS_PROHIBITS for a domain
// on renew prohibition or deleted, FORBIDDEN if not the registrar's.
func (s *Service) Renew(ctx context.Context, r *Registrar, input string, curExp time.Time, p Period) (*Domain, error) {
	d, _, err := s.lifecycleCall(ctx, r.Name, "renew", input, func(d *Domain, z *Zone, now time.Time) (*Change, error) {
		if err := owned(d, r); err != nil {
			return nil, err
		}
		months, err := z.period(p)
		if err != nil {
			return nil, err
		}
		if err := prohibits(d, "renewal", StatusPendingDelete, StatusClientRenewProhibited, StatusServerRenewProhibited); err != nil {
			return nil, err
		}
		if d.Expires.IsZero() {
			return nil, Errorf(CodeNotRenewable, "%s has no expiry date to renew from", d.Name)
		}
		if !sameDate(d.Expires, curExp) {
			return nil, Errorf(CodeWrongExpiry, "the current expiry date of %s is %s, not %s", d.Name, d.Expires.Format(time.DateOnly), curExp.UTC().Format(time.DateOnly))
		}
		next := addMonths(d.Expires, months)
		if next.After(addMonths(now, 12*MaxHorizon)) {
			return nil, Errorf(CodeNotRenewable, "renewing %s by %s would take it to %s, beyond %d years from now", d.Name, p, next.Format(time.DateOnly), MaxHorizon)
		}
		ch := change(ctx, d, "renew", r.Name, now)
		ch.Expires, ch.Renewed = next, now
		ch.Result = "ok until " + next.Format(time.RFC3339)
		return ch, nil
	})
	return d, err
}

func sameDate(a, b time.Time) bool {
	a, b = a.UTC(), b.UTC()
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}

// DeleteDomain deletes a domain the registrar owns (RFC 3915): inside the
// zone's add grace period it is purged at once, its conflict set freed,
// and nil is returned; otherwise it enters pendingDelete with
// redemptionPeriod, out of the published zone but holding its whole
// conflict set until it is purged (after the redemption and the pending
// delete periods), and is returned. STATUS_PROHIBITS for a domain on
// delete prohibition or already deleted.
func (s *Service) DeleteDomain(ctx context.Context, r *Registrar, input string) (*Domain, error) {
	d, ch, err := s.lifecycleCall(ctx, r.Name, "delete", input, func(d *Domain, z *Zone, now time.Time) (*Change, error) {
		if err := owned(d, r); err != nil {
			return nil, err
		}
		if err := prohibits(d, "deletion", StatusPendingDelete, StatusClientDeleteProhibited, StatusServerDeleteProhibited, StatusPendingTransfer); err != nil {
			return nil, err
		}
		ch := change(ctx, d, "delete", r.Name, now)
		ch.RefusePendingTransfer, ch.EndTransfers, ch.RefuseHosts = true, true, true
		if lc := z.Lifecycle; now.Before(d.Created.Add(lc.AddGrace)) {
			ch.Purge, ch.Result = true, "ok purged in add grace"
			return ch, nil
		}
		enterDeletion(ch, z, now)
		return ch, nil
	})
	if err == nil && ch != nil && ch.Purge {
		return nil, nil
	}
	return d, err
}

// enterDeletion puts a change's domain in pendingDelete (with
// redemptionPeriod if the zone has one), to be purged after the zone's
// redemption and pending delete periods; with neither, at once.
func enterDeletion(ch *Change, z *Zone, now time.Time) {
	lc := z.Lifecycle
	if lc.Redemption+lc.PendingDelete <= 0 {
		ch.Purge = true
		return
	}
	ch.Statuses = slices.DeleteFunc(ch.Statuses, func(st string) bool { return st == StatusPendingRestore })
	ch.Statuses = append(ch.Statuses, StatusPendingDelete)
	ch.RedemptionEnds = time.Time{}
	if lc.Redemption > 0 {
		ch.Statuses = append(ch.Statuses, StatusRedemptionPeriod)
		ch.RedemptionEnds = now.Add(lc.Redemption)
	}
	ch.PurgeAt = now.Add(lc.Redemption + lc.PendingDelete)
	ch.Result = "ok purge at " + ch.PurgeAt.Format(time.RFC3339)
}

// The restore operations (RFC 3915 §4.2.5).
const (
	RestoreRequest = "request"
	RestoreReport  = "report"
)

// Restore restores a deleted domain the registrar owns (RFC 3915): op
// "request" during its redemption period makes it pendingRestore, and
// "report" then completes the restore: the domain is out of
// pendingDelete, back in the zone, and if its expiry date has passed it
// is renewed by whole years to the first after now. STATUS_PROHIBITS
// outside the redemption period (a request) or without a request (a
// report).
func (s *Service) Restore(ctx context.Context, r *Registrar, input, op string) (*Domain, error) {
	action := "restore-" + op
	d, _, err := s.lifecycleCall(ctx, r.Name, action, input, func(d *Domain, z *Zone, now time.Time) (*Change, error) {
		if err := owned(d, r); err != nil {
			return nil, err
		}
		ch := change(ctx, d, action, r.Name, now)
		switch op {
		case RestoreRequest:
			if !d.HasStatus(StatusRedemptionPeriod) || d.HasStatus(StatusPendingRestore) {
				return nil, Errorf(CodeStatusProhibits, "%s is not in its redemption period: it cannot be restored", d.Name)
			}
			ch.Statuses = append(ch.Statuses, StatusPendingRestore)
		case RestoreReport:
			if !d.HasStatus(StatusPendingRestore) {
				return nil, Errorf(CodeStatusProhibits, "%s has no restore requested: request one first", d.Name)
			}
			ch.Statuses = slices.DeleteFunc(ch.Statuses, func(st string) bool {
				return st == StatusPendingRestore || st == StatusPendingDelete || st == StatusRedemptionPeriod
			})
			ch.RedemptionEnds, ch.PurgeAt = time.Time{}, time.Time{}
			for !ch.Expires.IsZero() && !ch.Expires.After(now) {
				ch.Expires = addMonths(ch.Expires, 12)
			}
		default:
			return nil, Errorf(CodeBadStatus, "a restore's op is request or report, not %q", op)
		}
		return ch, nil
	})
	return d, err
}

// UpdateStatuses adds and removes statuses of a domain: a registrar's
// (r non-nil) client* statuses of its own domains, or the operator's (r
// nil) server* statuses of any domain. BAD_STATUS for a status the
// caller may not set; STATUS_PROHIBITS for a registrar's update of a
// domain on update prohibition (but one that removes
// clientUpdateProhibited, RFC 5731 §2.3) or deleted.
func (s *Service) UpdateStatuses(ctx context.Context, r *Registrar, input string, add, rem []string) (*Domain, error) {
	allowed, actor := ClientStatuses, "operator"
	if r != nil {
		actor = r.Name
	} else {
		allowed = ServerStatuses
	}
	for _, st := range append(slices.Clone(add), rem...) {
		if !slices.Contains(allowed, st) {
			who := "a registrar sets only " + strings.Join(ClientStatuses, ", ")
			if r == nil {
				who = "the operator sets only " + strings.Join(ServerStatuses, ", ")
			}
			return nil, Errorf(CodeBadStatus, "status %q cannot be set or removed here: %s", st, who)
		}
	}
	d, _, err := s.lifecycleCall(ctx, actor, "status", input, func(d *Domain, z *Zone, now time.Time) (*Change, error) {
		if r != nil {
			if err := owned(d, r); err != nil {
				return nil, err
			}
			if err := prohibits(d, "updates", StatusPendingDelete, StatusServerUpdateProhibited); err != nil {
				return nil, err
			}
			if d.HasStatus(StatusClientUpdateProhibited) && !slices.Contains(rem, StatusClientUpdateProhibited) {
				return nil, prohibits(d, "updates", StatusClientUpdateProhibited)
			}
		}
		for _, st := range add {
			if d.HasStatus(st) {
				return nil, Errorf(CodeBadStatus, "%s already has status %s", d.Name, st)
			}
		}
		for _, st := range rem {
			if !d.HasStatus(st) {
				return nil, Errorf(CodeBadStatus, "%s does not have status %s", d.Name, st)
			}
		}
		ch := change(ctx, d, "status", actor, now)
		ch.Statuses = slices.DeleteFunc(ch.Statuses, func(st string) bool { return slices.Contains(rem, st) })
		ch.Statuses = append(ch.Statuses, add...)
		var parts []string
		for _, st := range add {
			parts = append(parts, "+"+st)
		}
		for _, st := range rem {
			parts = append(parts, "-"+st)
		}
		ch.Result = "ok " + strings.Join(parts, " ")
		return ch, nil
	})
	return d, err
}

// LifecycleReport says what a run of the lifecycle worker did.
type LifecycleReport struct {
	AutoRenewed int `json:"auto_renewed"`
	Expired     int `json:"expired"`    // deleted at expiry (zones without auto-renew)
	Redeemed    int `json:"redemption"` // redemption periods ended
	Purged      int `json:"purged"`
}

// advance is the worker's decision for a domain at now: the first step
// that is due (purge, end of redemption, expiry), or nil.
func advance(ctx context.Context, d *Domain, z *Zone, now time.Time) *Change {
	switch {
	case !d.PurgeAt.IsZero() && !d.PurgeAt.After(now):
		ch := change(ctx, d, "purge", "lifecycle", now)
		ch.Purge, ch.EndTransfers = true, true
		return ch
	case !d.RedemptionEnds.IsZero() && !d.RedemptionEnds.After(now):
		// the redemption is over: pendingDelete alone until the purge (a
		// restore requested and not reported lapses with it)
		ch := change(ctx, d, "redemption-end", "lifecycle", now)
		ch.Statuses = slices.DeleteFunc(ch.Statuses, func(st string) bool {
			return st == StatusRedemptionPeriod || st == StatusPendingRestore
		})
		ch.RedemptionEnds = time.Time{}
		return ch
	case !d.Deleted() && !d.Expires.IsZero() && !d.Expires.After(now):
		if z.Lifecycle.AutoRenew {
			ch := change(ctx, d, "autorenew", "lifecycle", now)
			ch.Expires, ch.AutoRenewed = addMonths(d.Expires, 12), now
			ch.Result = "ok until " + ch.Expires.Format(time.RFC3339)
			return ch
		}
		ch := change(ctx, d, "expire", "lifecycle", now)
		ch.EndTransfers = true
		enterDeletion(ch, z, now)
		return ch
	}
	return nil
}

// lifecycleWorkers is how many domains RunLifecycle moves at once: each
// step is a transaction of its own, and concurrent ones share a durable
// commit where the store groups them (SQLite's group writer) or run side
// by side (PostgreSQL).
const lifecycleWorkers = 16

// RunLifecycle moves the domains whose time has come through their
// lifecycle: purges due (the conflict set freed), redemption periods
// ended, expiries (auto-renewed for a year, or deleted where the zone
// does not auto-renew). Each step of each domain is one transaction,
// applied to the revision it was decided on, so several servers may run
// it at once on one database, and a crash loses no step half done. It
// works until nothing is due at the clock's time (at most limit domains a
// round; 0 for 1000).
func (s *Service) RunLifecycle(ctx context.Context, limit int) (*LifecycleReport, error) {
	if limit <= 0 {
		limit = 1000
	}
	rep := &LifecycleReport{}
	ctx = WithChannel(ctx, Channel{Name: "worker"})
	for {
		now := s.clock.Now()
		due, err := s.store.LifecycleDue(ctx, now, limit)
		if err != nil || len(due) == 0 {
			return rep, err
		}
		// purges in batches: each batch one transaction
		var rest []DueDomain
		var purges []DueDomain
		for _, dd := range due {
			if dd.ID != 0 {
				purges = append(purges, dd)
			} else {
				rest = append(rest, dd)
			}
		}
		purged, err := s.purgeBatches(ctx, purges, now)
		rep.Purged += purged
		if err != nil {
			return rep, err
		}
		due = rest
		var (
			mu    sync.Mutex
			done  = purged
			first error
			wg    sync.WaitGroup
		)
		work := make(chan DueDomain)
		for range min(lifecycleWorkers, len(due)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for dd := range work {
					n, err := s.advanceDomain(ctx, dd, now, rep, &mu)
					mu.Lock()
					done += n
					if err != nil && first == nil {
						first = err
					}
					mu.Unlock()
				}
			}()
		}
		for _, dd := range due {
			mu.Lock()
			failed := first != nil
			mu.Unlock()
			if failed {
				break
			}
			work <- dd
		}
		close(work)
		wg.Wait()
		if first != nil {
			return rep, first
		}
		if done == 0 {
			return rep, nil // what is due is another worker's, in flight
		}
	}
}

// purgeBatch is how many purges go in one transaction.
const purgeBatch = 500

// purgeBatches purges the domains due, purgeBatch to a transaction: each
// decided (advance, on what LifecycleDue read), notified and applied at
// the revision read, as transition does for one domain. A domain changed
// since is left for the next round.
func (s *Service) purgeBatches(ctx context.Context, due []DueDomain, now time.Time) (int, error) {
	n := 0
	for i := 0; i < len(due); i += purgeBatch {
		var ds []*Domain
		var chs []*Change
		for _, dd := range due[i:min(i+purgeBatch, len(due))] {
			z := s.zones[dd.Zone]
			if z == nil {
				continue
			}
			d := &Domain{ID: dd.ID, Rev: dd.Rev, Zone: dd.Zone, Label: dd.Label, Name: dd.Label + "." + dd.Zone,
				Registrar: dd.Registrar, RegistrarID: dd.RegistrarID, PurgeAt: dd.PurgeAt, Statuses: []string{StatusPendingDelete}}
			if a, err := idna.Punycode.ToASCII(dd.Label); err == nil {
				d.ALabel = a + "." + z.ALabel
			}
			ch := advance(ctx, d, z, now)
			if ch == nil || !ch.Purge {
				continue
			}
			s.notify(ctx, d, ch)
			ds, chs = append(ds, d), append(chs, ch)
		}
		if len(ds) == 0 {
			continue
		}
		applied, err := s.store.ApplyChanges(ctx, ds, chs)
		if err != nil {
			return n, err
		}
		for _, ok := range applied {
			if ok {
				n++
			}
		}
	}
	return n, nil
}

// advanceDomain takes one domain through every step due at now (an
// expiry passed twice over is renewed twice), counting them in rep.
func (s *Service) advanceDomain(ctx context.Context, dd DueDomain, now time.Time, rep *LifecycleReport, mu *sync.Mutex) (int, error) {
	z := s.zones[dd.Zone]
	if z == nil {
		return 0, nil
	}
	done := 0
	for {
		_, ch, err := s.transition(ctx, z, dd.Label, func(d *Domain, z *Zone, _ time.Time) (*Change, error) {
			return advance(ctx, d, z, now), nil
		})
		if errors.Is(err, ErrNotFound) {
			return done, nil // purged by another worker
		}
		if err != nil || ch == nil {
			return done, err
		}
		done++
		mu.Lock()
		switch ch.Action {
		case "purge":
			rep.Purged++
		case "redemption-end":
			rep.Redeemed++
		case "autorenew":
			rep.AutoRenewed++
		case "expire":
			rep.Expired++
		}
		mu.Unlock()
		if ch.Purge {
			return done, nil
		}
	}
}
