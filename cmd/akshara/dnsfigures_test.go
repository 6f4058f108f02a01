package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/dnspub"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/sqlite"
)

// TestDNSFigures measures continuous publication for the closing note of
// issue 37 (docs/delegation.md, "Figures"); it runs only with
// AKSHARA_DNS_FIGURES=N (the zone's delegations, such as 100000):
// a zone of N delegations (SQL, as RunZoneExportLarge fills it), a full
// zone publish into a knotd hidden primary with an NSD secondary, then a
// steady stream of creates (AKSHARA_DNS_RATE a second, default 20, for
// AKSHARA_DNS_SECONDS, default 30) published by the publisher every
// AKSHARA_DNS_INTERVAL (default 1s): create→answer at the primary and at
// the secondary (p50, p95, p99, max), Knot's CPU time and peak RSS over
// the stream, and a full zone publish (export, rename, knotc zone-reload,
// which applies the difference) beside it.
func TestDNSFigures(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("AKSHARA_DNS_FIGURES"))
	if n <= 0 {
		t.Skip("AKSHARA_DNS_FIGURES=N (delegations) not set: the figures are not measured")
	}
	needTools(t, "knotd", "knotc", "kdig", "nsd")
	startWait = 20 * time.Minute
	rate := envInt("AKSHARA_DNS_RATE", 20)
	seconds := envInt("AKSHARA_DNS_SECONDS", 30)
	interval := time.Second
	if s := os.Getenv("AKSHARA_DNS_INTERVAL"); s != "" {
		interval, _ = time.ParseDuration(s)
	}
	dir := t.TempDir()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, err := registry.NewService(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateHost(ctx, r, registry.HostCreate{Name: "ns.example.net"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	fill(t, store.DB(), r.ID, n)
	t.Logf("filled: %d delegations in %v", n, time.Since(start).Round(time.Millisecond))

	// the full publish into a fresh primary: export, then Knot's load and
	// signing of the whole zone
	start = time.Now()
	primary, secondary, _ := primaryWithSecondary(t, ctx, svc, dir)
	t.Logf("first full publish (export, knotd load and sign, NSD's AXFR): %v", time.Since(start).Round(time.Millisecond))
	knotPID := pidOf(t, "knotd", dir)
	cpu0, _ := procCPU(knotPID)

	p, err := dnspub.New(svc, dnspub.Options{Server: primary, Key: &dnspub.Key{Name: updateKey.name, Alg: updateKey.alg, Secret: updateKey.secret},
		Zones: []string{"in"}, Interval: interval, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	go p.Run(pctx)

	// the stream, and two pollers (primary, secondary)
	type pending struct {
		name string
		at   time.Time
	}
	var mu sync.Mutex
	waits := map[string][]pending{primary: nil, secondary: nil}
	lat := map[string][]time.Duration{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, srv := range []string{primary, secondary} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				list := slices.Clone(waits[srv])
				mu.Unlock()
				if len(list) == 0 {
					select {
					case <-done:
						return
					case <-time.After(5 * time.Millisecond):
						continue
					}
				}
				for _, w := range list {
					if delegatedAt(srv, w.name) {
						d := time.Since(w.at)
						mu.Lock()
						lat[srv] = append(lat[srv], d)
						waits[srv] = slices.DeleteFunc(waits[srv], func(x pending) bool { return x.name == w.name })
						mu.Unlock()
					}
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	total := rate * seconds
	tick := time.NewTicker(time.Second / time.Duration(rate))
	for i := range total {
		<-tick.C
		name := fmt.Sprintf("stream%d.in", i)
		if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: name, NameServers: []string{"ns.example.net"}}); err != nil {
			t.Fatal(err)
		}
		at := time.Now()
		mu.Lock()
		waits[primary] = append(waits[primary], pending{name, at})
		waits[secondary] = append(waits[secondary], pending{name, at})
		mu.Unlock()
	}
	tick.Stop()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		mu.Lock()
		left := len(waits[primary]) + len(waits[secondary])
		mu.Unlock()
		if left == 0 || time.Now().After(deadline) {
			if left > 0 {
				t.Errorf("%d answers still missing after 2 minutes", left)
			}
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(done)
	wg.Wait()
	cpu1, rss := procCPU(knotPID)
	for _, s := range []struct{ name, srv string }{{"primary (knotd)", primary}, {"secondary (NSD)", secondary}} {
		l := lat[s.srv]
		slices.Sort(l)
		if len(l) == 0 {
			continue
		}
		pc := func(q float64) time.Duration { return l[min(len(l)-1, int(q*float64(len(l))))].Round(time.Millisecond) }
		t.Logf("create→answer at the %s: %d creates at %d/s, interval %v: p50 %v, p95 %v, p99 %v, max %v", s.name, len(l), rate, interval, pc(0.50), pc(0.95), pc(0.99), l[len(l)-1].Round(time.Millisecond))
	}
	t.Logf("knotd over the stream: %.2f s CPU (%.1f%% of %d s), peak RSS %s", cpu1-cpu0, 100*(cpu1-cpu0)/float64(seconds), seconds, rss)
	stop()

	// a full zone publish beside it: export and rename, then knotc
	// zone-reload (-b: returns when Knot has applied the difference)
	cpu0, _ = procCPU(knotPID)
	start = time.Now()
	_, _, newN, err := publishZone(ctx, svc, "in", registry.ZoneExportOptions{NS: []string{"a.nic.example.org", "b.nic.example.org"}},
		publishOptions{Out: filepath.Join(dir, "in.zone"), MaxDrop: 0.1, Reload: func(z string) error {
			return runReload(exec.Command("knotc", "-s", filepath.Join(dir, "knot.sock"), "-b", "-t", "600", "zone-reload", z))
		}})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	cpu1, rss = procCPU(knotPID)
	t.Logf("full zone publish of %d delegations (export, rename, knotc -b zone-reload: a difference): %v; knotd %.2f s CPU, peak RSS %s", newN, took.Round(time.Millisecond), cpu1-cpu0, rss)
}

func envInt(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v > 0 {
		return v
	}
	return def
}

// fill adds n delegated domains to zone in by SQL (the registry's
// methods are tested elsewhere; this is about size): each with the name
// server ns.example.net, every other one with a DS record.
func fill(t *testing.T, db *sql.DB, registrar int64, n int) {
	t.Helper()
	now := time.Now().UnixNano()
	year := int64(365 * 24 * time.Hour)
	for _, q := range []string{
		fmt.Sprintf(`WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < %d)
INSERT INTO domains (zone, label, alabel, lang, registrar_id, created, expires, updated) SELECT 'in', 'fill' || n, 'fill' || n || '.in', '', %d, %d, %d, %d FROM seq`, n, registrar, now, now+year, now),
		`INSERT INTO blocks (zone, label, domain_id) SELECT zone, label, id FROM domains WHERE zone = 'in' AND label LIKE 'fill%'`,
		`INSERT INTO domain_hosts (domain_id, host_id) SELECT d.id, h.id FROM domains d, hosts h WHERE d.zone = 'in' AND h.name = 'ns.example.net'`,
		`INSERT INTO ds_records (domain_id, key_tag, alg, digest_type, digest) SELECT id, id % 65536, 13, 2, '` + knotDigest + `' FROM domains WHERE zone = 'in' AND id % 2 = 0`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
}

// pidOf finds the process running name whose command line mentions dir.
func pidOf(t *testing.T, name, dir string) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.Contains(string(b), name) && strings.Contains(string(b), dir) {
			return pid
		}
	}
	t.Fatalf("no %s process of %s", name, dir)
	return 0
}

// procCPU is a process's user+system CPU seconds and its peak RSS.
func procCPU(pid int) (float64, string) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, ""
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	rss := ""
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				rss = strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
			}
		}
	}
	return (ut + st) / 100, rss // clock ticks: 100 a second on Linux
}
