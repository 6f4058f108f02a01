package registry

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Login security (issue 38; RFC 8807, docs/epp.md "Login security"): EPP
// passwords of up to 128 characters, their expiry, and the events a login
// answers with — a password or client certificate expiring within 30, 7
// or 1 days (warnings), expired (the login refused), a new password
// refused. Every date is the registry's clock's (s.clock), so a staging
// registry whose clock runs ahead warns and expires ahead too.

// LoginSecPlaceholder is what RFC 8807 §4.1 puts in <pw> (<newPW>) when
// the password (the new one) is in <loginSec:pw> (<loginSec:newPW>). It
// is never a password (CheckEPPPassword).
const LoginSecPlaceholder = "[LOGIN-SECURITY]"

// LoginWarnings are how long before a password or client certificate
// expires a login is warned (RFC 8807 events of level warning): every
// login within the first, 30 days, is warned; the message names the
// nearest of 30, 7 and 1 days it is within.
var LoginWarnings = []time.Duration{30 * 24 * time.Hour, 7 * 24 * time.Hour, 24 * time.Hour}

// The codes of a login refused for an expired credential (EPP 2200 with
// an RFC 8807 event of level error; HTTP 401 for completeness: the API
// has tokens, not passwords).
const (
	CodePasswordExpired    = "PASSWORD_EXPIRED"
	CodeCertificateExpired = "CERTIFICATE_EXPIRED"
)

func init() {
	DefineCode(CodePasswordExpired, CodeInfo{HTTP: 401, EPP: 2200, Reason: "password expired"})
	DefineCode(CodeCertificateExpired, CodeInfo{HTTP: 401, EPP: 2200, Reason: "certificate expired"})
}

// RFC 8807 event types and levels (loginSec typeEnum, levelEnum) the
// registry decides on; the EPP server adds those of its transport
// (cipher, tlsProtocol, stat).
const (
	EventPassword    = "password"
	EventCertificate = "certificate"
	EventNewPW       = "newPW"
	LevelWarning     = "warning"
	LevelError       = "error"
)

// LoginEvent is a security event of a login (RFC 8807 §3.1).
type LoginEvent struct {
	Type    string    // EventPassword, EventCertificate, EventNewPW, …
	Level   string    // LevelWarning or LevelError
	ExDate  time.Time // the expiry it is about (zero: none)
	Message string    // for the registrar's people, in English
}

// EPPLoginRequest is an EPP login.
type EPPLoginRequest struct {
	ClID     string
	Password string
	// NewPassword, if not "", is the password the client changes to at
	// this login: it is checked here (a refusal is BAD_NAME with a newPW
	// event), and an expired password with a new one given logs in; the
	// caller then sets it (SetEPPPassword).
	NewPassword string
	// CertSHA256 is the SHA-256 (hex) of the client certificate, if any;
	// CertNotAfter its expiry (zero: no certificate).
	CertSHA256   string
	CertNotAfter time.Time
	// Addr is the client's address (checked against the registrar's
	// allow-list, allowlist.go; "" passes no allow-list).
	Addr string
}

// EPPLoginResult is what a login tells: the registrar, when its password
// expires (zero: never) and the login's events.
type EPPLoginResult struct {
	Registrar       *Registrar
	PasswordExpires time.Time
	Events          []LoginEvent
}

