package registrytest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara"
	"github.com/akshara-idn/akshara/registry"
)

// testDNSOutbox (issue 37): each command that changes what the zone
// publishes records, in its transaction, the owner names it changed —
// a create with name servers, a hold, a DS change, a host's new address
// or name, a delete, a restore, a purge and a deletion at expiry by the
// lifecycle worker — and a refused command, or one that changes nothing
// the zone publishes (a host create, a host's statuses), records nothing.
// OwnerRecords renders an owner as the export writes it. The rows are
// marked published only by the lease's holder; another publisher's
// finish records the owners again.
func testDNSOutbox(t *testing.T, open func(*testing.T) registry.Store) {
	noRenew := akshara.DefaultLifecycle()
	noRenew.AutoRenew, noRenew.AddGrace = false, 0
	e := lifeEnv(t, open, map[string]akshara.ZoneLifecycle{"in": noRenew})
	ctx := e.ctx
	a, _ := e.registrar("alpha")
	b, _ := e.registrar("bravo")
	if ok, err := e.svc.TakeDNSLease(ctx, "dns", "test", time.Hour); err != nil || !ok {
		t.Fatalf("TakeDNSLease: %v %v", ok, err)
	}
	// drain returns the owners recorded since the last drain, sorted,
	// and marks them published
	drain := func(what string) []string {
		t.Helper()
		cs, err := e.svc.PendingDNS(ctx, []string{"in", "भारत"}, 1000)
		must(t, what+": PendingDNS", err)
		var owners []string
		var ids []int64
		for _, c := range cs {
			owners = append(owners, c.Owner.Zone+" "+c.Owner.Name)
			ids = append(ids, c.ID)
		}
		if len(ids) > 0 {
			if ok, err := e.svc.TakeDNSLease(ctx, "dns", "test", time.Hour); err != nil || !ok { // renewed, as the publisher does each round
				t.Fatalf("TakeDNSLease: %v %v", ok, err)
			}
			ok, err := e.svc.PublishedDNS(ctx, "dns", "test", ids, nil)
			if err != nil || !ok {
				t.Fatalf("%s: PublishedDNS: %v %v", what, ok, err)
			}
		}
		slices.Sort(owners)
		return slices.Compact(owners)
	}
	want := func(what string, err error, owners ...string) {
		t.Helper()
		must(t, what, err)
		got := drain(what)
		for i, o := range owners {
			owners[i] = "in " + o
		}
		slices.Sort(owners)
		if !slices.Equal(got, owners) {
			t.Errorf("%s recorded %q, want %q", what, got, owners)
		}
	}
	refused := func(what string, err error, code string) {
		t.Helper()
		wantCode(t, what, err, code)
		if got := drain(what); len(got) > 0 {
			t.Errorf("refused %s recorded %q, want nothing", what, got)
		}
	}
	three := registry.Period{N: 3, Unit: 'y'}
	_, err := e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1.example.net"})
	want("host create outside", err)
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "anna.in", Period: three})
	want("create without name servers", err)
	_, err = e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1.anna.in", Addrs: []registry.Addr{v4("8.8.8.8")}})
	want("host create under anna.in (no domain names it)", err)
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "bela.in", Period: three, NameServers: []string{"ns1.anna.in", "ns1.example.net"}})
	want("create with name servers", err, "bela.in", "ns1.anna.in")
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "cora.in", NameServers: []string{"ns1.example.net"}}) // one year, not renewed
	want("create cora.in", err, "cora.in")
	_, err = e.svc.CreateDomain(ctx, a, registry.DomainCreate{Name: "xeno.in", NameServers: []string{"ns9.example.net"}})
	refused("create naming no host", err, registry.CodeNotFound)
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "anna.in", AddNS: []string{"ns1.example.net"}})
	want("update anna.in's name servers", err, "anna.in", "ns1.anna.in", "bela.in")
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "anna.in", AddStatuses: []string{registry.StatusClientHold}, AddNS: []string{"ns7.example.net"}})
	refused("a hold with a name server that is no host", err, registry.CodeNotFound)
	_, err = e.svc.UpdateDomain(ctx, b, registry.DomainUpdate{Name: "bela.in", AddStatuses: []string{registry.StatusClientHold}})
	refused("another registrar's hold", err, registry.CodeForbidden)
	_, err = e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: "anna.in"})
	refused("delete of a domain with a host under it", err, registry.CodeAssociated)
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "bela.in", AddStatuses: []string{registry.StatusClientHold}})
	want("hold", err, "bela.in", "ns1.anna.in")
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "bela.in", RemStatuses: []string{registry.StatusClientHold},
		AddDS: []registry.DS{{KeyTag: 12345, Algorithm: 13, DigestType: 2, Digest: digest256}}})
	want("hold removed, DS added", err, "bela.in", "ns1.anna.in")
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "bela.in", AddStatuses: []string{registry.StatusClientDeleteProhibited}})
	want("a status that is no hold (recorded: statuses change)", err, "bela.in", "ns1.anna.in")
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "bela.in", RemStatuses: []string{registry.StatusClientDeleteProhibited}})
	want("", err, "bela.in", "ns1.anna.in")
	// hold anna.in: bela.in loses ns1.anna.in; OwnerRecords as the export
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "anna.in", AddStatuses: []string{registry.StatusClientHold}})
	want("hold anna.in", err, "anna.in", "ns1.anna.in", "bela.in")
	recs, err := e.svc.OwnerRecords(ctx, "in", "bela.in")
	must(t, "OwnerRecords", err)
	if got := recordLines(recs); got != "bela.in. NS ns1.example.net.\nbela.in. DS 12345 13 2 "+digest256 {
		t.Errorf("OwnerRecords bela.in with anna.in on hold:\n%s", got)
	}
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "anna.in", RemStatuses: []string{registry.StatusClientHold}})
	want("hold of anna.in removed", err, "anna.in", "ns1.anna.in", "bela.in")
	for owner, wantRecs := range map[string]string{
		"bela.in":      "bela.in. NS ns1.anna.in.\nbela.in. NS ns1.example.net.\nbela.in. DS 12345 13 2 " + digest256,
		"ns1.anna.in.": "ns1.anna.in. A 8.8.8.8",
		"anna.in":      "anna.in. NS ns1.example.net.",
		"cora.in":      "cora.in. NS ns1.example.net.",
		"zz.in":        "",
		"in":           "",
	} {
		recs, err := e.svc.OwnerRecords(ctx, "in", owner)
		must(t, "OwnerRecords", err)
		if got := recordLines(recs); got != wantRecs {
			t.Errorf("OwnerRecords %s:\n%s\nwant:\n%s", owner, got, wantRecs)
		}
	}
	// hosts: an address or a name changes glue and the NS naming it;
	// statuses do not
	err = e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1.anna.in", AddAddrs: []registry.Addr{v6("2001:4860:4860::8888")}})
	want("host address added", err, "ns1.anna.in", "bela.in")
	err = e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1.anna.in", AddStatuses: []string{registry.HostDeleteProhibited}})
	want("host status", err)
	err = e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1.anna.in", AddAddrs: []registry.Addr{v4("10.0.0.1")}})
	refused("host address in a private range", err, registry.CodeAddressRange)
	err = e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1.anna.in", NewName: "ns2.anna.in"})
	want("host renamed", err, "ns1.anna.in", "ns2.anna.in", "bela.in")
	_, err = e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns3.anna.in", Addrs: []registry.Addr{v4("9.9.9.9")}})
	want("", err)
	err = e.svc.DeleteHost(ctx, a, registry.HostDelete{Name: "ns3.anna.in"})
	want("host delete (named by no domain)", err)
	// delete, restore, delete, purge
	e.clock.Advance(24 * time.Hour)
	_, err = e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: "bela.in"})
	want("delete", err, "bela.in", "ns2.anna.in")
	_, err = e.svc.RestoreDomain(ctx, a, registry.DomainRestore{Name: "bela.in", Op: registry.RestoreRequest})
	want("restore request", err)
	_, err = e.svc.RestoreDomain(ctx, a, registry.DomainRestore{Name: "bela.in", Op: registry.RestoreReport})
	want("restore report", err, "bela.in", "ns2.anna.in")
	_, err = e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: "bela.in"})
	want("delete again", err, "bela.in", "ns2.anna.in")
	e.clock.Advance(36 * 24 * time.Hour)
	_, err = e.svc.RunLifecycle(ctx, 0)
	want("purge", err, "bela.in", "ns2.anna.in")
	// cora.in deleted at its expiry (the zone does not auto-renew)
	e.clock.Set(T0.AddDate(1, 0, 1))
	_, err = e.svc.RunLifecycle(ctx, 0)
	want("deletion at expiry", err, "cora.in")

	// the lease: another holder's finish records the owners again
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "anna.in", AddStatuses: []string{registry.StatusClientHold}})
	must(t, "hold", err)
	cs, err := e.svc.PendingDNS(ctx, []string{"in"}, 1000)
	must(t, "PendingDNS", err)
	if ok, err := e.svc.TakeDNSLease(ctx, "dns", "other", time.Hour); err != nil || ok {
		t.Errorf("TakeDNSLease of a lease held: %v %v, want false", ok, err)
	}
	ok, err := e.svc.PublishedDNS(ctx, "dns", "other", []int64{cs[0].ID}, []registry.DNSOwner{cs[0].Owner})
	if err != nil || ok {
		t.Errorf("PublishedDNS by one not holding the lease: %v %v, want false", ok, err)
	}
	again, err := e.svc.PendingDNS(ctx, []string{"in"}, 1000)
	must(t, "PendingDNS", err)
	if len(again) != len(cs)+1 {
		t.Errorf("after a finish without the lease: %d rows, want %d", len(again), len(cs)+1)
	}
	st, err := e.svc.DNSOutbox(ctx, "in")
	must(t, "DNSOutbox", err)
	if st.Pending != int64(len(again)) || st.Held != 0 || st.Oldest.IsZero() {
		t.Errorf("DNSOutbox: %+v", st)
	}
	// held rows are not listed; released, they are
	must(t, "HoldDNS", e.svc.HoldDNS(ctx, []int64{again[0].ID}))
	if cs, _ := e.svc.PendingDNS(ctx, []string{"in"}, 1000); len(cs) != len(again)-1 {
		t.Errorf("held row listed: %d rows, want %d", len(cs), len(again)-1)
	}
	if n, err := e.svc.ReleaseDNS(ctx, "in"); err != nil || n != 1 {
		t.Errorf("ReleaseDNS: %d %v, want 1", n, err)
	}
	if cs, _ := e.svc.PendingDNS(ctx, []string{"in"}, 1000); len(cs) != len(again) || cs[0].State != registry.DNSReleased {
		t.Errorf("released row: %+v", cs)
	}
	// the lease expires: another takes it
	e.clock.Advance(2 * time.Hour)
	if ok, err := e.svc.TakeDNSLease(ctx, "dns", "other", time.Hour); err != nil || !ok {
		t.Errorf("TakeDNSLease of an expired lease: %v %v, want true", ok, err)
	}
	if ok, _ := e.svc.TakeDNSLease(ctx, "dns", "test", time.Hour); ok {
		t.Errorf("the old holder took the lease back")
	}
	// a full publication prunes what it covers: the rows up to its mark
	// recorded 10 s before it; the rows after stay
	before, _ := e.svc.PendingDNS(ctx, []string{"in"}, 1000)
	e.clock.Advance(time.Minute)
	m, err := e.svc.MarkDNS(ctx, "in")
	must(t, "MarkDNS", err)
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: "anna.in", RemStatuses: []string{registry.StatusClientHold}})
	must(t, "hold removed", err)
	if n, err := e.svc.PruneDNS(ctx, m); err != nil || n != int64(len(before)) {
		t.Errorf("PruneDNS: %d %v, want %d", n, err, len(before))
	}
	if after, _ := e.svc.PendingDNS(ctx, []string{"in"}, 1000); len(after) == 0 || after[0].ID <= before[len(before)-1].ID {
		t.Errorf("after PruneDNS: %+v, want the rows after the mark", after)
	}
}

func recordLines(recs []registry.ZoneRecord) string {
	var l []string
	for _, r := range recs {
		l = append(l, r.Owner+" "+r.Type+" "+r.Data)
	}
	return strings.Join(l, "\n")
}
