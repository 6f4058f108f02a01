package registrytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/testlabel"
	"github.com/akshara-idn/akshara/registry"
)

// The atomicity suite (issue 33): every mutating command of domains, hosts
// and contacts either succeeds whole or leaves the registry exactly as it
// was (RFC 5730 §2.9). Each case is one command with one invalid part,
// alone or beside valid ones (an update that adds clientHold and a name
// server that does not exist, a create whose DS record is refused, a renew
// of a domain in redemption, …); it must be refused with the invalid
// part's code, and afterwards every object of the world must read as
// before: the domains' info (contacts, name servers, DS records, statuses,
// expiry, revision, the authInfo's hash and transfer state), the hosts'
// and contacts' info, the zone as exported, the poll queues, the conflict
// sets (a check of every name and of a variant of it), and the audit log
// but for one new record: the refusal's. The same cases run at three
// levels: the registry service (RunAtomicity, from the stores' tests),
// EPP (epp/atomicity_test.go) and the HTTP API (httpapi/atomicity_test.go),
// each on both stores; a Level says how it runs a command and answers a
// refusal (the one code table, registry.InfoOf). Then controls: the valid
// parts alone succeed, and each changes what the snapshot reads (so that
// the snapshot sees what a partial command would have left).

// The registrars of the world.
const (
	Acme  = "acme"
	Other = "other"
)

// OpKind is a command of the suite.
type OpKind string

// The commands.
const (
	OpDomainCreate   OpKind = "domain create"
	OpDomainUpdate   OpKind = "domain update"
	OpDomainRenew    OpKind = "domain renew"
	OpDomainDelete   OpKind = "domain delete"
	OpDomainRestore  OpKind = "domain restore"
	OpDomainTransfer OpKind = "domain transfer"
	OpHostCreate     OpKind = "host create"
	OpHostUpdate     OpKind = "host update"
	OpHostDelete     OpKind = "host delete"
	OpContactCreate  OpKind = "contact create"
	OpContactUpdate  OpKind = "contact update"
	OpContactDelete  OpKind = "contact delete"
)

// Op is one command as a registrar sends it, every part of it; a level
// runs it its own way (the service's request value, an EPP frame, an HTTP
// request).
type Op struct {
	Kind OpKind
	As   string // the registrar (Acme, Other)
	Name string // the domain (U-labels), the host, or the contact's id

	// Years is a create's, renew's or transfer request's period in years
	// (0: the default).
	Years int
	// AuthInfo is a domain create's or transfer's, or a contact create's
	// or update's, authInfo.
	AuthInfo string
	// A domain create's contacts, name servers and DS records.
	Contacts []registry.DomainContact
	NS       []string
	DS       []registry.DS

	// An update's statuses (domains, hosts and contacts).
	AddStatuses, RemStatuses []string
	// A domain update's parts.
	AddContacts, RemContacts []registry.DomainContact
	Registrant               string
	AddNS, RemNS             []string
	AddDS, RemDS             []registry.DS
	SetAuth                  *string // a new authInfo ("" removes it)

	// CurExpiry is a renew's current expiry date.
	CurExpiry time.Time
	// Verb is a restore's op (request, report) or a transfer's (request,
	// approve, reject, cancel).
	Verb string

	// A host create's addresses, a host update's.
	Addrs              []string
	AddAddrs, RemAddrs []string
	NewName            string

	// A contact create's data; a contact update's new e-mail address and
	// voice number.
	Contact registry.ContactData
	Email   string
	Voice   string
}

func (op Op) String() string {
	return fmt.Sprintf("%s %s as %s", op.Kind, op.Name, op.As)
}

// AtomicCase is a command the registry must refuse with Code, leaving
// everything as it was.
type AtomicCase struct {
	Name string
	Op   Op
	Code string
}

// Level is a way in: how a command is sent and how a refusal is answered.
type Level struct {
	Name string
	// Run sends op and returns the answer as the level tells it (an error
	// code, an EPP result code, an HTTP status and code), and false if
	// the level cannot say op at all (the case is skipped there, saying
	// so).
	Run func(t *testing.T, op Op) (answer string, ok bool)
	// Refused is the answer to a refusal with code.
	Refused func(code string) string
	// Succeeded reports whether an answer is a success.
	Succeeded func(answer string) bool
}

// ServiceLevel runs the commands as calls of the registry service.
func (w *World) ServiceLevel() Level {
	return Level{
		Name: "service",
		Run: func(t *testing.T, op Op) (string, bool) {
			err := w.RunService(w.ctx, op)
			if err == nil {
				return "ok", true
			}
			return registry.CodeOf(err), true
		},
		Refused:   func(code string) string { return code },
		Succeeded: func(answer string) bool { return answer == "ok" },
	}
}

// World is a registry with one object in each state a command can be
// refused for, made at fixed instants of a ManualClock (from T0: the
// commands run at T0+62 days).
type World struct {
	t     testing.TB
	ctx   context.Context
	Svc   *registry.Service
	Clock *registry.ManualClock
	// Registrars and their API tokens, by name (Acme, Other).
	Registrars map[string]*registry.Registrar
	Tokens     map[string]string

	// Acme's domains: Plain (no status; name servers, DS, contacts,
	// authInfo, a host under it), ClientLocked (clientUpdateProhibited),
	// Locked (clientDelete-, clientRenew- and clientTransferProhibited),
	// ServerLocked (the operator's serverUpdate-, serverDelete-,
	// serverRenew- and serverTransferProhibited), Pending (a transfer to
	// Other pending), Redemption (deleted a day ago), RedemptionOver
	// (deleted 32 days ago: its redemption period over, not purged yet),
	// Young (created a day ago: in the transfer lock), OnHold (clientHold:
	// out of the zone); Other's domain Others; New, which no one holds
	// (creates).
	Plain, ClientLocked, Locked, ServerLocked, Pending, Redemption, RedemptionOver, Young, OnHold, Others, New string
	// Glue is a host under Plain (A-labels), which Plain names: its
	// address is in the zone; Glue2 another, which no domain names.
	Glue, Glue2 string
	// PlainExpiry is Plain's expiry date.
	PlainExpiry time.Time

	variants map[string]string // a variant of each domain (a name it blocks)
	domains  []string
	hosts    []string
	contacts map[string]string // contact id → sponsor

	// A cell (atomicfaults.go) is one of many worlds alike in one
	// registry, its names marked with its tag: its snapshot reads its own
	// objects, zone lines (those naming alabels), poll queues and audit
	// records, with its names replaced (norm) by those every cell shares.
	tag     string
	alabels []string
	norm    *strings.Replacer
}

