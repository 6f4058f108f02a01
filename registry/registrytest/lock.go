package registrytest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/akshara-idn/akshara/registry"
)

// LockCode is the current one-time code of an otpauth URI (EnrolLock's)
// at t: what the registrant's authenticator shows.
func LockCode(t testing.TB, uri string, at time.Time) string {
	t.Helper()
	key, err := otp.NewKeyFromURL(uri)
	if err != nil {
		t.Fatal(err)
	}
	code, err := totp.GenerateCode(key.Secret(), at)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// EnrolLocked enrols contact's lock secret, verifies it with its first
// code and returns the URI (the clock moved a step on after each code:
// a code is good once).
func EnrolLocked(t testing.TB, ctx context.Context, svc *registry.Service, clock *registry.ManualClock, contact string) string {
	t.Helper()
	uri, err := svc.EnrolLock(ctx, contact, "akshara test")
	if err != nil {
		t.Fatalf("EnrolLock: %v", err)
	}
	if err := svc.ConfirmLockEnrolment(ctx, contact, LockCode(t, uri, clock.Now())); err != nil {
		t.Fatalf("ConfirmLockEnrolment: %v", err)
	}
	clock.Advance(30 * time.Second)
	return uri
}

// testRegistryLock: a lock needs a code of the registrant's verified
// secret (a wrong one, a used one, an unverified secret are refused); it
// sets the server statuses on the domain and its hosts, and every
// registrar command on them is refused (renew aside); the operator's lock
// tells the sponsor by a change poll message; an unlock lasts its time
// and the worker locks again.
func testRegistryLock(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := e.ctx
	a, _ := e.registrar("lock-a")
	b, _ := e.registrar("lock-b")
	mustContact(t, e, a, "lock-reg")
	mustCreateFor(t, e, a, kitab, "lock-reg")
	_, err := e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1." + kitab, Addrs: []registry.Addr{v4("8.8.8.8")}})
	must(t, "CreateHost", err)
	_, err = e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddNS: []string{"ns1." + kitab}})
	must(t, "AddNS", err)

	// no secret, an unverified one, a wrong code
	_, err = e.svc.LockDomain(ctx, a, registry.DomainLockRequest{Name: kitab, Code: "123456"})
	wantCode(t, "lock without a secret", err, registry.CodeLockPolicy)
	uri, err := e.svc.EnrolLock(ctx, "lock-reg", "test")
	must(t, "EnrolLock", err)
	_, err = e.svc.LockDomain(ctx, a, registry.DomainLockRequest{Name: kitab, Code: LockCode(t, uri, e.clock.Now())})
	wantCode(t, "lock with an unverified secret", err, registry.CodeLockPolicy)
	err = e.svc.ConfirmLockEnrolment(ctx, "lock-reg", "000000")
	wantCode(t, "confirm with a wrong code", err, registry.CodeBadLockCode)
	must(t, "ConfirmLockEnrolment", e.svc.ConfirmLockEnrolment(ctx, "lock-reg", LockCode(t, uri, e.clock.Now())))
	_, err = e.svc.LockDomain(ctx, a, registry.DomainLockRequest{Name: kitab, Code: LockCode(t, uri, e.clock.Now())})
	wantCode(t, "lock with the code used to confirm", err, registry.CodeBadLockCode)
	e.clock.Advance(30 * time.Second)
	_, err = e.svc.LockDomain(ctx, b, registry.DomainLockRequest{Name: kitab, Code: LockCode(t, uri, e.clock.Now())})
	wantCode(t, "lock by another registrar", err, registry.CodeForbidden)

	// the operator locks: the statuses, the host's, the sponsor told
	d, err := e.svc.LockDomain(ctx, nil, registry.DomainLockRequest{Name: kitab, Code: LockCode(t, uri, e.clock.Now())})
	must(t, "LockDomain", err)
	for _, st := range registry.LockStatuses {
		if !d.HasStatus(st) {
			t.Errorf("locked %s: statuses %q, want %s", kitab, d.Statuses, st)
		}
	}
	h, err := e.svc.HostInfo(ctx, "ns1."+kitab)
	must(t, "HostInfo", err)
	if !slices.Contains(h.Statuses, registry.StatusServerUpdateProhibited) || !slices.Contains(h.Statuses, registry.StatusServerDeleteProhibited) {
		t.Errorf("host under the locked domain: statuses %q", h.Statuses)
	}
	kinds := map[string]bool{}
	for {
		m, _, err := e.svc.PollRequest(ctx, a)
		must(t, "poll", err)
		if m == nil {
			break
		}
		if m.Change != nil && m.Change.Op == "lock" && m.Change.Who == "operator" {
			kinds[m.Change.Object] = true
		}
		_, err = e.svc.PollAck(ctx, a, m.ID)
		must(t, "ack", err)
	}
	if !kinds["domain"] || !kinds["host"] {
		t.Errorf("change poll messages of the operator's lock: %v, want the domain's and the host's", kinds)
	}

	// every command of the registrar on them is refused
	pw := "New-pw-12345!-strong"
	for _, tc := range []struct {
		what string
		err  error
	}{
		{"update statuses", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AddStatuses: []string{registry.StatusClientHold}}))},
		{"update name servers", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, RemNS: []string{"ns1." + kitab}}))},
		{"update authInfo", Err(e.svc.UpdateDomain(ctx, a, registry.DomainUpdate{Name: kitab, AuthInfo: &pw}))},
		{"delete", Err(e.svc.DeleteDomain(ctx, a, registry.DomainDelete{Name: kitab}))},
		{"transfer request", Err(e.svc.TransferDomain(ctx, b, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: groupPW}))},
		{"restore", Err(e.svc.RestoreDomain(ctx, a, registry.DomainRestore{Name: kitab, Op: registry.RestoreRequest}))},
		{"host update (glue)", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1." + kitab, AddAddrs: []registry.Addr{v4("8.8.4.4")}})},
		{"host delete", e.svc.DeleteHost(ctx, a, registry.HostDelete{Name: "ns1." + kitab})},
		{"host create under it", Err(e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns2." + kitab, Addrs: []registry.Addr{v4("8.8.4.4")}}))},
	} {
		wantCode(t, tc.what+" of a locked domain", tc.err, registry.CodeStatusProhibits)
	}
	// renewing is what keeps a locked name: allowed
	d, err = e.svc.Info(ctx, kitab)
	must(t, "Info", err)
	_, err = e.svc.RenewDomain(ctx, a, registry.DomainRenew{Name: kitab, CurExpiry: d.Expires, Period: registry.Period{N: 1, Unit: 'y'}})
	must(t, "renew of a locked domain", err)

	// unlock for an hour: the registrar may change it; then relocked
	e.clock.Advance(30 * time.Second)
	_, err = e.svc.UnlockDomain(ctx, a, registry.DomainLockRequest{Name: kitab, Code: LockCode(t, uri, e.clock.Now()), RelockAfter: time.Hour})
	must(t, "UnlockDomain", err)
	must(t, "host update after the unlock", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1." + kitab, AddAddrs: []registry.Addr{v4("8.8.4.4")}}))
	e.clock.Advance(61 * time.Minute)
	rep, err := e.svc.RunLifecycle(ctx, 0)
	if err != nil || rep.Relocked != 1 {
		t.Fatalf("RunLifecycle after the unlock's hour: %+v, %v; want 1 relocked", rep, err)
	}
	wantCode(t, "host update after the relock", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1." + kitab, RemAddrs: []registry.Addr{v4("8.8.4.4")}}), registry.CodeStatusProhibits)
	m, _, err := e.svc.PollRequest(ctx, a)
	must(t, "poll", err)
	if m == nil || m.Change == nil || m.Change.Op != "relock" || m.Change.Who != "lifecycle" {
		t.Errorf("after the relock, the sponsor's first message: %+v; want the worker's relock", m)
	}
}

// testOperatorStatusGlue: the operator's serverUpdateProhibited on a
// domain protects its glue: a registrar's host update, delete or a new
// host under it is refused (before, the glue address of a domain with
// the status could be changed).
func testOperatorStatusGlue(t *testing.T, open func(*testing.T) registry.Store) {
	e := newEnv(t, open)
	ctx := e.ctx
	a, _ := e.registrar("glue-a")
	mustCreate(t, e, a, kitab)
	_, err := e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns1." + kitab, Addrs: []registry.Addr{v4("8.8.8.8")}})
	must(t, "CreateHost", err)
	_, err = e.svc.UpdateDomain(ctx, nil, registry.DomainUpdate{Name: kitab, AddStatuses: []string{registry.StatusServerUpdateProhibited}, Reason: "court order"})
	must(t, "status add", err)
	wantCode(t, "glue change under serverUpdateProhibited", e.svc.UpdateHost(ctx, a, registry.HostUpdate{Name: "ns1." + kitab, AddAddrs: []registry.Addr{v4("8.8.4.4")}}), registry.CodeStatusProhibits)
	wantCode(t, "host delete under serverUpdateProhibited", e.svc.DeleteHost(ctx, a, registry.HostDelete{Name: "ns1." + kitab}), registry.CodeStatusProhibits)
	wantCode(t, "host create under serverUpdateProhibited", Err(e.svc.CreateHost(ctx, a, registry.HostCreate{Name: "ns3." + kitab})), registry.CodeStatusProhibits)
	m, _, err := e.svc.PollRequest(ctx, a)
	must(t, "poll", err)
	if m == nil || m.Change == nil || m.Change.Who != "operator" || m.Change.Reason != "court order" || !slices.Contains(m.Change.Statuses, registry.StatusServerUpdateProhibited) {
		t.Errorf("the sponsor's message of the operator's status: %+v", m)
	}
}
