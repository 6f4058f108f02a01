package registry

import (
	"context"
	"slices"
	"strings"
	"time"
)

// The outbox of DNS changes (issue 37; docs/delegation.md, "Continuous
// publication"). Every command that may change what a zone publishes
// records, in its own transaction, the owner names whose records it may
// have changed; a publisher (package dnspub) reads them, renders each
// owner's records as the registry holds them now (OwnerRecords: the same
// code as the zone export, so the two cannot disagree) and sends them to
// the primary by DNS UPDATE. A refused command records nothing (its
// transaction is rolled back); a change is published at least once and
// publishing it twice is harmless (the owner's records are replaced).

// DNSOwner is an owner name of a zone: Zone is the zone's name (Zone.Name),
// Name the owner in A-label form, lower case, no final dot.
type DNSOwner struct {
	Zone, Name string
}

// DNSDomain names a domain whose delegation or statuses a command changes.
type DNSDomain struct {
	Zone, Label string // Zone.Name and the domain's label, as DomainState takes them
}

// DNSChange is one row of the outbox.
type DNSChange struct {
	ID    int64
	Owner DNSOwner
	At    time.Time // when the command recorded it (the registry's clock)
	State int       // DNSPending, DNSHeld, DNSReleased
}

// The states of an outbox row.
const (
	DNSPending  = 0 // to publish
	DNSHeld     = 1 // held by the publisher's change guard, until released
	DNSReleased = 2 // released by the operator: published without the guard
)

// DNSOutboxStats is what the metrics show of a zone's outbox.
type DNSOutboxStats struct {
	Pending, Held int64
	Oldest        time.Time // of the rows not held; zero when none
}

// DNSOutboxStore is what the outbox needs of a store.
type DNSOutboxStore interface {
	// DNSOwners returns the owner names whose records depend on the
	// domains and hosts (A-label host names): each domain, the hosts
	// under it, the domains naming those hosts, the hosts it names that
	// are under a domain of the registry; each host (if under a domain of
	// the registry) and the domains naming it. In the command's
	// transaction when ctx carries one.
	DNSOwners(ctx context.Context, domains []DNSDomain, hosts []string) ([]DNSOwner, error)
	// RecordDNSChanges appends owners to the outbox (in the command's
	// transaction).
	RecordDNSChanges(ctx context.Context, owners []DNSOwner, at time.Time) error
	// DNSChanges lists up to limit rows of the zones not held, by id.
	DNSChanges(ctx context.Context, zones []string, limit int) ([]DNSChange, error)
	// FinishDNSChanges deletes the rows ids (published) if holder holds
	// the lease name at now, and reports true; otherwise it appends
	// owners to the outbox again (a publisher that lost its lease may
	// have sent an older version of them) and reports false. One
	// transaction.
	FinishDNSChanges(ctx context.Context, lease, holder string, now time.Time, ids []int64, owners []DNSOwner) (bool, error)
	// HoldDNSChanges sets the rows ids to DNSHeld.
	HoldDNSChanges(ctx context.Context, ids []int64) error
	// ReleaseDNSChanges sets the zone's held rows to DNSReleased and
	// returns how many.
	ReleaseDNSChanges(ctx context.Context, zone string) (int64, error)
	// TakeDNSLease gives the lease name to holder until now+ttl if it is
	// free, expired or holder's already, and reports whether holder has it.
	TakeDNSLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error)
	// DNSOutboxStats counts a zone's rows.
	DNSOutboxStats(ctx context.Context, zone string) (DNSOutboxStats, error)
	// ZoneDomain returns the domain of the zone whose A-label is name as
	// ZonePage returns it, or nil when there is none.
	ZoneDomain(ctx context.Context, zone, name string) (*ZoneDelegation, error)
	// ZoneDelegationCount counts the zone's domains with name servers.
	ZoneDelegationCount(ctx context.Context, zone string) (int64, error)
	// LastDNSChange is the id of the zone's last row (0 for none).
	LastDNSChange(ctx context.Context, zone string) (int64, error)
	// PruneDNSChanges deletes the zone's rows with an id up to through
	// recorded before before, and returns how many.
	PruneDNSChanges(ctx context.Context, zone string, through int64, before time.Time) (int64, error)
}

