package timing

import (
	"context"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/result"
)

// Scheduler is a load model: it decides when each worker starts its next
// transaction and from which instant that transaction's latency is
// measured. Closed is the closed model: N workers back to back. An
// arrival-rate (open) model plugs in here too (Open, an Arrivals): its
// schedules wait for each transaction's intended start and measure
// latency from it, so that a late start counts against the server (no
// coordinated omission).
type Scheduler interface {
	// Worker returns the schedule of one worker. It is called once per
	// worker before the run starts; the schedule is then used by that
	// worker's goroutine only.
	Worker(env ScheduleEnv) WorkerSchedule
}

// Arrivals is a Scheduler whose transactions arrive at a rate of their
// own, whatever the server does: an arrival-rate (open) model, such as
// Open. Its schedules are ArrivalSchedules. The run loop then records
// each transaction's service time and lag beside its latency from the
// arrival, and counts it late past LateTolerance; it skips a
// workload.Pacer's pauses (the arrivals pace the run); a transaction
// retried without a replay keeps its arrival; and the result records
// the model, the rate it offered and the arrivals no worker started.
type Arrivals interface {
	Scheduler
	// Offered returns the mean arrival rate asked for between from and
	// to after the run's start, in transactions per second.
	Offered(from, to time.Duration) float64
	// Describe returns the model as the result file records it
	// (result.Run.Open).
	Describe() *result.Open
}

// ArrivalSchedule is the WorkerSchedule of an Arrivals model.
type ArrivalSchedule interface {
	WorkerSchedule
	// UnstartedWaits counts the worker's arrivals intended before end
	// that it did not start, and records into waits (unless nil) how
	// long each of them had waited at end, from its intended start. It
	// is called once the worker has returned.
	UnstartedWaits(end time.Time, waits *hdr.Histogram) int64
}

// ScheduleEnv is what a worker's schedule gets from the run.
type ScheduleEnv struct {
	// ID is the worker's number, 0-based; Threads the number of workers.
	ID, Threads int
	// Seed is the worker's seed (runner.WorkerSeed): a schedule that draws
	// arrivals draws them from a random source of its own seeded by it.
	Seed uint64
	// Start is the run's start, which an arrival schedule counts from.
	Start time.Time
	// Now is the run's clock.
	Now func() time.Time
	// Sleep waits d, or less when ctx ends or the run stops, and tells
	// whether the run goes on; nil uses a timer of the schedule's own.
	Sleep func(ctx context.Context, d time.Duration) bool
	// Stopped is closed when the run stops: a schedule that waits must
	// return then.
	Stopped <-chan struct{}
	// Missed counts arrivals that never started (skipped past the
	// latency limit, dropped past the queue's bound) into the worker's
	// recorder; nil counts them nowhere.
	Missed func(skipped, dropped int64)
}

// Slot is when a worker starts a transaction.
type Slot struct {
	// Intended is the instant the transaction's latency runs from: its
	// arrival under an arrival rate, its actual start in the closed
	// model.
	Intended time.Time
	// Began is when the worker started it: its service time runs from
	// there.
	Began time.Time
}

// WorkerSchedule is one worker's schedule.
type WorkerSchedule interface {
	// Start returns when the worker starts its next transaction: the
	// instant its latency is measured from and the instant it began. ok
	// is false when the run stopped (or ctx ended) while it waited. It
	// is called once per transaction, on the hot path: it must not
	// allocate.
	Start(ctx context.Context) (slot Slot, ok bool)
}

// Closed is the closed model: every worker starts its next transaction as
// soon as the previous one ends (after a workload.Pacer's pause), and
// latency runs from that start.
type Closed struct{}

var _ Scheduler = Closed{}

// Worker returns a schedule that never waits.
func (Closed) Worker(env ScheduleEnv) WorkerSchedule { return closedSchedule{now: env.Now} }

type closedSchedule struct{ now func() time.Time }

func (s closedSchedule) Start(context.Context) (Slot, bool) {
	now := s.now()
	return Slot{Intended: now, Began: now}, true
}
