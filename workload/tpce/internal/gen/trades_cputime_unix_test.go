//go:build unix

package gen

import (
	"syscall"
	"time"
)

// tradeCPUTime is the process's user and system CPU time: the machine
// the benchmarks run on may be shared, so figures are also given per CPU
// second.
func tradeCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
