package registry

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// EPPCredentials are how a registrar logs in over EPP.
type EPPCredentials struct {
	PasswordHash string // argon2id, PHC string form; "" = no password set
	CertSHA256   string // pinned client-certificate fingerprint (hex); "" = none
	Revoked      bool   // the registrar is revoked: no login
	// The password's age and expiry (loginsec.go): when it was set (the
	// registry's clock), when it expires (zero: never), and the
	// registrar's own lifetime (nil: the registry's; 0: never expires).
	PasswordChanged  time.Time
	PasswordExpires  time.Time
	PasswordLifetime *time.Duration
}

// EPPStore is implemented by stores that keep EPP credentials (the SQL
// stores do). It is separate from Store so that a store without EPP still
// serves the HTTP API.
type EPPStore interface {
	// SetEPPPassword stores the hash of a registrar's EPP password, when it
	// was set and when it expires (zero: never); ErrNotFound if there is
	// no such registrar.
	SetEPPPassword(ctx context.Context, registrar, hash string, changed, expires time.Time) error
	// SetEPPCertificate pins a registrar's client-certificate SHA-256
	// fingerprint ("" unpins); ErrNotFound if there is no such registrar.
	SetEPPCertificate(ctx context.Context, registrar, sha256hex string) error
	// EPPCredentials returns a registrar and its EPP credentials (with
	// whether it is revoked); ErrNotFound if the registrar does not exist
	// or has none.
	EPPCredentials(ctx context.Context, registrar string) (*Registrar, *EPPCredentials, error)

	// The password's lifetime and expiry (loginsec.go). The service
	// decides the dates; the store keeps them.

	// SetEPPPasswordLifetime sets a registrar's own password lifetime
	// (nil: the registry's) and its password's expiry (zero: never),
	// creating its credentials row if it has none; ErrNotFound if there is
	// no such registrar.
	SetEPPPasswordLifetime(ctx context.Context, registrar string, lifetime *time.Duration, expires time.Time) error
	// SetEPPPasswordExpires sets when a registrar's password expires
	// (zero: never); ErrNotFound if it has no EPP credentials.
	SetEPPPasswordExpires(ctx context.Context, registrar string, expires time.Time) error
	// EPPDefaultPasswordLifetime is the registry's password lifetime (0:
	// passwords do not expire).
	EPPDefaultPasswordLifetime(ctx context.Context) (time.Duration, error)
	// SetEPPDefaultPasswordLifetime sets it (0: none) and sets the expiry
	// of every password set under it (of the registrars without a lifetime
	// of their own) to the time it was set plus d (none for 0).
	SetEPPDefaultPasswordLifetime(ctx context.Context, d time.Duration) error
}

// The limits on an EPP password: at least 6 characters (the EPP schema's
// pwType and RFC 8807's), at most 128 (ours: RFC 8807's <loginSec:pw>
// has no upper bound); the EPP schema's <pw> and <newPW> carry at most
// EPPPlainPasswordMax, a longer one goes in <loginSec:pw> or
// <loginSec:newPW> (loginsec.go).
const (
	EPPPasswordMin      = 6
	EPPPasswordMax      = 128
	EPPPlainPasswordMax = 16
)

// argon2id parameters: OWASP's minimum (19 MiB, 2 passes, 1 lane).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// hashSlots bounds the argon2id hashes computed at once (each takes 19 MiB
// and a core for tens of milliseconds): a flood of logins waits here
// instead of exhausting memory.
var hashSlots = make(chan struct{}, 2)

// HashEPPPassword hashes pw with argon2id and a random salt, in the PHC
// string form ($argon2id$v=19$m=…,t=…,p=…$salt$hash).
func HashEPPPassword(pw string) (string, error) { return hashArgon2(pw, argonTime, argonMemory) }

