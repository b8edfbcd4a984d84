package session

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/dbarena/dbarena/drive"
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/runner"
)

// ProcessFor is the process policy of a run of cfg on eng: what runs the
// workers and the Go runtime's GOMAXPROCS meanwhile (runner.Process),
// from cfg.ClientThreads (--client-threads) and what eng is. Session.Run
// sets it on every run; nothing else decides it, and the runner applies
// it as given.
//
//   - An engine whose connections are Driven (engine.Capabilities) gets -client-threads drive.Threads (0: one
//     per CPU), at most one per worker. A thread blocks in the kernel
//     holding its P, so GOMAXPROCS is raised to one more than the threads:
//     that one serves the collector, the timers and everything else. Where
//     threads are not supported (drive.Unsupported: not Linux, or
//     GODEBUG=asyncpreemptoff=1) it is run as the next case, with a note.
//   - Another engine that a network separates from its server runs its
//     workers on goroutines, with GOMAXPROCS set to -client-threads (0:
//     half the CPUs, at least one), at most one per worker. Every
//     goroutine that wakes while a P is idle wakes an OS thread, which
//     spins looking for work: with as many Ps as CPUs those wake-ups cost
//     the client more CPU than the parallelism gives it
//     (docs/BENCHMARKS.md, "Goroutine-driven engines").
//     --client-io io_uring makes them ring threads (Process.Ring).
//   - An Embedded engine (SQLite) does the database's work on the
//     client's CPUs and keeps Go's default; so does -1 everywhere.
func ProcessFor(eng engine.Engine, cfg runner.Config) runner.Process {
	if cfg.ClientThreads < 0 {
		return runner.Process{}
	}
	caps := eng.Dialect().Capabilities()
	if caps.Embedded {
		return runner.Process{}
	}
	n := cfg.ClientThreads
	driven := caps.Driven
	var note string
	if why := drive.Unsupported(); driven && why != nil {
		note = fmt.Sprintf("the workers ran on goroutines, not on client threads: %v", why)
		driven = false
	}
	if !driven && cfg.ClientIO == runner.ClientIORing {
		note = strings.TrimPrefix(note+"; --client-io io_uring had no effect: the engine's driver waits on goroutines of its own, not on client threads", "; ")
	}
	if !driven {
		if n == 0 {
			n = max(1, runtime.NumCPU()/2)
		}
		return runner.Process{GOMAXPROCS: min(n, cfg.Threads), Note: note}
	}
	if n == 0 {
		n = runtime.NumCPU()
	}
	threads := min(n, cfg.Threads)
	return runner.Process{Threads: threads, GOMAXPROCS: max(threads+1, runtime.GOMAXPROCS(0)), Ring: cfg.ClientIO == runner.ClientIORing}
}
