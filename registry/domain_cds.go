package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Child DS automation (RFC 7344, RFC 8078; docs/dnssec.md): the CDS
// scanner (package cds) asks every name server of a delegated child for
// its CDS and CDNSKEY records, validates them, and reports what it found
// to ObserveCDS, one domain at a time. The registry decides: the same
// request seen on enough scans over long enough (the acceptance period,
// kept in the store: CDSStore) changes the domain's DS records, in one
// transaction with its audit record and a change poll message (RFC 8590)
// for the sponsor. The registry itself is the actor ("registry"), as the
// lifecycle worker is for its transitions.

// CDSReport is what one scan of a domain's name servers found.
type CDSReport struct {
	// Name is the domain (label.zone, U-labels or A-labels).
	Name string
	// Current are the DS records the scan validated the child against
	// (the domain's DS at the scan): if they changed since, the report is
	// not used (the acceptance starts again).
	Current []DS
	// Problem, when set, is why the scan found nothing usable (no CDS, a
	// name server that did not answer, servers that disagree, a signature
	// that did not validate): the acceptance starts again.
	Problem string
	// None: the child publishes no CDS or CDNSKEY (nothing asked).
	None bool
	// DS are the DS records the child asks for (from its CDS, or made
	// from its CDNSKEY), validated; Delete: it asks for none (CDS
	// "0 0 0 00", RFC 8078 §4).
	DS     []DS
	Delete bool
	// Bootstrap: the domain has no DS; the CDS was validated by its own
	// keys only (RFC 8078 §3.3, accept after delay: CDSAcceptance.BootstrapAge).
	Bootstrap bool
}

// CDSAcceptance is how long a child's request must stand before the
// registry acts on it: seen identical by at least Scans scans, the first
// at least Age before (BootstrapAge for a domain without DS).
type CDSAcceptance struct {
	Scans        int
	Age          time.Duration
	BootstrapAge time.Duration
}

// DefaultCDSAcceptance: three scans over a day; a bootstrap over three
// days (docs/dnssec.md).
var DefaultCDSAcceptance = CDSAcceptance{Scans: 3, Age: 24 * time.Hour, BootstrapAge: 72 * time.Hour}

// The outcomes of ObserveCDS.
const (
	CDSNone       = "none"       // no CDS published: nothing to do
	CDSInSync     = "in-sync"    // the DS are what the child asks
	CDSPending    = "pending"    // a request seen, within its acceptance period
	CDSApplied    = "applied"    // the DS were replaced by the child's
	CDSDeleted    = "deleted"    // the DS were removed (CDS delete)
	CDSRejected   = "rejected"   // the scan's problem, or a request the registry refuses (BAD_DS)
	CDSProhibited = "prohibited" // the domain's statuses prohibit updates
	CDSStale      = "stale"      // the DS changed since the scan
)

// CDSResult is what ObserveCDS did.
type CDSResult struct {
	Outcome string
	Reason  string    // for rejected, prohibited: why
	Seen    int       // pending: how many scans saw the request
	Since   time.Time // pending: when it was first seen
	DS      []DS      // the DS after
}

// CDSState is a domain's request being accepted: the request (its
// fingerprint), when first and last seen, and by how many scans.
type CDSState struct {
	Name        string // the domain's A-label (a purged domain's ID reused is not its state)
	Fingerprint string
	First, Last time.Time
	Seen        int
}

// CDSStore keeps the requests being accepted (migration 290).
type CDSStore interface {
	// CDSState returns a domain's state; ok false for none.
	CDSState(ctx context.Context, domainID int64) (st CDSState, ok bool, err error)
	// SetCDSState writes it; ClearCDSState removes it (none: no error).
	SetCDSState(ctx context.Context, domainID int64, st CDSState) error
	ClearCDSState(ctx context.Context, domainID int64) error
}

func (s *Service) cdsStore() (CDSStore, error) {
	cs, ok := s.store.(CDSStore)
	if !ok {
		return nil, Errorf(CodeInternal, "this store keeps no CDS state")
	}
	return cs, nil
}

// CDSProhibiting are the statuses under which the registry does not act
// on a child's CDS: the registrar's and the operator's update
// prohibitions (a registry lock among them), a pending deletion, a
// pending transfer.
var CDSProhibiting = []string{StatusPendingDelete, StatusPendingTransfer, StatusClientUpdateProhibited, StatusServerUpdateProhibited}

