package registrytest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/internal/faultdriver"
	"github.com/akshara-idn/akshara/internal/longtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry"
)

// Faults in a command's transaction (issue 33): each mutating command of
// domains, hosts and contacts is run once cleanly on a small world (a
// cell: one of many alike in one store, faultCell), which counts the
// statements of its transaction (n) and gives the world before (S0) and
// after (S1) one clean application. Then, each on a cell made alike, a
// fault is injected through the store's faulting driver
// (internal/faultdriver):
//
//   - a fault that is not transient instead of statement i, for i in
//     1..n, and at COMMIT (rolled back): the command is refused
//     (INTERNAL) and the world reads as before it, with one new audit
//     record, the refusal's;
//   - a transient fault (SQLITE_BUSY, a serialization failure) instead of
//     statement i (every i in the long run, AKSHARA_LONG_TESTS=1, which
//     .ci/run sets; every fifth, the first and the last otherwise), and
//     at COMMIT: the store runs the command again and it succeeds, and
//     the world reads exactly as S1: applied once (one audit record, one
//     poll message, one year added);
//   - a connection lost after the COMMIT reached the database (the
//     client told it failed): the command's mark (tx_marks) says it took
//     effect; it is answered with success and the world reads as S1;
//     lost before it did: the mark says it did not, and the command runs
//     again (applied once), or, on a store for which the error is not
//     transient, is refused with nothing written.
//
// Never partial: a world that reads as neither fails the test, with the
// difference.

// FaultKit is how a store's tests run RunCommandFaults.
type FaultKit struct {
	// Driver is the faulting driver Open's stores go through.
	Driver *faultdriver.Driver
	// Open opens a fresh, empty store through Driver (closed when the
	// test ends), retrying its transient faults a few times, quickly.
	Open func(t *testing.T) *sqlstore.Store
	// Transient is a fault the store retries; Fatal one it does not;
	// Lost the error of a connection lost at a COMMIT, which the store
	// resolves by the command's mark; LostRetried whether it runs the
	// command again when the mark says the COMMIT did not take effect (a
	// lost connection is transient on PostgreSQL; SQLite, in the process,
	// has no such error and refuses the command).
	Transient, Fatal, Lost error
	LostRetried            bool
}

// faultCommand is a command of the fault suite, on a cell: prep runs
// before it (cleanly).
type faultCommand struct {
	name string
	prep func(c *faultCell) []Op
	op   func(c *faultCell) Op
}

