package registrytest

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// Guessing the authInfo and flooding a poll queue (issue 34, items 3 and
// 9; registry/authguard.go). On today's code before the fix every guess
// is verified (50 a second per registrar over EPP), the sponsor is never
// told, and a request/cancel storm queues two messages per pair.

// guessPW is the authInfo of the domains guessed at; wrongPW a guess.
const (
	guessPW = "k3P9-vX2q-Lm7T-wR4z"
	wrongPW = "Wrong-guess-0000-1111"
)

var retryRE = regexp.MustCompile(`after (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)`)

// retryAt reads when a refusal says the next attempt is taken.
func retryAt(t *testing.T, err error) time.Time {
	t.Helper()
	m := retryRE.FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("%v: no retry instant", err)
	}
	at, perr := time.Parse(time.RFC3339, m[1])
	if perr != nil {
		t.Fatal(perr)
	}
	return at
}

// request is a transfer request of name by r with pw.
func (e *clocked) request(r *registry.Registrar, name, pw string) error {
	_, err := e.svc.TransferDomain(e.ctx, r, registry.DomainTransfer{Name: name, Op: registry.TransferRequestOp, AuthInfo: pw})
	return err
}

// alerts reads r's queue, acknowledging every message, and returns the
// authInfo alerts in it.
func (e *clocked) alerts(r *registry.Registrar) []*registry.PollMessage {
	e.t.Helper()
	var out []*registry.PollMessage
	for {
		m, _, err := e.svc.PollRequest(e.ctx, r)
		if err != nil {
			e.t.Fatal(err)
		}
		if m == nil {
			return out
		}
		if m.Kind == registry.PollAuthFailures {
			out = append(out, m)
		}
		if _, err := e.svc.PollAck(e.ctx, r, m.ID); err != nil {
			e.t.Fatal(err)
		}
	}
}

// guessEnv is a clocked service with the zones' lock period off and kitab
// registered by losing with guessPW.
func guessEnv(t *testing.T, open func(*testing.T) registry.Store) (e *clocked, losing, gaining, third *registry.Registrar) {
	e = newClocked(t, open)
	losing, _ = e.registrar("losing")
	gaining, _ = e.registrar("gaining")
	third, _ = e.registrar("third")
	for _, z := range []string{"भारत", "in"} {
		must(t, "SetTransferPolicy", e.svc.SetTransferPolicy(e.ctx, z, 5*day, 0))
	}
	if _, err := e.svc.CreateDomain(e.ctx, losing, registry.DomainCreate{Name: kitab, Lang: "hi", AuthInfo: guessPW}); err != nil {
		t.Fatal(err)
	}
	return e, losing, gaining, third
}

