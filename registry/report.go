package registry

import (
	"context"
	"time"
)

// What the monthly reports are made of (package billing formats them;
// docs/billing.md): counts of a zone's commands in a window of time, read
// from the audit log, the ledger, the transfers and the live tables,
// grouped in the store.

// AuditCount counts audit records of one registrar (the record's actor),
// action and result class ("ok", "ok-grace" for a delete purged in its
// add grace period, "ok-unpaid" for an expiry of an unpaid auto-renewal,
// or the refusal's code).
type AuditCount struct {
	Registrar string
	Action    string
	Result    string
	Count     int
}

// LedgerCount counts ledger entries of one registrar, kind, command and
// period.
type LedgerCount struct {
	Registrar string
	Kind      string
	Command   string
	Months    int
	Count     int
	Amount    Money // their sum
}

// TransferCount counts a zone's transfers acted on in the window, by
// gaining and losing registrar and outcome.
type TransferCount struct {
	Gaining, Losing, Status string
	Count                   int
}

// LangCount counts domains by registrar and language.
type LangCount struct {
	Registrar, Lang string
	Count           int
}

// Activity is a zone's activity in [Since, Until).
type Activity struct {
	Zone         string
	Since, Until time.Time
	Audit        []AuditCount
	Ledger       []LedgerCount
	Transfers    []TransferCount
	// CreatedByLang counts the domains created in the window that are
	// still registered, by sponsor and language.
	CreatedByLang []LangCount
	// Domains and Hosts count, by sponsor, the domains of the zone
	// created before Until that are still registered and the hosts under
	// the zone created before Until.
	Domains map[string]int
	Hosts   map[string]int
	// PurgedAfter counts the zone's domains registered at Until and
	// purged since (a report made after its month: the zone's total at
	// Until is Domains' sum plus it).
	PurgedAfter int
	// Purged lists the labels of the domains purged in the window (their
	// conflict sets were freed).
	Purged []string
}

// ReportStore is what the reports need of a store (the SQL stores).
type ReportStore interface {
	ZoneActivity(ctx context.Context, zone, zoneALabel string, since, until time.Time) (*Activity, error)
}

// ZoneActivity returns a zone's activity in [since, until) (an
// operator's read).
func (s *Service) ZoneActivity(ctx context.Context, zone string, since, until time.Time) (*Activity, error) {
	rs, ok := s.store.(ReportStore)
	if !ok {
		return nil, Errorf(CodeInternal, "the store makes no reports")
	}
	z := s.zones[zoneKey(zone)]
	if z == nil {
		return nil, s.unservedZone(zone)
	}
	if !since.Before(until) {
		return nil, Errorf(CodePeriodRange, "a report's window ends after it starts")
	}
	a, err := rs.ZoneActivity(ctx, z.Name, z.ALabel, since, until)
	if err != nil {
		return nil, err
	}
	a.Zone, a.Since, a.Until = z.Name, since, until
	return a, nil
}

// Zone returns the zone of that name (U-label or A-label), or
// UNKNOWN_ZONE.
func (s *Service) Zone(name string) (*Zone, error) {
	z := s.zones[zoneKey(name)]
	if z == nil {
		return nil, s.unservedZone(name)
	}
	out := *z
	return &out, nil
}
