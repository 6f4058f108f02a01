package registry

import (
	"context"
	"crypto/subtle"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// Registry lock (issue 38; docs/lifecycle.md, "Registry lock"; the model of
// Nomulus and of the Estonian registry): at its registrant's request a
// domain is locked: serverUpdateProhibited, serverDeleteProhibited and
// serverTransferProhibited on it, serverUpdateProhibited and
// serverDeleteProhibited on every host under it, so neither its registrar
// nor anyone holding its credentials can change, delete or move it or its
// glue. The registrant confirms out of band, with a one-time code (RFC
// 6238 TOTP) of a secret the operator enrolled for the registrant contact
// (EnrolLock, akshara lock enrol: the otpauth URI goes to the registrant)
// and the registrant verified with a first code (ConfirmLockEnrolment). A
// lock or an unlock carries a code, given by the registrar (HTTP API) or
// the operator (CLI); a code is good once. An unlock lasts a set time,
// then the lifecycle worker locks the domain again. Every lock, unlock,
// relock and refused code is audited; one the sponsor did not make queues
// a change poll message (changepoll.go).

// Error codes of the registry lock.
const (
	// CodeBadLockCode: the one-time code is not the registrant's now (or
	// was used already).
	CodeBadLockCode = "BAD_LOCK_CODE"
	// CodeLockPolicy: the domain cannot be locked or unlocked so: no
	// registrant, no verified secret, locked already or not locked.
	CodeLockPolicy = "LOCK_POLICY"
)

func init() {
	DefineCode(CodeBadLockCode, CodeInfo{HTTP: 403, EPP: 2202, Reason: "wrong one-time code"})
	DefineCode(CodeLockPolicy, CodeInfo{HTTP: 409, EPP: 2306, Reason: "lock policy"})
}

// The statuses of a lock.
var (
	LockStatuses     = []string{StatusServerDeleteProhibited, StatusServerTransferProhibited, StatusServerUpdateProhibited}
	HostLockStatuses = []string{StatusServerDeleteProhibited, StatusServerUpdateProhibited}
)

// The unlock's time until the relock: DefaultRelock when none is asked,
// at most MaxRelock.
const (
	DefaultRelock = time.Hour
	MaxRelock     = 30 * 24 * time.Hour
)

// totpOpts are the codes' parameters: RFC 6238's defaults, which
// authenticator apps take from the otpauth URI.
var totpOpts = totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// DomainLock is a domain's lock state.
type DomainLock struct {
	Locked   bool
	RelockAt time.Time // while unlocked for a time: when the worker locks it again
	Added    []string  // the statuses the lock set (an operator's own stay at an unlock)
}

// LockStore is what the registry lock needs of a store (sqlstore,
// lock.go); each method joins the command's transaction.
type LockStore interface {
	// EnrolLock stores (replaces) a contact's TOTP secret, unverified.
	EnrolLock(ctx context.Context, contactID, secret string, at time.Time) error
	// LockSecret returns a contact's secret and whether it is verified;
	// NOT_FOUND if none is enrolled.
	LockSecret(ctx context.Context, contactID string) (secret string, verified bool, err error)
	// UseLockCode records the time step of a code of the contact's secret
	// as used (and the secret verified): BAD_LOCK_CODE if a code of that
	// step or a later one was used already.
	UseLockCode(ctx context.Context, contactID string, step int64, at time.Time) error
	// DomainLock and SetDomainLock read and write a domain's lock.
	DomainLock(ctx context.Context, domainID int64) (DomainLock, error)
	SetDomainLock(ctx context.Context, domainID int64, l DomainLock) error
	// SubordinateHostStatuses adds and removes statuses of the hosts
	// under a domain, returning the hosts it changed.
	SubordinateHostStatuses(ctx context.Context, domainID int64, add, rem []string, at time.Time) ([]*Host, error)
	// RelockDue lists up to limit domains whose unlock ends at or before now.
	RelockDue(ctx context.Context, now time.Time, limit int) ([]DueDomain, error)
}

func (s *Service) lockStore() (LockStore, error) {
	ls, ok := s.store.(LockStore)
	if !ok {
		return nil, Errorf(CodeInternal, "this store keeps no registry locks")
	}
	return ls, nil
}

// EnrolLock enrols a new TOTP secret for a registrant contact (the
// operator's command; an enrolled secret is replaced and unverified
// again) and returns its otpauth URI, for the registrant's authenticator;
// issuer names the registry in it. The registrant's first code
// (ConfirmLockEnrolment) verifies it.
func (s *Service) EnrolLock(ctx context.Context, contactID, issuer string) (string, error) {
	uri, err := s.enrolLock(ctx, contactID, issuer)
	s.audit(ctx, AuditEntry{Registrar: "operator", Action: "lock-enrol", Name: contactID, Result: resultOf(err)})
	return uri, err
}

func (s *Service) enrolLock(ctx context.Context, contactID, issuer string) (string, error) {
	ls, err := s.lockStore()
	if err != nil {
		return "", err
	}
	cs, err := s.contactStore()
	if err != nil {
		return "", err
	}
	if _, err := cs.Contact(ctx, contactID); err != nil {
		return "", err
	}
	if issuer == "" {
		issuer = "akshara"
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: contactID, Period: totpOpts.Period, Digits: totpOpts.Digits, Algorithm: totpOpts.Algorithm})
	if err != nil {
		return "", &Error{Code: CodeInternal, Message: "making a TOTP secret", Err: err}
	}
	if err := ls.EnrolLock(ctx, contactID, key.Secret(), s.clock.Now()); err != nil {
		return "", err
	}
	return key.URL(), nil
}

