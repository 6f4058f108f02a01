//go:build !unix

package registrytest

import "time"

// cpuTime is unknown here: 0.
func cpuTime() time.Duration { return 0 }
