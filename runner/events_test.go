package runner_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/workload"
)

// counted is an in-memory workload for --events: every every-th call of
// a worker's Next ends as fail says (an error of the workload, one the
// workload retries, a lost connection, a rollback), the others commit;
// sleep paces the transactions. It counts the calls of Next and Replay.
type counted struct {
	every int
	fail  string // "error", "retried", "replayed", "lost", "rollback"
	sleep time.Duration
	calls atomic.Int64
}

func (p *counted) Meta() workload.Meta {
	return workload.Meta{Name: "counted", Version: "1", New: func() workload.Workload { return p }}
}
func (p *counted) Flags() *pflag.FlagSet                  { return pflag.NewFlagSet("counted", pflag.ContinueOnError) }
func (p *counted) Ops() []workload.Op                     { return []workload.Op{{Name: "t"}} }
func (p *counted) Tables(engine.Dialect) []workload.Table { return nil }
func (p *counted) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	w := &countedWorker{p: p}
	if p.fail == "replayed" {
		return replayingWorker{w}, nil
	}
	return w, nil
}

// retryingCounted retries the workload's own errors.
type retryingCounted struct{ *counted }

func (retryingCounted) Retryable(c engine.ErrorClass) bool { return c == engine.ClassOther }

var errCounted = errors.New("counted: failed on purpose")

type countedWorker struct {
	p *counted
	n int
}

func (w *countedWorker) Next(context.Context) (int, error) {
	w.n++
	w.p.calls.Add(1)
	if w.p.sleep > 0 {
		time.Sleep(w.p.sleep)
	}
	if w.p.every == 0 || w.n%w.p.every != 0 {
		return 0, nil
	}
	switch w.p.fail {
	case "lost":
		return 0, driver.ErrBadConn
	case "rollback":
		return 0, workload.ErrRollback
	}
	return 0, errCounted
}

type replayingWorker struct{ *countedWorker }

func (w replayingWorker) Replay(context.Context) (int, error) {
	w.p.calls.Add(1)
	return 0, nil
}

// runEvents runs w with cfg on an engine without a server.
func runEvents(t *testing.T, w workload.Workload, cfg runner.Config) *result.Run {
	t.Helper()
	if cfg.ReportInterval == 0 {
		cfg.ReportInterval = 20 * time.Millisecond
	}
	run, err := runWithPolicy(context.Background(), memEngine{open(t)}, w, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != result.StatusComplete {
		t.Fatalf("status %s (%s)", run.Status, run.Error)
	}
	return run
}

func events(n int64) *int64 { return &n }

// ended counts the transactions that ended in every interval, warm-up
// included: committed or rolled back, and failed.
func ended(run *result.Run) (all, warmup int64) {
	for _, iv := range run.Intervals {
		n := iv.Transactions + iv.Errors
		all += n
		if iv.Warmup {
			warmup += n
		}
	}
	return all, warmup
}

// --events ends a run after exactly that many transactions, however many
// workers take from the budget at once: none overshoots by the
// transaction it would start, and none is lost.
func TestEventsExact(t *testing.T) {
	for _, threads := range []int{1, 7, 64} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			p := &spin{work: 20}
			const n = 20011
			run := runEvents(t, p, runner.Config{Threads: threads, Events: events(n)})
			if run.Transactions != n || p.finished.Load() != n {
				t.Errorf("%d transactions counted, %d run; want %d", run.Transactions, p.finished.Load(), n)
			}
			if all, _ := ended(run); all != n {
				t.Errorf("the intervals hold %d transactions, want %d", all, n)
			}
			if run.Events != n || run.Unfinished != 0 {
				t.Errorf("events %d, unfinished %d", run.Events, run.Unfinished)
			}
		})
	}
}

// Every transaction counts once, whatever its end: committed, rolled
// back, failed; a retried or replayed one, or one that lost its
// connection and ran again, once.
func TestEventsCountsEveryEnd(t *testing.T) {
	const n = 3001
	for _, tc := range []struct {
		fail string
		w    func(*counted) workload.Workload
		cfg  runner.Config
	}{
		{"error", func(p *counted) workload.Workload { return p }, runner.Config{TolerateErrors: true}},
		{"retried", func(p *counted) workload.Workload { return retryingCounted{p} }, runner.Config{}},
		{"replayed", func(p *counted) workload.Workload { return retryingCounted{p} }, runner.Config{}},
		{"lost", func(p *counted) workload.Workload { return p }, runner.Config{}},
		{"rollback", func(p *counted) workload.Workload { return p }, runner.Config{}},
	} {
		t.Run(tc.fail, func(t *testing.T) {
			p := &counted{every: 3, fail: tc.fail}
			cfg := tc.cfg
			cfg.Threads, cfg.Events = 8, events(n)
			run := runEvents(t, tc.w(p), cfg)
			if all, _ := ended(run); all != n || run.Transactions+run.Errors != n {
				t.Errorf("%d transactions and %d errors (intervals: %d), want %d in all", run.Transactions, run.Errors, all, n)
			}
			var again int64
			switch tc.fail {
			case "error":
				again = 0
				if run.Errors == 0 {
					t.Error("no error counted")
				}
			case "retried", "replayed":
				again = run.Retries
			case "lost":
				again = run.Reconnects
			case "rollback":
				if run.Rollbacks == 0 {
					t.Error("no rollback counted")
				}
			}
			if again == 0 && tc.fail != "error" && tc.fail != "rollback" {
				t.Errorf("no transaction ran again (retries %d, reconnects %d)", run.Retries, run.Reconnects)
			}
			if got := p.calls.Load(); got != n+again {
				t.Errorf("the workers ran %d attempts, want %d transactions + %d again", got, n, again)
			}
		})
	}
}