// ConfirmLockEnrolment verifies a contact's enrolled secret with a code
// the registrant read from its authenticator.
func (s *Service) ConfirmLockEnrolment(ctx context.Context, contactID, code string) error {
	err := s.transact(ctx, func(ctx context.Context) error {
		ls, err := s.lockStore()
		if err != nil {
			return err
		}
		secret, _, err := ls.LockSecret(ctx, contactID)
		if err != nil {
			return err
		}
		return s.useCode(ctx, ls, contactID, secret, code)
	})
	s.audit(ctx, AuditEntry{Registrar: "operator", Action: "lock-confirm", Name: contactID, Result: resultOf(err)})
	return err
}

// useCode checks a code against secret at the clock's time (one step of
// skew either way) and marks its step used.
func (s *Service) useCode(ctx context.Context, ls LockStore, contactID, secret, code string) error {
	code = strings.TrimSpace(code)
	now := s.clock.Now()
	step := now.Unix() / int64(totpOpts.Period)
	for k := -int64(totpOpts.Skew); k <= int64(totpOpts.Skew); k++ {
		want, err := totp.GenerateCodeCustom(secret, time.Unix((step+k)*int64(totpOpts.Period), 0), totp.ValidateOpts{Period: totpOpts.Period, Digits: totpOpts.Digits, Algorithm: totpOpts.Algorithm})
		if err != nil {
			return &Error{Code: CodeInternal, Message: "a TOTP code", Err: err}
		}
		if len(code) == len(want) && subtle.ConstantTimeCompare([]byte(code), []byte(want)) == 1 {
			return ls.UseLockCode(ctx, contactID, step+k, now)
		}
	}
	return Errorf(CodeBadLockCode, "the code is not the current one-time code of contact %s", contactID)
}

// DomainLockRequest is a lock or unlock of a domain: its name, the
// registrant's one-time code, and for an unlock how long until the relock
// (0: DefaultRelock).
type DomainLockRequest struct {
	Name        string
	Code        string
	RelockAfter time.Duration
}

// LockDomain locks a domain (r: its registrar; nil: the operator) with a
// code of its registrant's verified secret: the lock's statuses on it and
// its subordinate hosts, in one transaction with the audit record (and,
// for the operator's, the change poll messages to the sponsor).
//
// Refusals: BAD_NAME, UNKNOWN_ZONE, NOT_FOUND, FORBIDDEN (another
// registrar's), STATUS_PROHIBITS (deleted, pending transfer), LOCK_POLICY
// (locked already, no registrant, no verified secret), BAD_LOCK_CODE.
func (s *Service) LockDomain(ctx context.Context, r *Registrar, req DomainLockRequest) (*Domain, error) {
	d, err := s.lockDomain(ctx, r, req, true)
	return d, s.refuse(ctx, actorOf(r), "lock", req.Name, err)
}

