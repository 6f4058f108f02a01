// Package registry is the domain of an IDN registry that applies the policy
// when names are registered: zones, registrars, domains and their conflict
// sets, and the audit log. "First use of either one of the characters shall
// automatically disallow the other": registering a name inserts the name
// and its whole conflict set (akshara.Language.ConflictSet) atomically
// under a uniqueness constraint per zone, so no interleaving of concurrent
// creates can allocate two conflicting names.
//
// Store is implemented by package sqlite (embedded default) and package
// postgres; Service canonicalizes names and applies the policy on top.
package registry

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/akshara-idn/akshara"
)

// Zone is a top-level zone names are registered under, such as भारत or in.
type Zone struct {
	Name      string   `json:"name"`   // U-label (NFC)
	ALabel    string   `json:"alabel"` // A-label, or the name for an ASCII zone
	Languages []string `json:"languages"`
	LDH       bool     `json:"ldh"`        // plain ASCII letter-digit-hyphen labels allowed (the .in rules)
	MinLength int      `json:"min_length"` // code points
	MaxLength int      `json:"max_length"` // A-label octets
	// MaxNameServers is the most name servers a domain of the zone has
	// (the zones file's max-nameservers; 0: DefaultMaxNameServers).
	MaxNameServers int `json:"max_nameservers,omitempty"`
	// Lifecycle is the zone's registration policy (periods, grace and
	// deletion periods), from the zones file (akshara.DefaultLifecycle for
	// a zone it does not name).
	Lifecycle akshara.ZoneLifecycle `json:"-"`
	// Family is the key (first member) of the zone's variant TLD family,
	// from the zones file; "" for a zone of none. FamilyVariants are the
	// family's own variant rows (on its first member).
	Family         string     `json:"family,omitempty"`
	FamilyVariants [][]string `json:"-"`
	// Contacts is which contacts an EPP domain create must carry (the
	// zones file's `contacts`; docs/contacts.md).
	Contacts akshara.ZoneContacts `json:"-"`
	// Variants is who may hold a registered name's variants (the zones
	// file's `variants`; docs/variants.md, "Same entity").
	Variants akshara.VariantPolicy `json:"-"`
}

// Registrar is an account that registers domains.
type Registrar struct {
	ID      int64     `json:"id"`
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	// AllowFrom is the registrar's address allow-list (allowlist.go; empty:
	// every address), as RegistrarByToken and EPPCredentials read it.
	AllowFrom []netip.Prefix `json:"-"`
}

