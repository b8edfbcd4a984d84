package sysmon

import (
	"testing"
	"time"
)

// The postmaster 3105 of the fixture and its tree: 21 + 9 + 300 + 40
// ticks of 10 ms; the host: user+nice+system+irq+softirq+steal of the cpu
// line, 48250 ticks, on two CPUs.
func TestProcessTreeAndHostCPU(t *testing.T) {
	proc := procFixture(t)
	got, err := ProcessTreeCPU(proc, 3105)
	if err != nil || got != 3700*time.Millisecond {
		t.Errorf("ProcessTreeCPU(3105) = %v, %v; want 3.7s", got, err)
	}
	if got, err := ProcessTreeCPU(proc, 3120); err != nil || got != 3400*time.Millisecond {
		t.Errorf("ProcessTreeCPU(3120) = %v, %v; want 3.4s", got, err)
	}
	if _, err := ProcessTreeCPU(proc, 99); err == nil {
		t.Error("ProcessTreeCPU of a missing pid: no error")
	}
	busy, cpus, err := HostCPU(proc)
	if err != nil || busy != 482500*time.Millisecond || cpus != 2 {
		t.Errorf("HostCPU = %v, %d, %v; want 482.5s, 2", busy, cpus, err)
	}
}