// faultCommands are every mutating command of domains, hosts and
// contacts, each with as many parts as it takes.
func faultCommands() []faultCommand {
	str := func(s string) *string { return &s }
	request := func(c *faultCell) []Op {
		return []Op{{Kind: OpDomainTransfer, As: c.other, Name: c.Plain, Verb: "request", AuthInfo: domainPW, Years: 1}}
	}
	transfer := func(other bool, verb string) func(c *faultCell) Op {
		return func(c *faultCell) Op {
			as := c.acme
			if other {
				as = c.other
			}
			return Op{Kind: OpDomainTransfer, As: as, Name: c.Plain, Verb: verb}
		}
	}
	deleted := func(c *faultCell) []Op { return []Op{{Kind: OpDomainDelete, As: c.acme, Name: c.Young}} }
	return []faultCommand{
		{name: "domain create", op: func(c *faultCell) Op {
			return Op{Kind: OpDomainCreate, As: c.acme, Name: c.New, Years: 2, AuthInfo: domainPW,
				Contacts: append(c.contactsOf(), registry.DomainContact{Role: registry.RoleBilling, ID: c.id(cBill)}),
				NS:       []string{c.host(hostA), c.Glue}, DS: []registry.DS{dsA, dsB}}
		}},
		{name: "domain update", op: func(c *faultCell) Op {
			return Op{Kind: OpDomainUpdate, As: c.acme, Name: c.Plain, AddStatuses: []string{"clientHold", "clientDeleteProhibited"},
				AddNS: []string{c.host(hostFree)}, RemNS: []string{c.host(hostA)}, AddDS: []registry.DS{dsB}, RemDS: []registry.DS{dsA},
				AddContacts: []registry.DomainContact{{Role: registry.RoleBilling, ID: c.id(cBill)}}, Registrant: c.id(cReg2), SetAuth: str(domainPW2)}
		}},
		{name: "domain renew", op: func(c *faultCell) Op {
			return Op{Kind: OpDomainRenew, As: c.acme, Name: c.Plain, CurExpiry: c.PlainExpiry, Years: 1}
		}},
		{name: "domain delete", op: func(c *faultCell) Op { return Op{Kind: OpDomainDelete, As: c.acme, Name: c.Young} }},
		{name: "domain restore request", prep: deleted, op: func(c *faultCell) Op {
			return Op{Kind: OpDomainRestore, As: c.acme, Name: c.Young, Verb: "request"}
		}},
		{name: "domain restore report", prep: func(c *faultCell) []Op {
			return append(deleted(c), Op{Kind: OpDomainRestore, As: c.acme, Name: c.Young, Verb: "request"})
		}, op: func(c *faultCell) Op { return Op{Kind: OpDomainRestore, As: c.acme, Name: c.Young, Verb: "report"} }},
		{name: "domain transfer request", op: func(c *faultCell) Op { return request(c)[0] }},
		{name: "domain transfer approve", prep: request, op: transfer(false, "approve")},
		{name: "domain transfer reject", prep: request, op: transfer(false, "reject")},
		{name: "domain transfer cancel", prep: request, op: transfer(true, "cancel")},
		{name: "host create", op: func(c *faultCell) Op {
			return Op{Kind: OpHostCreate, As: c.acme, Name: c.Glue2, Addrs: []string{"198.41.0.9", "2001:500:2::c"}}
		}},
		{name: "host update", op: func(c *faultCell) Op {
			return Op{Kind: OpHostUpdate, As: c.acme, Name: c.Glue, AddAddrs: []string{"198.41.0.2", "2001:500:2::c"}, RemAddrs: []string{"198.41.0.1"},
				AddStatuses: []string{registry.HostDeleteProhibited}}
		}},
		{name: "host delete", op: func(c *faultCell) Op { return Op{Kind: OpHostDelete, As: c.acme, Name: c.host(hostSpare)} }},
		{name: "contact create", op: func(c *faultCell) Op {
			return Op{Kind: OpContactCreate, As: c.acme, Name: c.id(cNew), Contact: DevanagariContact(), AuthInfo: contactPW}
		}},
		{name: "contact update", op: func(c *faultCell) Op {
			return Op{Kind: OpContactUpdate, As: c.acme, Name: c.id(cSpare), Email: "new@example.in", Voice: "+91.5222345670",
				AddStatuses: []string{registry.ContactDeleteProhibited}, AuthInfo: "Contact-pw-2-strong"}
		}},
		{name: "contact delete", op: func(c *faultCell) Op { return Op{Kind: OpContactDelete, As: c.acme, Name: c.id(cSpare2)} }},
	}
}

// A faultCell is a small world, one of many alike in one registry (a
// fresh world for each fault would open a store each time: a second on
// PostgreSQL, its migrations): its registrars, contacts and hosts are
// named with its tag (q007-acme, q007-acme-reg, ns1.q007.example.com),
// its domains with labels of their own: Plain (contacts, name servers, a
// host under it, DS, authInfo), Young (nothing under it) and New (no
// one's). Made at T0; its commands run at T0+62 days (past the transfer
// lock). Its snapshot reads its own objects only, its names replaced by
// those every cell shares.
type faultCell struct {
	*World
	acme, other string
}

// id is the cell's contact of a base id; host its host of a base name.
func (c *faultCell) id(base string) string { return c.tag + "-" + base }
func (c *faultCell) host(base string) string {
	return strings.Replace(base, ".example.com", "."+c.tag+".example.com", 1)
}

// contactsOf are the cell's registrant, admin and tech contacts.
func (c *faultCell) contactsOf() []registry.DomainContact {
	cs := acmeContacts()
	for i := range cs {
		cs[i].ID = c.id(cs[i].ID)
	}
	return cs
}

// faultStore is a store of the fault suite and the cells made on it.
type faultStore struct {
	k     FaultKit
	store *sqlstore.Store
	svc   *registry.Service
	clock *registry.ManualClock
	cells int
	label int // the next WorldDomain index to try
}

