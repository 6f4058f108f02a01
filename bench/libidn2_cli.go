//go:build !(cgo && libidn2)

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Without cgo and -tags libidn2, libidn2 is measured through its idn2
// command where installed: the valid labels on its standard input in one
// run, less the CPU time of a run over one label (start-up). The command stops
// at the first label it refuses, so it sees the valid labels only.
func init() {
	extraPeers = append(extraPeers, func(mix, valid []string) (peer, bool) {
		path, err := exec.LookPath("idn2")
		if err != nil {
			return peer{}, false
		}
		run := func(ls []string) time.Duration {
			cmd := exec.Command(path, "--register", "--quiet")
			cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
			cmd.Stdin = strings.NewReader(strings.Join(ls, "\n") + "\n")
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				return -1
			}
			return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		return peer{
			name:  "libidn2 idn2 --register (command, valid labels)",
			note:  "IDNA2008 only; start-up subtracted; build with -tags libidn2 for the library",
			valid: true,
			timed: func(ls []string) (int, time.Duration) {
				startup := run(ls[:1])
				total := run(ls)
				if total < 0 || startup < 0 {
					return 0, 0
				}
				return len(ls), total - startup
			},
		}, true
	})
}