func (s *Service) outbox() (DNSOutboxStore, error) {
	o, ok := s.store.(DNSOutboxStore)
	if !ok {
		return nil, Errorf(CodeInternal, "the store keeps no DNS outbox")
	}
	return o, nil
}

// zoneOutbox returns the zone (by name or A-label) and the store's
// outbox, which the publisher's calls each start with.
func (s *Service) zoneOutbox(zone string) (*Zone, DNSOutboxStore, error) {
	z, err := s.zoneOf(zone)
	if err != nil {
		return nil, nil, err
	}
	o, err := s.outbox()
	return z, o, err
}

// dnsWatch is what a command records in the outbox: the owners depending
// on its domains and hosts read before its writes (watchDNS) and again
// after them (record), both recorded: a purge or a rename leaves no trace
// of the names before it, an added name server none of them after.
type dnsWatch struct {
	s       *Service
	domains []DNSDomain
	hosts   []string
	before  []DNSOwner
}

// watchDNS reads, in the command's transaction, the owners depending on
// the domains and hosts before the command writes. A store without an
// outbox records nothing.
func (s *Service) watchDNS(ctx context.Context, domains []DNSDomain, hosts ...string) (*dnsWatch, error) {
	w := &dnsWatch{s: s, domains: domains, hosts: hosts}
	o, ok := s.store.(DNSOutboxStore)
	if !ok {
		return w, nil
	}
	var err error
	w.before, err = o.DNSOwners(ctx, domains, hosts)
	return w, err
}