func newFaultStore(t *testing.T, k FaultKit) *faultStore {
	t.Helper()
	k.Driver.SetPlan(faultdriver.Plan{})
	store := k.Open(t)
	clock := registry.NewManualClock(T0)
	svc, err := registry.NewServiceWith(t.Context(), store, Exempt(registry.ServiceOptions{Clock: clock}, ""))
	if err != nil {
		t.Fatal(err)
	}
	return &faultStore{k: k, store: store, svc: svc, clock: clock}
}

// cell makes a new cell, at T0, then runs fc's prep at T0+62 days.
func (fs *faultStore) cell(t testing.TB, fc faultCommand) *faultCell {
	t.Helper()
	ctx := context.Background()
	svc, clock := fs.svc, fs.clock
	tag := fmt.Sprintf("q%03d", fs.cells)
	fs.cells++
	c := &faultCell{World: &World{t: t, ctx: ctx, Svc: svc, Clock: clock, Registrars: map[string]*registry.Registrar{}, Tokens: map[string]string{},
		variants: map[string]string{}, contacts: map[string]string{}, tag: tag}}
	clock.Set(T0)
	c.acme, c.other = tag+"-acme", tag+"-other"
	for _, name := range []string{c.acme, c.other} {
		r, token, err := svc.AddRegistrar(ctx, name)
		if err != nil {
			t.Fatalf("AddRegistrar(%s): %v", name, err)
		}
		c.Registrars[name], c.Tokens[name] = r, token
	}
	// three labels with one variant each (so that every cell's commands
	// run the same statements), and every form of them replaced by the
	// one every cell shares
	var pairs []string
	for _, role := range []string{"P", "Y", "N"} {
		var name string
		var ch *registry.CheckResult
		for {
			name = WorldDomain(fs.label)
			fs.label++
			var err error
			if ch, err = svc.Check(ctx, name, "hi"); err != nil {
				t.Fatal(err)
			}
			if ch.Status == registry.Available && len(ch.Variants) == 1 {
				break
			}
		}
		variant := ch.Variants[0] + ".भारत"
		vch, err := svc.Check(ctx, variant, "hi")
		if err != nil {
			t.Fatal(err)
		}
		label, _, _ := strings.Cut(name, ".")
		alabel, _, _ := strings.Cut(ch.ALabel, ".")
		valabel, _, _ := strings.Cut(vch.ALabel, ".")
		pairs = append(pairs, variant, "⟨"+role+"′⟩", vch.ALabel, "⟨"+role+"′.a⟩", name, "⟨"+role+"⟩", ch.ALabel, "⟨"+role+".a⟩",
			ch.Variants[0], "⟨"+role+"′ label⟩", valabel, "⟨"+role+"′ a-label⟩", label, "⟨"+role+" label⟩", alabel, "⟨"+role+" a-label⟩")
		c.variants[name] = variant
		c.domains = append(c.domains, name)
		c.alabels = append(c.alabels, ch.ALabel)
	}
	type pair struct{ old, new string }
	var ps []pair
	for i := 0; i < len(pairs); i += 2 {
		ps = append(ps, pair{pairs[i], pairs[i+1]})
	}
	ps = append(ps, pair{tag, "q###"})
	slices.SortStableFunc(ps, func(a, b pair) int { return len(b.old) - len(a.old) }) // the longest first
	var args []string
	for _, p := range ps {
		args = append(args, p.old, p.new)
	}
	c.norm = strings.NewReplacer(args...)
	c.Plain, c.Young, c.New = c.domains[0], c.domains[1], c.domains[2]
	c.Glue, c.Glue2 = "ns1."+c.alabels[0], "ns2."+c.alabels[0]

	c.hosts = []string{c.host(hostA), c.host(hostFree), c.host(hostSpare), c.Glue, c.Glue2}
	for _, id := range []string{cReg, cAdm, cTech, cBill, cReg2, cSpare, cSpare2} {
		c.setup(t, Op{Kind: OpContactCreate, As: c.acme, Name: c.id(id), Contact: DevanagariContact(), AuthInfo: contactPW})
		c.contacts[c.id(id)] = c.acme
	}
	c.contacts[c.id(cNew)] = c.acme
	for _, h := range []string{hostA, hostFree, hostSpare} {
		c.setup(t, Op{Kind: OpHostCreate, As: c.acme, Name: c.host(h)})
	}
	for _, n := range []string{c.Plain, c.Young} {
		c.setup(t, Op{Kind: OpDomainCreate, As: c.acme, Name: n, AuthInfo: domainPW, Contacts: c.contactsOf(), NS: []string{c.host(hostA)}, DS: []registry.DS{dsA}})
	}
	c.PlainExpiry = T0.AddDate(1, 0, 0)
	c.setup(t, Op{Kind: OpHostCreate, As: c.acme, Name: c.Glue, Addrs: []string{"198.41.0.1"}})
	c.setup(t, Op{Kind: OpDomainUpdate, As: c.acme, Name: c.Plain, AddNS: []string{c.Glue}})
	clock.Set(T0.AddDate(0, 0, 62))
	if fc.prep != nil {
		for _, op := range fc.prep(c) {
			c.setup(t, op)
		}
	}
	return c
}

