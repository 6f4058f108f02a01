package epp_test

import (
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// BenchmarkAuthInfoGuess measures how fast one registrar can guess
// authInfo over EPP, with the server's default command rate (50 a second,
// burst 100) and with none: b.N transfer requests with a wrong authInfo,
// spread over 1,000 domains of another registrar (one domain per request
// in turn), on each store. It reports guesses/s, the wrong authInfo the
// registry verified (answered 2202), and locked/s, those refused before
// any verification (AUTH_INFO_LOCKED, 2201). Real time, the system clock:
// the lockout's windows do not pass during the run.
func BenchmarkAuthInfoGuess(b *testing.B) {
	for _, st := range registrytest.StoresWith {
		for _, rate := range []struct {
			name string
			rate float64
		}{{"rate50", 50}, {"unlimited", -1}} {
			b.Run(st.Name+"/"+rate.name, func(b *testing.B) { benchGuess(b, st.Service, rate.rate) })
		}
	}
}

func benchGuess(b *testing.B, service func(testing.TB, registry.ServiceOptions) *registry.Service, rate float64) {
	svc := service(b, registrytest.ContactsOptional())
	e := newEnvOn(b, svc, epp.Options{CommandRate: rate, CommandBurst: 100})
	e.mu.Lock()
	e.norecord = true
	e.mu.Unlock()
	ctx := b.Context()
	if err := svc.SetTransferPolicy(ctx, "भारत", 5*24*time.Hour, 0); err != nil {
		b.Fatal(err)
	}
	acme := registrarNamed(b, svc, "acme")
	names := make([]string, 1000)
	for i := range names {
		names[i] = freshName()
		if _, err := svc.CreateDomain(ctx, acme, registry.DomainCreate{Name: names[i], Lang: "hi", AuthInfo: strongPW}); err != nil {
			b.Fatal(err)
		}
	}
	o := e.dialT(b)
	o.login("other", "secret34")
	guessed, locked := 0, 0
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		switch r := o.do(transferFrame("request", names[i%len(names)], "Wrong-guess-0000-1111", "")); code(r) {
		case 2202:
			guessed++
		case 2201:
			locked++
		default:
			b.Fatalf("guess %d: %s", i, r)
		}
	}
	s := time.Since(start).Seconds()
	b.ReportMetric(float64(guessed)/s, "guesses/s")
	b.ReportMetric(float64(locked)/s, "locked/s")
}

// strongPW is an authInfo the registry's rule accepts.
const strongPW = "Xk9#mQ2v-Lp7!Rt4w-Zs8&"
