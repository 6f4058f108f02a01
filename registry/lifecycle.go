package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// DomainState returns the domain label.zone as a command decides on
	// it: its row (registrar, dates, statuses, revision), without its
	// conflict set and exemptions (Blocks nil, Exempted false), or
	// ErrNotFound.
	DomainState(ctx context.Context, zone, label string) (*Domain, error)
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

// transition is how the lifecycle worker moves a domain one step: in one
// transaction (transact), read it, decide with the clock, notify, and
// apply the change at the revision read (run again if another change
// came between).
func (s *Service) transition(ctx context.Context, z *Zone, label string, decide decider) (*Domain, *Change, error) {
	var out *Domain
	var ch *Change
	err := s.transact(ctx, func(ctx context.Context) error {
		d, err := s.domainIn(ctx, z, label)
		if err != nil {
			return err
		}
		if ch, err = decide(d, z, s.clock.Now()); err != nil || ch == nil {
			out = d
			return err
		}
		slices.Sort(ch.Statuses)
		ch.Statuses = slices.Compact(ch.Statuses)
		s.notify(ctx, d, ch)
		// the DNS outbox (dnsoutbox.go): a deletion at expiry withdraws
		// the domain, a purge takes its hosts and delegation away
		var w *dnsWatch
		if ch.Purge || withdrawn(ch.Statuses) != withdrawn(d.Statuses) {
			if w, err = s.watchDNS(ctx, []DNSDomain{{z.Name, label}}); err != nil {
				return err
			}
		}
		out, err = s.store.ApplyChange(ctx, d, ch)
		if err == nil { // an auto-renewal's price (billing.go)
			err = s.chargeChange(ctx, d, out, ch)
		}
		if err == nil && w != nil {
			err = w.record(ctx)
		}
		return err
	})
	if err != nil && ch != nil && ch.Action == "autorenew" && CodeOf(err) == CodeBillingFailure {
		return s.transition(ctx, z, label, unpaid(decide)) // the zone's policy for an unpaid one (billing.go)
	}
	if err != nil {
		return nil, nil, err
	}
	return out, ch, nil
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
		m.DomainID, m.Statuses = before.ID, slices.Clone(ch.Statuses) // its <domain:infData> (pollaction.go)
	case "purge":
		m.Kind = PollPurge
		m.Text = "Purged, its conflict set freed: " + before.Name
	case "redemption-end":
		m.Kind = PollChange
		m.Text = "Its redemption period ended, purged at " + ch.PurgeAt.Format(time.DateOnly) + ": " + before.Name
	default:
		return
	}
	m.Change = workerChange(ctx, before, ch) // changepoll.go
	ch.Notices = append(ch.Notices, m)
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

// LifecycleReport says what a run of the lifecycle worker did.
type LifecycleReport struct {
	AutoRenewed int `json:"auto_renewed"`
	Expired     int `json:"expired"`    // deleted at expiry (zones without auto-renew)
	Redeemed    int `json:"redemption"` // redemption periods ended
	Purged      int `json:"purged"`
	Relocked    int `json:"relocked"` // registry locks back after an unlock (lock.go)
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
	var err error
	if rep.Relocked, err = s.relockDue(ctx, s.clock.Now()); err != nil { // lock.go
		return rep, err
	}
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
		// one transaction: the purges and the DNS outbox's owners
		// (dnsoutbox.go), read before them
		var applied []bool
		err := s.store.Atomic(ctx, func(ctx context.Context) error {
			refs := make([]DNSDomain, len(ds))
			for i, d := range ds {
				refs[i] = DNSDomain{d.Zone, d.Label}
			}
			w, err := s.watchDNS(ctx, refs)
			if err != nil {
				return err
			}
			if applied, err = s.store.ApplyChanges(ctx, ds, chs); err != nil {
				return err
			}
			return w.record(ctx)
		})
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
