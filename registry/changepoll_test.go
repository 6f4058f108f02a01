package registry_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// How each exported method of registry.Service stands to RFC 8590's rule
// (docs/epp.md, "Change poll"): every change of a registrar's object the
// registrar did not make itself queues a poll message. A method is
//
//   - heard: it changes registrars' objects by the registry's or the
//     operator's hand; the scenario named checks that each such change
//     queued a change poll message (or, for maintenance, RFC 9167's);
//   - own: the registrar's own command (it hears of it in the answer);
//   - none: it changes no registrar's object (reads; accounts, zones,
//     settings, the registrant's lock secret), with why.
//
// A method not in the table fails the test: a new one is classified
// before it lands.
var changePollMethods = map[string]string{
	// heard (the scenario keys of TestChangePollCoverage)
	"UpdateDomain":        "heard: operator-status",
	"LockDomain":          "heard: operator-lock",
	"UnlockDomain":        "heard: operator-unlock",
	"RunLifecycle":        "heard: autorenew expire redemption-end purge relock",
	"ApproveDueTransfers": "heard: transfer-auto",
	"RunTransferWorker":   "heard: transfer-auto", // ApproveDueTransfers on a ticker
	"TransferDomain":      "heard: group-transfer",
	"Reaudit":             "heard: reaudit-exempt",
	"ReauditWhole":        "heard: reaudit-exempt", // Reaudit with the same apply
	"CreateMaintenance":   "heard: maintenance-create",
	"UpdateMaintenance":   "heard: maintenance-update",
	"CancelMaintenance":   "heard: maintenance-delete",
	"ObserveCDS":          "heard: cds", // the child's CDS applied by the registry (domain_cds.go)
	// own: the registrar's commands
	"CreateDomain": "own", "RenewDomain": "own", "DeleteDomain": "own", "RestoreDomain": "own",
	"CreateHost": "own", "UpdateHost": "own", "DeleteHost": "own",
	"CreateContact": "own", "UpdateContact": "own", "DeleteContact": "own",
	"PollAck": "own", "SetEPPPassword": "own: its credential, at login",
	// none
	"Import":               "none: the operator brings in a registrar's own names (docs/import.md); a message per name would flood the queue, the import's summary tells",
	"Enqueue":              "none: it is the queue itself",
	"AddRegistrar":         "none: an account, not an object of one",
	"RevokeRegistrar":      "none: the account",
	"RotateToken":          "none: the account",
	"ReinstateRegistrar":   "none: the account",
	"SetRegistrarAbuse":    "none: the account's public contact",
	"SetEPPCertificate":    "none: the account's credential",
	"Reserve":              "none: a name nobody holds (a held one is refused)",
	"Unreserve":            "none: a name nobody holds",
	"AddZone":              "none: a zone",
	"SetTransferPolicy":    "none: a zone's setting",
	"EnrolLock":            "none: the registrant's secret, not the registrar's object",
	"ConfirmLockEnrolment": "none: the registrant's secret",
	"SetLogger":            "none: no data",
	// none: reads (Info, List and PollRequest approve a due transfer first:
	// ApproveDueTransfers' messages)
	"Audit": "none: read", "AuditFailures": "none: read", "Authenticate": "none: read", "Check": "none: read",
	"CheckContact": "none: read", "CheckFor": "none: read", "CheckHost": "none: read", "Clock": "none: read",
	"Conflict": "none: read", "ContactInfo": "none: read", "DataVersion": "none: read", "DomainTransferState": "none: read",
	"EPPLogin": "none: read", "ExportZone": "none: read", "Family": "none: read", "HostInfo": "none: read",
	"Info": "none: read", "List": "none: read", "ListPage": "none: read", "MaintenanceInfo": "none: read",
	"Maintenances": "none: read", "PollRequest": "none: read", "PublicContact": "none: read", "PublicRegistrar": "none: read",
	"PublicRegistrarByID": "none: read", "Ready": "none: read", "Recomputed": "none: read", "RegistrarActive": "none: read",
	"Registrars": "none: read", "RelationVersion": "none: read", "SearchDomains": "none: read", "Statuses": "none: read",
	"StatusesNow": "none: read", "Store": "none: read", "TransferPolicy": "none: read", "VariantGroup": "none: read",
	"Zones": "none: read", "ReservedNames": "none: read", "CDSCandidates": "none: read",
	// billing (billing.go, billing_ops.go): the account is the registrar's
	// with the registry, not an object of its customers; a low balance is
	// told by a poll message of its own
	"Credit": "none: the account (a low balance is told)", "SetAccount": "none: the account", "SetPrice": "none: a zone's price list",
	"SetBillingSetting": "none: the registry's settings",
	"Account":           "none: read", "AccountOf": "none: read", "Balance": "none: read", "BillingSettings": "none: read", "Entries": "none: read",
	"Ledger": "none: read", "Prices": "none: read", "Quote": "none: read", "QuoteAll": "none: read", "Reconcile": "none: read",
	"Zone": "none: read", "ZoneActivity": "none: read",
	// sessions and credentials (loginsec.go, allowlist.go)
	"LoginEPP": "own: its credential, at login", "ExpireEPPPassword": "none: the account's credential (the login's events tell)",
	"SetEPPDefaultPasswordLifetime": "none: the registry's setting", "SetEPPDefaultPasswordLifetimeText": "none: the registry's setting",
	"SetEPPPasswordLifetime": "none: the account's credential", "SetEPPPasswordLifetimeText": "none: the account's credential",
	"SetRegistrarAllowList": "none: the account", "AllowLists": "none: read", "EPPDefaultPasswordLifetime": "none: read", "EPPPasswordPolicyOf": "none: read",
	// continuous DNS publication (dnsoutbox.go, package dnspub): the
	// publisher's own bookkeeping; what it publishes is what the
	// registrars' and the registry's commands changed, each heard there
	"DNSOutbox": "none: read", "OwnerRecords": "none: read", "PendingDNS": "none: read", "ZoneDelegations": "none: read", "ZoneOrigin": "none: read",
	"HoldDNS": "none: the outbox (the guard's held drops)", "MarkDNS": "none: the outbox", "PruneDNS": "none: the outbox",
	"PublishedDNS": "none: the outbox", "ReleaseDNS": "none: the outbox (the operator's release)", "TakeDNSLease": "none: the publisher's lease",
	// escrow (escrow_restore.go): a restore writes into an empty store,
	// where no registrar has objects or a queue to tell
	"RestoreEscrow": "none: into an empty store",
	// staging (clock.go): moving the clock changes nothing itself; the
	// workers' transitions it brings on are heard (RunLifecycle)
	"MoveClock": "none: the clock; the worker's transitions are heard", "FollowStagingClock": "none: the clock", "Staging": "none: read",
}