// LoginEPP authenticates an EPP login (EPPLogin: the name, password and
// pinned certificate, every failure alike, a revoked registrar told so),
// then, with the right credentials: the client address against the
// registrar's allow-list (ADDRESS_NOT_ALLOWED); the client certificate's
// expiry (expired: CERTIFICATE_EXPIRED; within 30 days: a warning); the
// new password, if one is given (BAD_NAME, with a newPW event, for one
// outside the limits or the current one); the password's expiry (expired
// without a new password: PASSWORD_EXPIRED; within 30 days: a warning).
// A refusal after the credentials were right returns the result too, with
// the events that say why.
func (s *Service) LoginEPP(ctx context.Context, req EPPLoginRequest) (*EPPLoginResult, error) {
	r, c, err := s.eppAuthenticate(ctx, req.ClID, req.Password, req.CertSHA256)
	if err != nil {
		return nil, err
	}
	res := &EPPLoginResult{Registrar: r, PasswordExpires: c.PasswordExpires}
	if err := CheckClientAddr(r, req.Addr); err != nil {
		return res, err
	}
	now := s.clock.Now()
	if t := req.CertNotAfter; !t.IsZero() {
		if !now.Before(t) {
			res.Events = append(res.Events, LoginEvent{Type: EventCertificate, Level: LevelError, ExDate: t,
				Message: "The client certificate expired on " + t.UTC().Format(time.RFC3339) + ": log in with a valid one"})
			return res, Errorf(CodeCertificateExpired, "the client certificate expired on %s", t.UTC().Format(time.RFC3339))
		}
		if w := warning(now, t); w != "" {
			res.Events = append(res.Events, LoginEvent{Type: EventCertificate, Level: LevelWarning, ExDate: t,
				Message: "The client certificate expires " + w})
		}
	}
	if req.NewPassword != "" {
		err := CheckEPPPassword(req.NewPassword)
		if err == nil && VerifyEPPPassword(c.PasswordHash, req.NewPassword) {
			err = Errorf(CodeBadName, "the new password is the current one: choose another")
		}
		if err != nil {
			res.Events = append(res.Events, LoginEvent{Type: EventNewPW, Level: LevelError, Message: "The new password was refused: " + ErrorMessage(err)})
			return res, err
		}
	}
	if t := c.PasswordExpires; !t.IsZero() {
		switch {
		case !now.Before(t) && req.NewPassword == "":
			res.Events = append(res.Events, LoginEvent{Type: EventPassword, Level: LevelError, ExDate: t,
				Message: "The password expired on " + t.UTC().Format(time.RFC3339) + ": log in with a new one (<newPW> or <loginSec:newPW>)"})
			return res, Errorf(CodePasswordExpired, "the EPP password of registrar %s expired on %s: log in with a new one (<newPW>)", r.Name, t.UTC().Format(time.RFC3339))
		case req.NewPassword == "":
			if w := warning(now, t); w != "" {
				res.Events = append(res.Events, LoginEvent{Type: EventPassword, Level: LevelWarning, ExDate: t,
					Message: "The password expires " + w + ": change it with <newPW> or <loginSec:newPW>"})
			}
		}
	}
	return res, nil
}

// ErrorMessage is the message of a registry error (err.Error() for
// another).
func ErrorMessage(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Message
	}
	return err.Error()
}

// warning is the text of an expiry at t seen at now, if it is within the
// first of LoginWarnings ("within 7 days, on 2026-…"), else "".
func warning(now, t time.Time) string {
	left := t.Sub(now)
	if len(LoginWarnings) == 0 || left > LoginWarnings[0] {
		return ""
	}
	within := LoginWarnings[0]
	for _, w := range LoginWarnings {
		if left <= w && w < within {
			within = w
		}
	}
	return "within " + days(within) + ", on " + t.UTC().Format(time.RFC3339)
}

func days(d time.Duration) string {
	n := int((d + 12*time.Hour) / (24 * time.Hour))
	if n == 1 {
		return "1 day"
	}
	return strconv.Itoa(n) + " days"
}

// expiresAfter is when a password set at changed expires under lifetime
// life (zero: never, for no lifetime).
func expiresAfter(changed time.Time, life time.Duration) time.Time {
	if life <= 0 {
		return time.Time{}
	}
	return changed.Add(life)
}

// passwordLifetime is the lifetime of a registrar's password: its own, or
// the registry's (0: none), read through ctx (a transaction's).
func (s *Service) passwordLifetime(ctx context.Context, es EPPStore, registrar string) (time.Duration, error) {
	_, c, err := es.EPPCredentials(ctx, registrar)
	switch {
	case err == nil && c.PasswordLifetime != nil:
		return *c.PasswordLifetime, nil
	case err != nil && CodeOf(err) != CodeNotFound:
		return 0, err
	}
	return es.EPPDefaultPasswordLifetime(ctx)
}

