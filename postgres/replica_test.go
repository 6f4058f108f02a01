package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
)

// replicaPair starts a primary and a hot standby of it (pg_basebackup -R,
// streaming replication), both the test's own, and returns them.
func replicaPair(t testing.TB) (primary, standby *cluster) {
	bin := pgBin(t, false)
	primary = newCluster(t, bin)
	primary.initdb()
	primary.start("fsync=off", "wal_level=replica", "max_wal_senders=10")
	standby = newCluster(t, bin)
	standby.standbyOf(primary, "fsync=off", "hot_standby=on")
	return primary, standby
}

// sqlOn runs statements on a cluster's postgres database.
func sqlOn(t testing.TB, c *cluster, stmts ...string) {
	t.Helper()
	db, err := sql.Open("pgx", c.dsn())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// eventually calls f until it reports true, failing the test after a
// minute (a bound for a loaded machine, not a timing assertion).
func eventually(t testing.TB, what string, f func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if f() {
			return
		}
	}
	t.Fatalf("after a minute: %s", what)
}

// TestReplicaReads: a store with a hot standby (OpenWith ReplicaDSN)
// answers checks and infos from the standby, proven by a standby whose
// replay is paused: a domain another process created on the primary is
// not found there, while the store's own create is (read-your-writes,
// from the primary). A standby lagging beyond the bound, or down, gives
// way to the primary without an error.
func TestReplicaReads(t *testing.T) {
	primary, standby := replicaPair(t)
	ctx := t.Context()
	open := func(o postgres.Options) (*sqlstore.Store, *registry.Service) {
		t.Helper()
		return openService(t, primary.dsn(), o)
	}
	// routed: a lag bound it will not reach; bounded: a short one
	routed, svc := open(postgres.Options{ReplicaDSN: standby.dsn(), MaxLag: time.Hour, Poll: 10 * time.Millisecond})
	bounded, bsvc := open(postgres.Options{ReplicaDSN: standby.dsn(), MaxLag: 200 * time.Millisecond, Poll: 10 * time.Millisecond})
	_, other := open(postgres.Options{}) // another process, on the primary only
	r, _, err := svc.AddRegistrar(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := other.Authenticate(ctx, mustToken(t, other, "beta"))
	if err != nil {
		t.Fatal(err)
	}

	// the store's own create is read back at once (from the primary
	// until the standby has replayed it), then from the standby
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "replica-one.in"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Info(ctx, "replica-one.in"); err != nil {
		t.Fatalf("info right after the create: %v", err)
	}
	before := routed.ReplicaReads()
	eventually(t, "no info answered by the standby", func() bool {
		if _, err := svc.Info(ctx, "replica-one.in"); err != nil {
			t.Fatalf("info: %v", err)
		}
		return routed.ReplicaReads() > before
	})
	// unpolled: the standby's state read once, when it opened (here,
	// once the standby has replayed the first create: opened before, on
	// a loaded machine, it may read a standby still starting and keep
	// that for its hour); it learns that the standby is down from a read
	// that fails there
	unpolled, usvc := open(postgres.Options{ReplicaDSN: standby.dsn(), MaxLag: time.Hour, Poll: time.Hour})

	// replay paused: the standby does not have what the primary gets now
	sqlOn(t, standby, "SELECT pg_wal_replay_pause()")
	if _, err := other.CreateDomain(ctx, r2, registry.DomainCreate{Name: "replica-two.in"}); err != nil {
		t.Fatal(err)
	}
	// proof that reads go to the standby: it does not have the name
	if _, err := svc.Info(ctx, "replica-two.in"); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("info of a name the paused standby lacks = %v, want not found (answered by the standby)", err)
	}
	if res, err := svc.Check(ctx, "replica-two.in", ""); err != nil || res.Status != registry.Available {
		t.Fatalf("check of a name the paused standby lacks = %+v, %v; want available (answered by the standby)", res, err)
	}
	// read-your-writes: the store's own create, not replayed, is found
	if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: "replica-three.in"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Info(ctx, "replica-three.in"); err != nil {
		t.Fatalf("info of the store's own create while the standby is paused: %v", err)
	}
	if res, err := svc.Check(ctx, "replica-three.in", ""); err != nil || res.Status != registry.Registered {
		t.Fatalf("check of the store's own create while the standby is paused = %+v, %v; want registered", res, err)
	}
	// a public read (RDAP, WHOIS: no registrar wrote) is the standby's
	// within the lag bound, the store's own commit not replayed or not
	if _, err := svc.Info(registry.Public(ctx), "replica-three.in"); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("public info of a create the paused standby lacks = %v, want not found (answered by the standby)", err)
	}
	// lagging beyond the bound: the primary answers, without an error
	eventually(t, "the store with a 200 ms lag bound still reads the paused standby", func() bool {
		_, err := bsvc.Info(ctx, "replica-two.in")
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			t.Fatalf("info with the standby lagging: %v", err)
		}
		return err == nil
	})
	t.Logf("lagging standby: %d reads on it, the primary answered after the bound", bounded.ReplicaReads())

	sqlOn(t, standby, "SELECT pg_wal_replay_resume()")
	before = routed.ReplicaReads()
	eventually(t, "the resumed standby never answered with the new name", func() bool {
		_, err := svc.Info(ctx, "replica-two.in")
		return err == nil && routed.ReplicaReads() > before
	})

	if _, err := usvc.Info(ctx, "replica-one.in"); err != nil || unpolled.ReplicaReads() == 0 {
		t.Fatalf("info through the unpolled store: %v, %d reads on the standby", err, unpolled.ReplicaReads())
	}

	// down: every read is answered (by the primary), none fails
	standby.run("pg_ctl", "-D", standby.data, "-m", "immediate", "-w", "stop")
	for i := 0; i < 50; i++ {
		for _, s := range []*registry.Service{svc, usvc} {
			if _, err := s.Info(ctx, "replica-two.in"); err != nil {
				t.Fatalf("info %d with the standby down: %v", i, err)
			}
			if _, err := s.Check(ctx, "replica-four.in", ""); err != nil {
				t.Fatalf("check %d with the standby down: %v", i, err)
			}
		}
	}
	if unpolled.ReplicaFallbacks() == 0 {
		t.Error("the unpolled store never failed a read on the stopped standby: the fallback was not exercised")
	}
	t.Logf("standby down: reads that failed on it and were answered by the primary: %d (polled store), %d (unpolled)", routed.ReplicaFallbacks(), unpolled.ReplicaFallbacks())
}