// record reads the owners again after the command's writes (with hosts,
// names the command gave them, such as a host's new name) and records
// both reads' owners, each once, in the command's transaction.
func (w *dnsWatch) record(ctx context.Context, hosts ...string) error {
	o, ok := w.s.store.(DNSOutboxStore)
	if !ok {
		return nil
	}
	after, err := o.DNSOwners(ctx, w.domains, append(slices.Clone(w.hosts), hosts...))
	if err != nil {
		return err
	}
	all := append(w.before, after...)
	slices.SortFunc(all, func(a, b DNSOwner) int {
		if c := strings.Compare(a.Zone, b.Zone); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	all = slices.Compact(all)
	if len(all) == 0 {
		return nil
	}
	return o.RecordDNSChanges(ctx, all, w.s.clock.Now())
}

// ZoneRecord is one record of the zone as the export writes it: the owner
// (absolute, A-label), the type (NS, DS, A, AAAA) and the data in master
// file form.
type ZoneRecord struct {
	Owner, Type, Data string
}

// zoneOf finds a zone by its name or A-label, with or without a final dot.
func (s *Service) zoneOf(zone string) (*Zone, error) {
	z := s.exact[zone]
	if z == nil {
		z = s.zones[zoneKey(strings.TrimSuffix(zone, "."))]
	}
	if z == nil {
		return nil, Errorf(CodeUnknownZone, "there is no zone %q", zone)
	}
	return z, nil
}

// ZoneOrigin returns the zone's name (Zone.Name, as the outbox keeps it)
// and its origin (A-label with a final dot) for a zone given by its name
// or A-label.
func (s *Service) ZoneOrigin(zone string) (name, origin string, err error) {
	z, err := s.zoneOf(zone)
	if err != nil {
		return "", "", err
	}
	return z.Name, z.ALabel + ".", nil
}

// OwnerRecords returns the records (NS, DS, A, AAAA) the zone publishes
// now at owner (A-label, with or without a final dot), as ExportZone
// writes them: the same store read (the one domain the owner is at or
// under, as a page of the export reads it) and the same rendering
// (delegationRecords). None for an owner with nothing published.
func (s *Service) OwnerRecords(ctx context.Context, zone, owner string) ([]ZoneRecord, error) {
	z, o, err := s.zoneOutbox(zone)
	if err != nil {
		return nil, err
	}
	origin := z.ALabel + "."
	owner = strings.ToLower(strings.TrimSuffix(owner, ".")) + "."
	rest, ok := strings.CutSuffix(owner, "."+origin)
	if !ok || rest == "" {
		return nil, nil // the apex, or outside the zone: none of the registry's
	}
	domain := rest[strings.LastIndexByte(rest, '.')+1:] + "." + z.ALabel
	d, err := o.ZoneDomain(ctx, z.Name, domain)
	if err != nil || d == nil {
		return nil, err
	}
	var out []ZoneRecord
	for _, r := range delegationRecords(nil, d, z.Name, origin) {
		if r.Owner == owner {
			out = append(out, r)
		}
	}
	return out, nil
}

// PendingDNS lists up to limit outbox rows of the zones (their names, as
// ZoneOrigin returns them) that are not held, oldest first.
func (s *Service) PendingDNS(ctx context.Context, zones []string, limit int) ([]DNSChange, error) {
	o, err := s.outbox()
	if err != nil {
		return nil, err
	}
	return o.DNSChanges(ctx, zones, limit)
}

// PublishedDNS deletes the outbox rows ids, published, if holder holds
// the lease (true); otherwise it records owners again, for the holder to
// publish over whatever this publisher sent (false).
func (s *Service) PublishedDNS(ctx context.Context, lease, holder string, ids []int64, owners []DNSOwner) (bool, error) {
	o, err := s.outbox()
	if err != nil {
		return false, err
	}
	return o.FinishDNSChanges(ctx, lease, holder, s.clock.Now(), ids, owners)
}

// HoldDNS holds outbox rows (the change guard refused them) until the
// operator releases them (ReleaseDNS).
func (s *Service) HoldDNS(ctx context.Context, ids []int64) error {
	o, err := s.outbox()
	if err != nil {
		return err
	}
	return o.HoldDNSChanges(ctx, ids)
}

// ReleaseDNS releases the zone's held outbox rows: the publisher sends
// them without asking the change guard. It returns how many.
func (s *Service) ReleaseDNS(ctx context.Context, zone string) (int64, error) {
	z, o, err := s.zoneOutbox(zone)
	if err != nil {
		return 0, err
	}
	return o.ReleaseDNSChanges(ctx, z.Name)
}

// TakeDNSLease takes or renews the publisher's lease name for holder for
// ttl at the registry's clock, and reports whether holder has it.
func (s *Service) TakeDNSLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	o, err := s.outbox()
	if err != nil {
		return false, err
	}
	return o.TakeDNSLease(ctx, name, holder, s.clock.Now(), ttl)
}

// DNSOutbox counts a zone's outbox rows (the zone by name or A-label).
func (s *Service) DNSOutbox(ctx context.Context, zone string) (DNSOutboxStats, error) {
	z, o, err := s.zoneOutbox(zone)
	if err != nil {
		return DNSOutboxStats{}, err
	}
	return o.DNSOutboxStats(ctx, z.Name)
}

// ZoneDelegations counts the zone's domains with name servers (the
// change guard's measure of the zone).
func (s *Service) ZoneDelegations(ctx context.Context, zone string) (int64, error) {
	z, o, err := s.zoneOutbox(zone)
	if err != nil {
		return 0, err
	}
	return o.ZoneDelegationCount(ctx, z.Name)
}

// DNSMark is where the outbox of a zone stood when a full publication
// (zone publish) began to read the zone.
type DNSMark struct {
	zone string
	id   int64
	at   time.Time
}

// MarkDNS notes where the zone's outbox stands, before a full export.
func (s *Service) MarkDNS(ctx context.Context, zone string) (DNSMark, error) {
	z, o, err := s.zoneOutbox(zone)
	if err != nil {
		return DNSMark{}, err
	}
	id, err := o.LastDNSChange(ctx, z.Name)
	return DNSMark{z.Name, id, s.clock.Now()}, err
}

// dnsPruneMargin is how long before a full export's start a row must have
// been recorded for the export to cover it: a command records its rows
// in its transaction, which commits within it (on PostgreSQL an id is
// taken at the insert, not at the commit, so an id below the mark may
// commit after the export read its domain).
const dnsPruneMargin = 10 * time.Second

// PruneDNS deletes the outbox rows a full publication of the zone,
// begun at m and now in place, has covered: the rows up to the mark
// recorded dnsPruneMargin before it. Without a publisher (no -dns-update)
// this is what keeps the outbox from growing. It returns how many.
func (s *Service) PruneDNS(ctx context.Context, m DNSMark) (int64, error) {
	if m.zone == "" {
		return 0, nil
	}
	o, err := s.outbox()
	if err != nil {
		return 0, err
	}
	return o.PruneDNSChanges(ctx, m.zone, m.id, m.at.Add(-dnsPruneMargin))
}