// The world's hosts, contacts, authInfos and DS records.
const (
	hostA       = "ns1.example.com" // Acme's, named by the domains
	hostB       = "ns2.example.com" // Acme's, named by the domains
	hostFree    = "ns3.example.com" // Acme's, named by none
	hostSpare   = "ns4.example.com" // Acme's, named by none (deletes)
	hostUpProh  = "ns-up.example.com"
	hostDelProh = "ns-dp.example.com"
	hostOther   = "ns.other.example" // Other's
	hostNowhere = "ns.nowhere.example"
	hostNew     = "ns9.example.com"

	domainPW  = "Domain-pw-1-strong"
	domainPW2 = "Domain-pw-2-strong"
	contactPW = "Contact-pw-1-strong"
)

var (
	dsA   = registry.DS{KeyTag: 12345, Algorithm: 13, DigestType: 2, Digest: "2BB183AF5F22588179A53B0A98631FAD1A292118B0A7C5B7E4B1F1A2E8C4D9A1"}
	dsB   = registry.DS{KeyTag: 2371, Algorithm: 15, DigestType: 4, Digest: strings.Repeat("AB", 48)}
	dsBad = registry.DS{KeyTag: 7, Algorithm: 5, DigestType: 2, Digest: "2BB183AF5F22588179A53B0A98631FAD1A292118B0A7C5B7E4B1F1A2E8C4D9A1"} // RSASHA1: RFC 8624
)

// The contacts: Acme's registrant, admin, tech; a billing contact and a
// second registrant it may add; two it names nowhere (updates, deletes);
// one with clientUpdateProhibited and one with clientDeleteProhibited;
// Other's.
const (
	cReg    = "acme-reg"
	cAdm    = "acme-adm"
	cTech   = "acme-tech"
	cBill   = "acme-bill"
	cReg2   = "acme-reg2"
	cSpare  = "acme-spare"
	cSpare2 = "acme-spare2"
	cUpProh = "acme-cup"
	cDlProh = "acme-cdp"
	cOther  = "other-c"
	cNew    = "acme-new"
	cNobody = "nobody-x"
)

// WorldDomain is the i-th label of the world's domains in भारत: one with a
// variant (त is also written त्त), so that each name's conflict set holds
// another.
func WorldDomain(i int) string { return "त" + testlabel.Hindi(i) + ".भारत" }