// UnlockDomain lifts a domain's lock (r: its registrar; nil: the operator)
// with a code of its registrant's secret, until the relock after
// req.RelockAfter (the lifecycle worker).
//
// Refusals: as LockDomain's, and LOCK_POLICY (not locked; a relock time
// out of range).
func (s *Service) UnlockDomain(ctx context.Context, r *Registrar, req DomainLockRequest) (*Domain, error) {
	d, err := s.lockDomain(ctx, r, req, false)
	return d, s.refuse(ctx, actorOf(r), "unlock", req.Name, err)
}

func (s *Service) lockDomain(ctx context.Context, r *Registrar, req DomainLockRequest, lock bool) (*Domain, error) {
	z, label, err := s.locate(req.Name)
	if err != nil {
		return nil, err
	}
	relock := req.RelockAfter
	if relock == 0 {
		relock = DefaultRelock
	}
	if !lock && (relock < time.Minute || relock > MaxRelock) {
		return nil, Errorf(CodeLockPolicy, "an unlock lasts a minute to %d days, not %s", int(MaxRelock/(24*time.Hour)), relock)
	}
	ls, err := s.lockStore()
	if err != nil {
		return nil, err
	}
	var out *Domain
	err = s.transact(ctx, func(ctx context.Context) error {
		d, err := s.domainIn(ctx, z, label)
		if err != nil {
			return err
		}
		if r != nil {
			if err := owned(d, r); err != nil {
				return err
			}
		}
		if err := prohibits(d, "a lock", StatusPendingDelete); err != nil {
			return err
		}
		cur, err := ls.DomainLock(ctx, d.ID)
		if err != nil {
			return err
		}
		if lock && cur.Locked {
			return Errorf(CodeLockPolicy, "%s is locked already", d.Name)
		}
		if !lock && !cur.Locked {
			return Errorf(CodeLockPolicy, "%s is not locked", d.Name)
		}
		if lock {
			ts, err := s.transferStore()
			if err != nil {
				return err
			}
			if st, _, err := ts.TransferState(ctx, d.ID); err != nil {
				return err
			} else if st.Pending != nil {
				return Errorf(CodeStatusProhibits, "a transfer of %s is pending: it is locked after the transfer ends", d.Name)
			}
		}
		if err := s.registrantCode(ctx, ls, d, req.Code); err != nil {
			return err
		}
		now := s.clock.Now()
		action := "unlock"
		if lock {
			action = "lock"
		}
		out, err = s.applyLock(ctx, ls, d, lock, cur, now, actorOf(r), action, now.Add(relock))
		return err
	})
	return out, err
}

// registrantCode checks a code of d's registrant's verified secret.
func (s *Service) registrantCode(ctx context.Context, ls LockStore, d *Domain, code string) error {
	cs, err := s.contactStore()
	if err != nil {
		return err
	}
	contacts, err := cs.DomainContacts(ctx, d.ID)
	if err != nil {
		return err
	}
	registrant := ""
	for _, c := range contacts {
		if c.Role == RoleRegistrant {
			registrant = c.ID
		}
	}
	if registrant == "" {
		return Errorf(CodeLockPolicy, "%s has no registrant to confirm its lock", d.Name)
	}
	secret, verified, err := ls.LockSecret(ctx, registrant)
	if errors.Is(err, ErrNotFound) || (err == nil && !verified) {
		return Errorf(CodeLockPolicy, "the registrant of %s (contact %s) has no verified lock secret: the registry enrols one (akshara lock enrol)", d.Name, registrant)
	}
	if err != nil {
		return err
	}
	return s.useCode(ctx, ls, registrant, secret, code)
}

