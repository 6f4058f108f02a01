package billing_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/billing"
	"github.com/akshara-idn/akshara/internal/cputime"
	"github.com/akshara-idn/akshara/internal/pgtest"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/postgres"
	"github.com/akshara-idn/akshara/registry"
	"github.com/akshara-idn/akshara/registry/registrytest"
	"github.com/akshara-idn/akshara/sqlite"
)

// benchDomains is how many domains BenchmarkMonthlyPapers loads:
// AKSHARA_BILLING_BENCH_DOMAINS, 100,000 by default (the figure of
// docs/performance.md is a run with 1000000).
func benchDomains() int {
	if n, err := strconv.Atoi(os.Getenv("AKSHARA_BILLING_BENCH_DOMAINS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// BenchmarkMonthlyPapers: a month of N domains created by 100 registrars
// in zone in, each create with its audit record and its debit: every
// registrar's statement (CSV and PDF) and the zone's monthly report, the
// time and the peak heap in use. go test ./billing -run '^$' -bench
// MonthlyPapers -benchtime 1x (PostgreSQL too with
// AKSHARA_TEST_POSTGRES_DSN).
func BenchmarkMonthlyPapers(b *testing.B) {
	stores := []struct {
		name string
		open func(testing.TB) *sqlstore.Store
	}{
		{"sqlite", func(tb testing.TB) *sqlstore.Store {
			s, err := sqlite.Open(context.Background(), tb.TempDir()+"/r.db")
			if err != nil {
				tb.Fatal(err)
			}
			return s
		}},
		{"postgres", func(tb testing.TB) *sqlstore.Store {
			s, err := postgres.Open(context.Background(), pgtest.DSN(tb))
			if err != nil {
				tb.Fatal(err)
			}
			return s
		}},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			store := st.open(b)
			defer store.Close()
			ctx := context.Background()
			svc, err := registry.NewServiceWith(ctx, store, registry.ServiceOptions{Contacts: registrytest.NoContacts()})
			if err != nil {
				b.Fatal(err)
			}
			n := benchDomains()
			m := billing.MonthOf(time.Now())
			start := time.Now()
			loadMonth(b, svc, store.DB(), store.Rebind, n, 100, m)
			b.Logf("%d domains, their audit records and debits loaded in %v", n, time.Since(start).Round(time.Millisecond))
			b.Run("statements", func(b *testing.B) {
				for range b.N {
					peak := watchHeap()
					t0 := time.Now()
					cpu0, _ := cputime.Process()
					entries := 0
					for r := range 100 {
						s, err := billing.NewStatement(ctx, svc, fmt.Sprintf("reg%03d", r), m, time.Now())
						if err != nil {
							b.Fatal(err)
						}
						entries += len(s.Entries)
						if err := s.CSV(io.Discard); err != nil {
							b.Fatal(err)
						}
						if err := s.PDF(io.Discard); err != nil {
							b.Fatal(err)
						}
					}
					el := time.Since(t0)
					b.ReportMetric(el.Seconds(), "s/100-statements")
					if cpu1, ok := cputime.Process(); ok {
						b.ReportMetric((cpu1 - cpu0).Seconds(), "cpu-s")
					}
					b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
					b.ReportMetric(float64(entries), "entries")
				}
			})
			b.Run("report", func(b *testing.B) {
				for range b.N {
					peak := watchHeap()
					t0 := time.Now()
					cpu0, _ := cputime.Process()
					rep, err := billing.NewReport(ctx, svc, "in", m)
					if err != nil {
						b.Fatal(err)
					}
					if err := rep.CSV(io.Discard); err != nil {
						b.Fatal(err)
					}
					if got := rep.Total("creates"); got != n {
						b.Fatalf("the report counts %d creates, want %d", got, n)
					}
					b.ReportMetric(time.Since(t0).Seconds(), "s/report")
					if cpu1, ok := cputime.Process(); ok {
						b.ReportMetric((cpu1 - cpu0).Seconds(), "cpu-s")
					}
					b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
				}
			})
		})
	}
}

// watchHeap samples the heap in use until the function it returns is
// called, which returns the peak.
func watchHeap() func() uint64 {
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		return peak.Load()
	}
}