// NewWorld makes the world on svc, whose clock is clock (it is set to T0
// and moved on to T0+62 days): the registrars Acme and Other (unless they
// exist: a front end's test may have made them) and every object.
func NewWorld(t testing.TB, svc *registry.Service, clock *registry.ManualClock) *World {
	t.Helper()
	ctx := context.Background()
	w := &World{t: t, ctx: ctx, Svc: svc, Clock: clock, Registrars: map[string]*registry.Registrar{}, Tokens: map[string]string{},
		variants: map[string]string{}, contacts: map[string]string{}}
	clock.Set(T0)
	for _, name := range []string{Acme, Other} {
		r, token, err := svc.AddRegistrar(ctx, name)
		if err != nil {
			t.Fatalf("AddRegistrar(%s): %v", name, err)
		}
		w.Registrars[name], w.Tokens[name] = r, token
	}
	w.Plain, w.ClientLocked, w.Locked, w.ServerLocked, w.Pending = WorldDomain(0), WorldDomain(1), WorldDomain(2), WorldDomain(3), WorldDomain(4)
	w.Redemption, w.RedemptionOver, w.Young, w.Others, w.New = WorldDomain(5), WorldDomain(6), WorldDomain(7), WorldDomain(8), WorldDomain(9)
	w.OnHold = WorldDomain(10)
	w.domains = []string{w.Plain, w.ClientLocked, w.Locked, w.ServerLocked, w.Pending, w.Redemption, w.RedemptionOver, w.Young, w.OnHold, w.Others, w.New}
	for _, n := range w.domains {
		c, err := svc.Check(ctx, n, "hi")
		if err != nil || len(c.Variants) == 0 {
			t.Fatalf("Check(%s) = %+v, %v: want a name with a variant", n, c, err)
		}
		w.variants[n] = c.Variants[0] + ".भारत"
	}
	a, err := svc.Check(ctx, w.Plain, "hi")
	if err != nil {
		t.Fatal(err)
	}
	w.Glue, w.Glue2 = "ns1."+a.ALabel, "ns2."+a.ALabel
	o, err := svc.Check(ctx, w.Others, "hi")
	if err != nil {
		t.Fatal(err)
	}
	w.hosts = []string{hostA, hostB, hostFree, hostSpare, hostUpProh, hostDelProh, hostOther, w.Glue, w.Glue2, hostNew, "ns9." + a.ALabel, hostNowhere,
		"ns1." + o.ALabel, "ns9." + o.ALabel}

	// contacts and hosts
	for _, c := range []struct{ as, id string }{{Acme, cReg}, {Acme, cAdm}, {Acme, cTech}, {Acme, cBill}, {Acme, cReg2}, {Acme, cSpare}, {Acme, cSpare2},
		{Acme, cUpProh}, {Acme, cDlProh}, {Other, cOther}} {
		w.setup(t, Op{Kind: OpContactCreate, As: c.as, Name: c.id, Contact: DevanagariContact(), AuthInfo: contactPW})
		w.contacts[c.id] = c.as
	}
	w.contacts[cNew], w.contacts[cNobody] = Acme, Acme
	w.setup(t, Op{Kind: OpContactUpdate, As: Acme, Name: cUpProh, AddStatuses: []string{registry.ContactUpdateProhibited}})
	w.setup(t, Op{Kind: OpContactUpdate, As: Acme, Name: cDlProh, AddStatuses: []string{registry.ContactDeleteProhibited}})
	for _, h := range []string{hostA, hostB, hostFree, hostSpare, hostUpProh, hostDelProh} {
		w.setup(t, Op{Kind: OpHostCreate, As: Acme, Name: h})
	}
	w.setup(t, Op{Kind: OpHostCreate, As: Other, Name: hostOther})
	w.setup(t, Op{Kind: OpHostUpdate, As: Acme, Name: hostUpProh, AddStatuses: []string{registry.HostUpdateProhibited}})
	w.setup(t, Op{Kind: OpHostUpdate, As: Acme, Name: hostDelProh, AddStatuses: []string{registry.HostDeleteProhibited}})

	// domains, at T0
	create := func(name string) {
		w.setup(t, Op{Kind: OpDomainCreate, As: Acme, Name: name, AuthInfo: domainPW, Contacts: acmeContacts(),
			NS: []string{hostA, hostB}, DS: []registry.DS{dsA}})
	}
	for _, n := range []string{w.Plain, w.ClientLocked, w.Locked, w.ServerLocked, w.Pending, w.Redemption, w.RedemptionOver, w.OnHold} {
		create(n)
	}
	w.PlainExpiry = T0.AddDate(1, 0, 0)
	w.setup(t, Op{Kind: OpDomainCreate, As: Other, Name: w.Others, AuthInfo: domainPW, NS: []string{hostOther},
		Contacts: []registry.DomainContact{{Role: registry.RoleRegistrant, ID: cOther}, {Role: registry.RoleAdmin, ID: cOther}, {Role: registry.RoleTech, ID: cOther}}})
	w.setup(t, Op{Kind: OpHostCreate, As: Acme, Name: w.Glue, Addrs: []string{"198.41.0.1"}})
	w.setup(t, Op{Kind: OpHostCreate, As: Acme, Name: w.Glue2, Addrs: []string{"198.41.0.3"}})
	w.setup(t, Op{Kind: OpDomainUpdate, As: Acme, Name: w.Plain, AddNS: []string{w.Glue}})
	w.setup(t, Op{Kind: OpDomainUpdate, As: Acme, Name: w.ClientLocked, AddStatuses: []string{"clientUpdateProhibited"}})
	w.setup(t, Op{Kind: OpDomainUpdate, As: Acme, Name: w.OnHold, AddStatuses: []string{"clientHold"}})
	w.setup(t, Op{Kind: OpDomainUpdate, As: Acme, Name: w.Locked, AddStatuses: []string{"clientDeleteProhibited", "clientRenewProhibited", "clientTransferProhibited"}})
	w.setupServerStatuses(t, w.ServerLocked, "serverUpdateProhibited", "serverDeleteProhibited", "serverRenewProhibited", "serverTransferProhibited")

	// a domain deleted at T0+30d: at T0+62d its redemption period is over
	clock.Set(T0.AddDate(0, 0, 30))
	w.setup(t, Op{Kind: OpDomainDelete, As: Acme, Name: w.RedemptionOver})
	// at T0+61d (past the transfer lock of the domains created at T0):
	// a delete, a transfer request, a create
	clock.Set(T0.AddDate(0, 0, 61))
	w.setup(t, Op{Kind: OpDomainDelete, As: Acme, Name: w.Redemption})
	w.setup(t, Op{Kind: OpDomainTransfer, As: Other, Name: w.Pending, Verb: "request", AuthInfo: domainPW})
	create(w.Young)
	clock.Set(T0.AddDate(0, 0, 62))
	return w
}

// acmeContacts are the contacts Acme's domains are created with.
func acmeContacts() []registry.DomainContact {
	return []registry.DomainContact{{Role: registry.RoleRegistrant, ID: cReg}, {Role: registry.RoleAdmin, ID: cAdm}, {Role: registry.RoleTech, ID: cTech}}
}

// A Snapshot is what the world reads: Lines (every object, the zone, the
// poll queues, the checks) and the audit log.
type Snapshot struct {
	Lines []string
	Audit []registry.AuditEntry
}

