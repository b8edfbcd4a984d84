package sysmon

import (
	"context"
	"fmt"
	"io/fs"
	"time"
)

// ProcessTreeCPU is the user+system CPU time that process pid and all its
// descendants have used so far, read from proc (os.DirFS("/proc") on
// Linux): utime+stime+cutime+cstime of every process in the tree, so that
// children that have exited and been waited for still count. It is the
// reading behind the server_cpu_* metrics, for one instant, for callers
// that measure a process of their own (a benchmark's peer tool). The
// resolution is one clock tick (10 ms on most systems).
func ProcessTreeCPU(proc fs.FS, pid int) (time.Duration, error) {
	src, err := newProcessSource(proc, pid, clockTick(proc))
	if err != nil {
		return 0, fmt.Errorf("pid %d: %w", pid, err)
	}
	var s Sample
	if err := src.Sample(context.Background(), &s); err != nil {
		return 0, err
	}
	return time.Duration(s.Counters[cServerCPU]) * time.Microsecond, nil
}

// HostCPU is the CPU time the whole host has been busy since boot, read
// from proc's stat (os.DirFS("/proc") on Linux): every column of its
// "cpu" line but idle and iowait (user, nice, system, irq, softirq,
// steal), and the number of CPUs online. The difference of two readings
// over their wall time is the host's busy cores.
func HostCPU(proc fs.FS) (busy time.Duration, cpus int, err error) {
	b, err := fs.ReadFile(proc, "stat")
	if err != nil {
		return 0, 0, err
	}
	t, _, err := parseProcStat(b)
	if err != nil {
		return 0, 0, err
	}
	ticks := t.user + t.nice + t.system + t.irq + t.softirq + t.steal
	tick := uint64(clockTick(proc))
	return time.Duration(ticks * uint64(time.Second) / tick), countCPUs(b), nil
}
