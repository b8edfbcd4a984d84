// Package drive owns how dbarena's load generator waits: for a reply on a
// connection's socket, and for an instant in time.
//
// A Thread is one OS thread that runs several workers as coroutines, the
// way pgbench's threads each drive several connections: a worker runs
// until it must wait, then the thread resumes another, and when none can
// run the thread blocks in one epoll_wait on all their sockets and its
// next timer. Waiting costs a coroutine switch and, when nothing is
// ready, one system call for several replies, instead of the Go
// runtime's park, netpoller and wake-ups of other OS threads for every
// reply. The thread blocks in the kernel without telling the Go
// scheduler (so the scheduler neither hands its P to another thread nor
// wakes one), which is why a run with threads keeps one more P than it
// has threads for everything else (session.ProcessFor, runner.Process).
//
// Engines opt in by dialling through Adopt: a socket dialled with a
// context that names a Thread (WithThread) is taken out of Go's
// netpoller and waited on by that thread while it runs. Before the thread
// runs, after it stops, and from any goroutine but the thread's own
// coroutines, the connection waits with poll(2) like any blocking call,
// so the same connection serves set-up, the run and clean-up.
//
// A ring thread (NewRingThread, --client-io io_uring) waits on an
// io_uring instead: a worker's write is copied and its send queued, the
// read after it queued as a receive linked to that send, and when no
// worker can run the thread submits every queued operation and waits for
// completions in one system call, under a third of a call per reply
// where epoll takes about three. A goroutine other than the
// thread's workers reading or writing one of its connections (pgconn's
// background reader) first submits what the thread queued, so a reply it
// waits for can come. On the hosts measured it costs more client CPU per
// query than epoll (docs/BENCHMARKS.md), so epoll is the default.
//
// Deadlines and timers are kept on the monotonic clock: a wall clock
// stepped or slewed moves none of them.
//
// Sleep is the one way dbarena's workers wait for time (the runner hands
// it to workloads as workload.WorkerEnv.Sleep): on a thread it suspends
// the coroutine until its instant (epoll_pwait2 keeps nanosecond
// timeouts), elsewhere it is a timer.
//
// Workers on a thread must not block on anything else for long (a
// channel, a lock held across a query, time.Sleep): the thread's other
// workers wait meanwhile. dbarena's workloads do not; a lock held only
// while no query runs is harmless. A watchdog turns a worker that holds
// its thread for StallLimit without waiting on it into a *StallError, and
// a worker's panic into a *PanicError: Run returns either at once. (A
// worker that waits while it holds runtime.LockOSThread makes the
// runtime throw: coroutines must keep their thread's locking.)
//
// The thread's wait in the kernel relies on the runtime's asynchronous
// preemption (a signal ends it) for a garbage collection's stop of the
// world to reach it. Under GODEBUG=asyncpreemptoff=1 it waits as a system
// call the scheduler sees instead, and Unsupported says why a caller
// should rather not use threads.
package drive

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// StallLimit is how long a worker may hold its thread without waiting on
// it (running, or blocked on something else than the thread) before Run
// fails with a *StallError. Legitimate work between two waits takes
// microseconds; a stall means the thread's other workers are stuck too.
const StallLimit = 10 * time.Second

// ErrClosed is Run's error when the thread is closed while it runs.
var ErrClosed = errors.New("drive: the thread was closed while it ran")

// PanicError is Run's error when one of the thread's workers panicked.
type PanicError struct {
	Value any    // what the worker panicked with
	Stack string // the worker's stack where it panicked
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("drive: a worker panicked: %v\n%s", e.Value, e.Stack)
}

// StallError is Run's error when one of the thread's workers held the
// thread for StallLimit without waiting on it: it blocked on something
// else (a lock held across a query, time.Sleep, a channel) or never
// stopped running, and the thread's other workers could not run meanwhile.
type StallError struct {
	For   time.Duration // how long the worker held the thread, at least
	Stack string        // the worker's goroutine, as runtime.Stack shows it
}

func (e *StallError) Error() string {
	return fmt.Sprintf("drive: a worker held its thread for %v without waiting on it (it must not block on anything but its connection and Sleep: a lock held across a query, time.Sleep, a channel); its goroutine:\n%s", e.For.Round(time.Millisecond), e.Stack)
}

type threadKey struct{}

// WithThread returns ctx naming t: connections dialled with it (Adopt)
// are waited on by t, and Sleep under it suspends t's current worker.
func WithThread(ctx context.Context, t *Thread) context.Context {
	return context.WithValue(ctx, threadKey{}, t)
}

// ThreadOf returns the thread ctx names, or nil.
func ThreadOf(ctx context.Context) *Thread {
	t, _ := ctx.Value(threadKey{}).(*Thread)
	return t
}

// Sleep waits d, or less when ctx ends or the thread ctx names is
// interrupted (Thread.Interrupt). On one of that thread's workers it
// suspends the worker; anywhere else it waits on a timer. It reports
// whether it waited the whole of d.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	if t := ThreadOf(ctx); t != nil {
		if ok, handled := t.sleep(ctx, d); handled {
			return ok
		}
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}
