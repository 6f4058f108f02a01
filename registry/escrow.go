package registry

import (
	"context"
	"time"
)

// Registry data escrow (RFC 8909, RFC 9022; docs/escrow.md). The deposit
// writer (package escrow) reads the store through EscrowStore in one
// snapshot, page by page; a restore (escrow_restore.go) writes a deposit
// into an empty store through it, the conflict sets recomputed by the
// service from the deposited names.

// EscrowDomain is a domain as a deposit carries it: the domain with its
// delegation, contacts and exemptions (Domain), and what the registry keeps
// beside them.
type EscrowDomain struct {
	Domain
	// AuthHash is the stored hash of the domain's authInfo ("" for none).
	AuthHash string
	// Pending is the transfer pending, if any; Transferred the last
	// change of sponsor by a transfer (zero: never).
	Pending     *Transfer
	Transferred time.Time
	// Original is the A-label name of the variant group's original (its
	// oldest member; RFC 9022's rdeDomain:originalName) for a member of a
	// group that is not the original itself; "" otherwise.
	Original string
}

// EscrowRegistrar is a registrar as a deposit carries it.
type EscrowRegistrar struct {
	Name    string
	Created time.Time
	Revoked bool
	Abuse   AbuseContact
}

// EscrowCursor is what the store keeps of the last deposit (migration
// 270): its watermark, sequence number and file name.
type EscrowCursor struct {
	Type      string // FULL or DIFF
	Watermark time.Time
	Seq       int64
	File      string
}

// EscrowObject is the fingerprint of an object a deposit holds.
type EscrowObject struct {
	Kind        string // domain, host, contact, reserved
	ID          int64
	Hash        string
	Name, Extra string
	Deleted     bool
}

// EscrowStore is implemented by the stores (internal/sqlstore).
type EscrowStore interface {
	// EscrowSnapshot runs f in one read-only transaction that sees the
	// registry as it was at one instant: every method called with the
	// context f is given reads that snapshot.
	EscrowSnapshot(ctx context.Context, f func(ctx context.Context) error) error
	// EscrowDomains returns up to limit domains whose id is greater than
	// after, in id order (the order they were created in), each whole.
	EscrowDomains(ctx context.Context, after int64, limit int) ([]*EscrowDomain, error)
	// EscrowHosts and EscrowContacts page the hosts and contacts the same
	// way (by Host.ID and Contact.ROID).
	EscrowHosts(ctx context.Context, after int64, limit int) ([]*Host, error)
	EscrowContacts(ctx context.Context, after int64, limit int) ([]*Contact, error)
	// EscrowLinks maps each contact (kind "contact", by Contact.ROID) or
	// host ("host", by Host.ID) with an id in [lo, hi] that a domain names
	// to the zones of the domains that name it (a deposit of a zone
	// family carries the contacts and hosts its domains name).
	EscrowLinks(ctx context.Context, kind string, lo, hi int64) (map[int64][]string, error)
	// EscrowRegistrars lists every registrar.
	EscrowRegistrars(ctx context.Context) ([]EscrowRegistrar, error)
	// EscrowCursor returns the last deposit recorded (zero if none).
	EscrowCursor(ctx context.Context) (EscrowCursor, error)
	// EscrowObjects pages the fingerprints of the objects the last
	// deposits hold, of one kind, in id order.
	EscrowObjects(ctx context.Context, kind string, after int64, limit int) ([]EscrowObject, error)
	// EscrowCommit records deposits (one a zone family, files) and, in the
	// same transaction, the fingerprints they leave: each calls f with
	// each fingerprint to set (Deleted: to remove); full replaces every
	// fingerprint by those given.
	EscrowCommit(ctx context.Context, files []EscrowCursor, full bool, each func(f func(EscrowObject) error) error) error

	// The writes of a restore, each joining the restore's transaction.

	// EscrowBulk readies the restore's transaction for writing a whole
	// registry (SQLite: the bulk import's page cache); end gives back what
	// it took, before the transaction ends.
	EscrowBulk(ctx context.Context) (end func(), err error)

	// RestoreRegistrar inserts a registrar (its token unusable until
	// rotated) and returns its ID.
	RestoreRegistrar(ctx context.Context, r EscrowRegistrar) (int64, error)
	// RestoreContact inserts a contact with its dates, statuses and
	// authInfo hash; one of the id restored before (from the deposit of
	// another zone family) is left as it is (inserted false).
	RestoreContact(ctx context.Context, c *Contact, registrarID int64) (inserted bool, err error)
	// RestoreDomainState sets what a create does not of the domain id:
	// its dates, statuses, revision, legacy codes, data version, authInfo
	// hash, contacts, DS records and pending transfer.
	RestoreDomainState(ctx context.Context, id int64, d *EscrowDomain) error
	// RestoreHost inserts a host (its superordinate domain looked up from
	// SuperZone and SuperLabel) with its addresses and dates; one of the
	// name restored before is left as it is (inserted false).
	RestoreHost(ctx context.Context, h *Host, registrarID int64) (inserted bool, err error)
	// RestoreNameServers links the domain id to its name servers.
	RestoreNameServers(ctx context.Context, id int64, ns []string) error
}
