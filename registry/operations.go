package registry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"

	"github.com/akshara-idn/akshara"
)

// MaxNameBytes is the longest name (label.zone, as given) any operation
// accepts, in bytes: a domain name is at most 253 octets in A-label form,
// and a U-label is at most four UTF-8 bytes per code point, so nothing a
// registry can hold is longer. Longer input is refused with BAD_NAME
// before it reaches a store (nor is it kept whole in the audit log).
const MaxNameBytes = 1024

// maxAuditName is the longest name kept in an audit record, in bytes.
const maxAuditName = 256

// CodeRevoked refuses what a revoked registrar may not have: a token
// rotation (reinstate it instead) or, over EPP, a command in a session
// opened before the revocation.
const CodeRevoked = "REVOKED"

// RegistrarInfo is a registrar as operators see it.
type RegistrarInfo struct {
	Registrar
	Revoked time.Time `json:"revoked,omitzero"` // zero while the token works
	Domains int       `json:"domains"`
	// Abuse is the registrar's abuse contact (registrars.go).
	Abuse AbuseContact `json:"abuse,omitzero"`
}

// AuditFilter selects audit records; zero fields select everything.
type AuditFilter struct {
	Registrar string
	Name      string // exact name as recorded
	Action    string
	Since     time.Time // inclusive
	Until     time.Time // exclusive
	AfterID   int64     // records with a larger ID only (a cursor)
	Limit     int       // at most this many (0: no limit)
}

// ReservedName is a label an operator holds back in a zone.
type ReservedName struct {
	Zone    string    `json:"zone"`
	Label   string    `json:"label"` // canonical U-label (or LDH label)
	Reason  string    `json:"reason"`
	Created time.Time `json:"created"`
}

// OperatorStore is what the registry operator's commands need of a store.
type OperatorStore interface {
	// Registrars lists every registrar, revoked ones included.
	Registrars(ctx context.Context) ([]RegistrarInfo, error)
	// RevokeRegistrar stops the registrar at once: its API token and its
	// EPP logins (ErrNotFound if there is no such registrar). Revoking a
	// revoked registrar keeps the first revocation's time.
	RevokeRegistrar(ctx context.Context, name string) error
	// RotateToken replaces the token hash of a registrar that is not
	// revoked: ErrNotFound if there is no such registrar, CodeRevoked if it
	// is revoked (a rotation never lifts a revocation).
	RotateToken(ctx context.Context, name string, tokenHash []byte) error
	// ReinstateRegistrar lifts a revocation and replaces the token hash in
	// one step; ErrNotFound if there is no revoked registrar of that name.
	ReinstateRegistrar(ctx context.Context, name string, tokenHash []byte) error
	// RegistrarRevoked reports whether the registrar of this ID is revoked
	// (ErrNotFound if there is none). EPP asks it before each command of a
	// session, so it is one lookup by primary key.
	RegistrarRevoked(ctx context.Context, id int64) (bool, error)
	// AuditQuery returns the records f selects, oldest first.
	AuditQuery(ctx context.Context, f AuditFilter) ([]AuditEntry, error)

	// Reserve holds back a label of a zone (ErrExists if it is already).
	Reserve(ctx context.Context, r ReservedName) error
	// Unreserve releases it (ErrNotFound if it was not reserved).
	Unreserve(ctx context.Context, zone, label string) error
	// ReservedNames lists the reserved labels of a zone ("" for all).
	ReservedNames(ctx context.Context, zone string) ([]ReservedName, error)
	// FindReserved returns the first of labels reserved in zone or in
	// another zone of its family (SetFamilies), or ErrNotFound.
	FindReserved(ctx context.Context, zone string, labels []string) (*ReservedName, error)

	// Ready reports whether the database answers and takes a durable
	// write (it fails while the disk is full).
	Ready(ctx context.Context) error
}

// checkInput is the validation every name gets before anything else, in
// every operation: not empty, not longer than MaxNameBytes, valid UTF-8,
// and no control characters (U+0000 among them, which PostgreSQL cannot
// store in text and no label may hold).
func checkInput(input string) error {
	switch {
	case input == "":
		return Errorf(CodeBadName, "the name is empty")
	case len(input) > MaxNameBytes:
		return Errorf(CodeBadName, "the name is longer than %d bytes", MaxNameBytes)
	case !utf8.ValidString(input):
		return Errorf(CodeBadName, "the name is not valid UTF-8")
	}
	for i, r := range input {
		if unicode.IsControl(r) {
			return Errorf(CodeBadName, "the name has the control character U+%04X at byte %d", r, i)
		}
	}
	return nil
}

// auditName is the name as it is kept in the audit log: valid UTF-8
// without control characters (each becomes U+FFFD), at most maxAuditName
// bytes (a longer one is cut on a character boundary and marked with …).
func auditName(name string) string {
	name = strings.ToValidUTF8(name, "\uFFFD")
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, name)
	if len(name) <= maxAuditName {
		return name
	}
	cut := maxAuditName - len("…")
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "…"
}

