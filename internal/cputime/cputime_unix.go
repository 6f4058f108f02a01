//go:build unix

// Package cputime reads the CPU time the process has used: the clock of the
// benchmark harness (bench/) and of the HTTP benchmarks (registrytest),
// because on a shared, loaded machine the wall clock also counts the time
// other processes held the cores.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time the process has used, user and system, every
// thread; ok is false where it cannot be read.
func Process() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