// Snapshot reads the world. With portable, what differs between two
// worlds made alike is left out (IDs, which a sequence a rolled-back
// transaction used up makes differ; authInfo hashes, salted at random,
// only said to be set), so that snapshots of two worlds compare.
func (w *World) Snapshot(t testing.TB, portable bool) Snapshot {
	t.Helper()
	ctx := w.ctx
	var s Snapshot
	add := func(key string, v any, extra ...any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		line := key + ": " + string(b)
		for _, e := range extra {
			line += fmt.Sprint(" ", e)
		}
		s.Lines = append(s.Lines, line)
	}
	hash := func(h string) string {
		if portable && h != "" {
			return "set"
		}
		return h
	}
	ts, _ := w.Svc.Store().(registry.TransferStore)
	for _, n := range w.domains {
		d, err := w.Svc.Info(ctx, n)
		if err != nil {
			add("domain "+n, registry.CodeOf(err))
		} else {
			id := d.ID
			if portable {
				d.ID, d.RegistrarID = 0, 0
			}
			add("domain "+n, d, "rev", d.Rev, "renewed", d.Renewed.UTC(), "autorenewed", d.AutoRenewed.UTC())
			if ts != nil {
				st, h, err := ts.TransferState(ctx, id)
				if err != nil {
					t.Fatalf("TransferState(%s): %v", n, err)
				}
				for _, tr := range []*registry.Transfer{st.Pending, st.Last} {
					if tr != nil && portable {
						tr.ID = 0
					}
				}
				add("transfer state "+n, st, "authinfo", hash(h))
			}
		}
		for _, name := range []string{n, w.variants[n]} {
			c, err := w.Svc.Check(ctx, name, "hi")
			if err != nil {
				t.Fatalf("Check(%s): %v", name, err)
			}
			add("check "+name, c)
		}
	}
	for _, h := range w.hosts {
		ho, err := w.Svc.HostInfo(ctx, h)
		if err != nil {
			add("host "+h, registry.CodeOf(err))
			continue
		}
		if portable {
			ho.ID = 0
		}
		add("host "+h, ho, "version", ho.Version)
	}
	ids := make([]string, 0, len(w.contacts))
	for id := range w.contacts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		c, err := w.Svc.ContactInfo(ctx, w.Registrars[w.contacts[id]], id, "")
		if err != nil {
			add("contact "+id, registry.CodeOf(err))
			continue
		}
		if portable {
			c.ROID = 0
		}
		add("contact "+id, c, "authinfo", hash(c.AuthHash), "version", c.Version)
	}
	var zone bytes.Buffer
	if err := w.Svc.ExportZone(ctx, "भारत", registry.ZoneExportOptions{NS: []string{"a.ns.example.net"}}, &zone); err != nil {
		t.Fatalf("ExportZone: %v", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(zone.String()), "\n") {
		if w.tag != "" && !slices.ContainsFunc(w.alabels, func(a string) bool { return strings.Contains(l, a) }) {
			continue // another cell's, or the apex
		}
		s.Lines = append(s.Lines, "zone: "+l)
	}
	names := make([]string, 0, len(w.Registrars))
	for name := range w.Registrars {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		m, n, err := w.Svc.PollRequest(ctx, w.Registrars[name])
		if err != nil {
			t.Fatalf("PollRequest(%s): %v", name, err)
		}
		if m != nil && portable {
			m.ID, m.RegistrarID = 0, 0
			if m.Transfer != nil {
				m.Transfer.ID = 0
			}
		}
		add("poll "+name, m, "count", n)
	}
	var filters []registry.AuditFilter
	if w.tag == "" {
		filters = append(filters, registry.AuditFilter{})
	} else {
		for _, name := range names {
			filters = append(filters, registry.AuditFilter{Registrar: name})
		}
	}
	for _, f := range filters {
		audit, err := w.Svc.Audit(ctx, f)
		if err != nil {
			t.Fatalf("Audit: %v", err)
		}
		s.Audit = append(s.Audit, audit...)
	}
	slices.SortFunc(s.Audit, func(a, b registry.AuditEntry) int { return int(a.ID - b.ID) })
	if portable {
		for i := range s.Audit {
			s.Audit[i].ID = 0
		}
	}
	if w.norm != nil {
		for i, l := range s.Lines {
			s.Lines[i] = w.norm.Replace(l)
		}
		slices.Sort(s.Lines) // a cell's domains come in the order of their A-labels
		for i := range s.Audit {
			s.Audit[i].Registrar, s.Audit[i].Name = w.norm.Replace(s.Audit[i].Registrar), w.norm.Replace(s.Audit[i].Name)
		}
	}
	return s
}

// Diff lists the lines of a that b lacks (-) and those of b that a lacks
// (+); "" if their lines are the same.
func (a Snapshot) Diff(b Snapshot) string {
	var out []string
	for _, l := range a.Lines {
		if !slices.Contains(b.Lines, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range b.Lines {
		if !slices.Contains(a.Lines, l) {
			out = append(out, "+ "+l)
		}
	}
	if len(out) == 0 && !slices.Equal(a.Lines, b.Lines) {
		out = append(out, "the same lines in another order")
	}
	return strings.Join(out, "\n")
}

// NewAudit returns the records of after's audit log that before's lacks,
// or a description of how before's records were changed.
func NewAudit(before, after Snapshot) ([]registry.AuditEntry, string) {
	if len(after.Audit) < len(before.Audit) || !slices.Equal(after.Audit[:len(before.Audit)], before.Audit) {
		return nil, fmt.Sprintf("the audit log's %d records were changed: now %d", len(before.Audit), len(after.Audit))
	}
	return after.Audit[len(before.Audit):], ""
}

// RunAtomicity runs the suite at the service level on a fresh store of
// open's (the stores' tests call it).
func RunAtomicity(t *testing.T, open func(t *testing.T) registry.Store) {
	clock := registry.NewManualClock(T0)
	svc, err := registry.NewServiceWith(t.Context(), open(t), Exempt(registry.ServiceOptions{Clock: clock}, ""))
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorld(t, svc, clock)
	w.Run(t, w.ServiceLevel())
}

// Run runs every case at the level, then the controls.
func (w *World) Run(t *testing.T, level Level) {
	before := w.Snapshot(t, false)
	cases := w.Cases()
	kinds := map[OpKind]int{}
	skipped := 0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			answer, ok := level.Run(t, c.Op)
			if !ok {
				skipped++
				t.Skipf("the %s level cannot send this command", level.Name)
			}
			kinds[c.Op.Kind]++
			after := w.Snapshot(t, false)
			if want := level.Refused(c.Code); answer != want {
				t.Errorf("%s: answered %s, want %s (%s)", c.Op, answer, want, c.Code)
			}
			if d := before.Diff(after); d != "" {
				t.Errorf("%s: refused, yet the registry changed:\n%s", c.Op, d)
			}
			added, bad := NewAudit(before, after)
			switch {
			case bad != "":
				t.Errorf("%s: %s", c.Op, bad)
			case len(added) != 1:
				t.Errorf("%s: %d new audit records, want one (the refusal's): %+v", c.Op, len(added), added)
			case added[0].Result != c.Code || added[0].Registrar != c.Op.As:
				t.Errorf("%s: the new audit record is %+v, want the refusal's (result %s, registrar %s)", c.Op, added[0], c.Code, c.Op.As)
			}
			before = after
		})
	}
	for _, k := range []OpKind{OpDomainCreate, OpDomainUpdate, OpDomainRenew, OpDomainDelete, OpDomainRestore, OpDomainTransfer,
		OpHostCreate, OpHostUpdate, OpHostDelete, OpContactCreate, OpContactUpdate, OpContactDelete} {
		if kinds[k] == 0 {
			t.Errorf("no case of %s ran at the %s level", k, level.Name)
		}
	}
	t.Logf("%d cases at the %s level (%d skipped: not said at this level)", len(cases)-skipped, level.Name, skipped)

	// the controls: each valid part alone succeeds and changes what the
	// snapshot reads
	for _, c := range w.Controls() {
		t.Run("control/"+c.Name, func(t *testing.T) {
			answer, ok := level.Run(t, c.Op)
			if !ok {
				t.Skipf("the %s level cannot send this command", level.Name)
			}
			after := w.Snapshot(t, false)
			if !level.Succeeded(answer) {
				t.Errorf("%s: answered %s, want a success", c.Op, answer)
			} else if before.Diff(after) == "" {
				t.Errorf("%s: succeeded, yet the snapshot reads the same: it cannot see this command's change", c.Op)
			}
			before = after
		})
	}
}

