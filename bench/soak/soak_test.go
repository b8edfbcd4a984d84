//go:build soak

package soak

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/server/postgres"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/all"
)

// The soak's settings, from the environment (make soak ARGS are not used:
// `SOAK_DURATION=10m make soak`).
var (
	soakDuration = envDuration("SOAK_DURATION", 60*time.Minute)
	soakThreads  = envInt("SOAK_THREADS", 256)
	peakThreads  = envInt("SOAK_PEAK_THREADS", 1000)
	peakDuration = envDuration("SOAK_PEAK_DURATION", 2*time.Minute)
	sampleEvery  = envDuration("SOAK_SAMPLE", time.Minute)
)

// sample is one reading of this process.
type sample struct {
	at         time.Duration
	rssMB      float64 // VmRSS
	heapMB     float64 // HeapInuse
	goroutines int
	tps        float64 // the last interval's
}

// TestSoak runs oltp_read_write with soakThreads workers for soakDuration
// on a managed PostgreSQL server (max_connections above peakThreads), then
// peakThreads workers for peakDuration. It fails when memory grows: every
// sample of the last half must be within 5% of the one at a sixth of the
// duration (minute 10 of 60), and the peak run may add at most 2 MB of RSS
// per worker over what the process held before it.
func TestSoak(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	os.Chmod(home, 0o755)
	srv, err := server.Start(ctx, server.Spec{Kind: postgres.ServerKind, Home: home, Knobs: []server.Knob{
		{Name: "max_connections", Value: strconv.Itoa(peakThreads + 50)},
		{Name: "shared_buffers", Value: "512MB"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	target := srv.Target()
	eng, err := engine.Open(ctx, target, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.Open(ctx, session.Options{Engine: eng, Target: target, PrepareOnFirstUse: true,
		Tool: result.Tool{Name: "dbarena", Version: "soak"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, _ := workload.Lookup("oltp_read_write")
	w := m.New()
	if err := w.Flags().Parse([]string{"--tables=8", "--table-size=10000"}); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsurePrepared(ctx, w); err != nil {
		t.Fatal(err)
	}

	// Phase 1: the soak.
	samples, run := measure(t, ctx, s, w, soakThreads, soakDuration)
	t.Logf("soak: %d workers for %s: %d transactions, %.0f tps, %d errors, %d reconnects, status %s",
		soakThreads, soakDuration, run.Transactions, run.TPS, run.Errors, run.Reconnects, run.Status)
	printSamples(t, samples)
	base := sampleAt(samples, soakDuration/6)
	var worst float64
	for _, smp := range samples {
		if smp.at < soakDuration/2 {
			continue
		}
		d := (smp.rssMB - base.rssMB) / base.rssMB * 100
		if d > worst {
			worst = d
		}
		if d > 5 {
			t.Errorf("RSS at %s is %.1f MB, %.1f%% above the %.1f MB at %s", smp.at, smp.rssMB, d, base.rssMB, base.at)
		}
	}
	t.Logf("RSS: %.1f MB at %s; the last half at most %+.1f%% of it", base.rssMB, base.at, worst)

	// Phase 2: the peak.
	runtime.GC()
	before := readSample(0, 0)
	peak, prun := measure(t, ctx, s, w, peakThreads, peakDuration)
	var top sample
	for _, smp := range peak {
		if smp.rssMB > top.rssMB {
			top = smp
		}
	}
	perWorker := (top.rssMB - before.rssMB) / float64(peakThreads)
	t.Logf("peak: %d workers for %s: %.0f tps, status %s; RSS %.1f MB before, %.1f MB at most (%d goroutines): %.2f MB per worker",
		peakThreads, peakDuration, prun.TPS, prun.Status, before.rssMB, top.rssMB, top.goroutines, perWorker)
	printSamples(t, peak)
	if perWorker > 2 {
		t.Errorf("%.2f MB of RSS per worker at %d workers, want at most 2", perWorker, peakThreads)
	}
}

// measure runs w with threads workers for d, reading this process every
// sampleEvery.
func measure(t *testing.T, ctx context.Context, s *session.Session, w workload.Workload, threads int, d time.Duration) ([]sample, *result.Run) {
	t.Helper()
	cfg := runner.DefaultConfig()
	cfg.Threads, cfg.Duration, cfg.ReportInterval = threads, d, 10*time.Second
	cfg.TolerateErrors = true
	obs := &lastTPS{}
	var samples []sample
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	start := time.Now()
	go func() {
		defer wg.Done()
		tk := time.NewTicker(sampleEvery)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				samples = append(samples, readSample(time.Since(start).Round(time.Second), obs.get()))
			}
		}
	}()
	file, err := s.Measure(ctx, w, []runner.Config{cfg}, session.Hooks{Observer: obs})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("%d workers: %v", threads, err)
	}
	return samples, &file.Runs[0]
}

type lastTPS struct {
	mu  sync.Mutex
	tps float64
}

func (o *lastTPS) OnTick(t runner.Tick) {
	o.mu.Lock()
	if t.Length > 0 {
		o.tps = float64(t.Interval.Transactions()) / t.Length.Seconds()
	}
	o.mu.Unlock()
}

func (o *lastTPS) get() float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.tps
}

func readSample(at time.Duration, tps float64) sample {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return sample{at: at, rssMB: vmRSS(), heapMB: float64(ms.HeapInuse) / (1 << 20), goroutines: runtime.NumGoroutine(), tps: tps}
}

// vmRSS is this process's resident set in MB, from /proc/self/status.
func vmRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func sampleAt(ss []sample, at time.Duration) sample {
	for _, s := range ss {
		if s.at >= at {
			return s
		}
	}
	if len(ss) == 0 {
		return sample{rssMB: 1}
	}
	return ss[len(ss)-1]
}

func printSamples(t *testing.T, ss []sample) {
	var b strings.Builder
	fmt.Fprintln(&b, "| time | RSS MB | heap in use MB | goroutines | tps |")
	fmt.Fprintln(&b, "|---|---|---|---|---|")
	for _, s := range ss {
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %d | %.0f |\n", s.at, s.rssMB, s.heapMB, s.goroutines, s.tps)
	}
	t.Log("\n" + b.String())
}

func envDuration(name string, def time.Duration) time.Duration {
	if v := os.Getenv(name); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			panic(fmt.Sprintf("%s=%q: %v", name, v, err))
		}
		return d
	}
	return def
}

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			panic(fmt.Sprintf("%s=%q: %v", name, v, err))
		}
		return n
	}
	return def
}