// SetLogger sets where the service reports what it cannot return to a
// caller, such as an audit write that failed. The default discards.
func (s *Service) SetLogger(l *slog.Logger) { s.log.Store(l) }

// AuditFailures counts the audit writes that failed since the service
// started (each is logged too).
func (s *Service) AuditFailures() uint64 { return s.auditFailures.Load() }

func (s *Service) logger() *slog.Logger {
	if l := s.log.Load(); l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
}

// audit records an action that failed before any transaction (a
// successful create or delete is recorded in its own transaction). The
// write does not share the request's deadline: a request that timed out
// is recorded too. A failed write is logged and counted, and returned.
func (s *Service) audit(ctx context.Context, e AuditEntry) error {
	e.withChannel(ctx)
	if e.At.IsZero() {
		e.At = s.clock.Now()
	}
	e.Name = auditName(e.Name)
	e.Registrar = auditName(e.Registrar)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := s.store.Audit(ctx, e)
	if err != nil {
		s.auditFailures.Add(1)
		s.logger().Error("audit write failed", "action", e.Action, "registrar", e.Registrar, "name", e.Name, "result", e.Result, "error", err)
	}
	return err
}

// Registrars lists the registrars.
func (s *Service) Registrars(ctx context.Context) ([]RegistrarInfo, error) {
	return s.store.Registrars(ctx)
}

// RevokeRegistrar stops a registrar at once on every channel: its API
// token, EPP logins and the EPP sessions it has open (each ends at its
// next command, see RegistrarActive). It records it, whatever the outcome.
func (s *Service) RevokeRegistrar(ctx context.Context, name string) error {
	err := checkInput(name)
	if err == nil {
		err = s.store.RevokeRegistrar(ctx, name)
	}
	s.audit(ctx, AuditEntry{Registrar: name, Action: "registrar-revoke", Name: name, Result: resultOf(err)}) // a failure is logged and counted
	return err
}

// RotateToken gives a registrar a new token (the old one stops working at
// once) and returns it, shown once; it records it, whatever the outcome.
// A revoked registrar's token is not rotated (CodeRevoked): lifting a
// revocation is ReinstateRegistrar's, on its own.
func (s *Service) RotateToken(ctx context.Context, name string) (string, error) {
	return s.newTokenFor(ctx, name, "registrar-rotate", s.store.RotateToken)
}

// ReinstateRegistrar lifts a registrar's revocation: it may log in over
// EPP again (with its EPP password and certificate as they were) and gets
// a new API token, returned and shown once; the token it had before the
// revocation stays dead. ErrNotFound if there is no revoked registrar of
// that name. It records it, whatever the outcome.
func (s *Service) ReinstateRegistrar(ctx context.Context, name string) (string, error) {
	return s.newTokenFor(ctx, name, "registrar-reinstate", s.store.ReinstateRegistrar)
}

func (s *Service) newTokenFor(ctx context.Context, name, action string, store func(context.Context, string, []byte) error) (string, error) {
	err := checkInput(name)
	var token string
	if err == nil {
		token, err = newToken()
	}
	if err == nil {
		err = store(ctx, name, HashToken(token))
	}
	s.audit(ctx, AuditEntry{Registrar: name, Action: action, Name: name, Result: resultOf(err)}) // a failure is logged and counted
	if err != nil {
		return "", err
	}
	return token, nil
}

// RegistrarActive returns nil while registrar r is not revoked, an error
// of CodeRevoked once it is (whichever process revoked it: the answer
// comes from the store), and the store's error if it cannot tell.
func (s *Service) RegistrarActive(ctx context.Context, r *Registrar) error {
	revoked, err := s.store.RegistrarRevoked(ctx, r.ID)
	if err != nil {
		return err
	}
	if revoked {
		return Errorf(CodeRevoked, "registrar %s was revoked by the registry operator", r.Name)
	}
	return nil
}

func newToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "ak_" + hex.EncodeToString(b[:]), nil
}

func resultOf(err error) string {
	if err == nil {
		return "ok"
	}
	return CodeOf(err)
}

// Audit returns the audit records f selects, oldest first. Its strings
// are checked as names are (no record holds a control character or broken
// UTF-8, and PostgreSQL cannot compare text with a NUL).
func (s *Service) Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	for what, v := range map[string]string{"registrar": f.Registrar, "name": f.Name, "action": f.Action} {
		if v == "" {
			continue
		}
		if err := checkInput(v); err != nil {
			return nil, Errorf(CodeBadName, "the %s to look for: %s", what, err.(*Error).Message)
		}
	}
	return s.store.AuditQuery(ctx, f)
}

// canonicalLabel judges label.zone for an operator's table (reserved
// names): it must be a valid name of the zone in some language (or LDH).
func (s *Service) canonicalLabel(input string) (*Zone, canonical, error) {
	n, c, err := s.judgeName(input, "")
	if err != nil {
		return nil, canonical{}, err
	}
	if len(c.errs) > 0 {
		return nil, canonical{}, &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s is not a valid label of %s", n.label, n.zone.Name), Errors: c.errs}
	}
	return n.zone, c, nil
}