// testAuthGuess: AuthFreeFailures wrong authInfo from one registrar, then
// its attempts on the domain are refused AUTH_INFO_LOCKED before the
// authInfo is looked at — the right one too — with a back-off that
// doubles; another registrar with the right authInfo is not held back; the
// sponsor is told once, by one poll message, not once per failure; a
// stranger's transfer query with an authInfo is a guess like a request.
func testAuthGuess(t *testing.T, open func(*testing.T) registry.Store) {
	e, losing, gaining, third := guessEnv(t, open)
	for i := range registry.AuthFreeFailures {
		wantCode(t, fmt.Sprintf("wrong guess %d", i+1), e.request(gaining, kitab, wrongPW), registry.CodeBadAuthInfo)
	}
	t5 := e.clock.Now()
	err := e.request(gaining, kitab, wrongPW)
	wantCode(t, "a guess after the free ones", err, registry.CodeAuthInfoLocked)
	if at := retryAt(t, err); !at.Equal(t5.Add(registry.AuthBackoffBase)) {
		t.Errorf("retry at %s, want %s", at, t5.Add(registry.AuthBackoffBase))
	}
	// the lock is no oracle: the right authInfo is refused alike
	wantCode(t, "the right authInfo while locked", e.request(gaining, kitab, guessPW), registry.CodeAuthInfoLocked)
	_, err = e.svc.TransferDomain(e.ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferQueryOp, AuthInfo: guessPW})
	wantCode(t, "a stranger's query while locked", err, registry.CodeAuthInfoLocked)

	// the sponsor was told once, after the fifth failure
	alerts := e.alerts(losing)
	if len(alerts) != 1 {
		t.Fatalf("%d alerts, want 1: %+v", len(alerts), alerts)
	}
	a := alerts[0]
	if a.Name != kitab || a.ALabel != kitabALabel || a.AuthFailures == nil || a.AuthFailures.Object != registry.AuthObjectDomain ||
		a.AuthFailures.Failures != registry.AuthAlertFailures || !a.Queued.Equal(t5) || !a.AuthFailures.Since.Equal(t5.Add(-registry.AuthFailureWindow)) {
		t.Errorf("alert %+v (%+v)", a, a.AuthFailures)
	}

	// the back-off doubles: 1 minute after the 5th failure, 2 after the 6th
	e.clock.Advance(registry.AuthBackoffBase - time.Second)
	wantCode(t, "a second before the back-off ends", e.request(gaining, kitab, wrongPW), registry.CodeAuthInfoLocked)
	t6 := e.clock.Advance(time.Second)
	wantCode(t, "a guess when the back-off ends", e.request(gaining, kitab, wrongPW), registry.CodeBadAuthInfo)
	err = e.request(gaining, kitab, guessPW)
	wantCode(t, "the right authInfo after the 6th failure", err, registry.CodeAuthInfoLocked)
	if at := retryAt(t, err); !at.Equal(t6.Add(2 * registry.AuthBackoffBase)) {
		t.Errorf("retry at %s, want %s", at, t6.Add(2*registry.AuthBackoffBase))
	}
	// a stranger's query with a wrong authInfo is a guess too (the 7th)
	e.clock.Set(t6.Add(2 * registry.AuthBackoffBase))
	_, err = e.svc.TransferDomain(e.ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferQueryOp, AuthInfo: wrongPW})
	wantCode(t, "a stranger's query with a wrong authInfo", err, registry.CodeBadAuthInfo)
	wantCode(t, "then a request", e.request(gaining, kitab, guessPW), registry.CodeAuthInfoLocked)

	// another registrar is not held back by the guesser: the right one's
	// request goes through (no one can block a transfer by guessing)
	tr, err := e.svc.TransferDomain(e.ctx, third, registry.DomainTransfer{Name: kitab, Op: registry.TransferRequestOp, AuthInfo: guessPW})
	if err != nil || tr.Status != registry.TransferPending || tr.Gaining != "third" {
		t.Fatalf("the third's request: %+v, %v", tr, err)
	}
	// further failures in the window, of another registrar, tell the
	// sponsor nothing more
	fourth, _ := e.registrar("fourth")
	for i := range 3 {
		wantCode(t, fmt.Sprintf("fourth's guess %d", i), e.request(fourth, kitab, wrongPW), registry.CodeBadAuthInfo)
	}
	e.wantPoll(losing, registry.PollTransferRequested, registry.TransferPending, 1)
	e.wantEmpty(losing)

	// the window slides: a day after, the guesser starts afresh, and five
	// new failures tell the sponsor again
	e.clock.Advance(registry.AuthFailureWindow)
	must(t, "cancel", ignoreTransfer(e.svc.TransferDomain(e.ctx, third, registry.DomainTransfer{Name: kitab, Op: registry.TransferCancelOp})))
	for i := range registry.AuthFreeFailures {
		wantCode(t, fmt.Sprintf("next day's guess %d", i+1), e.request(gaining, kitab, wrongPW), registry.CodeBadAuthInfo)
	}
	if alerts := e.alerts(losing); len(alerts) != 1 || alerts[0].AuthFailures.Failures != registry.AuthAlertFailures {
		t.Errorf("next day's alerts: %+v", alerts)
	}
	// the refusals are in the audit log
	log, err := e.svc.Audit(e.ctx, registry.AuditFilter{Name: kitab, Registrar: "gaining"})
	if err != nil {
		t.Fatal(err)
	}
	locked := 0
	for _, r := range log {
		if r.Result == registry.CodeAuthInfoLocked {
			locked++
		}
	}
	if locked != 5 { // the query's refusal is a read: not recorded
		t.Errorf("%d AUTH_INFO_LOCKED records, want 5: %+v", locked, log)
	}
}

func ignoreTransfer(_ *registry.Transfer, err error) error { return err }