// Domain is a registered name.
type Domain struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`   // label.zone, U-labels (NFC)
	ALabel    string `json:"alabel"` // label.zone, A-labels
	Label     string `json:"label"`  // the second-level U-label
	Zone      string `json:"zone"`
	Lang      string `json:"lang"`      // language tag, or "ldh"
	Registrar string `json:"registrar"` // name of the registrar
	// RegistrarID is the registrar's ID (as read from a store; a create
	// does not need it set).
	RegistrarID int64     `json:"-"`
	Created     time.Time `json:"created"`
	// Blocks is the conflict set: the U-labels (including Label) that no
	// other domain of the zone may hold.
	Blocks []string `json:"blocks"`
	// DataVersion is the policy data version (akshara.DataVersion) the
	// domain was judged under when it was registered or last re-audited.
	DataVersion string `json:"data_version"`
	// Legacy lists the policy's rule codes for a name the policy refuses
	// that was kept by an import with -allow-invalid (docs/import.md);
	// empty for every name registered under the policy.
	Legacy []string `json:"legacy,omitempty"`
	// Exempted says the domain conflicts with other registered domains and
	// is kept with them, because all were registered before the conflict
	// relation that makes them conflict (see docs/registry.md). ExemptWith
	// names them (label.zone). No new domain may conflict with any of them.
	Exempted   bool     `json:"exempted"`
	ExemptWith []string `json:"exempt_with,omitempty"`
	// NameServers (host names, A-label form) and DS records of the domain
	// (docs/delegation.md); loaded by Service.Info.
	NameServers []string `json:"name_servers,omitempty"`
	DS          []DS     `json:"ds,omitempty"`
	// Contacts are the domain's registrant and admin/tech/billing
	// contacts (contacts.go); loaded by Service.Info.
	Contacts []DomainContact `json:"contacts,omitempty"`

	// The lifecycle (lifecycle.go, docs/lifecycle.md).
	//
	// Expires is the expiry date (zero: none recorded, such as a domain
	// imported without one). Statuses is the set of EPP statuses stored on
	// the domain (client* and server* statuses, pendingDelete,
	// redemptionPeriod, pendingRestore, and those other parts of the
	// registry set), sorted; empty means ok (EPPStatuses adds what is
	// derived from time, such as addPeriod). RedemptionEnds and PurgeAt
	// are set while the domain is deleted and not yet purged: it keeps its
	// whole conflict set until PurgeAt.
	Expires        time.Time `json:"expires,omitzero"`
	Updated        time.Time `json:"updated,omitzero"`
	Statuses       []string  `json:"statuses"`
	RedemptionEnds time.Time `json:"redemption_ends,omitzero"`
	PurgeAt        time.Time `json:"purge_at,omitzero"`
	Renewed        time.Time `json:"-"` // the last renew (renewPeriod runs from it)
	AutoRenewed    time.Time `json:"-"` // the last auto-renew (autoRenewPeriod)
	// Rev increases with every change of the domain: a change applies
	// only to the revision it was decided on (Store.ApplyChange).
	Rev int64 `json:"-"`
	// AuthInfoHash is, for a create, the hash of the authInfo to store
	// with the domain (HashAuthInfo); never read back.
	AuthInfoHash string `json:"-"`
	// Group is the domain's variant group (docs/variants.md, "Same
	// entity"), 0 for none: the names of one registrant under a zone's
	// same-entity policy, which hold one conflict set. VariantGroup names
	// its other members (label.zone, oldest first), loaded by Service.Info
	// (Service.VariantGroup reads the whole group).
	Group        int64    `json:"-"`
	VariantGroup []string `json:"variant_group,omitempty"`
}

// RecomputeReport says what recomputing the stored conflict sets under a
// new conflict relation did.
type RecomputeReport struct {
	From, To string // the relation versions ("" for a database that had none)
	Domains  int    // domains whose conflict sets were recomputed
	Changed  int    // of which the conflict set changed
	// Exempted lists the pairs of domains that conflict under the new
	// relation and are both kept, exempted (label.zone each).
	Exempted [][2]string
}

// AuditEntry is one record of the append-only audit log.
type AuditEntry struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	Registrar string    `json:"registrar"`
	Action    string    `json:"action"` // create, delete, registrar-add
	Name      string    `json:"name"`
	Result    string    `json:"result"` // ok, or the error code
	// Channel is the front end the command came through (epp, http, cli,
	// worker; "" for records made before it was kept), and ClTRID and
	// SvTRID its EPP transaction identifiers (WithChannel).
	Channel string `json:"channel,omitempty"`
	ClTRID  string `json:"cltrid,omitempty"`
	SvTRID  string `json:"svtrid,omitempty"`
}

// Status is the answer to a check.
type Status string

// The statuses of a check.
const (
	Available  Status = "available"
	Invalid    Status = "invalid"
	Registered Status = "registered"
	Blocked    Status = "blocked"
	Reserved   Status = "reserved" // held back by the registry operator (akshara reserve)
)

// CheckResult is the answer to "may this name be registered?".
type CheckResult struct {
	Name      string           `json:"name"`   // label.zone as given
	ULabel    string           `json:"ulabel"` // canonical label.zone (U-labels), when valid
	ALabel    string           `json:"alabel"` // canonical label.zone (A-labels), when valid
	Zone      string           `json:"zone"`
	Lang      string           `json:"lang"`
	Status    Status           `json:"status"`
	Errors    []*akshara.Error `json:"errors"`               // why it is invalid
	BlockedBy string           `json:"blocked_by,omitempty"` // for blocked: the registered domain that blocks it (never set for registered)
	// For a name registered or blocked by a deleted domain that is not
	// purged yet: the holder's state (redemptionPeriod, pendingRestore or
	// pendingDelete) and when its conflict set is freed.
	HolderState string    `json:"holder_state,omitempty"`
	FreesAt     time.Time `json:"frees_at,omitzero"`
	Variants    []string  `json:"variants"` // the label's conflict set but itself
	// DataVersion is the policy data version the verdict was reached under.
	DataVersion string `json:"data_version"`
	// For a registered name that is exempted (see Domain.Exempted): the
	// domains it is kept with.
	Exempted   bool     `json:"exempted,omitempty"`
	ExemptWith []string `json:"exempt_with,omitempty"`
	// SameEntity names, for a name blocked under its zone's same-entity
	// policy (docs/variants.md, "Same entity"), the holder whose
	// registrant alone may register it (through the holder's registrar,
	// to whom CheckFor says available).
	SameEntity      string `json:"same_entity,omitempty"`
	holderRegistrar string
}

// Error codes of the registry, beside the policy's rule codes (which come
// with ErrInvalid). They are stable: the HTTP API returns them.
const (
	CodeInvalid         = "INVALID_LABEL"
	CodeConflict        = "CONFLICT"
	CodeNotFound        = "NOT_FOUND"
	CodeForbidden       = "FORBIDDEN"
	CodeUnauthorized    = "UNAUTHORIZED"
	CodeUnknownZone     = "UNKNOWN_ZONE"
	CodeUnknownLanguage = "UNKNOWN_LANGUAGE"
	CodeBadName         = "BAD_NAME"
	CodeExists          = "EXISTS"
	CodeInternal        = "INTERNAL"
	CodeReserved        = "RESERVED"    // the name is reserved by the registry operator
	CodeUnavailable     = "UNAVAILABLE" // the database cannot take writes now (disk full, down)
	// The lifecycle's (lifecycle.go).
	CodeWrongExpiry  = "WRONG_EXPIRY"  // a renew's current expiry date is not the domain's
	CodeNotRenewable = "NOT_RENEWABLE" // the renewal would pass the 10-year horizon
	CodeBadStatus    = "BAD_STATUS"    // a status the caller may not set or remove
)

// Error is a registry error with a stable code.
type Error struct {
	Code    string
	Message string
	// For CodeInvalid: the policy's errors.
	Errors []*akshara.Error
	// For CodeConflict: the registered domain that blocks the name.
	BlockedBy string
	Err       error // an underlying cause, for Internal
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is lets errors.Is match by code: errors.Is(err, registry.ErrConflict).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == "" && t.Err == nil
}

// Sentinels to compare errors with errors.Is.
var (
	ErrInvalid         = &Error{Code: CodeInvalid}
	ErrConflict        = &Error{Code: CodeConflict}
	ErrNotFound        = &Error{Code: CodeNotFound}
	ErrForbidden       = &Error{Code: CodeForbidden}
	ErrUnauthorized    = &Error{Code: CodeUnauthorized}
	ErrUnknownZone     = &Error{Code: CodeUnknownZone}
	ErrUnknownLanguage = &Error{Code: CodeUnknownLanguage}
	ErrBadName         = &Error{Code: CodeBadName}
	ErrExists          = &Error{Code: CodeExists}
	ErrReserved        = &Error{Code: CodeReserved}
)

// Errorf makes an *Error.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the stable code of err (CodeInternal for an error that is
// not a registry error).
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// Store keeps zones, registrars, domains, conflict sets and the audit log.
// Implementations make CreateDomain atomic: the domain and every label of
// its conflict set are inserted in one transaction under a unique index on
// (zone, label), and a label already held makes it fail with ErrConflict
// naming the holder. Nothing is checked first and inserted after.
type Store interface {
	// Atomic runs f as one transaction (one command, one transaction:
	// flow.go): every method of the store called with the context f is
	// given joins it, its reads seeing what f wrote so far; f's error
	// rolls everything back and is returned, nil commits. f is run again
	// from the start on a transient fault; a fault at COMMIT is resolved
	// (the command applied once, never guessed at). Inside f, Atomic
	// joins the transaction of f.
	Atomic(ctx context.Context, f func(ctx context.Context) error) error

	// EnsureZones creates the zones that do not exist yet.
	EnsureZones(ctx context.Context, zones []Zone) error
	Zones(ctx context.Context) ([]Zone, error)

	// CreateRegistrar stores a registrar with the hash of its token;
	// ErrExists if the name is taken.
	CreateRegistrar(ctx context.Context, name string, tokenHash []byte) (*Registrar, error)
	// RegistrarByToken finds a registrar by the hash of its token;
	// ErrUnauthorized if none.
	RegistrarByToken(ctx context.Context, tokenHash []byte) (*Registrar, error)

	// CreateDomain inserts d (Blocks included) and records it in the audit
	// log, atomically; ErrConflict if a label of d.Blocks is held.
	CreateDomain(ctx context.Context, d *Domain, registrarID int64) (*Domain, error)
	// FindBlocker returns the domain of zone's family (of zone, if it is
	// of none) that holds one of labels, or ErrNotFound. Its Blocks and
	// ExemptWith are not loaded; Exempted is.
	FindBlocker(ctx context.Context, zone string, labels []string) (*Domain, error)
	// SetFamilies tells the store the zones' variant TLD families (zone ->
	// the family's key, its first member; docs/variants.md, "Zone
	// families"), before any other call: the conflict sets of a family's
	// zones are one, a label held under one member is held under all, and
	// the store refuses a second holder of it atomically (the sqlstore
	// keys blocks by the family).
	SetFamilies(families map[string]string)
	// Domain returns the domain label.zone, or ErrNotFound.
	Domain(ctx context.Context, zone, label string) (*Domain, error)
	// LifecycleStore: the lifecycle's changes (lifecycle.go).
	LifecycleStore

	// DeleteDomain deletes the domain label.zone, its conflict set and
	// records it, atomically, if registrarID owns it: ErrForbidden if not,
	// ErrNotFound if there is none. The domains it was exempted with take
	// the labels of their conflict sets it frees; one left with no other
	// exemption is an ordinary domain again, holding its whole set.
	DeleteDomain(ctx context.Context, zone, label string, registrarID int64) error
	// CreateExemptDomain inserts d like CreateDomain, except that labels of
	// d.Blocks held by other domains do not refuse it: d holds those of its
	// conflict set that are free, its whole conflict set is recorded, and d
	// and every domain whose conflict set meets d's are marked exempted with
	// each other. It is for bringing in domains registered under an older
	// relation (a bulk import); ErrConflict only if d's own label is taken.
	// The domain returned says whether it was exempted and with what.
	CreateExemptDomain(ctx context.Context, d *Domain, registrarID int64) (*Domain, error)
	// Recompute replaces every stored conflict set by sets(d), in one
	// transaction, if the stored relation version is not version; domains
	// that then conflict are all kept and exempted with each other, in the
	// order they were created. It records version and reports what it did
	// (a report with Domains 0 and From == To when nothing was to be done).
	Recompute(ctx context.Context, version string, sets func(d *Domain) ([]string, error)) (*RecomputeReport, error)
	// DomainsOf lists a registrar's domains.
	DomainsOf(ctx context.Context, registrarID int64) ([]*Domain, error)
	// DomainsPage lists up to limit of a registrar's domains whose id is
	// greater than after, in the order of their ids (a keyset page).
	DomainsPage(ctx context.Context, registrarID, after int64, limit int) ([]*Domain, error)

	// Audit appends to the audit log (for actions that fail before any
	// transaction, such as a refused create).
	Audit(ctx context.Context, e AuditEntry) error
	// AuditLog returns the last n entries, newest first.
	AuditLog(ctx context.Context, n int) ([]AuditEntry, error)

	// What operators do (operations.go).
	OperatorStore
	// Hosts, name servers and DS records (hosts.go).
	DelegationStore

	Close() error
}

// CheckFinder is implemented by a store that answers a check's two
// lookups at once: FindForCheck returns FindBlocker's domain, or, if no
// domain holds the labels, FindReserved's name (nil, nil if neither). A
// store with a read cache (the SQLite store) asks once whether its cache
// is still good, rather than once per lookup. The answers may be the
// store's own, shared with other checks (a cached domain is not copied
// for each): the caller reads them and must not change them.
type CheckFinder interface {
	FindForCheck(ctx context.Context, zone string, labels []string) (*Domain, *ReservedName, error)
}