// part is one part of a command: a change of it.
type part struct {
	name string
	set  func(*Op)
	slot string // parts of one slot cannot go together (one authInfo, one registrant)
	code string // for an invalid part: its refusal's code
}

// Cases are the suite's commands, each with one invalid part, and the
// code each must be refused with.
func (w *World) Cases() []AtomicCase {
	var cases []AtomicCase
	add := func(name string, op Op, code string) {
		cases = append(cases, AtomicCase{Name: string(op.Kind) + "/" + name, Op: op, Code: code})
	}
	str := func(s string) *string { return &s }

	// domain update: every valid part with every invalid part, on Plain
	valid := []part{
		{name: "status", set: func(o *Op) { o.AddStatuses = append(o.AddStatuses, "clientHold") }},
		{name: "name server", set: func(o *Op) { o.AddNS = append(o.AddNS, hostFree) }},
		{name: "name server removed", set: func(o *Op) { o.RemNS = append(o.RemNS, hostB) }},
		{name: "DS", set: func(o *Op) { o.AddDS = append(o.AddDS, dsB) }},
		{name: "DS removed", set: func(o *Op) { o.RemDS = append(o.RemDS, dsA) }},
		{name: "contact", set: func(o *Op) {
			o.AddContacts = append(o.AddContacts, registry.DomainContact{Role: registry.RoleBilling, ID: cBill})
		}},
		{name: "contact removed", set: func(o *Op) {
			o.RemContacts = append(o.RemContacts, registry.DomainContact{Role: registry.RoleAdmin, ID: cAdm})
			o.AddContacts = append(o.AddContacts, registry.DomainContact{Role: registry.RoleAdmin, ID: cSpare})
		}},
		{name: "registrant", slot: "registrant", set: func(o *Op) { o.Registrant = cReg2 }},
		{name: "authInfo", slot: "authInfo", set: func(o *Op) { o.SetAuth = str(domainPW2) }},
	}
	invalid := []part{
		{name: "unknown host", code: registry.CodeNotFound, set: func(o *Op) { o.AddNS = append(o.AddNS, hostNowhere) }},
		{name: "bad DS algorithm", code: "BAD_DS", set: func(o *Op) { o.AddDS = append(o.AddDS, dsBad) }},
		{name: "unknown contact", code: registry.CodeNotFound, set: func(o *Op) {
			o.AddContacts = append(o.AddContacts, registry.DomainContact{Role: registry.RoleTech, ID: cNobody})
		}},
		{name: "another registrar's contact", code: registry.CodeContactNotSponsored, set: func(o *Op) {
			o.AddContacts = append(o.AddContacts, registry.DomainContact{Role: registry.RoleTech, ID: cOther})
		}},
		{name: "unknown registrant", slot: "registrant", code: registry.CodeNotFound, set: func(o *Op) { o.Registrant = cNobody }},
		{name: "unknown status", code: registry.CodeBadStatus, set: func(o *Op) { o.AddStatuses = append(o.AddStatuses, "clientFrozen") }},
		{name: "server status", code: registry.CodeBadStatus, set: func(o *Op) { o.AddStatuses = append(o.AddStatuses, "serverHold") }},
		{name: "status it lacks", code: registry.CodeBadStatus, set: func(o *Op) { o.RemStatuses = append(o.RemStatuses, "clientDeleteProhibited") }},
		{name: "short authInfo", slot: "authInfo", code: registry.CodeWeakAuthInfo, set: func(o *Op) { o.SetAuth = str("abc") }},
	}
	for _, v := range valid {
		for _, in := range invalid {
			if v.slot != "" && v.slot == in.slot {
				continue
			}
			op := Op{Kind: OpDomainUpdate, As: Acme, Name: w.Plain}
			v.set(&op)
			in.set(&op)
			add(v.name+" + "+in.name, op, in.code)
		}
	}
	// … and every valid part on a domain whose state refuses any update
	for _, st := range []struct {
		what, name, as, code string
	}{
		{"clientUpdateProhibited", w.ClientLocked, Acme, registry.CodeStatusProhibits},
		{"serverUpdateProhibited", w.ServerLocked, Acme, registry.CodeStatusProhibits},
		{"pending transfer", w.Pending, Acme, registry.CodeStatusProhibits},
		{"in redemption", w.Redemption, Acme, registry.CodeStatusProhibits},
		{"another registrar's", w.Others, Acme, registry.CodeForbidden},
	} {
		for _, v := range valid {
			op := Op{Kind: OpDomainUpdate, As: st.as, Name: st.name}
			v.set(&op)
			add(v.name+" on "+st.what, op, st.code)
		}
	}
	// removing clientUpdateProhibited lifts it for the rest of the update:
	// refused for an invalid part, it stays
	for _, in := range invalid {
		op := Op{Kind: OpDomainUpdate, As: Acme, Name: w.ClientLocked, RemStatuses: []string{"clientUpdateProhibited"}}
		in.set(&op)
		add("clientUpdateProhibited removed + "+in.name, op, in.code)
	}

	// the second case: removing clientHold would put the domain
	// back in the zone; refused for an invalid part, it stays out
	for _, in := range invalid {
		op := Op{Kind: OpDomainUpdate, As: Acme, Name: w.OnHold, RemStatuses: []string{"clientHold"}}
		in.set(&op)
		add("clientHold removed + "+in.name, op, in.code)
	}

	// domain create: a valid name with every other part valid but one
	create := func() Op {
		return Op{Kind: OpDomainCreate, As: Acme, Name: w.New, AuthInfo: domainPW, Contacts: acmeContacts(), NS: []string{hostA, w.Glue}, DS: []registry.DS{dsA}}
	}
	for _, in := range []part{
		{name: "unknown host", code: registry.CodeNotFound, set: func(o *Op) { o.NS = append(o.NS, hostNowhere) }},
		{name: "bad DS algorithm", code: "BAD_DS", set: func(o *Op) { o.DS = append(o.DS, dsBad) }},
		{name: "unknown contact", code: registry.CodeNotFound, set: func(o *Op) {
			o.Contacts = append(o.Contacts, registry.DomainContact{Role: registry.RoleBilling, ID: cNobody})
		}},
		{name: "unknown registrant", code: registry.CodeNotFound, set: func(o *Op) { o.Contacts[0].ID = cNobody }},
		{name: "another registrar's contact", code: registry.CodeContactNotSponsored, set: func(o *Op) { o.Contacts[1].ID = cOther }},
		{name: "another registrar's host", code: "", set: func(o *Op) { o.NS = append(o.NS, hostOther) }},
		{name: "short authInfo", code: registry.CodeWeakAuthInfo, set: func(o *Op) { o.AuthInfo = "abc" }},
		{name: "period of 11 years", code: registry.CodePeriodRange, set: func(o *Op) { o.Years = 11 }},
		{name: "a variant of a registered name", code: registry.CodeConflict, set: func(o *Op) { o.Name = w.variants[w.Plain] }},
	} {
		if in.code == "" {
			continue // a domain may name any registrar's host
		}
		op := create()
		in.set(&op)
		add("name + "+in.name, op, in.code)
	}

	// renew
	renew := func(name string) Op {
		return Op{Kind: OpDomainRenew, As: Acme, Name: name, CurExpiry: w.PlainExpiry, Years: 1}
	}
	for _, c := range []struct {
		what string
		op   Op
		code string
	}{
		{"wrong current expiry", func() Op { o := renew(w.Plain); o.CurExpiry = w.PlainExpiry.AddDate(0, 0, 1); return o }(), registry.CodeWrongExpiry},
		{"period of 11 years", func() Op { o := renew(w.Plain); o.Years = 11; return o }(), registry.CodePeriodRange},
		{"past the 10-year horizon", func() Op { o := renew(w.Plain); o.Years = 10; return o }(), registry.CodeNotRenewable},
		{"clientRenewProhibited", renew(w.Locked), registry.CodeStatusProhibits},
		{"serverRenewProhibited", renew(w.ServerLocked), registry.CodeStatusProhibits},
		{"in redemption", renew(w.Redemption), registry.CodeStatusProhibits},
		{"another registrar's", renew(w.Others), registry.CodeForbidden},
	} {
		add(c.what, c.op, c.code)
	}

	// delete
	del := func(name string) Op { return Op{Kind: OpDomainDelete, As: Acme, Name: name} }
	add("a host under it", del(w.Plain), registry.CodeAssociated)
	add("clientDeleteProhibited", del(w.Locked), registry.CodeStatusProhibits)
	add("serverDeleteProhibited", del(w.ServerLocked), registry.CodeStatusProhibits)
	add("pending transfer", del(w.Pending), registry.CodeStatusProhibits)
	add("in redemption", del(w.Redemption), registry.CodeStatusProhibits)
	add("another registrar's", del(w.Others), registry.CodeForbidden)

	// restore
	restore := func(name, verb string) Op { return Op{Kind: OpDomainRestore, As: Acme, Name: name, Verb: verb} }
	add("request, not deleted", restore(w.Plain, "request"), registry.CodeStatusProhibits)
	add("report, not requested", restore(w.Redemption, "report"), registry.CodeStatusProhibits)
	add("request, redemption over", restore(w.RedemptionOver, "request"), registry.CodeStatusProhibits)
	add("request, another registrar's", Op{Kind: OpDomainRestore, As: Other, Name: w.Redemption, Verb: "request"}, registry.CodeForbidden)

	// transfer
	tr := func(as, name, verb string) Op {
		o := Op{Kind: OpDomainTransfer, As: as, Name: name, Verb: verb}
		if verb == "request" {
			o.AuthInfo, o.Years = domainPW, 1
		}
		return o
	}
	add("request, wrong authInfo", func() Op { o := tr(Other, w.Plain, "request"); o.AuthInfo = domainPW2; return o }(), registry.CodeBadAuthInfo)
	add("request, period of 11 years", func() Op { o := tr(Other, w.Plain, "request"); o.Years = 11; return o }(), registry.CodePeriodRange)
	add("request, pending already", tr(Other, w.Pending, "request"), registry.CodePendingTransfer)
	add("request, clientTransferProhibited", tr(Other, w.Locked, "request"), registry.CodeStatusProhibits)
	add("request, serverTransferProhibited", tr(Other, w.ServerLocked, "request"), registry.CodeStatusProhibits)
	// a delete removes the authInfo: a request for a domain in redemption
	// is refused for it, first (whoever lacks it learns nothing of the
	// domain's state)
	add("request, in redemption", tr(Other, w.Redemption, "request"), registry.CodeBadAuthInfo)
	add("request, in the lock period", tr(Other, w.Young, "request"), registry.CodeNotEligible)
	add("request, its own", tr(Acme, w.Plain, "request"), registry.CodeNotEligible)
	add("approve by the gaining registrar", tr(Other, w.Pending, "approve"), registry.CodeForbidden)
	add("reject by the gaining registrar", tr(Other, w.Pending, "reject"), registry.CodeForbidden)
	add("cancel by the sponsor", tr(Acme, w.Pending, "cancel"), registry.CodeForbidden)
	add("approve, none pending", tr(Acme, w.Plain, "approve"), registry.CodeNotPendingTransfer)
	add("cancel, none pending", tr(Other, w.Plain, "cancel"), registry.CodeNotPendingTransfer)

	// host create
	hostUnder := "ns9." + strings.TrimPrefix(w.Glue, "ns1.")
	hc := func(name string, addrs ...string) Op {
		return Op{Kind: OpHostCreate, As: Acme, Name: name, Addrs: addrs}
	}
	add("glue outside the registry's zones", hc(hostNew, "198.41.0.9"), registry.CodeHostPolicy)
	add("bad address", hc(hostUnder, "198.41.0.9", "300.1.1.1"), registry.CodeBadAddress)
	add("private address", hc(hostUnder, "198.41.0.9", "10.0.0.1"), registry.CodeAddressRange)
	add("glue under another registrar's domain", hc("ns9."+w.aLabel(w.Others), "198.41.0.9"), registry.CodeHostPolicy)
	add("exists", hc(hostA), registry.CodeExists)

	// host update: addresses and statuses, one of them invalid; a new name
	hu := func(name string) Op { return Op{Kind: OpHostUpdate, As: Acme, Name: name} }
	hvalid := []part{
		{name: "address", set: func(o *Op) { o.AddAddrs = append(o.AddAddrs, "198.41.0.2") }},
		{name: "address removed", set: func(o *Op) { o.RemAddrs = append(o.RemAddrs, "198.41.0.1") }},
		{name: "status", set: func(o *Op) { o.AddStatuses = append(o.AddStatuses, registry.HostDeleteProhibited) }},
	}
	hinvalid := []part{
		{name: "unknown status", code: registry.CodeHostPolicy, set: func(o *Op) { o.AddStatuses = append(o.AddStatuses, "clientFrozen") }},
		{name: "server status", code: registry.CodeHostPolicy, set: func(o *Op) { o.AddStatuses = append(o.AddStatuses, "serverUpdateProhibited") }},
		{name: "status it lacks", code: registry.CodeHostPolicy, set: func(o *Op) { o.RemStatuses = append(o.RemStatuses, registry.HostUpdateProhibited) }},
		{name: "bad address", code: registry.CodeBadAddress, set: func(o *Op) { o.AddAddrs = append(o.AddAddrs, "300.1.1.1") }},
		{name: "private address", code: registry.CodeAddressRange, set: func(o *Op) { o.AddAddrs = append(o.AddAddrs, "10.0.0.1") }},
		{name: "address it lacks", code: registry.CodeHostPolicy, set: func(o *Op) { o.RemAddrs = append(o.RemAddrs, "198.41.0.77") }},
		{name: "another host's name", code: registry.CodeExists, set: func(o *Op) { o.NewName = w.Glue2 }},
		{name: "a name under another registrar's domain", code: registry.CodeHostPolicy, set: func(o *Op) { o.NewName = "ns1." + w.aLabel(w.Others) }},
	}
	for _, v := range hvalid {
		for _, in := range hinvalid {
			op := hu(w.Glue)
			v.set(&op)
			in.set(&op)
			add(v.name+" + "+in.name, op, in.code)
		}
	}
	add("glue outside the registry's zones + status", func() Op {
		o := hu(hostFree)
		o.AddStatuses, o.AddAddrs = []string{registry.HostDeleteProhibited}, []string{"198.41.0.2"}
		return o
	}(), registry.CodeHostPolicy)
	for _, v := range hvalid[:1] {
		op := hu(hostUpProh)
		v.set(&op)
		add(v.name+" on clientUpdateProhibited", op, registry.CodeStatusProhibits)
		op = Op{Kind: OpHostUpdate, As: Acme, Name: hostOther}
		v.set(&op)
		add(v.name+" on another registrar's", op, registry.CodeForbidden)
	}
	add("status on clientUpdateProhibited", func() Op {
		o := hu(hostUpProh)
		o.AddStatuses = []string{registry.HostDeleteProhibited}
		return o
	}(), registry.CodeStatusProhibits)

	// host delete
	hd := func(as, name string) Op { return Op{Kind: OpHostDelete, As: as, Name: name} }
	add("named by a domain", hd(Acme, hostA), registry.CodeAssociated)
	add("glue named by its domain", hd(Acme, w.Glue), registry.CodeAssociated)
	add("clientDeleteProhibited", hd(Acme, hostDelProh), registry.CodeStatusProhibits)
	add("another registrar's", hd(Acme, hostOther), registry.CodeForbidden)

	// contact create
	cc := func(edit func(*Op)) Op {
		o := Op{Kind: OpContactCreate, As: Acme, Name: cNew, Contact: DevanagariContact(), AuthInfo: contactPW}
		edit(&o)
		return o
	}
	add("bad e-mail address", cc(func(o *Op) { o.Contact.Email = "not an address" }), registry.CodeBadContact)
	add("short authInfo", cc(func(o *Op) { o.AuthInfo = "abc" }), registry.CodeWeakAuthInfo)
	add("bad voice number", cc(func(o *Op) { o.Contact.Voice = &registry.Phone{Number: "12345"} }), registry.CodeBadContact)
	add("exists", cc(func(o *Op) { o.Name = cReg }), registry.CodeExists)

	// contact update: a valid change with an invalid one
	cu := func(id string) Op { return Op{Kind: OpContactUpdate, As: Acme, Name: id} }
	cvalid := []part{
		{name: "e-mail", set: func(o *Op) { o.Email = "new@example.in" }},
		{name: "status", set: func(o *Op) { o.AddStatuses = append(o.AddStatuses, registry.ContactDeleteProhibited) }},
		{name: "authInfo", slot: "authInfo", set: func(o *Op) { o.AuthInfo = "Contact-pw-2-strong" }},
	}
	cinvalid := []part{
		{name: "unknown status", code: registry.CodeContactPolicy, set: func(o *Op) { o.AddStatuses = append(o.AddStatuses, "clientFrozen") }},
		{name: "server status", code: registry.CodeContactPolicy, set: func(o *Op) { o.AddStatuses = append(o.AddStatuses, "serverUpdateProhibited") }},
		{name: "status it lacks", code: registry.CodeContactPolicy, set: func(o *Op) { o.RemStatuses = append(o.RemStatuses, registry.ContactUpdateProhibited) }},
		{name: "short authInfo", slot: "authInfo", code: registry.CodeWeakAuthInfo, set: func(o *Op) { o.AuthInfo = "abc" }},
		{name: "bad voice number", code: registry.CodeBadContact, set: func(o *Op) { o.Voice = "12345" }},
	}
	for _, v := range cvalid {
		for _, in := range cinvalid {
			if v.slot != "" && v.slot == in.slot {
				continue
			}
			op := cu(cSpare)
			v.set(&op)
			in.set(&op)
			add(v.name+" + "+in.name, op, in.code)
		}
		op := cu(cUpProh)
		v.set(&op)
		add(v.name+" on clientUpdateProhibited", op, registry.CodeStatusProhibits)
		op = cu(cOther)
		v.set(&op)
		add(v.name+" on another registrar's", op, registry.CodeForbidden)
	}

	// contact delete
	cd := func(id string) Op { return Op{Kind: OpContactDelete, As: Acme, Name: id} }
	add("named by a domain", cd(cReg), registry.CodeAssociated)
	add("clientDeleteProhibited", cd(cDlProh), registry.CodeStatusProhibits)
	add("another registrar's", cd(cOther), registry.CodeForbidden)
	return cases
}

