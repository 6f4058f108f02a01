package registry

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"sync"
	"time"
	"unicode"
)

// Guessing the authInfo (issue 34; docs/registry.md "Guessing the
// authInfo"). An authInfo is a password anyone may try: a transfer request
// with it, a transfer query by a registrar that is no party to the
// domain's transfers, a contact <info> by a registrar that does not
// sponsor the contact. Without limits a registrar could try 50 a second
// (its EPP command rate), 4.3 million a day. So:
//
//   - every authInfo that does not verify is recorded (the store's
//     auth_failures), per requesting registrar and object, in a small
//     transaction of its own AFTER the command's transaction has rolled
//     back (the refusal rolls back everything the command wrote; the
//     failure must stay), as the refusal's audit record is (flow.go
//     refuse);
//   - a registrar with AuthFreeFailures failures on one object within
//     AuthFailureWindow, or AuthRegistrarFreeFailures on all objects,
//     backs off: its next attempt on the object (on every object) is
//     refused until the last failure + a back-off that doubles with every
//     failure beyond the free ones (AuthBackoffBase, capped), before its
//     authInfo is looked at, right or wrong (AUTH_INFO_LOCKED): the lock
//     is not an oracle, and it locks out only the registrar that guessed,
//     so no one can block a transfer by guessing wrong on purpose;
//   - the sponsor of an object gets ONE poll message (PollAuthFailures)
//     once AuthAlertFailures failures of any registrars were made on it
//     within the window, not one per failure;
//   - the authInfo a registrar sets must be strong (CheckAuthInfo):
//     the limits above bound the guessing, the rule makes a guess useless.
//
// Every window reads the service's clock.

// The limits of guessing (docs/registry.md "Guessing the authInfo").
const (
	// AuthFailureWindow is the sliding window failures are counted in.
	AuthFailureWindow = 24 * time.Hour
	// AuthFreeFailures is how many failures a registrar may make on one
	// object in the window before it backs off.
	AuthFreeFailures = 5
	// AuthRegistrarFreeFailures is how many failures a registrar may make
	// on all objects together in the window before it backs off from all.
	AuthRegistrarFreeFailures = 100
	// AuthBackoffBase is the first back-off; each further failure doubles
	// it, up to AuthBackoffMaxObject for one object and
	// AuthBackoffMaxRegistrar for the registrar's lock on all objects.
	AuthBackoffBase         = time.Minute
	AuthBackoffMaxObject    = 24 * time.Hour
	AuthBackoffMaxRegistrar = time.Hour
	// AuthAlertFailures failures on one object (by any registrars) in the
	// window tell its sponsor, once per window.
	AuthAlertFailures = 5
	// TransferRequestLimit is how many transfer requests one gaining
	// registrar may make for one domain in TransferRequestWindow (each
	// queues a poll message to the sponsor: a request/cancel storm would
	// flood its queue).
	TransferRequestLimit  = 5
	TransferRequestWindow = 24 * time.Hour
)

// The kinds of object an authInfo guards.
const (
	AuthObjectDomain  = "domain"
	AuthObjectContact = "contact"
)

// Error codes of guessing and of the transfer request limit.
const (
	// CodeAuthInfoLocked refuses an authInfo (right or wrong) of a
	// registrar that is backing off (EPP 2201, HTTP 429).
	CodeAuthInfoLocked = "AUTH_INFO_LOCKED"
	// CodeTransferLimited refuses a transfer request beyond
	// TransferRequestLimit in the window (EPP 2201, HTTP 429).
	CodeTransferLimited = "TRANSFER_LIMITED"
	// CodeWeakAuthInfo refuses an authInfo that CheckAuthInfo finds weak
	// (EPP 2306, HTTP 422).
	CodeWeakAuthInfo = "WEAK_AUTH_INFO"
)

func init() {
	// 2201 (authorization error: "the client is not authorized to perform
	// the command", RFC 5730 §3): for now, this registrar may not; the
	// session stays open (2502 would close it, and toolkits reconnect and
	// retry at once) and the message says when it may again.
	DefineCode(CodeAuthInfoLocked, CodeInfo{HTTP: 429, EPP: 2201, Reason: "too many wrong authInfo"})
	DefineCode(CodeTransferLimited, CodeInfo{HTTP: 429, EPP: 2201, Reason: "too many transfer requests"})
	DefineCode(CodeWeakAuthInfo, CodeInfo{HTTP: 422, EPP: 2306, Reason: "weak authInfo"})
}

// AuthFailure is one authInfo that did not verify.
type AuthFailure struct {
	Kind        string // AuthObjectDomain or AuthObjectContact
	ObjectID    int64  // the domain's ID, the contact's ROID
	RegistrarID int64  // the registrar that gave it
	At          time.Time
}

// AuthFailureTimes are the instants of a registrar's latest failures, the
// newest first: on one object, and on all objects.
type AuthFailureTimes struct {
	Object    []time.Time
	Registrar []time.Time
}

