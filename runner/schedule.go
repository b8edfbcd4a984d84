package runner

import (
	"context"
	"time"
)

// Scheduler is a load model: it decides when each worker starts its next
// transaction and from which instant that transaction's latency is
// measured. Closed is the model dbarena runs: N workers back to back. An
// arrival-rate (open) model plugs in here: its schedules wait for each
// transaction's intended start and measure latency from it, so that a
// late start counts against the server (no coordinated omission).
type Scheduler interface {
	// Worker returns the schedule of one worker. It is called once per
	// worker before the run starts; the schedule is then used by that
	// worker's goroutine only.
	Worker(env ScheduleEnv) WorkerSchedule
}

// ScheduleEnv is what a worker's schedule gets from the run.
type ScheduleEnv struct {
	// ID is the worker's number, 0-based; Threads the number of workers.
	ID, Threads int
	// Now is the run's clock.
	Now func() time.Time
	// Stopped is closed when the run stops: a schedule that waits must
	// return then.
	Stopped <-chan struct{}
}

// WorkerSchedule is one worker's schedule.
type WorkerSchedule interface {
	// Start returns when the worker may start its next transaction, with
	// the instant the transaction's latency is measured from: the actual
	// start in the closed model, the intended start under an arrival
	// rate. ok is false when the run stopped (or ctx ended) while it
	// waited. It is called once per transaction, on the hot path: it must
	// not allocate.
	Start(ctx context.Context) (at time.Time, ok bool)
}

// Closed is the closed model: every worker starts its next transaction as
// soon as the previous one ends (after a workload.Pacer's pause), and
// latency runs from that start.
type Closed struct{}

// Worker returns a schedule that never waits.
func (Closed) Worker(env ScheduleEnv) WorkerSchedule { return closedSchedule{now: env.Now} }

type closedSchedule struct{ now func() time.Time }

func (s closedSchedule) Start(context.Context) (time.Time, bool) { return s.now(), true }