// run runs the cell's command with plan, and returns its error.
func (fs *faultStore) run(c *faultCell, fc faultCommand, plan faultdriver.Plan) (Op, error) {
	op := fc.op(c)
	fs.k.Driver.SetPlan(plan)
	defer fs.k.Driver.SetPlan(faultdriver.Plan{})
	return op, c.RunService(c.ctx, op)
}

// inTx marks every transaction: a statement's "marked" is then whether it
// runs in one.
func inTx(string) bool { return true }

// RunCommandFaults runs the fault suite on the kit's store: a store for
// each command, a cell for each fault.
func RunCommandFaults(t *testing.T, k FaultKit) {
	total, cells, transient := 0, 0, 0
	for _, fc := range faultCommands() {
		t.Run(fc.name, func(t *testing.T) {
			fs := newFaultStore(t, k)
			defer func() { cells += fs.cells }()
			// the clean run: what the command's transaction runs, and the
			// cell before and after it
			ref := fs.cell(t, fc)
			s0 := ref.Snapshot(t, true)
			var stmts []string
			commits := 0
			op, err := fs.run(ref, fc, faultdriver.Plan{Mark: inTx,
				Statement: func(q string, marked bool) error {
					if marked {
						stmts = append(stmts, q)
					}
					return nil
				},
				Commit: func(bool) (faultdriver.Commit, error) { commits++; return faultdriver.Pass, nil }})
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			s1 := ref.Snapshot(t, true)
			if d := s0.Diff(s1); d == "" {
				t.Fatalf("%s: the snapshot does not see the command's change", op)
			}
			if commits != 1 || len(stmts) == 0 {
				t.Fatalf("%s: %d commits, %d statements in transactions; want one transaction", op, commits, len(stmts))
			}
			n := len(stmts)
			total += n
			t.Logf("%s: %d statements in its transaction, then COMMIT", op, n)
			at := func(i int) string {
				if i > n {
					return "at COMMIT"
				}
				return fmt.Sprintf("instead of statement %d (%.70s)", i, oneLine(stmts[i-1]))
			}
			// plan injects err instead of the i-th statement of the
			// command's transaction (which must be the clean run's), or
			// with how at its COMMIT for i > n; once (a retry runs
			// clean). injected reports whether it did.
			plan := func(t *testing.T, i int, err error, how faultdriver.Commit) (faultdriver.Plan, *bool) {
				injected, seen := false, 0
				if i > n {
					return faultdriver.Plan{Commit: func(bool) (faultdriver.Commit, error) {
						if injected {
							return faultdriver.Pass, nil
						}
						injected = true
						return how, err
					}}, &injected
				}
				return faultdriver.Plan{Mark: inTx, Statement: func(q string, marked bool) error {
					if marked && !injected {
						if seen++; seen == i {
							injected = true
							if q != stmts[i-1] {
								t.Errorf("statement %d is %.70s, not the clean run's %.70s", i, oneLine(q), oneLine(stmts[i-1]))
							}
							return err
						}
					}
					return nil
				}}, &injected
			}
			// alike requires that a new cell reads as the clean run's
			// before it
			alike := func(t *testing.T, c *faultCell) {
				if got := c.Snapshot(t, true); got.Diff(s0) != "" || !slices.Equal(got.Audit, s0.Audit) {
					t.Fatalf("two cells made alike differ:\n%s", got.Diff(s0))
				}
			}

			// not transient, at each statement and at COMMIT: refused,
			// nothing changed but the refusal's audit record; one cell
			// for all (it stays as it was)
			t.Run("not transient", func(t *testing.T) {
				c := fs.cell(t, fc)
				alike(t, c)
				for i := 1; i <= n+1; i++ {
					before := c.Snapshot(t, true)
					p, injected := plan(t, i, k.Fatal, faultdriver.FailBefore)
					op, err := fs.run(c, fc, p)
					if !*injected {
						t.Fatalf("%s: no fault injected %s", op, at(i))
					}
					if code := registry.CodeOf(err); code != registry.CodeInternal {
						t.Errorf("%s with a fault %s: %v (%s), want INTERNAL", op, at(i), err, code)
					}
					after := c.Snapshot(t, true)
					if d := before.Diff(after); d != "" {
						t.Errorf("%s with a fault %s: refused, yet the registry changed:\n%s", op, at(i), d)
					}
					added, bad := NewAudit(before, after)
					if bad != "" || len(added) != 1 || added[0].Result != registry.CodeOf(err) {
						t.Errorf("%s with a fault %s: new audit records %+v %s, want the refusal's", op, at(i), added, bad)
					}
				}
			})

			// transient, at each statement and at COMMIT: run again,
			// applied once; a connection lost after COMMIT: read back,
			// applied once; lost at COMMIT (rolled back): read back, then
			// run again where the store retries the error, or refused; a
			// cell each. The short run (without AKSHARA_LONG_TESTS=1)
			// faults every fifth statement, the first and the last.
			stride := longtest.Pick(5, 1)
			for i := 1; i <= n+3; i++ {
				if i < n && (i-1)%stride != 0 {
					continue
				}
				name, err, how, where := fmt.Sprintf("transient at statement %d", i), k.Transient, faultdriver.FailBefore, at(min(i, n+1))
				lost, applies := false, true
				switch i {
				case n + 1:
					name = "transient at COMMIT"
				case n + 2:
					name, err, how, where, lost = "lost after COMMIT", k.Lost, faultdriver.FailAfter, "after COMMIT", true
				case n + 3:
					name, err, lost, applies = "lost at COMMIT", k.Lost, true, k.LostRetried
				}
				transient++
				t.Run(name, func(t *testing.T) {
					c := fs.cell(t, fc)
					alike(t, c)
					retries, resolved := fs.store.Retries(), fs.store.Resolved()
					p, injected := plan(t, min(i, n+1), err, how)
					op, err := fs.run(c, fc, p)
					if !*injected {
						t.Fatalf("%s: no fault injected %s", op, where)
					}
					if lost && fs.store.Resolved() == resolved {
						t.Errorf("%s with a connection lost %s: the outcome was not read back", op, where)
					}
					after := c.Snapshot(t, true)
					if !applies {
						// the store cannot tell the error from a lasting one: refused
						if registry.CodeOf(err) != registry.CodeInternal {
							t.Errorf("%s with a connection lost %s: %v, want INTERNAL", op, where, err)
						}
						if d := s0.Diff(after); d != "" {
							t.Errorf("%s with a connection lost %s: refused, yet the registry changed:\n%s", op, where, d)
						}
						if added := after.Audit[min(len(s0.Audit), len(after.Audit)):]; len(added) != 1 || added[0].Result != registry.CodeOf(err) {
							t.Errorf("%s with a connection lost %s: new audit records %+v, want the refusal's", op, where, added)
						}
						return
					}
					if err != nil {
						t.Errorf("%s with a fault %s: %v, want it applied", op, where, err)
					}
					if how == faultdriver.FailBefore && fs.store.Retries() == retries {
						t.Errorf("%s with a fault %s: no retry counted", op, where)
					}
					if d := s1.Diff(after); d != "" {
						t.Errorf("%s with a fault %s: not as after one clean application:\n%s", op, where, d)
					}
					if !slices.Equal(after.Audit, s1.Audit) {
						t.Errorf("%s with a fault %s: new audit records %+v,\nwant one clean application's %+v", op, where, after.Audit[min(len(s0.Audit), len(after.Audit)):], s1.Audit[len(s0.Audit):])
					}
				})
			}
		})
	}
	t.Logf("%d commands, %d statements in their transactions: %d faults not transient (at each statement and COMMIT), %d transient or lost at COMMIT, in %d cells",
		len(faultCommands()), total, total+len(faultCommands()), transient, cells)
}

// oneLine is a statement on one line, for messages.
func oneLine(q string) string { return strings.Join(strings.Fields(q), " ") }
