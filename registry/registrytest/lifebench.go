package registrytest

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/registry"
)

// BenchPurge measures the lifecycle worker purging n expired domains
// (deleted, past their pending delete period), each with a conflict set
// of two labels: the time and the peak heap in use while it runs
// (sampled every millisecond). The domains are written with SQL directly,
// in one transaction (rebind turns ? into the dialect's placeholders).
func BenchPurge(b *testing.B, n int, store registry.Store, db *sql.DB, rebind func(string) string) {
	ctx := b.Context()
	clock := registry.NewManualClock(T0)
	svc, err := registry.NewServiceWith(ctx, store, Exempt(registry.ServiceOptions{Clock: clock}, ""))
	if err != nil {
		b.Fatal(err)
	}
	r, _, err := svc.AddRegistrar(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	LoadPurgeable(b, n, r.ID, T0.Add(-time.Hour), db, rebind)
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	runtime.GC()
	b.ResetTimer()
	start := time.Now()
	rep, err := svc.RunLifecycle(ctx, 0)
	elapsed := time.Since(start)
	b.StopTimer()
	close(stop)
	if err != nil || rep.Purged != n {
		b.Fatalf("RunLifecycle = %+v, %v; want %d purged", rep, err, n)
	}
	b.ReportMetric(elapsed.Seconds(), "s/purge-all")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "purges/s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
}

// LoadPurgeable writes n deleted domains of zone in (purgeNNNNNNN, each
// holding itself and purgeNNNNNNN-v), to be purged at purgeAt, with SQL
// directly, in one transaction.
func LoadPurgeable(tb testing.TB, n int, registrarID int64, purgeAt time.Time, db *sql.DB, rebind func(string) string) {
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	purge := purgeAt.UnixNano()
	const rows = 200
	for i := 0; i < n; i += rows {
		var q strings.Builder
		var args []any
		q.WriteString(`INSERT INTO domains (zone, label, alabel, lang, registrar_id, created, data_version, expires, statuses, purge_at) VALUES `)
		for j := i; j < min(i+rows, n); j++ {
			if j > i {
				q.WriteString(", ")
			}
			q.WriteString(`('in', ?, ?, 'ldh', ?, ?, '', ?, 'pendingDelete', ?)`)
			label := fmt.Sprintf("purge%07d", j)
			args = append(args, label, label, registrarID, T0.AddDate(-2, 0, 0).UnixNano(), T0.AddDate(-1, 0, 0).UnixNano(), purge)
		}
		if _, err := tx.ExecContext(ctx, rebind(q.String()), args...); err != nil {
			tb.Fatal(err)
		}
	}
	for _, q := range []string{
		`INSERT INTO blocks (zone, label, domain_id) SELECT zone, label, id FROM domains WHERE purge_at > 0`,
		`INSERT INTO blocks (zone, label, domain_id) SELECT zone, label || '-v', id FROM domains WHERE purge_at > 0`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	// the planner's statistics, as a database in service has them (without,
	// PostgreSQL plans the purge's deletes by a table it believes empty)
	if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
		tb.Fatal(err)
	}
}
