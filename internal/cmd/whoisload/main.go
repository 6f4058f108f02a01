// Command whoisload measures a WHOIS server (RFC 3912: one query line,
// the answer, the server closes) from a process of its own: -c clients
// each open a connection per query, send a name of -names in turn and
// read the answer to its end, for -d. It prints the queries answered per
// second, the median and 99th percentile of a query's time (connect to
// close), and how many answers were refused for the rate (RATE_LIMITED)
// or failed.
//
//	akshara serve -db r.db -whois 127.0.0.1:4343 -whois-rate -1 &
//	go run ./internal/cmd/whoisload -addr 127.0.0.1:4343 -c 8 -d 20s -names किताब.भारत,example.in
//
// Serve with -whois-rate -1 (no limit): every client here has the one
// loopback address, which the per-address limit is for; with more than
// 16 clients, -whois-max-conns-per-addr 0 too (the per-address cap).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// result is what one run measured.
type result struct {
	answered, limited, failed int
	lat                       []time.Duration
	took                      time.Duration
	firstErr                  error
}

func (r *result) String() string {
	if len(r.lat) == 0 {
		return fmt.Sprintf("no query answered (%d failed: %v)", r.failed, r.firstErr)
	}
	slices.Sort(r.lat)
	p := func(q float64) time.Duration { return r.lat[min(len(r.lat)-1, int(q*float64(len(r.lat))))] }
	return fmt.Sprintf("%d queries answered in %v: %.0f/s; median %v, p99 %v; %d refused for the rate, %d failed",
		r.answered, r.took.Round(time.Millisecond), float64(r.answered)/r.took.Seconds(), p(0.5).Round(time.Microsecond), p(0.99).Round(time.Microsecond), r.limited, r.failed)
}

// query asks one name and returns the whole answer.
func query(addr, name string, timeout time.Duration) ([]byte, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(c, name+"\r\n"); err != nil {
		return nil, err
	}
	return io.ReadAll(c)
}

// run sends queries from clients goroutines for d.
func run(addr string, names []string, clients int, d time.Duration) *result {
	var mu sync.Mutex
	res := &result{}
	start := time.Now()
	end := start.Add(d)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			var answered, limited, failed int
			var firstErr error
			for j := i; time.Now().Before(end); j++ {
				t0 := time.Now()
				b, err := query(addr, names[j%len(names)], 10*time.Second)
				switch {
				case err != nil || len(b) == 0:
					failed++
					if firstErr == nil {
						firstErr = err
					}
					if firstErr == nil {
						firstErr = errors.New("an empty answer")
					}
				case bytes.Contains(b, []byte("RATE_LIMITED")):
					limited++
				default:
					answered++
					lat = append(lat, time.Since(t0))
				}
			}
			mu.Lock()
			res.answered += answered
			res.limited += limited
			res.failed += failed
			res.lat = append(res.lat, lat...)
			if res.firstErr == nil {
				res.firstErr = firstErr
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.took = time.Since(start)
	return res
}

func main() {
	addr := flag.String("addr", "127.0.0.1:43", "WHOIS server `ADDRESS`")
	clients := flag.Int("c", 8, "concurrent clients")
	d := flag.Duration("d", 10*time.Second, "how long to send queries")
	names := flag.String("names", "example.in", "comma-separated names to ask, in turn")
	flag.Parse()
	var list []string
	for _, n := range strings.Split(*names, ",") {
		if n = strings.TrimSpace(n); n != "" {
			list = append(list, n)
		}
	}
	if len(list) == 0 || *clients < 1 {
		fmt.Fprintln(os.Stderr, "whoisload: -names and -c are required")
		os.Exit(2)
	}
	res := run(*addr, list, *clients, *d)
	fmt.Println(res)
	if res.answered == 0 {
		os.Exit(1)
	}
}
