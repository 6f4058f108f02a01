package main

import (
	"strings"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/loopback"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/whois"
)

// TestRun: against a WHOIS server of a registry with one domain, the
// load counts answers, and with a per-address limit of one query the
// rest are counted as refused for the rate, not as answers.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name          string
		rate          float64
		burst         int
		wantLimited   bool
		wantAnsweredN int // at least
	}{
		{"no limit", -1, 0, false, 2},
		{"one query", 0.001, 1, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := registrytest.SQLiteService(t)
			r, _, err := svc.AddRegistrar(t.Context(), "acme")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.CreateDomain(t.Context(), r, registry.DomainCreate{Name: "example.in"}); err != nil {
				t.Fatal(err)
			}
			srv, err := whois.New(svc, whois.Options{RateLimit: tc.rate, RateBurst: tc.burst})
			if err != nil {
				t.Fatal(err)
			}
			res := run(loopback.Serve(t, srv), []string{"example.in"}, 2, 300*time.Millisecond)
			if res.answered < tc.wantAnsweredN || res.failed > 0 || (res.limited > 0) != tc.wantLimited {
				t.Errorf("%+v", res)
			}
			if s := res.String(); !strings.Contains(s, "/s; median") {
				t.Errorf("report %q", s)
			}
		})
	}
}