// TestChangePollMethods: every exported method of registry.Service is in
// the table, and every name in the table is a method.
func TestChangePollMethods(t *testing.T) {
	ty := reflect.TypeOf(&registry.Service{})
	have := map[string]bool{}
	for i := range ty.NumMethod() {
		m := ty.Method(i).Name
		have[m] = true
		if _, ok := changePollMethods[m]; !ok {
			t.Errorf("Service.%s is not classified for the change poll (changePollMethods): does it change a registrar's object the registrar did not change itself?", m)
		}
	}
	for m := range changePollMethods {
		if !have[m] {
			t.Errorf("changePollMethods names %s, which is no method of Service", m)
		}
	}
}

// drain reads and acknowledges r's whole queue.
func drain(t *testing.T, ctx context.Context, svc *registry.Service, r *registry.Registrar) []*registry.PollMessage {
	t.Helper()
	var out []*registry.PollMessage
	for {
		m, _, err := svc.PollRequest(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			return out
		}
		out = append(out, m)
		if _, err := svc.PollAck(ctx, r, m.ID); err != nil {
			t.Fatal(err)
		}
	}
}

// TestChangePollCoverage runs each change the table says is heard, and
// each transition of the lifecycle worker, and checks that the sponsor
// (or, for maintenance, every registrar) got its message: a change poll
// message with change data for a change of its object.
func TestChangePollCoverage(t *testing.T) {
	ctx := registry.WithChannel(t.Context(), registry.Channel{Name: "test"})
	clock := registry.NewManualClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	noRenew := akshara.DefaultLifecycle()
	noRenew.AutoRenew = false
	opts := registrytest.ContactsOptional()
	opts.Clock, opts.Lifecycle = clock, map[string]akshara.ZoneLifecycle{"भारतम्": noRenew}
	svc := registrytest.SQLiteServiceWith(t, opts)
	a, _, _ := svc.AddRegistrar(ctx, "cp-a")
	b, _, _ := svc.AddRegistrar(ctx, "cp-b")
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	pw := "Cp-auth-12345!-strong"
	reg := []registry.DomainContact{{Role: registry.RoleRegistrant, ID: "cp-reg"}}
	_, err := svc.CreateContact(ctx, a, registry.ContactCreate{ID: "cp-reg", ContactData: registrytest.DevanagariContact(), AuthInfo: "Contact-pw-1-strong"})
	must("contact", err)
	for _, n := range []string{"किताब.भारत", "कमल.भारत", "কিতাব.ভারত", "कलम.भारतम्"} {
		_, err := svc.CreateDomain(ctx, a, registry.DomainCreate{Name: n, Contacts: reg, AuthInfo: pw})
		must("create "+n, err)
	}
	_, err = svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1.किताब.भारत", Addrs: []registry.Addr{{IP: "8.8.8.8"}}})
	must("host", err)
	heard := map[string][]string{} // scenario key -> who heard: registrar names
	note := func(key string, r *registry.Registrar, ok func(m *registry.PollMessage) bool) {
		t.Helper()
		for _, m := range drain(t, ctx, svc, r) {
			if ok(m) {
				heard[key] = append(heard[key], r.Name+":"+m.Change.Object)
			}
		}
	}
	change := func(op string) func(*registry.PollMessage) bool {
		return func(m *registry.PollMessage) bool {
			return m.Change != nil && (m.Change.Op == op || m.Change.Operation == op)
		}
	}

	// the operator's statuses
	_, err = svc.UpdateDomain(ctx, nil, registry.DomainUpdate{Name: "कमल.भारत", AddStatuses: []string{registry.StatusServerRenewProhibited}, Reason: "billing dispute"})
	must("operator status", err)
	note("operator-status", a, change(registry.ChangeUpdate))
	// the child's CDS, accepted at once here
	_, err = svc.ObserveCDS(ctx, registry.CDSReport{Name: "कमल.भारत", Bootstrap: true,
		DS: []registry.DS{{KeyTag: 7, Algorithm: 13, DigestType: 2, Digest: strings.Repeat("AB", 32)}}}, registry.CDSAcceptance{Scans: 1})
	must("cds", err)
	note("cds", a, change("cds"))
	// the operator's lock and unlock, the worker's relock
	uri := registrytest.EnrolLocked(t, ctx, svc, clock, "cp-reg")
	_, err = svc.LockDomain(ctx, nil, registry.DomainLockRequest{Name: "किताब.भारत", Code: registrytest.LockCode(t, uri, clock.Now())})
	must("lock", err)
	note("operator-lock", a, change("lock"))
	clock.Advance(30 * time.Second)
	_, err = svc.UnlockDomain(ctx, nil, registry.DomainLockRequest{Name: "किताब.भारत", Code: registrytest.LockCode(t, uri, clock.Now()), RelockAfter: time.Minute})
	must("unlock", err)
	note("operator-unlock", a, change("unlock"))
	clock.Advance(2 * time.Minute)
	_, err = svc.RunLifecycle(ctx, 0)
	must("relock", err)
	note("relock", a, change("relock"))
	// a transfer the server approves at the end of its period; a variant
	// group's member moved by the transfer of another
	_, err = svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "কিতাব.ভাৰত", Contacts: reg, AuthInfo: pw})
	must("join", err)
	clock.Advance(61 * 24 * time.Hour)
	_, err = svc.TransferDomain(ctx, b, registry.DomainTransfer{Name: "कमल.भारत", Op: registry.TransferRequestOp, AuthInfo: pw})
	must("transfer request", err)
	clock.Advance(6 * 24 * time.Hour)
	_, err = svc.ApproveDueTransfers(ctx, 0)
	must("approve due", err)
	for _, r := range []*registry.Registrar{a, b} {
		note("transfer-auto", r, func(m *registry.PollMessage) bool { return m.Kind == registry.PollTransferAuto && m.Change != nil })
	}
	_, err = svc.TransferDomain(ctx, b, registry.DomainTransfer{Name: "কিতাব.ভাৰত", Op: registry.TransferRequestOp, AuthInfo: pw})
	must("group transfer request", err)
	_, err = svc.TransferDomain(ctx, a, registry.DomainTransfer{Name: "কিতাব.ভাৰত", Op: registry.TransferApproveOp})
	must("group transfer approve", err)
	for _, r := range []*registry.Registrar{a, b} {
		note("group-transfer", r, func(m *registry.PollMessage) bool { return m.Kind == registry.PollGroupTransfer && m.Change != nil })
	}
	// the worker: auto-renew (भारत renews), deletion at expiry (भारतम्
	// does not), end of redemption, purge
	clock.Advance(400 * 24 * time.Hour)
	_, err = svc.RunLifecycle(ctx, 0)
	must("lifecycle", err)
	msgs := drain(t, ctx, svc, a)
	for key, op := range map[string]string{"autorenew": registry.ChangeAutoRenew, "expire": registry.ChangeAutoDelete} {
		for _, m := range msgs {
			if m.Change != nil && m.Change.Operation == op && m.Change.Who == "lifecycle" {
				heard[key] = append(heard[key], a.Name)
			}
		}
	}
	clock.Advance(31 * 24 * time.Hour)
	_, err = svc.RunLifecycle(ctx, 0)
	must("lifecycle", err)
	note("redemption-end", a, change("redemptionEnd"))
	clock.Advance(6 * 24 * time.Hour)
	_, err = svc.RunLifecycle(ctx, 0)
	must("lifecycle", err)
	note("purge", a, func(m *registry.PollMessage) bool {
		return m.Change != nil && m.Change.Operation == registry.ChangeAutoPurge && m.Change.State == "before"
	})
	// maintenance: every registrar hears
	mw, err := svc.CreateMaintenance(ctx, registry.Maintenance{Start: clock.Now().Add(time.Hour), End: clock.Now().Add(2 * time.Hour),
		Systems: []registry.MaintenanceSystem{{Name: "EPP", Impact: "full"}}})
	must("maintenance", err)
	maint := func(pt string) func(*registry.PollMessage) bool {
		return func(m *registry.PollMessage) bool {
			if m.Maint != nil && m.Maint.PollType == pt {
				m.Change = &registry.ChangeData{Object: "maintenance"}
				return true
			}
			return false
		}
	}
	for _, r := range []*registry.Registrar{a, b} {
		note("maintenance-create", r, maint(registry.MaintCreate))
	}
	mw.Description = "longer"
	mw.End = mw.End.Add(time.Hour)
	_, err = svc.UpdateMaintenance(ctx, *mw)
	must("maintenance update", err)
	for _, r := range []*registry.Registrar{a, b} {
		note("maintenance-update", r, maint(registry.MaintUpdate))
	}
	_, err = svc.CancelMaintenance(ctx, mw.ID)
	must("maintenance cancel", err)
	for _, r := range []*registry.Registrar{a, b} {
		note("maintenance-delete", r, maint(registry.MaintDelete))
	}
	// the re-audit's exemptions (a database whose family members kept
	// their own sets: two holders of one label)
	heard["reaudit-exempt"] = reauditExempt(t)

	// every scenario a heard method names was heard
	var keys []string
	for _, how := range changePollMethods {
		if k, ok := strings.CutPrefix(how, "heard: "); ok {
			keys = append(keys, strings.Fields(k)...)
		}
	}
	sort.Strings(keys)
	keys = slices.Compact(keys)
	for _, k := range keys {
		if len(heard[k]) == 0 {
			t.Errorf("%s: no registrar heard of it", k)
		}
	}
	t.Logf("%d methods heard (%d scenarios, the worker's transitions among them), %d own, %d changing no registrar's object",
		count("heard"), len(keys), count("own"), count("none"))
	if heard["operator-lock"] != nil && !slices.Contains(heard["operator-lock"], "cp-a:host") {
		t.Errorf("the operator's lock: heard %q, want the host's message too", heard["operator-lock"])
	}
}