// AuthFailureNotice is what a PollAuthFailures message says.
type AuthFailureNotice struct {
	Object   string    `json:"object"`   // AuthObjectDomain or AuthObjectContact
	Failures int       `json:"failures"` // failures on it in the window, when queued
	Since    time.Time `json:"since"`    // the window's start
}

// AuthGuardStore keeps the failures of authInfo and the counts the limits
// read (the SQL stores: migration 250).
type AuthGuardStore interface {
	// AuthFailures returns the instants of registrarID's failures after
	// since, the newest first, at most limit of each: on the object, and
	// on all objects.
	AuthFailures(ctx context.Context, kind string, objectID, registrarID int64, since time.Time, limit int) (AuthFailureTimes, error)
	// RecordAuthFailure records f, deletes the failures and alerts at or
	// before prune (out of every window), and returns the failures of all
	// registrars on f's object after since.
	RecordAuthFailure(ctx context.Context, f AuthFailure, since, prune time.Time) (int, error)
	// AlertAuthFailures queues m to the current sponsor of the object
	// (m.RegistrarID is set by the store) and records the alert at m.Queued,
	// unless an alert of the object was recorded after since: it reports
	// whether it queued m. Two concurrent calls queue one message.
	AlertAuthFailures(ctx context.Context, kind string, objectID int64, since time.Time, m PollMessage) (bool, error)
	// TransferRequests counts the transfers gainingID requested of the
	// domain after since, and returns the earliest of them.
	TransferRequests(ctx context.Context, domainID, gainingID int64, since time.Time) (int, time.Time, error)
}

// guardStore returns the store's AuthGuardStore, or nil for a store
// without one (which then has no limits).
func (s *Service) guardStore() AuthGuardStore {
	g, _ := s.store.(AuthGuardStore)
	return g
}

// lockEnd is when the lock of failures at times (the newest first) ends,
// and how many failures set it: a registrar whose failure at instant L was
// its n-th within the window ending at L, n at least free, waits from L
// for AuthBackoffBase doubled n-free times, at most most. The zero time if
// there is no lock.
func lockEnd(times []time.Time, free int, most time.Duration) (time.Time, int) {
	if len(times) == 0 {
		return time.Time{}, 0
	}
	last, n := times[0], 0
	for _, t := range times {
		if t.After(last.Add(-AuthFailureWindow)) {
			n++
		}
	}
	if n < free {
		return time.Time{}, n
	}
	d := most
	if k := n - free; k < 40 {
		d = min(AuthBackoffBase<<k, most)
	}
	return last.Add(d), n
}

// guessHistory is how many of a registrar's latest failures the lock
// reads: beyond free + 40 the back-off is at its most anyway.
const guessHistory = 40

// authLocked refuses r's authInfo for an object while r is backing off
// from it, or from all objects: AUTH_INFO_LOCKED, whatever the authInfo
// is (it is not looked at). what names the object for the message.
func (s *Service) authLocked(ctx context.Context, r *Registrar, kind string, objectID int64, what string) error {
	g := s.guardStore()
	if g == nil || r == nil {
		return nil
	}
	now := s.clock.Now()
	// the failures that set a lock still on: after now - window - most
	ft, err := g.AuthFailures(ctx, kind, objectID, r.ID, now.Add(-AuthFailureWindow-AuthBackoffMaxObject), AuthRegistrarFreeFailures+guessHistory)
	if err != nil {
		return err
	}
	if until, n := lockEnd(ft.Object, AuthFreeFailures, AuthBackoffMaxObject); now.Before(until) {
		return Errorf(CodeAuthInfoLocked, "%s gave %d wrong authInfo for %s within %s: its next attempt on it (even with the right authInfo) is taken after %s", r.Name, n, what, windowText(AuthFailureWindow), retryText(until))
	}
	if until, n := lockEnd(ft.Registrar, AuthRegistrarFreeFailures, AuthBackoffMaxRegistrar); now.Before(until) {
		return Errorf(CodeAuthInfoLocked, "%s gave %d wrong authInfo within %s: its next attempt on any domain or contact (even with the right authInfo) is taken after %s", r.Name, n, windowText(AuthFailureWindow), retryText(until))
	}
	return nil
}

// retryText is an instant a refusal names, in RFC 3339, rounded up to
// the second (an attempt at it is taken).
func retryText(t time.Time) string {
	if r := t.Truncate(time.Second); !r.Equal(t) {
		t = r.Add(time.Second)
	}
	return t.UTC().Format(time.RFC3339)
}

