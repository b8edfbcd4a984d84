package runner

import (
	"fmt"

	"github.com/dbarena/dbarena/drive"
)

// Process is a run's process policy: what runs its workers and how many
// of the Go runtime's Ps they have meanwhile. Package session decides it
// for every run (session.ProcessFor) and hands it over in
// Config.Process; Run applies it as given and decides nothing.
type Process struct {
	// Threads, when positive, is the number of client threads
	// (drive.Thread) that run the workers and drive their connections,
	// at most one per worker: worker i runs on thread i mod Threads. 0
	// runs each worker on a goroutine of its own.
	Threads int
	// GOMAXPROCS, when positive, is the Go runtime's GOMAXPROCS for the
	// run, restored after it; 0 leaves it as it is. Client threads block
	// in the kernel holding their Ps: with Threads set it is one more
	// than them at least, for the collector, the timers and everything
	// else.
	GOMAXPROCS int
	// Ring, with Threads, makes them ring threads (drive.NewRingThread):
	// the connections send and receive through io_uring.
	Ring bool
	// Note, when set, says why the workers run on goroutines where
	// client threads were wanted; the result's warnings carry it.
	Note string
}

// start starts p's client threads for a run of workers workers, or
// returns nil when each worker has a goroutine.
func (p Process) start(workers int) ([]*drive.Thread, error) {
	if p.Threads < 0 || p.Threads > workers || p.GOMAXPROCS < 0 {
		return nil, fmt.Errorf("runner: process %+v for %d workers: want 0 to %d threads and a GOMAXPROCS of 0 or more", p, workers, workers)
	}
	if p.Threads == 0 {
		return nil, nil
	}
	ts := make([]*drive.Thread, p.Threads)
	for i := range ts {
		newThread := drive.NewThread
		if p.Ring {
			newThread = drive.NewRingThread
		}
		t, err := newThread()
		if err != nil {
			for _, o := range ts[:i] {
				_ = o.Close()
			}
			return nil, err
		}
		ts[i] = t
	}
	return ts, nil
}

// The ways client threads send and receive (Config.ClientIO).
const (
	ClientIOEpoll = "epoll"
	ClientIORing  = "io_uring"
)