// The warm-up's transactions are among the run's: the measured phase has
// the rest.
func TestEventsWithWarmup(t *testing.T) {
	p := &counted{sleep: 200 * time.Microsecond}
	const n = 4000
	run := runEvents(t, p, runner.Config{Threads: 4, Events: events(n), Warmup: 50 * time.Millisecond})
	all, warm := ended(run)
	if all != n || p.calls.Load() != n {
		t.Errorf("%d transactions in the intervals, %d run, want %d", all, p.calls.Load(), n)
	}
	if warm == 0 || run.Transactions != n-warm {
		t.Errorf("%d in the warm-up, %d measured: want them to add up to %d", warm, run.Transactions, n)
	}
}

// With --time the first limit reached ends the run: the time when the
// budget outlasts it (a complete run of its duration), the budget when it
// runs out first (the measured time is then what its transactions took).
func TestEventsAndTime(t *testing.T) {
	t.Run("time first", func(t *testing.T) {
		p := &counted{sleep: 100 * time.Microsecond}
		cfg := runner.Config{Threads: 2, Events: events(1 << 40), Duration: 200 * time.Millisecond, ReportInterval: 50 * time.Millisecond}
		run := runEvents(t, p, cfg)
		checkIntervals(t, run, cfg, false)
		if run.Transactions >= 1<<40 || run.Events != 1<<40 {
			t.Errorf("%d transactions, events %d", run.Transactions, run.Events)
		}
	})
	t.Run("events first", func(t *testing.T) {
		p := &spin{}
		run := runEvents(t, p, runner.Config{Threads: 4, Events: events(5000), Duration: time.Hour})
		if run.Transactions != 5000 || run.DurationS >= 3600 {
			t.Errorf("%d transactions in %gs", run.Transactions, run.DurationS)
		}
	})
}

// Under an arrival rate each transaction is one arrival: the run ends
// after N of them, and the arrivals past the budget are not counted as
// missed.
func TestEventsWithRate(t *testing.T) {
	rate := 4000.0
	p := &counted{}
	const n = 500
	run := runEvents(t, p, runner.Config{Threads: 4, Events: events(n), Rate: timing.RateConfig{TPS: &rate, Arrival: timing.ArrivalUniform}})
	if run.Transactions != n || p.calls.Load() != n {
		t.Errorf("%d transactions counted, %d run, want %d", run.Transactions, p.calls.Load(), n)
	}
	if run.Open == nil || run.Unstarted != 0 || run.Events != n {
		t.Errorf("open %+v, unstarted %d, events %d", run.Open, run.Unstarted, run.Events)
	}
}

// --events must be at least 1, is refused with the analytic timing
// model, and lifts --time's need to be positive (0: no limit in time).
func TestEventsValidate(t *testing.T) {
	def := runner.DefaultConfig()
	for _, tc := range []struct {
		events   int64
		duration time.Duration
		tries    bool
		want     string
	}{
		{0, time.Second, false, "--events 0: must be at least 1 transaction"},
		{-5, 0, false, "--events -5: must be at least 1 transaction"},
		{10, -time.Second, false, "--time -1s: must not be negative"},
		{10, time.Second, true, "--events 10: the analytic timing model"},
		{10, 0, false, ""},
	} {
		cfg := def
		cfg.Events, cfg.Duration = events(tc.events), tc.duration
		if tc.tries {
			one := 1
			cfg.Tries = &one
		}
		errs := cfg.Validate()
		if tc.want == "" {
			if len(errs) > 0 {
				t.Errorf("events %d, time %v: %v", tc.events, tc.duration, errs)
			}
			continue
		}
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.want) {
			t.Errorf("events %d, time %v: %v, want %q", tc.events, tc.duration, errs, tc.want)
		}
	}
	def.Duration = 0
	if errs := def.Validate(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "--time 0s: must be positive") {
		t.Errorf("no events, time 0: %v", errs)
	}
}

// Define is the test workload's Spec, made of its methods.
func (r *counted) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r *counted) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}

// Define is the test workload's Spec, made of its methods.
func (r retryingCounted) Define() workload.Spec {
	s := r.counted.Define()
	s.Retryable = r.Retryable
	return s
}
