package registrytest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/akshara-idn/akshara/httpapi"
	"github.com/akshara-idn/akshara/internal/sqlstore"
	"github.com/akshara-idn/akshara/registry"
)

// BenchPages (issue 22 item 10) imports n domains of one registrar with
// the import path, then walks GET /v1/domains page by page over HTTP on
// loopback, for page sizes 100 and 1000: it reports the mean and the
// slowest page in ms, the pages, and the heap in use after the walk.
func BenchPages(b *testing.B, open func(b *testing.B) *sqlstore.Store, n int) {
	ctx := context.Background()
	store := open(b)
	svc, err := registry.NewServiceWith(ctx, store, Exempt(registry.ServiceOptions{}, ""))
	if err != nil {
		b.Fatal(err)
	}
	var file bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&file, "%s,big\n", Label(i))
	}
	start := time.Now()
	sum, err := svc.Import(ctx, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file.Bytes())), nil },
		registry.ImportOptions{ContactsExempt: true, Zone: "भारत", CreateRegistrars: true})
	if err != nil {
		b.Fatal(err)
	}
	if sum.Registered != int64(n) {
		b.Fatalf("imported %d of %d", sum.Registered, n)
	}
	b.Logf("imported %d domains in %v", n, time.Since(start).Round(time.Millisecond))
	token := sum.RegistrarsCreated["big"]
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{RateLimit: 1e9, RateBurst: 1 << 30})) // the pages, not the limiter
	b.Cleanup(srv.Close)
	for _, limit := range []int{100, 1000} {
		b.Run("limit="+strconv.Itoa(limit), func(b *testing.B) {
			var worst, total time.Duration
			pages, seen := 0, 0
			for i := 0; i < b.N; i++ {
				cursor := ""
				for {
					u := srv.URL + "/v1/domains?limit=" + strconv.Itoa(limit)
					if cursor != "" {
						u += "&cursor=" + cursor
					}
					req, _ := http.NewRequest("GET", u, nil)
					req.Header.Set("Authorization", "Bearer "+token)
					t0 := time.Now()
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					d := time.Since(t0)
					if resp.StatusCode != 200 {
						b.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
					}
					total += d
					worst = max(worst, d)
					pages++
					seen += bytes.Count(body, []byte(`"registrar":`))
					cursor = resp.Header.Get("Next-Cursor")
					if cursor == "" {
						break
					}
				}
			}
			if seen != n*b.N {
				b.Fatalf("listed %d domains, want %d", seen/b.N, n)
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			b.ReportMetric(float64(total.Microseconds())/float64(pages)/1000, "ms/page")
			b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms/page")
			b.ReportMetric(float64(pages/b.N), "pages")
			b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MiB")
		})
	}
}