// applyLock writes a lock (lock) or an unlock of d at now, by actor: the
// domain's statuses (ApplyChange, with the audit record), its hosts', the
// lock's row, and the change poll messages when the actor is not the
// sponsor.
func (s *Service) applyLock(ctx context.Context, ls LockStore, d *Domain, lock bool, cur DomainLock, now time.Time, actor, action string, relockAt time.Time) (*Domain, error) {
	ch := change(ctx, d, action, actor, now)
	next := DomainLock{Locked: lock}
	hostAdd, hostRem := HostLockStatuses, []string(nil)
	if lock {
		for _, st := range LockStatuses {
			if !slices.Contains(ch.Statuses, st) {
				ch.Statuses = append(ch.Statuses, st)
				next.Added = append(next.Added, st)
			}
		}
	} else {
		ch.Statuses = slices.DeleteFunc(ch.Statuses, func(st string) bool { return slices.Contains(cur.Added, st) })
		hostAdd, hostRem, next.RelockAt = nil, HostLockStatuses, relockAt
	}
	slices.Sort(ch.Statuses)
	ch.Result = "ok " + strings.Join(next.Added, " ")
	if !lock {
		ch.Result = "ok relock at " + relockAt.UTC().Format(time.RFC3339)
	}
	notify := actor != d.Registrar
	reason := map[string]string{"lock": "registry lock", "unlock": "registry unlock", "relock": "registry relock"}[action]
	if notify {
		ch.Notices = append(ch.Notices, changeMessage(ctx, after(d, ch), now, ChangeUpdate, action, actor, reason, "Registry "+action+" of "+d.Name+" ("+actor+")"))
	}
	out, err := s.store.ApplyChange(ctx, d, ch)
	if err != nil {
		return nil, err
	}
	hosts, err := ls.SubordinateHostStatuses(ctx, d.ID, hostAdd, hostRem, now)
	if err != nil {
		return nil, err
	}
	if notify && len(hosts) > 0 {
		var msgs []PollMessage
		for _, h := range hosts {
			h.Registrar = d.Registrar
			msgs = append(msgs, hostChangeMessage(ctx, h, d.RegistrarID, now, ChangeUpdate, action, actor, reason, "Registry "+action+" of "+h.Name+", under "+d.Name))
		}
		if err := s.Enqueue(ctx, msgs...); err != nil {
			return nil, err
		}
	}
	return out, ls.SetDomainLock(ctx, d.ID, next)
}

// relockDue locks again the domains whose unlock has ended (the lifecycle
// worker), each in a transaction of its own; it returns how many.
func (s *Service) relockDue(ctx context.Context, now time.Time) (int, error) {
	ls, ok := s.store.(LockStore)
	if !ok {
		return 0, nil
	}
	due, err := ls.RelockDue(ctx, now, 1000)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, dd := range due {
		z := s.zones[dd.Zone]
		if z == nil {
			continue
		}
		err := s.transact(ctx, func(ctx context.Context) error {
			d, err := s.domainIn(ctx, z, dd.Label)
			if err != nil {
				return err
			}
			cur, err := ls.DomainLock(ctx, d.ID)
			if err != nil || cur.Locked || cur.RelockAt.IsZero() || cur.RelockAt.After(now) {
				return err
			}
			if d.Deleted() { // deleted while unlocked: nothing to lock
				return ls.SetDomainLock(ctx, d.ID, DomainLock{})
			}
			if _, err := s.applyLock(ctx, ls, d, true, cur, now, "lifecycle", "relock", time.Time{}); err != nil {
				return err
			}
			n++
			return nil
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return n, err
		}
	}
	return n, nil
}

// hostLocked refuses a change of host h that a server status forbids: the
// host's own (statuses), or the superordinate domain's
// serverUpdateProhibited (its glue is the domain's delegation: a locked
// domain's hosts are not changed, deleted or added).
func (s *Service) hostLocked(ctx context.Context, h *Host, what string, statuses ...string) error {
	for _, st := range statuses {
		if has(h.Statuses, st) {
			return Errorf(CodeStatusProhibits, "host %s has status %s, which prohibits %s", h.Name, st, what)
		}
	}
	return s.superLocked(ctx, h.Name, h.SuperZone, h.SuperLabel, what)
}

// superLocked refuses a change of the host name under the domain label of
// zone (none: "") while the domain has serverUpdateProhibited.
func (s *Service) superLocked(ctx context.Context, name, zone, label, what string) error {
	if zone == "" {
		return nil
	}
	d, err := s.store.Domain(ctx, zone, label)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return prohibits(d, what+" of its subordinate host "+name, StatusServerUpdateProhibited)
}
