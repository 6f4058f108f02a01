//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used (user and system, every
// thread): the harness's clock, because on a shared, loaded machine the
// wall clock also counts the time other processes held the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const clockName = "process CPU time"