func count(prefix string) int {
	n := 0
	for _, how := range changePollMethods {
		if strings.HasPrefix(how, prefix) {
			n++
		}
	}
	return n
}

// reauditExempt: a re-audit's apply that exempts two domains tells each
// sponsor.
func reauditExempt(t *testing.T) []string {
	ctx := t.Context()
	store, err := sqlite.Open(ctx, t.TempDir()+"/r.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.EnsureZones(ctx, registry.DefaultZones()); err != nil {
		t.Fatal(err)
	}
	r, err := store.CreateRegistrar(ctx, "old", []byte("old-token-hash"))
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range []*registry.Domain{{Label: "কিতাব", Zone: "ভারত", Lang: "bn"}, {Label: "কিতাব", Zone: "ভাৰত", Lang: "as"}} {
		d.Name, d.ALabel, d.Registrar, d.Blocks = d.Label+"."+d.Zone, fmt.Sprintf("a%d", i), "old", []string{d.Label}
		if _, err := store.CreateDomain(ctx, d, r.ID); err != nil {
			t.Fatal(err)
		}
	}
	svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{NoRecompute: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Reaudit(ctx, true, func(*registry.ReauditFinding) error { return nil }); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range drain(t, ctx, svc, r) {
		if m.Change != nil && m.Change.Op == "exempt" && m.Change.Who == "re-audit" {
			out = append(out, m.Name)
		}
	}
	if len(out) != 2 {
		t.Errorf("re-audit exemptions heard of: %q, want both domains", out)
	}
	return out
}
