// Command readload measures read latency over HTTP from a process of its
// own: it sends GET /v1/check and GET /rdap/domain/ for names taken
// evenly from an import file (internal/cmd/importgen's CSV, names in the
// first column) to a running "akshara serve", from -c clients for -d
// each, and prints the count, p50 and p99 of each kind (docs/scaling.md):
//
//	go run ./internal/cmd/readload -c 8 -d 10s http://127.0.0.1:8080 names.csv
//
// Answers are read whatever their status (a name the import refused is
// looked up too: 404 from RDAP), as the same file gives the same mix.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

func main() {
	clients := flag.Int("c", 8, "concurrent `clients`")
	dur := flag.Duration("d", 10*time.Second, "how long each kind runs")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: readload [-c N] [-d DURATION] BASE-URL FILE")
		os.Exit(2)
	}
	base, file := flag.Arg(0), flag.Arg(1)
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "name,") {
			continue
		}
		n := strings.TrimSuffix(strings.Split(l, ",")[0], ".")
		if strings.HasSuffix(n, ".भारत") {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		fmt.Fprintln(os.Stderr, "no names of .भारत in", file)
		os.Exit(2)
	}
	// spread over the file
	step := len(names) / 5000
	if step < 1 {
		step = 1
	}
	var pick []string
	for i := 0; i < len(names); i += step {
		pick = append(pick, names[i])
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	cl := &http.Client{Transport: tr}
	bad := false
	for _, kind := range []string{"check", "rdap"} {
		var mu sync.Mutex
		var lat []time.Duration
		status := map[int]int{}
		failed := 0
		var wg sync.WaitGroup
		end := time.Now().Add(*dur)
		for c := 0; c < *clients; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				var mine []time.Duration
				codes := map[int]int{}
				fails := 0
				for i := c; time.Now().Before(end); i += *clients {
					n := pick[i%len(pick)]
					u := base + "/v1/check?lang=hi&name=" + url.QueryEscape(n)
					if kind == "rdap" {
						u = base + "/rdap/domain/" + url.PathEscape(n)
					}
					t := time.Now()
					r, err := cl.Get(u)
					if err != nil {
						fails++
						continue
					}
					io.Copy(io.Discard, r.Body)
					r.Body.Close()
					codes[r.StatusCode]++
					if r.StatusCode == http.StatusOK {
						// only answers count: a 429 or a 5xx is fast
						// and says nothing of the store
						mine = append(mine, time.Since(t))
					}
				}
				mu.Lock()
				lat = append(lat, mine...)
				for k, v := range codes {
					status[k] += v
				}
				failed += fails
				mu.Unlock()
			}(c)
		}
		wg.Wait()
		if len(lat) == 0 {
			fmt.Fprintln(os.Stderr, kind+": no answer with status 200", statusList(status, failed))
			os.Exit(1)
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		fmt.Printf("%s: n=%d p50=%v p99=%v %s\n", kind, len(lat), lat[len(lat)/2], lat[len(lat)*99/100], statusList(status, failed))
		if len(lat) != status[http.StatusOK] || failed > 0 || len(status) > 1 {
			bad = true
		}
	}
	if bad {
		// latencies of the 200s alone; an answer that was not one means
		// a rate limit or a fault to look at (serve -public-rate, -rate)
		fmt.Fprintln(os.Stderr, "readload: some requests were not answered with 200")
		os.Exit(1)
	}
}

// statusList is the statuses answered, as "status 200=N 429=M", and the
// requests that got no answer.
func statusList(status map[int]int, failed int) string {
	var ks []int
	for k := range status {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	var b strings.Builder
	b.WriteString("status")
	for _, k := range ks {
		fmt.Fprintf(&b, " %d=%d", k, status[k])
	}
	if failed > 0 {
		fmt.Fprintf(&b, " no-answer=%d", failed)
	}
	return b.String()
}
