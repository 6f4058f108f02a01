package registrytest

import (
	"time"

	"github.com/akshara-idn/akshara/internal/cputime"
)

// cpuTime is the CPU time the process has used, user and system (0 if
// unknown).
func cpuTime() time.Duration {
	d, _ := cputime.Process()
	return d
}