// mustToken adds a registrar and returns its token.
func mustToken(t *testing.T, svc *registry.Service, name string) string {
	t.Helper()
	_, token, err := svc.AddRegistrar(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// BenchmarkReplicaInfo: an info (a domain, its conflict set, its
// delegation), then a check (-check in the name), answered by the
// primary, and by a hot standby of it, over loopback; p50 and p99 of the
// single requests are reported.
func BenchmarkReplicaInfo(b *testing.B) {
	primary, standby := replicaPair(b)
	ctx := b.Context()
	for _, c := range []struct {
		name string
		o    postgres.Options
		// writes: the store creates a domain every 10 ms meanwhile, so
		// that some reads wait for the standby to replay its commit
		writes bool
	}{{"primary", postgres.Options{}, false}, {"standby", postgres.Options{ReplicaDSN: standby.dsn()}, false},
		{"standby-with-creates", postgres.Options{ReplicaDSN: standby.dsn()}, true}} {
		s, svc := openService(b, primary.dsn(), c.o)
		if c.name == "primary" {
			r, _, err := svc.AddRegistrar(ctx, "alpha")
			if err != nil {
				b.Fatal(err)
			}
			for _, n := range []string{"bench-one.in", "कमल.भारत"} {
				if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: n}); err != nil {
					b.Fatal(err)
				}
			}
		}
		for _, op := range []struct {
			name string
			f    func() error
		}{
			{"", func() error { _, err := svc.Info(ctx, "कमल.भारत"); return err }},
			{"-check", func() error { _, err := svc.Check(ctx, "कमल.भारत", ""); return err }},
			{"-public", func() error { _, err := svc.Info(registry.Public(ctx), "कमल.भारत"); return err }},
		} {
			bench(b, c.name+op.name, s, svc, c.o.ReplicaDSN != "", c.writes, op.f)
		}
	}
}

// bench runs f b.N times on svc (with creates meanwhile if writes) and
// reports p50, p99 and the standby's share.
func bench(b *testing.B, name string, s *sqlstore.Store, svc *registry.Service, standby, writes bool, f func() error) {
	ctx := b.Context()
	c := struct{ writes bool }{writes}
	b.Run(name, func(b *testing.B) {
		if standby {
			eventually(b, "the standby never answered", func() bool {
				svc.Info(ctx, "bench-one.in")
				return s.ReplicaReads() > 0
			})
		}
		if c.writes {
			run := time.Now().UnixNano() // a name of its own for each run
			r, _, err := svc.AddRegistrar(ctx, fmt.Sprintf("writer-%d", run))
			if err != nil {
				b.Fatal(err)
			}
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					case <-time.After(10 * time.Millisecond):
					}
					if _, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: fmt.Sprintf("bench-%d-%d.in", run, i)}); err != nil {
						b.Error(err)
						return
					}
				}
			}()
			defer func() { close(stop); <-done }()
		}
		b.ReportAllocs()
		lat := make([]time.Duration, 0, b.N)
		before := s.ReplicaReads()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			if err := f(); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		b.StopTimer()
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		b.ReportMetric(float64(s.ReplicaReads()-before)/float64(b.N), "standby-reads/op")
	})
}
