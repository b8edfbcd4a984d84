package sysmon

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// burn keeps this goroutine's CPU busy for d.
func burn(d time.Duration) (n uint64) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 10000; i++ {
			n += uint64(i) * n
		}
	}
	return n
}

// The real /proc of this host, with this test process as the "server".
func TestThisHost(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("sysmon reads Linux's /proc")
	}
	if tick := clockTick(os.DirFS("/proc")); tick != 100 {
		t.Errorf("clock tick %d, want 100 (USER_HZ on every Linux Go runs on)", tick)
	}
	ctx := context.Background()
	dir := t.TempDir()
	m := Open(ctx, Config{ServerPID: os.Getpid(), DataDir: dir})
	t.Logf("sources %v, device %q, notes %q", m.Sources(), m.Device(), m.Notes())
	if m.ServerPID() != os.Getpid() {
		t.Fatalf("server pid %d, want ours (%d); notes %q", m.ServerPID(), os.Getpid(), m.Notes())
	}
	hasDisk := m.Device() != ""
	if !hasDisk && !strings.Contains(strings.Join(m.Notes(), "\n"), "disk: ") {
		t.Errorf("no disk and no note saying why: %q", m.Notes())
	}
	if os := m.OSSettings(); os["os.vm.dirty_ratio"] == "" || os["os.datadir.fstype"] == "" {
		t.Errorf("OS settings lack vm.dirty_ratio or the data directory's file system: %v", os)
	}

	m.Start(ctx)
	burn(300 * time.Millisecond)
	// Some I/O for the disk metrics (not asserted: the page cache may
	// absorb it).
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if fh, err := os.Open(f); err == nil {
		fh.Sync()
		fh.Close()
	}
	iv := m.Tick(ctx)
	t.Logf("interval %v; %s", iv, Compact(iv))
	cores := float64(runtime.NumCPU())
	for _, c := range []struct {
		name     string
		min, max float64
	}{
		{"host_cpu_pct", 0, 100},
		{"host_iowait_pct", 0, 100},
		// 300 ms of one core's work in about 300 ms: well above 10%
		// even on a host shared with others.
		{"server_cpu_pct", 10, 100 * cores},
		{"server_procs", 1, 1e6},
	} {
		v, ok := iv[c.name]
		if !ok || v < c.min || v > c.max {
			t.Errorf("%s = %v (present %v), want within [%v, %v]", c.name, v, ok, c.min, c.max)
		}
	}
	if hasDisk {
		for _, k := range []string{"disk_iops", "disk_read_mb_s", "disk_write_mb_s", "disk_util_pct"} {
			if v, ok := iv[k]; !ok || v < 0 {
				t.Errorf("%s = %v (present %v)", k, v, ok)
			}
		}
	}
	if len(m.Notes()) > 0 && strings.Contains(strings.Join(m.Notes(), "\n"), "samples failed") {
		t.Errorf("samples failed: %q", m.Notes())
	}
}

// Sampling the real /proc allocates little and takes little time: it runs
// once a second next to the benchmark.
func BenchmarkTick(b *testing.B) {
	ctx := context.Background()
	m := Open(ctx, Config{ServerPID: os.Getpid(), DataDir: b.TempDir()})
	m.Start(ctx)
	b.ReportAllocs()
	for b.Loop() {
		m.Tick(ctx)
	}
}