// loadMonth writes, with SQL in one transaction, registrars registrars
// (reg000 …) with a credit each, and n domains of zone in created in
// month m, round robin, each with its audit record and its debit of
// ₹450.00 (running balances kept).
func loadMonth(tb testing.TB, svc *registry.Service, db *sql.DB, rebind func(string) string, n, registrars int, m billing.Month) {
	ctx := context.Background()
	if _, err := svc.SetPrice(ctx, registry.Price{Zone: "in", Command: registry.BillCreate, Years: 1, Amount: 45000, From: m.Start().Add(-time.Hour)}); err != nil {
		tb.Fatal(err)
	}
	ids := make([]int64, registrars)
	bal := make([]int64, registrars)
	for r := range registrars {
		reg, _, err := svc.AddRegistrar(ctx, fmt.Sprintf("reg%03d", r))
		if err != nil {
			tb.Fatal(err)
		}
		ids[r] = reg.ID
		e, err := svc.Credit(ctx, reg.Name, registry.Money(int64(n/registrars+1)*45000), registry.EntryCredit, "bench")
		if err != nil {
			tb.Fatal(err)
		}
		bal[r] = int64(e.Balance)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	var auditID int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM audit`).Scan(&auditID); err != nil {
		tb.Fatal(err)
	}
	step := m.End().Sub(m.Start()) / time.Duration(n+1)
	const rows = 200
	for i := 0; i < n; i += rows {
		var dq, aq, lq strings.Builder
		var da, aa, la []any
		dq.WriteString(`INSERT INTO domains (zone, label, alabel, lang, registrar_id, created, data_version, expires, updated) VALUES `)
		aq.WriteString(`INSERT INTO audit (id, at, registrar, action, name, result, channel) VALUES `)
		lq.WriteString(`INSERT INTO ledger (registrar_id, at, kind, command, zone, name, domain_id, months, price, amount, balance, audit_id) VALUES `)
		for j := i; j < min(i+rows, n); j++ {
			if j > i {
				dq.WriteString(", ")
				aq.WriteString(", ")
				lq.WriteString(", ")
			}
			r := j % registrars
			label := fmt.Sprintf("d%07d", j)
			at := m.Start().Add(time.Duration(j+1) * step).UnixNano()
			auditID++
			bal[r] -= 45000
			dq.WriteString(`('in', ?, ?, 'ldh', ?, ?, '', ?, ?)`)
			da = append(da, label, label+".in", ids[r], at, time.Unix(0, at).AddDate(1, 0, 0).UnixNano(), at)
			aq.WriteString(`(?, ?, ?, 'create', ?, 'ok', 'epp')`)
			aa = append(aa, auditID, at, fmt.Sprintf("reg%03d", r), label+".in")
			lq.WriteString(`(?, ?, 'debit', 'create', 'in', ?, 0, 12, 45000, -45000, ?, ?)`)
			la = append(la, ids[r], at, label+".in", bal[r], auditID)
		}
		for _, q := range []struct {
			s    string
			args []any
		}{{dq.String(), da}, {aq.String(), aa}, {lq.String(), la}} {
			if _, err := tx.ExecContext(ctx, rebind(q.s), q.args...); err != nil {
				tb.Fatal(err)
			}
		}
	}
	for r := range registrars {
		if _, err := tx.ExecContext(ctx, rebind(`UPDATE accounts SET balance = ? WHERE registrar_id = ?`), bal[r], ids[r]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	// PostgreSQL: the audit ids written by hand move its identity on
	db.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('audit', 'id'), (SELECT MAX(id) FROM audit))`)
	if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
		tb.Fatal(err)
	}
}