// Controls are commands of the valid parts alone, each of which must
// succeed and change what the snapshot reads; run in this order, after
// the cases.
func (w *World) Controls() []AtomicCase {
	str := func(s string) *string { return &s }
	up := func(edit func(*Op)) Op {
		o := Op{Kind: OpDomainUpdate, As: Acme, Name: w.Plain}
		edit(&o)
		return o
	}
	return []AtomicCase{
		{Name: "update status", Op: up(func(o *Op) { o.AddStatuses = []string{"clientHold"} })},
		{Name: "update name server", Op: up(func(o *Op) { o.AddNS = []string{hostFree} })},
		{Name: "update name server removed", Op: up(func(o *Op) { o.RemNS = []string{hostB} })},
		{Name: "update DS", Op: up(func(o *Op) { o.AddDS = []registry.DS{dsB} })},
		{Name: "update DS removed", Op: up(func(o *Op) { o.RemDS = []registry.DS{dsA} })},
		{Name: "update contact", Op: up(func(o *Op) {
			o.AddContacts = []registry.DomainContact{{Role: registry.RoleBilling, ID: cBill}}
		})},
		{Name: "update contact removed", Op: up(func(o *Op) {
			o.RemContacts = []registry.DomainContact{{Role: registry.RoleAdmin, ID: cAdm}}
			o.AddContacts = []registry.DomainContact{{Role: registry.RoleAdmin, ID: cSpare}}
		})},
		{Name: "update registrant", Op: up(func(o *Op) { o.Registrant = cReg2 })},
		{Name: "update authInfo", Op: up(func(o *Op) { o.SetAuth = str(domainPW2) })},
		{Name: "update clientUpdateProhibited removed", Op: Op{Kind: OpDomainUpdate, As: Acme, Name: w.ClientLocked, RemStatuses: []string{"clientUpdateProhibited"}}},
		{Name: "update clientHold removed", Op: Op{Kind: OpDomainUpdate, As: Acme, Name: w.OnHold, RemStatuses: []string{"clientHold"}}},
		{Name: "create", Op: Op{Kind: OpDomainCreate, As: Acme, Name: w.New, AuthInfo: domainPW, Contacts: acmeContacts(), NS: []string{hostA, w.Glue}, DS: []registry.DS{dsA}}},
		{Name: "renew", Op: Op{Kind: OpDomainRenew, As: Acme, Name: w.Plain, CurExpiry: w.PlainExpiry, Years: 1}},
		{Name: "transfer request", Op: Op{Kind: OpDomainTransfer, As: Other, Name: w.Plain, Verb: "request", AuthInfo: domainPW2, Years: 1}},
		{Name: "transfer reject", Op: Op{Kind: OpDomainTransfer, As: Acme, Name: w.Plain, Verb: "reject"}},
		{Name: "restore request", Op: Op{Kind: OpDomainRestore, As: Acme, Name: w.Redemption, Verb: "request"}},
		{Name: "delete", Op: Op{Kind: OpDomainDelete, As: Acme, Name: w.Young}},
		{Name: "host create", Op: Op{Kind: OpHostCreate, As: Acme, Name: "ns9." + strings.TrimPrefix(w.Glue, "ns1."), Addrs: []string{"198.41.0.9"}}},
		{Name: "host update address", Op: Op{Kind: OpHostUpdate, As: Acme, Name: w.Glue, AddAddrs: []string{"198.41.0.2"}}},
		{Name: "host update status", Op: Op{Kind: OpHostUpdate, As: Acme, Name: w.Glue, AddStatuses: []string{registry.HostDeleteProhibited}}},
		{Name: "host delete", Op: Op{Kind: OpHostDelete, As: Acme, Name: hostSpare}},
		{Name: "contact create", Op: Op{Kind: OpContactCreate, As: Acme, Name: cNew, Contact: DevanagariContact(), AuthInfo: contactPW}},
		{Name: "contact update e-mail", Op: Op{Kind: OpContactUpdate, As: Acme, Name: cSpare2, Email: "new@example.in"}},
		{Name: "contact update status", Op: Op{Kind: OpContactUpdate, As: Acme, Name: cSpare2, AddStatuses: []string{registry.ContactUpdateProhibited}}},
		{Name: "contact delete", Op: Op{Kind: OpContactDelete, As: Acme, Name: cSpare2}},
	}
}

// aLabel is a name's A-label form.
func (w *World) aLabel(name string) string {
	c, err := w.Svc.Check(w.ctx, name, "hi")
	if err != nil {
		w.t.Fatalf("Check(%s): %v", name, err)
	}
	return c.ALabel
}
