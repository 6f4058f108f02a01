package epp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// BenchmarkTransfer measures a transfer over EPP on each store: the
// gaining registrar's request (with the authInfo, verified with argon2id)
// and the sponsor's approval, one session each, as transfers/s. The
// domains are created (with their authInfo) before the timer starts.
func BenchmarkTransfer(b *testing.B) {
	for _, st := range registrytest.StoresWith {
		b.Run(st.Name, func(b *testing.B) {
			svc := st.Service(b, registrytest.ContactsOptional())
			e := newEnvOn(b, svc, epp.Options{})
			e.mu.Lock()
			e.norecord = true
			e.mu.Unlock()
			ctx := b.Context()
			if err := svc.SetTransferPolicy(ctx, "भारत", 5*24*time.Hour, 0); err != nil {
				b.Fatal(err)
			}
			acme := registrarNamed(b, svc, "acme")
			names := make([]string, b.N)
			for i := range names {
				names[i] = freshName()
				if _, err := svc.CreateDomain(ctx, acme, registry.DomainCreate{Name: names[i], Lang: "hi", AuthInfo: "bench-Auth-1-strong"}); err != nil {
					b.Fatal(err)
				}
			}
			a := e.dialT(b)
			a.login("acme", "secret12")
			o := e.dialT(b)
			o.login("other", "secret34")
			b.ResetTimer()
			start := time.Now()
			for _, n := range names {
				if r := o.do(transferFrame("request", n, "bench-Auth-1-strong", "")); code(r) != 1001 {
					b.Fatalf("request %s: %s", n, r)
				}
				if r := a.do(transferFrame("approve", n, "", "")); code(r) != 1000 {
					b.Fatalf("approve %s: %s", n, r)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "transfers/s")
		})
	}
}

// BenchmarkPoll measures poll req + ack over EPP on each store with at
// least 1,000 messages queued (1,000 + b.N are queued before the timer
// starts), as req+ack pairs/s: auto-renewals, and purges (whose
// <domain:panData> reads the deletion's transaction identifiers from the
// audit log, where each name has its create and delete records).
func BenchmarkPoll(b *testing.B) {
	for _, st := range registrytest.StoresWith {
		for _, kind := range []string{registry.PollAutoRenew, registry.PollPurge} {
			b.Run(st.Name+"/"+kind, func(b *testing.B) { benchPoll(b, st.Service, kind) })
		}
	}
}

func benchPoll(b *testing.B, service func(testing.TB, registry.ServiceOptions) *registry.Service, kind string) {
	b.ReportAllocs()
	svc := service(b, registrytest.ContactsOptional())
	e := newEnvOn(b, svc, epp.Options{})
	e.mu.Lock()
	e.norecord = true
	e.mu.Unlock()
	acme := registrarNamed(b, svc, "acme")
	n := 1000 + b.N
	at := time.Now().UTC()
	for i := 0; i < n; i += 500 {
		var msgs []registry.PollMessage
		for j := i; j < min(n, i+500); j++ {
			name := fmt.Sprintf("n%d.in", j)
			m := registry.PollMessage{RegistrarID: acme.ID, Kind: kind, Name: name, ALabel: name, Text: "renewed", ExDate: at.AddDate(1, 0, 0), Queued: at}
			if kind == registry.PollPurge {
				m.Text, m.ExDate = "purged", time.Time{}
				for k, action := range []string{"create", "delete"} {
					if err := svc.Store().Audit(b.Context(), registry.AuditEntry{At: at.Add(time.Duration(k-2) * time.Hour), Registrar: "acme", Action: action,
						Name: name, Result: "ok", Channel: "epp", ClTRID: "B-1", SvTRID: "SV-" + name}); err != nil {
						b.Fatal(err)
					}
				}
			}
			msgs = append(msgs, m)
		}
		if err := svc.Enqueue(b.Context(), msgs...); err != nil {
			b.Fatal(err)
		}
	}
	c := e.dialT(b)
	c.login("acme", "secret12")
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		r := c.do(cmd(pollReq))
		_, id := msgQ(r)
		if code(r) != 1301 || id == "" || kind == registry.PollPurge && !strings.Contains(r, "<svTRID>SV-") {
			b.Fatalf("poll: %s", r)
		}
		if r := c.do(pollAck(id)); code(r) != 1000 {
			b.Fatalf("ack: %s", r)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req+ack/s")
}

func registrarNamed(b *testing.B, svc *registry.Service, name string) *registry.Registrar {
	rs, err := svc.Registrars(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range rs {
		if r.Name == name {
			return &r.Registrar
		}
	}
	b.Fatalf("no registrar %s", name)
	return nil
}
