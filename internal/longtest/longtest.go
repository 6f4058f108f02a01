// Package longtest gates the long runs of the test suite (the full
// concurrent-create race, the SIGKILL crash runs, soak and fault loops)
// behind the environment variable AKSHARA_LONG_TESTS=1, which .ci/run
// sets: `go test ./...` stays quick for a developer and every behaviour is
// still covered by a shorter run of the same test.
package longtest

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the long runs on.
const Env = "AKSHARA_LONG_TESTS"

// Enabled reports whether the long runs are on (and -short is not given).
func Enabled() bool { return os.Getenv(Env) == "1" && !testing.Short() }

// Pick returns long when the long runs are on, short otherwise.
func Pick(short, long int) int {
	if Enabled() {
		return long
	}
	return short
}

// Require skips a test that only has a long form, saying how to run it.
func Require(tb testing.TB) {
	tb.Helper()
	if !Enabled() {
		tb.Skip("a long run: set " + Env + "=1 (and no -short) to run it")
	}
}