// Reserve holds back label.zone (and, through its conflict set, every
// name that would block it): checks answer reserved and creates are
// refused with RESERVED. The label is stored canonical.
func (s *Service) Reserve(ctx context.Context, input, reason string) (*ReservedName, error) {
	z, c, err := s.canonicalLabel(input)
	if err != nil {
		return nil, err
	}
	r := ReservedName{Zone: z.Name, Label: c.label, Reason: strings.TrimSpace(reason), Created: s.clock.Now()}
	if len(r.Reason) > 200 || !utf8.ValidString(r.Reason) {
		return nil, Errorf(CodeBadName, "a reason has at most 200 bytes of UTF-8")
	}
	if err := s.store.Reserve(ctx, r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Unreserve releases a reserved label.zone.
func (s *Service) Unreserve(ctx context.Context, input string) error {
	z, label, err := s.locate(input)
	if err != nil {
		return err
	}
	return s.store.Unreserve(ctx, z.Name, label)
}

// ReservedNames lists the reserved labels of a zone ("" for every zone).
func (s *Service) ReservedNames(ctx context.Context, zone string) ([]ReservedName, error) {
	if zone != "" {
		z := s.zoneByName(zone)
		if z == nil {
			return nil, Errorf(CodeUnknownZone, "there is no zone %q", zone)
		}
		zone = z.Name
	}
	return s.store.ReservedNames(ctx, zone)
}

func (s *Service) zoneByName(zone string) *Zone {
	return s.zones[zoneKey(strings.TrimSuffix(zone, "."))]
}

// reservedAmong returns the reserved name among a conflict set, or nil.
func (s *Service) reservedAmong(ctx context.Context, zone string, blocks []string) (*ReservedName, error) {
	r, err := s.store.FindReserved(ctx, zone, blocks)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return r, err
}

// Ready reports whether the store answers and takes a durable write.
func (s *Service) Ready(ctx context.Context) error { return s.store.Ready(ctx) }

// NewZone makes a zone from its name and languages, with the default
// lengths, checking both: the name must be a valid IDNA2008 name (one
// label), every language must exist.
func NewZone(name string, langs []string, ldh bool) (Zone, error) {
	name = norm.NFC.String(strings.TrimSuffix(strings.TrimSpace(name), "."))
	if isASCII(name) {
		name = strings.ToLower(name)
	}
	if name == "" || strings.Contains(name, ".") {
		return Zone{}, Errorf(CodeBadName, "a zone is one label, such as भारत or in")
	}
	if err := checkInput(name); err != nil {
		return Zone{}, err
	}
	a, err := idna.Registration.ToASCII(name)
	if err != nil {
		return Zone{}, Errorf(CodeBadName, "%q is not a valid zone name: %v", name, err)
	}
	if len(langs) == 0 && !ldh {
		return Zone{}, Errorf(CodeUnknownLanguage, "a zone needs at least one language (or plain LDH labels)")
	}
	z := Zone{Name: name, ALabel: a, LDH: ldh, MinLength: akshara.MinLength, MaxLength: akshara.MaxALabelLength, Lifecycle: akshara.DefaultLifecycle()}
	for _, tag := range langs {
		l, err := akshara.Lookup(tag)
		if err != nil {
			return Zone{}, Errorf(CodeUnknownLanguage, "there is no language %q", tag)
		}
		z.Languages = append(z.Languages, l.Tag)
	}
	if z.Languages == nil {
		z.Languages = []string{}
	}
	return z, nil
}

// AddZone creates a zone in the store (ErrExists if there is one of that
// name); a running server takes it on its next start. It is for the
// operator's command: not safe for use beside other calls.
func (s *Service) AddZone(ctx context.Context, z Zone) error {
	if s.zones[z.Name] != nil || s.zones[z.ALabel] != nil {
		return Errorf(CodeExists, "zone %s exists", z.Name)
	}
	rel, err := s.zoneRelation(&z)
	if err != nil {
		return &Error{Code: CodeInternal, Message: "zone " + z.Name, Err: err}
	}
	if err := s.store.EnsureZones(ctx, []Zone{z}); err != nil {
		return err
	}
	s.relations[z.Name] = rel
	s.list = append(s.list, z)
	for i := range s.list {
		s.index(&s.list[i])
	}
	return nil
}

func isControl(r rune) bool { return unicode.IsControl(r) }

// CheckRegistrarName returns BAD_NAME unless name (trimmed of spaces) is a
// registrar name: 1 to 100 bytes of UTF-8 with no control character and no
// format character (Unicode Cf: the bidi overrides and isolates, the
// zero-width space and joiners, the byte-order mark), which would make
// two registrars' names look alike or a name show otherwise than it is
// stored in audit records and RDAP.
func CheckRegistrarName(name string) error {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 || !utf8.ValidString(name) || strings.IndexFunc(name, isControl) >= 0 ||
		strings.IndexFunc(name, func(r rune) bool { return unicode.Is(unicode.Cf, r) }) >= 0 {
		return Errorf(CodeBadName, "a registrar name has 1 to 100 bytes of UTF-8, no control characters, bidi controls or zero-width characters")
	}
	return nil
}