// authGuessed records that r gave an authInfo that did not verify for an
// object, in a transaction of its own: call it after the command's
// transaction has rolled back (the failure outlives the refusal). Once the
// object has AuthAlertFailures failures in the window, its sponsor is told
// by one poll message (name and alabel name the object in it). A failure
// to record is logged: the refusal stands.
func (s *Service) authGuessed(ctx context.Context, r *Registrar, kind string, objectID int64, name, alabel string) {
	g := s.guardStore()
	if g == nil || r == nil {
		return
	}
	// recorded even if the client has gone (as the audit record is)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	now := s.clock.Now()
	since := now.Add(-AuthFailureWindow)
	// kept as long as a failure can count towards a lock still on
	prune := now.Add(-AuthFailureWindow - AuthBackoffMaxObject)
	err := s.store.Atomic(ctx, func(ctx context.Context) error {
		n, err := g.RecordAuthFailure(ctx, AuthFailure{Kind: kind, ObjectID: objectID, RegistrarID: r.ID, At: now}, since, prune)
		if err != nil || n < AuthAlertFailures {
			return err
		}
		what := "domain " + name
		if kind == AuthObjectContact {
			what = "contact " + name
		}
		_, err = g.AlertAuthFailures(ctx, kind, objectID, since, PollMessage{
			Queued: now, Kind: PollAuthFailures, Name: name, ALabel: alabel,
			Text:         fmt.Sprintf("Wrong authInfo given %d times in %s for %s: someone may be guessing it; give a new, random one to its registrant only", n, windowText(AuthFailureWindow), what),
			AuthFailures: &AuthFailureNotice{Object: kind, Failures: n, Since: since},
		})
		return err
	})
	if err != nil {
		s.logger().Error("recording a wrong authInfo", "registrar", r.Name, "object", kind, "name", name, "error", err)
	}
}

// guessLocks serialise, in this process, the attempts of one registrar on
// one object from the lock check to the record of a failure, so that
// concurrent sessions of a registrar cannot each pass the check before
// any failure is recorded. Striped: attempts of unrelated pairs rarely
// share a stripe, and hold it for one verification.
var (
	guessLocks [256]sync.Mutex
	guessSeed  = maphash.MakeSeed()
)

// guessLock takes the stripe of (registrar, kind, name) and returns its
// unlock.
func guessLock(r *Registrar, kind, name string) func() {
	if r == nil {
		return func() {}
	}
	var h maphash.Hash
	h.SetSeed(guessSeed)
	fmt.Fprintf(&h, "%d\x00%s\x00%s", r.ID, kind, name)
	m := &guessLocks[h.Sum64()%uint64(len(guessLocks))]
	m.Lock()
	return m.Unlock
}

// transferLimited refuses r's request of domain d beyond
// TransferRequestLimit requests in the window: TRANSFER_LIMITED.
func (s *Service) transferLimited(ctx context.Context, r *Registrar, d *Domain) error {
	g := s.guardStore()
	if g == nil {
		return nil
	}
	now := s.clock.Now()
	n, first, err := g.TransferRequests(ctx, d.ID, r.ID, now.Add(-TransferRequestWindow))
	if err != nil || n < TransferRequestLimit {
		return err
	}
	return Errorf(CodeTransferLimited, "%s requested the transfer of %s %d times within %s: its next request is taken after %s", r.Name, d.Name, n, windowText(TransferRequestWindow), retryText(first.Add(TransferRequestWindow)))
}

func windowText(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%d hours", int(d/time.Hour))
	}
	return d.String()
}

// The rule of a strong authInfo (CheckAuthInfo; docs/registry.md): RFC
// 9154 §4.1 asks for a random authInfo of at least 128 bits. The registry
// cannot see how one was made; it refuses those that cannot be that
// strong, and accepts what registrar toolkits generate.
const (
	// MinAuthInfo is the fewest characters of an authInfo.
	MinAuthInfo = 16
	// strongBits is the estimate that accepts an authInfo of fewer than
	// three classes of characters.
	strongBits = 128
)

// authInfoStrength applies the rule: at least MinAuthInfo characters; at
// least three of the classes a–z, A–Z, 0–9, other ASCII (punctuation,
// space) and non-ASCII, or an estimate of at least 128 bits (the length
// times log2 of the size of the classes used: 26, 26, 10, 33 and, for
// non-ASCII, 64); and no one character making up more than a quarter of
// it. WEAK_AUTH_INFO, with the rule, if not.
func authInfoStrength(pw string) error {
	const rule = "an authInfo needs 16 characters of three kinds (a-z, A-Z, 0-9, punctuation, non-ASCII), or the strength of 128 random bits (32 hex digits, 22 letters and digits), and no character in more than a quarter of it (RFC 9154 §4.1)"
	rs := []rune(pw)
	n := len(rs)
	if n < MinAuthInfo {
		return Errorf(CodeWeakAuthInfo, "%s; this one has %d characters", rule, n)
	}
	var lower, upper, digit, punct, other bool
	count := map[rune]int{}
	most := 0
	for _, c := range rs {
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		case c <= unicode.MaxASCII:
			punct = true
		default:
			other = true
		}
		count[c]++
		most = max(most, count[c])
	}
	if most*4 > n {
		return Errorf(CodeWeakAuthInfo, "%s; one character is %d of this one's %d", rule, most, n)
	}
	classes, size := 0, 0
	for _, c := range []struct {
		used bool
		size int
	}{{lower, 26}, {upper, 26}, {digit, 10}, {punct, 33}, {other, 64}} {
		if c.used {
			classes++
			size += c.size
		}
	}
	if classes >= 3 || float64(n)*math.Log2(float64(size)) >= strongBits {
		return nil
	}
	return Errorf(CodeWeakAuthInfo, "%s; this one has %d characters of %s", rule, n, plural(classes, "kind"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