// MaxPasswordLifetime bounds a password lifetime (ten years).
const MaxPasswordLifetime = 10 * 366 * 24 * time.Hour

func checkLifetime(d time.Duration) error {
	if d < 0 || d > MaxPasswordLifetime {
		return Errorf(CodeBadName, "a password lifetime is 0 (none) to %s", FormatLifetime(MaxPasswordLifetime))
	}
	if d > 0 && d < time.Hour {
		return Errorf(CodeBadName, "a password lifetime of %v is too short: an hour at least", d)
	}
	return nil
}

// ParseLifetime reads a password lifetime: "90d" (days), a Go duration
// ("2160h"), or "never" (0).
func ParseLifetime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "never" || s == "0" {
		return 0, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		d, err := strconv.Atoi(n)
		if err != nil || d < 0 || d > 10*366 {
			return 0, Errorf(CodeBadName, "a lifetime in days is a number of days, such as 90d (not %q)", s)
		}
		return time.Duration(d) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, Errorf(CodeBadName, "a lifetime is a number of days (90d), a duration (2160h) or never (not %q)", s)
	}
	return d, nil
}

// FormatLifetime writes a lifetime as ParseLifetime reads it: "never",
// whole days as "90d", else a Go duration.
func FormatLifetime(d time.Duration) string {
	switch {
	case d <= 0:
		return "never"
	case d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

// EPPPasswordPolicy is a registrar's password age and expiry as the
// operator sees it (akshara registrar epp-password-lifetime).
type EPPPasswordPolicy struct {
	Changed time.Time     // when the password was set (zero: no password)
	Expires time.Time     // zero: never
	Own     bool          // the lifetime is the registrar's own (else the registry's)
	Life    time.Duration // the lifetime in force (0: none)
}

// EPPPasswordPolicyOf returns a registrar's password policy.
func (s *Service) EPPPasswordPolicyOf(ctx context.Context, registrar string) (*EPPPasswordPolicy, error) {
	es, err := s.eppStore()
	if err != nil {
		return nil, err
	}
	_, c, err := es.EPPCredentials(ctx, registrar)
	if err != nil {
		return nil, err
	}
	p := &EPPPasswordPolicy{Expires: c.PasswordExpires}
	if c.PasswordHash != "" {
		p.Changed = c.PasswordChanged
	}
	if c.PasswordLifetime != nil {
		p.Own, p.Life = true, *c.PasswordLifetime
	} else if p.Life, err = es.EPPDefaultPasswordLifetime(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// SetEPPPasswordLifetime sets a registrar's own password lifetime (nil:
// the registry's; 0: its password never expires) and so its password's
// expiry: the time it was set plus the lifetime. It is recorded in the
// audit log (action epp-password-lifetime), whatever the outcome.
func (s *Service) SetEPPPasswordLifetime(ctx context.Context, registrar string, life *time.Duration) error {
	err := s.setEPPPasswordLifetime(ctx, registrar, life)
	s.audit(ctx, AuditEntry{Registrar: registrar, Action: "epp-password-lifetime", Name: registrar, Result: resultOf(err)})
	return err
}

// SetEPPPasswordLifetimeText is SetEPPPasswordLifetime of a lifetime as
// the operator writes it (ParseLifetime; "default": the registry's): one
// it cannot read is refused and recorded too.
func (s *Service) SetEPPPasswordLifetimeText(ctx context.Context, registrar, text string) error {
	if strings.TrimSpace(text) == "default" {
		return s.SetEPPPasswordLifetime(ctx, registrar, nil)
	}
	d, err := ParseLifetime(text)
	if err != nil {
		s.audit(ctx, AuditEntry{Registrar: registrar, Action: "epp-password-lifetime", Name: registrar, Result: resultOf(err)})
		return err
	}
	return s.SetEPPPasswordLifetime(ctx, registrar, &d)
}

// SetEPPDefaultPasswordLifetimeText is SetEPPDefaultPasswordLifetime of a
// lifetime as the operator writes it: one it cannot read is refused and
// recorded too.
func (s *Service) SetEPPDefaultPasswordLifetimeText(ctx context.Context, text string) error {
	d, err := ParseLifetime(text)
	if err != nil {
		s.audit(ctx, AuditEntry{Registrar: "*", Action: "epp-password-lifetime", Name: "*", Result: resultOf(err)})
		return err
	}
	return s.SetEPPDefaultPasswordLifetime(ctx, d)
}

func (s *Service) setEPPPasswordLifetime(ctx context.Context, registrar string, life *time.Duration) error {
	if err := checkInput(registrar); err != nil {
		return err
	}
	if life != nil {
		if err := checkLifetime(*life); err != nil {
			return err
		}
	}
	es, err := s.eppStore()
	if err != nil {
		return err
	}
	return s.transact(ctx, func(ctx context.Context) error {
		var changed time.Time
		_, c, err := es.EPPCredentials(ctx, registrar)
		switch {
		case err == nil && c.PasswordHash != "":
			changed = c.PasswordChanged
		case err != nil && CodeOf(err) != CodeNotFound:
			return err
		}
		d := time.Duration(0)
		if life != nil {
			d = *life
		} else if d, err = es.EPPDefaultPasswordLifetime(ctx); err != nil {
			return err
		}
		var expires time.Time
		if !changed.IsZero() {
			expires = expiresAfter(changed, d)
		}
		return es.SetEPPPasswordLifetime(ctx, registrar, life, expires)
	})
}

// SetEPPDefaultPasswordLifetime sets the registry's password lifetime (0:
// none), which every registrar without one of its own follows: their
// passwords expire that long after they were set (at once, for those set
// longer ago). It is recorded in the audit log (action
// epp-password-lifetime, registrar "*"), whatever the outcome.
func (s *Service) SetEPPDefaultPasswordLifetime(ctx context.Context, d time.Duration) error {
	err := checkLifetime(d)
	var es EPPStore
	if err == nil {
		es, err = s.eppStore()
	}
	if err == nil {
		err = es.SetEPPDefaultPasswordLifetime(ctx, d)
	}
	s.audit(ctx, AuditEntry{Registrar: "*", Action: "epp-password-lifetime", Name: "*", Result: resultOf(err)})
	return err
}

// EPPDefaultPasswordLifetime is the registry's password lifetime (0:
// none).
func (s *Service) EPPDefaultPasswordLifetime(ctx context.Context) (time.Duration, error) {
	es, err := s.eppStore()
	if err != nil {
		return 0, err
	}
	return es.EPPDefaultPasswordLifetime(ctx)
}

// ExpireEPPPassword makes a registrar's password expire now: its next
// login must change it (<newPW>). It is recorded in the audit log (action
// epp-password-expire), whatever the outcome.
func (s *Service) ExpireEPPPassword(ctx context.Context, registrar string) error {
	err := checkInput(registrar)
	var es EPPStore
	if err == nil {
		es, err = s.eppStore()
	}
	if err == nil {
		err = es.SetEPPPasswordExpires(ctx, registrar, s.clock.Now())
	}
	s.audit(ctx, AuditEntry{Registrar: registrar, Action: "epp-password-expire", Name: registrar, Result: resultOf(err)})
	return err
}

// String writes a policy for the operator.
func (p *EPPPasswordPolicy) String() string {
	var b strings.Builder
	if p.Changed.IsZero() {
		b.WriteString("no password set")
	} else {
		b.WriteString("set " + p.Changed.UTC().Format(time.RFC3339))
	}
	if p.Expires.IsZero() {
		b.WriteString(", never expires")
	} else {
		b.WriteString(", expires " + p.Expires.UTC().Format(time.RFC3339))
	}
	whose := "the registry's"
	if p.Own {
		whose = "its own"
	}
	fmt.Fprintf(&b, " (lifetime %s, %s)", FormatLifetime(p.Life), whose)
	return b.String()
}