// hashArgon2 is argon2id of pw with t passes over m KiB, in PHC form.
func hashArgon2(pw string, t, m uint32) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	hashSlots <- struct{}{}
	key := argon2.IDKey([]byte(pw), salt, t, m, argonThreads, argonKeyLen)
	<-hashSlots
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, m, t, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// VerifyEPPPassword reports whether pw matches hash (made by
// HashEPPPassword, with the parameters recorded in it).
func VerifyEPPPassword(hash, pw string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var v int
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m == 0 || m > 1<<20 || t == 0 || t > 16 || p == 0 {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 || len(want) > 64 {
		return false
	}
	hashSlots <- struct{}{}
	got := argon2.IDKey([]byte(pw), salt, t, m, p, uint32(len(want)))
	<-hashSlots
	return subtle.ConstantTimeCompare(got, want) == 1
}

// CheckEPPPassword applies the limits: 6 to 128 characters of an XML
// token (no leading, trailing or double spaces, no tabs or newlines), not
// RFC 8807's placeholder "[LOGIN-SECURITY]".
func CheckEPPPassword(pw string) error {
	n := len([]rune(pw))
	if n < EPPPasswordMin || n > EPPPasswordMax {
		return Errorf(CodeBadName, "an EPP password has %d to %d characters (this one has %d)", EPPPasswordMin, EPPPasswordMax, n)
	}
	if pw == LoginSecPlaceholder {
		return Errorf(CodeBadName, "%s is RFC 8807's placeholder, not a password", LoginSecPlaceholder)
	}
	if strings.TrimSpace(pw) != pw || strings.Contains(pw, "  ") || strings.ContainsAny(pw, "\t\r\n") {
		return Errorf(CodeBadName, "an EPP password is an XML token: no leading, trailing or double spaces, no tabs or newlines")
	}
	return nil
}

func (s *Service) eppStore() (EPPStore, error) {
	es, ok := s.store.(EPPStore)
	if !ok {
		return nil, Errorf(CodeInternal, "the store keeps no EPP credentials")
	}
	return es, nil
}

// SetEPPPassword sets a registrar's EPP password (only its hash is kept).
// It is recorded in the audit log (action epp-password), whatever the
// outcome.
func (s *Service) SetEPPPassword(ctx context.Context, registrar, pw string) error {
	err := s.setEPPPassword(ctx, registrar, pw)
	s.audit(ctx, AuditEntry{Registrar: registrar, Action: "epp-password", Name: registrar, Result: resultOf(err)}) // a failure is logged and counted
	return err
}

func (s *Service) setEPPPassword(ctx context.Context, registrar, pw string) error {
	if n := utf8.RuneCountInString(registrar); n < 3 || n > 16 || strings.Join(strings.Fields(registrar), " ") != registrar {
		return Errorf(CodeBadName, "registrar %q cannot log in over EPP: its <clID> would be its name, 3 to 16 characters without leading, trailing or double spaces", registrar)
	}
	if err := CheckEPPPassword(pw); err != nil {
		return err
	}
	es, err := s.eppStore()
	if err != nil {
		return err
	}
	h, err := HashEPPPassword(pw)
	if err != nil {
		return &Error{Code: CodeInternal, Message: "hashing the password", Err: err}
	}
	// its expiry from the registrar's lifetime or the registry's, read in
	// the same transaction as the write (loginsec.go)
	return s.transact(ctx, func(ctx context.Context) error {
		now := s.clock.Now()
		life, err := s.passwordLifetime(ctx, es, registrar)
		if err != nil {
			return err
		}
		return es.SetEPPPassword(ctx, registrar, h, now, expiresAfter(now, life))
	})
}

// SetEPPCertificate pins (or, with "", unpins) a registrar's EPP
// client-certificate SHA-256 fingerprint (hex; colons allowed). It is
// recorded in the audit log (action epp-cert), whatever the outcome.
func (s *Service) SetEPPCertificate(ctx context.Context, registrar, fingerprint string) error {
	err := s.setEPPCertificate(ctx, registrar, fingerprint)
	s.audit(ctx, AuditEntry{Registrar: registrar, Action: "epp-cert", Name: registrar, Result: resultOf(err)}) // a failure is logged and counted
	return err
}

func (s *Service) setEPPCertificate(ctx context.Context, registrar, fingerprint string) error {
	if err := checkInput(registrar); err != nil {
		return err
	}
	fp := strings.ToLower(strings.ReplaceAll(fingerprint, ":", ""))
	if fp != "" && (len(fp) != 64 || strings.Trim(fp, "0123456789abcdef") != "") {
		return Errorf(CodeBadName, "a SHA-256 fingerprint has 64 hex digits")
	}
	es, err := s.eppStore()
	if err != nil {
		return err
	}
	return es.SetEPPCertificate(ctx, registrar, fp)
}

// EPPLogin authenticates a registrar over EPP: its name, its EPP password
// and, if the registrar has a pinned fingerprint, the SHA-256 (hex) of the
// client certificate presented. Every failure is ErrUnauthorized with the
// same message, so that a client cannot tell which part was wrong; only a
// client with the right credentials of a revoked registrar is told that it
// is revoked (ErrUnauthorized too). It is LoginEPP without a client
// address (a registrar with an address allow-list is refused), a
// certificate's expiry or a new password.
func (s *Service) EPPLogin(ctx context.Context, clID, pw, certSHA256 string) (*Registrar, error) {
	res, err := s.LoginEPP(ctx, EPPLoginRequest{ClID: clID, Password: pw, CertSHA256: certSHA256})
	if err != nil {
		return nil, err
	}
	return res.Registrar, nil
}

// eppAuthenticate checks a registrar's name, password and pinned
// certificate (EPPLogin), and returns the registrar and its credentials.
func (s *Service) eppAuthenticate(ctx context.Context, clID, pw, certSHA256 string) (*Registrar, *EPPCredentials, error) {
	fail := Errorf(CodeUnauthorized, "authentication failed: wrong client identifier, password or certificate")
	es, err := s.eppStore()
	if err != nil {
		return nil, nil, err
	}
	r, c, err := es.EPPCredentials(ctx, clID)
	if CodeOf(err) == CodeNotFound {
		VerifyEPPPassword(dummyHash(), pw) // the same work as for a registrar that exists
		return nil, nil, fail
	}
	if err != nil {
		return nil, nil, err
	}
	hash := c.PasswordHash
	if hash == "" { // a certificate pinned before any password was set
		VerifyEPPPassword(dummyHash(), pw)
		return nil, nil, fail
	}
	if !VerifyEPPPassword(hash, pw) {
		return nil, nil, fail
	}
	if c.CertSHA256 != "" && subtle.ConstantTimeCompare([]byte(c.CertSHA256), []byte(strings.ToLower(certSHA256))) != 1 {
		return nil, nil, fail
	}
	if c.Revoked {
		return nil, nil, Errorf(CodeUnauthorized, "registrar %s is revoked: ask the registry operator", r.Name)
	}
	return r, c, nil
}

// dummyHash is verified against when the registrar does not exist.
var dummyHash = sync.OnceValue(func() string {
	h, _ := HashEPPPassword("not a password")
	return h
})
