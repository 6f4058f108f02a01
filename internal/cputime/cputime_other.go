//go:build !unix

// Package cputime reads the CPU time the process has used (see
// cputime_unix.go); here it cannot.
package cputime

import "time"

// Process returns 0 and false: getrusage is missing here.
func Process() (time.Duration, bool) { return 0, false }