// ObserveCDS records what a scan of domain rep.Name's name servers found
// and, when the request has stood for the acceptance period acc, changes
// the domain's DS records to it: one transaction with the audit record
// ("cds", by "registry") and the change poll message for the sponsor.
// A report with a problem, no request, a request that differs from the
// one being accepted, or DS that changed since the scan starts the
// acceptance again.
//
// Refusals: BAD_NAME, UNKNOWN_ZONE, NOT_FOUND. A request the registry
// will not apply is no refusal but an outcome (rejected, prohibited).
func (s *Service) ObserveCDS(ctx context.Context, rep CDSReport, acc CDSAcceptance) (*CDSResult, error) {
	// parse
	z, label, err := s.locate(rep.Name)
	if err != nil {
		return nil, err
	}
	cur, err := canonDS(rep.Current)
	if err != nil {
		return nil, err
	}
	var want []DS
	problem := rep.Problem
	if problem == "" && !rep.None && !rep.Delete {
		if len(rep.DS) == 0 {
			problem = "no DS in the request"
		} else if want, err = checkDS(rep.DS); err != nil {
			problem = err.Error()
		} else if len(want) > MaxDS {
			problem = fmt.Sprintf("the child asks for %d DS records; a domain has at most %d", len(want), MaxDS)
		}
	}
	acc.Scans = max(acc.Scans, 1)

	// one transaction
	var res *CDSResult
	err = s.transact(ctx, func(ctx context.Context) error {
		res = &CDSResult{}
		d, err := s.domainIn(ctx, z, label)
		if err != nil {
			return err
		}
		dstore, err := s.delegationStore()
		if err != nil {
			return err
		}
		cs, err := s.cdsStore()
		if err != nil {
			return err
		}
		_, stored, err := dstore.Delegation(ctx, d.ID)
		if err != nil {
			return err
		}
		res.DS = stored
		st, had, err := cs.CDSState(ctx, d.ID)
		if err != nil {
			return err
		}
		reset := func(outcome, reason string) error {
			res.Outcome, res.Reason = outcome, reason
			if had {
				return cs.ClearCDSState(ctx, d.ID)
			}
			return nil
		}
		switch {
		case problem != "":
			return reset(CDSRejected, problem)
		case rep.None:
			return reset(CDSNone, "")
		case !slices.Equal(cur, stored):
			return reset(CDSStale, "the DS records changed since the scan")
		}
		if rep.Delete {
			want = nil
		}
		if slices.Equal(want, stored) {
			return reset(CDSInSync, "")
		}
		if err := prohibits(d, "a change of its DS records by CDS", CDSProhibiting...); err != nil {
			return reset(CDSProhibited, err.Error())
		}
		now := s.clock.Now()
		fp := cdsFingerprint(rep.Delete, want)
		if !had || st.Fingerprint != fp || st.Name != d.ALabel {
			st = CDSState{Name: d.ALabel, Fingerprint: fp, First: now}
		}
		st.Seen++
		st.Last = now
		age := acc.Age
		if rep.Bootstrap {
			age = acc.BootstrapAge
		}
		if st.Seen < acc.Scans || now.Sub(st.First) < age {
			res.Outcome, res.Seen, res.Since = CDSPending, st.Seen, st.First
			return cs.SetCDSState(ctx, d.ID, st)
		}
		// accepted: the DS replaced, audited, the sponsor told
		res.Outcome, res.Seen, res.Since, res.DS = CDSApplied, st.Seen, st.First, want
		what, reason := "replaced the DS records of "+d.Name+" by the child's CDS: "+dsText(want), "child CDS (RFC 7344)"
		if rep.Delete {
			res.Outcome, what, reason = CDSDeleted, "removed the DS records of "+d.Name+": the child's CDS asks to delete them (RFC 8078)", "child CDS delete (RFC 8078)"
		} else if rep.Bootstrap {
			reason = "child CDS bootstrap (RFC 8078)"
		}
		ch := change(ctx, d, "cds", "registry", now)
		ch.Result = "ok " + fp
		ch.Notices = append(ch.Notices, changeMessage(ctx, d, now, ChangeUpdate, "cds", "registry", reason,
			fmt.Sprintf("The registry %s (seen by %d scans since %s)", what, st.Seen, st.First.UTC().Format(time.RFC3339))))
		if _, err := s.store.ApplyChange(ctx, d, ch); err != nil { // the revision, the audit record, the poll message
			return err
		}
		// the DS change recorded for continuous publication (the DNS
		// outbox, dnsoutbox.go), in this transaction
		w, err := s.watchDNS(ctx, []DNSDomain{{z.Name, label}})
		if err != nil {
			return err
		}
		if err := dstore.ChangeDelegation(ctx, z.Name, label, d.RegistrarID, &DelegationChange{RemAllDS: true, AddDS: want, MaxNS: z.MaxNS(), MaxDS: MaxDS}); err != nil {
			return err
		}
		if err := w.record(ctx); err != nil {
			return err
		}
		return cs.ClearCDSState(ctx, d.ID)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// cdsFingerprint names a request: "delete", or its DS records.
func cdsFingerprint(del bool, ds []DS) string {
	if del {
		return "delete"
	}
	return dsText(ds)
}

// dsText is DS records in presentation form, comma separated.
func dsText(ds []DS) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%d %d %d %s", d.KeyTag, d.Algorithm, d.DigestType, d.Digest)
	}
	return strings.Join(parts, ", ")
}

// CDSCandidates returns up to limit of zone's delegated domains after the
// A-label after ("" first), in A-label order, with their name servers,
// DS records and glue: what the CDS scanner asks (package cds), and the
// A-label to give as after for the next page ("" after the last). Domains
// not published (no name servers, on hold, pending deletion) are left
// out.
func (s *Service) CDSCandidates(ctx context.Context, zone, after string, limit int) ([]ZoneDelegation, string, error) {
	z := s.exact[zone]
	if z == nil {
		z = s.zones[zoneKey(strings.TrimSuffix(zone, "."))]
	}
	if z == nil {
		return nil, "", Errorf(CodeUnknownZone, "there is no zone %q", zone)
	}
	ds, err := s.delegationStore()
	if err != nil {
		return nil, "", err
	}
	page, err := ds.ZonePage(ctx, z.Name, after, limit)
	if err != nil || len(page) == 0 {
		return nil, "", err
	}
	next := page[len(page)-1].Name
	if len(page) < limit {
		next = ""
	}
	page = slices.DeleteFunc(page, func(d ZoneDelegation) bool { return !domainPublished(&d) })
	return page, next, nil
}