// testAuthGuessRegistrar: a registrar that spreads its guesses over many
// domains, one each, backs off from every domain after
// AuthRegistrarFreeFailures; the sponsors are told nothing (one failure
// each).
func testAuthGuessRegistrar(t *testing.T, open func(*testing.T) registry.Store) {
	e, losing, gaining, third := guessEnv(t, open)
	n := registry.AuthRegistrarFreeFailures + 1
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("guess-%03d.in", i)
		if _, err := e.svc.CreateDomain(e.ctx, losing, registry.DomainCreate{Name: names[i], AuthInfo: guessPW}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range names[:n-1] {
		wantCode(t, "a guess on "+name, e.request(gaining, name, wrongPW), registry.CodeBadAuthInfo)
	}
	last := e.clock.Now()
	err := e.request(gaining, names[n-1], guessPW)
	wantCode(t, "the right authInfo of a domain never guessed, after 100 failures", err, registry.CodeAuthInfoLocked)
	if at := retryAt(t, err); !at.Equal(last.Add(registry.AuthBackoffBase)) {
		t.Errorf("retry at %s, want %s", at, last.Add(registry.AuthBackoffBase))
	}
	wantCode(t, "and kitab", e.request(gaining, kitab, guessPW), registry.CodeAuthInfoLocked)
	// the others are not held back
	must(t, "the third's request", e.request(third, names[n-1], guessPW))
	e.clock.Advance(registry.AuthBackoffBase)
	must(t, "the guesser's request after the back-off", e.request(gaining, kitab, guessPW))
	if a := e.alerts(losing); len(a) != 0 {
		t.Errorf("alerts for one failure each: %+v", a)
	}
}

// testAuthGuessContact: a contact's authInfo (a stranger's info) is
// guarded as a domain's.
func testAuthGuessContact(t *testing.T, open func(*testing.T) registry.Store) {
	e, losing, gaining, third := guessEnv(t, open)
	if _, err := e.svc.CreateContact(e.ctx, losing, registry.ContactCreate{ID: "rs-9", ContactData: DevanagariContact(), AuthInfo: guessPW}); err != nil {
		t.Fatal(err)
	}
	for i := range registry.AuthFreeFailures {
		wantCode(t, fmt.Sprintf("wrong guess %d", i+1), ignoreContact(e.svc.ContactInfo(e.ctx, gaining, "rs-9", wrongPW)), registry.CodeForbidden)
	}
	wantCode(t, "the right authInfo while locked", ignoreContact(e.svc.ContactInfo(e.ctx, gaining, "rs-9", guessPW)), registry.CodeAuthInfoLocked)
	wantCode(t, "no authInfo: not a guess", ignoreContact(e.svc.ContactInfo(e.ctx, gaining, "rs-9", "")), registry.CodeForbidden)
	if c, err := e.svc.ContactInfo(e.ctx, third, "rs-9", guessPW); err != nil || c.ID != "rs-9" {
		t.Fatalf("the third's info: %+v, %v", c, err)
	}
	must(t, "the sponsor's info", ignoreContact(e.svc.ContactInfo(e.ctx, losing, "rs-9", "")))
	alerts := e.alerts(losing)
	if len(alerts) != 1 || alerts[0].Name != "rs-9" || alerts[0].AuthFailures.Object != registry.AuthObjectContact || alerts[0].AuthFailures.Failures != registry.AuthFreeFailures {
		t.Fatalf("alerts %+v", alerts)
	}
}

// testTransferStorm: another registrar's request/cancel pairs cannot fill
// the sponsor's queue: a cancel withdraws the request's message the
// sponsor has not taken yet, and a registrar's requests of one domain are
// limited to TransferRequestLimit a window (TRANSFER_LIMITED).
func testTransferStorm(t *testing.T, open func(*testing.T) registry.Store) {
	e, losing, gaining, third := guessEnv(t, open)
	start := e.clock.Now()
	taken, limited := 0, 0
	for i := range 1000 {
		e.clock.Advance(time.Second)
		err := e.request(gaining, kitab, guessPW)
		if registry.CodeOf(err) == registry.CodeTransferLimited {
			limited++
			// when the first request of the window (at start + 1 s) leaves it
			if at, want := retryAt(t, err), start.Add(time.Second+registry.TransferRequestWindow); !at.Equal(want) {
				t.Fatalf("retry at %s, want %s", at, want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		taken++
		must(t, "cancel", ignoreTransfer(e.svc.TransferDomain(e.ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferCancelOp})))
	}
	if taken != registry.TransferRequestLimit || limited != 1000-registry.TransferRequestLimit {
		t.Errorf("%d requests taken, %d limited; want %d and the rest", taken, limited, registry.TransferRequestLimit)
	}
	// the sponsor's queue: nothing (every request withdrawn by its cancel)
	e.wantEmpty(losing)
	// another registrar is not limited by the storm
	must(t, "the third's request", e.request(third, kitab, guessPW))
	e.wantPoll(losing, registry.PollTransferRequested, registry.TransferPending, 1)
	must(t, "the third's cancel", ignoreTransfer(e.svc.TransferDomain(e.ctx, third, registry.DomainTransfer{Name: kitab, Op: registry.TransferCancelOp})))
	e.wantPoll(losing, registry.PollTransferCancelled, registry.TransferClientCancelled, 1)

	// a sponsor that acknowledges every message at once gets at most two
	// a request: bounded by the limit
	e.clock.Advance(registry.TransferRequestWindow)
	msgs := 0
	for range 50 {
		e.clock.Advance(time.Second)
		if err := e.request(gaining, kitab, guessPW); registry.CodeOf(err) == registry.CodeTransferLimited {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		msgs += len(e.drain(losing))
		must(t, "cancel", ignoreTransfer(e.svc.TransferDomain(e.ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferCancelOp})))
		msgs += len(e.drain(losing))
	}
	if msgs != 2*registry.TransferRequestLimit {
		t.Errorf("%d messages to a sponsor that reads at once, want %d", msgs, 2*registry.TransferRequestLimit)
	}

	// a sponsor that read the request but did not acknowledge it finds it
	// withdrawn: its acknowledgement answers NOT_FOUND
	e.clock.Advance(registry.TransferRequestWindow)
	must(t, "request", e.request(gaining, kitab, guessPW))
	m, _, err := e.svc.PollRequest(e.ctx, losing)
	if err != nil || m == nil || m.Kind != registry.PollTransferRequested {
		t.Fatalf("poll: %+v, %v", m, err)
	}
	must(t, "cancel", ignoreTransfer(e.svc.TransferDomain(e.ctx, gaining, registry.DomainTransfer{Name: kitab, Op: registry.TransferCancelOp})))
	_, err = e.svc.PollAck(e.ctx, losing, m.ID)
	wantCode(t, "ack of a withdrawn request", err, registry.CodeNotFound)
	e.wantEmpty(losing)
}

// drain acknowledges every message of r's queue and returns them.
func (e *clocked) drain(r *registry.Registrar) []*registry.PollMessage {
	e.t.Helper()
	var out []*registry.PollMessage
	for {
		m, _, err := e.svc.PollRequest(e.ctx, r)
		if err != nil {
			e.t.Fatal(err)
		}
		if m == nil {
			return out
		}
		out = append(out, m)
		if _, err := e.svc.PollAck(e.ctx, r, m.ID); err != nil {
			e.t.Fatal(err)
		}
	}
}

// testAuthGuessDays measures what a registrar guessing as fast as the
// limits let it gets through in three days of the service's clock: on one
// domain, and spread over many (one guess each, the registrar's limit
// binding). Each attempt takes 20 ms of the clock (the EPP command rate,
// 50 a second); a refused one is followed by an attempt at the instant
// the refusal names. Without the limits the first day would hold 4.3
// million guesses: the test stops at 5,000.
func testAuthGuessDays(t *testing.T, open func(*testing.T) registry.Store) {
	e, losing, gaining, _ := guessEnv(t, open)
	const days = 3
	guess := func(names func(i int) string) []int {
		start := e.clock.Now()
		perDay := make([]int, days)
		total := 0
		for i := 0; ; i++ {
			now := e.clock.Now()
			if !now.Before(start.Add(days * day)) {
				return perDay
			}
			err := e.request(gaining, names(i), wrongPW)
			e.clock.Advance(20 * time.Millisecond)
			switch registry.CodeOf(err) {
			case registry.CodeBadAuthInfo:
				perDay[int(now.Sub(start)/day)]++
				if total++; total > 5000 {
					t.Fatalf("%d guesses verified within %s", total, e.clock.Now().Sub(start))
				}
			case registry.CodeAuthInfoLocked:
				if at := retryAt(t, err); at.After(e.clock.Now()) {
					e.clock.Set(at)
				}
			default:
				t.Fatalf("guess %d: %v", i, err)
			}
		}
	}
	one := guess(func(int) string { return kitab })
	t.Logf("one domain: %v verified guesses a day (before the limits: 50 a second, 4,320,000 a day)", one)
	for d, n := range one {
		if n > 3*registry.AuthFreeFailures+registry.AuthFreeFailures {
			t.Errorf("day %d: %d guesses on one domain", d+1, n)
		}
	}
	e.clock.Advance(2 * day)
	names := make([]string, 400)
	for i := range names {
		names[i] = fmt.Sprintf("spread-%03d.in", i)
		if _, err := e.svc.CreateDomain(e.ctx, losing, registry.DomainCreate{Name: names[i], AuthInfo: guessPW}); err != nil {
			t.Fatal(err)
		}
	}
	spread := guess(func(i int) string { return names[i%len(names)] })
	t.Logf("spread over %d domains: %v verified guesses a day", len(names), spread)
	for d, n := range spread {
		if n > 2*registry.AuthRegistrarFreeFailures {
			t.Errorf("day %d: %d guesses over many domains", d+1, n)
		}
	}
}
