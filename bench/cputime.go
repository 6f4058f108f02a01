package main

import (
	"time"

	"github.com/akshara-idn/akshara/internal/cputime"
)

var start = time.Now()

// cpuTime is the harness's clock: the process's CPU time (every thread, the
// garbage collector's included), or the wall clock where that is unknown.
func cpuTime() time.Duration {
	if d, ok := cputime.Process(); ok {
		return d
	}
	return time.Since(start)
}

// clockName names the clock in the harness's output.
var clockName = func() string {
	if _, ok := cputime.Process(); ok {
		return "process CPU time"
	}
	return "wall clock"
}()
