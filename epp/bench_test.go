package epp_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/epp"
	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/rdap"
	"github.com/akshara-idn/akshara/registry"
)

// consonants make distinct, valid Hindi labels for the create benchmarks.
var consonants = []rune("कखगघचछजझटठडढणतथदधनपफबभमयरलवशषसह")

var seq atomic.Int64

// freshName returns a name not used before in this process: four
// consonants chosen by a counter, in भारत.
func freshName() string {
	n := seq.Add(1)
	var r []rune
	for i := 0; i < 4; i++ {
		r = append(r, consonants[n%int64(len(consonants))])
		n /= int64(len(consonants))
	}
	return string(r) + ".भारत"
}

// BenchmarkFrontEnds measures checks and creates over EPP and over the
// HTTP API on the same registry (SQLite in a temporary directory) in the
// same run, with 1 and 16 concurrent sessions, and RDAP lookups: ops/s and
// per-operation latency p50/p99 (µs). Refused creates are counted.
func BenchmarkFrontEnds(b *testing.B) {
	e := newEnv(b, epp.Options{MaxSessions: 64})
	e.mu.Lock()
	e.norecord = true
	e.mu.Unlock()
	_, token, err := e.svc.AddRegistrar(b.Context(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	if err := e.svc.SetEPPPassword(b.Context(), "bench", "secret56"); err != nil {
		b.Fatal(err)
	}
	api := httpapi.New(e.svc, httpapi.Options{RateLimit: 1e9, RateBurst: 1 << 30,
		Mount: map[string]http.Handler{rdap.Prefix: rdap.Handler(e.svc, rdap.Options{})}})
	hs := httptest.NewServer(api)
	b.Cleanup(hs.Close)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	if _, err := e.svc.CreateDomain(b.Context(), mustRegistrar(b, e), registry.DomainCreate{Name: "किताब.भारत", Lang: "hi"}); err != nil {
		b.Fatal(err)
	}
	const checkName = "कमल.भारत"

	type op = func() (ok bool)
	eppOp := func(kind string) func(b *testing.B, worker int) op {
		return func(b *testing.B, _ int) op {
			c := e.dial()
			c.login("bench", "secret56")
			b.Cleanup(func() { c.conn.Close() })
			return func() bool {
				var frame string
				if kind == "check" {
					frame = domainCmd("check", checkName)
				} else {
					frame = createFrame(freshName(), "hi", "")
				}
				if c.send(frame) != nil {
					return false
				}
				r, err := c.read()
				return err == nil && code(r) == 1000
			}
		}
	}
	httpOp := func(kind string) func(b *testing.B, worker int) op {
		return func(b *testing.B, _ int) op {
			return func() bool {
				var req *http.Request
				if kind == "check" {
					req, _ = http.NewRequest("GET", hs.URL+"/v1/check?name="+url.QueryEscape(checkName), nil)
				} else {
					req, _ = http.NewRequest("POST", hs.URL+"/v1/domains", strings.NewReader(`{"name":"`+freshName()+`","lang":"hi"}`))
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := hc.Do(req)
				if err != nil {
					return false
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return resp.StatusCode == 200 || resp.StatusCode == 201
			}
		}
	}
	rdapOp := func(*testing.B, int) op {
		return func() bool {
			resp, err := hc.Get(hs.URL + "/rdap/domain/xn--11b4aya5ed.xn--h2brj9c")
			if err != nil {
				return false
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp.StatusCode == 200
		}
	}
	for _, kind := range []string{"check", "create"} {
		for _, sessions := range []int{1, 16} {
			b.Run(fmt.Sprintf("EPP/%s/sessions=%d", kind, sessions), func(b *testing.B) { runOps(b, sessions, eppOp(kind)) })
			b.Run(fmt.Sprintf("HTTP/%s/sessions=%d", kind, sessions), func(b *testing.B) { runOps(b, sessions, httpOp(kind)) })
		}
	}
	for _, sessions := range []int{1, 16} {
		b.Run(fmt.Sprintf("RDAP/lookup/sessions=%d", sessions), func(b *testing.B) { runOps(b, sessions, rdapOp) })
	}
}

// runOps splits b.N operations among n workers, each with its own
// session, and reports ops/s, p50 and p99 latency and the refused share.
func runOps(b *testing.B, n int, setup func(b *testing.B, worker int) func() bool) {
	ops := make([]func() bool, n)
	for i := range ops {
		ops[i] = setup(b, i) // EPP sessions close when this (sub-)benchmark ends
	}
	lat := make([][]time.Duration, n)
	var refused atomic.Int64
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				t0 := time.Now()
				if !ops[w]() {
					refused.Add(1)
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[int(p*float64(len(all)-1))].Microseconds())
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
	b.ReportMetric(float64(refused.Load())/float64(b.N), "refused/op")
}

func mustRegistrar(b *testing.B, e *env) *registry.Registrar {
	r, _, err := e.svc.AddRegistrar(b.Context(), "holder")
	if err != nil {
		b.Fatal(err)
	}
	return r
}
