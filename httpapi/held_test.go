package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
)

// TestAnalyzeHeld (issue 34 item 7): a name or a variant held by a deleted
// domain that is not purged yet says so in /v1/analyze, the page's
// endpoint, as /v1/check says it: the same holder_state and the same
// frees_at, byte for byte, in redemption, pending restore and pending
// delete, for IDN labels and plain ASCII ones; nothing once it is purged.
// On both stores.
func TestAnalyzeHeld(t *testing.T) {
	const (
		kitab, kittab = "किताब", "कित्ताब" // a name and its variant
		kamal         = "कमल"
		plain         = "akshara-held" // an LDH label of zone in
	)
	for _, st := range registrytest.StoresWith {
		t.Run(st.Name, func(t *testing.T) {
			ctx := context.Background()
			clock := registry.NewManualClock(registrytest.T0)
			svc := st.Service(t, registrytest.Exempt(registry.ServiceOptions{Clock: clock}, "http", ""))
			r, _, err := svc.AddRegistrar(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
			t.Cleanup(ts.Close)
			e := &env{t: t, svc: svc, url: ts.URL}
			for _, n := range []string{kitab + ".भारत", kamal + ".भारत", plain + ".in"} {
				if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: n}); err != nil {
					t.Fatalf("create %s: %v", n, err)
				}
			}
			deleted := registrytest.T0.AddDate(0, 3, 0)
			clock.Set(deleted)
			for _, n := range []string{kitab + ".भारत", kamal + ".भारत", plain + ".in"} {
				if _, err := svc.DeleteDomain(ctx, r, registry.DomainDelete{Name: n}); err != nil {
					t.Fatalf("delete %s: %v", n, err)
				}
			}
			if _, err := svc.RestoreDomain(ctx, r, registry.DomainRestore{Name: kamal + ".भारत", Op: registry.RestoreRequest}); err != nil {
				t.Fatal(err)
			}
			frees := deleted.Add(35 * 24 * time.Hour).Format(time.RFC3339Nano)

			type held struct{ label, zone, status, by, state, frees string }
			look := func(h held) {
				t.Helper()
				var a, c map[string]any
				e.do("GET", "/v1/analyze?label="+url.QueryEscape(h.label)+"&zone="+url.QueryEscape(h.zone), "", "", &a)
				e.do("GET", "/v1/check?name="+url.QueryEscape(h.label+"."+h.zone), "", "", &c)
				for _, k := range []string{"status", "blocked_by", "holder_state", "frees_at"} {
					if a[k] != c[k] {
						t.Errorf("%s.%s: analyze %s %v, check %v", h.label, h.zone, k, a[k], c[k])
					}
				}
				got := held{h.label, h.zone, str(a["status"]), str(a["blocked_by"]), str(a["holder_state"]), str(a["frees_at"])}
				if got != h {
					t.Errorf("analyze:\n got %+v\nwant %+v", got, h)
				}
			}
			// in redemption (the name itself and its variant), restore
			// requested, a plain label
			look(held{kitab, "भारत", "registered", "", registry.StatusRedemptionPeriod, frees})
			look(held{kittab, "भारत", "blocked", kitab + ".भारत", registry.StatusRedemptionPeriod, frees})
			look(held{kamal, "भारत", "registered", "", registry.StatusPendingRestore, frees})
			look(held{plain, "in", "registered", "", registry.StatusRedemptionPeriod, frees})
			look(held{kittab, "in", "available", "", "", ""}) // another zone: not held

			// the redemption period over: pending delete
			clock.Set(deleted.Add(31 * 24 * time.Hour))
			if _, err := svc.RunLifecycle(ctx, 0); err != nil {
				t.Fatal(err)
			}
			look(held{kitab, "भारत", "registered", "", registry.StatusPendingDelete, frees})
			look(held{kittab, "भारत", "blocked", kitab + ".भारत", registry.StatusPendingDelete, frees})
			look(held{plain, "in", "registered", "", registry.StatusPendingDelete, frees})

			// purged: free, and nothing said of a holder
			clock.Set(deleted.Add(35 * 24 * time.Hour))
			if _, err := svc.RunLifecycle(ctx, 0); err != nil {
				t.Fatal(err)
			}
			look(held{kitab, "भारत", "available", "", "", ""})
			look(held{kittab, "भारत", "available", "", "", ""})
			look(held{plain, "in", "available", "", "", ""})
		})
	}
}

func str(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	var s string
	if json.Unmarshal(b, &s) != nil {
		return string(b)
	}
	return s
}
