package timing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/workload"
)

// Analytic is the analytic timing model's part of a run's configuration
// (ClickBench's rules, adapted): with Tries set, each of the workload's
// queries (Spec.Answers) runs Tries times in a row on one
// connection, nothing else running, and every try is kept in the run's
// result.Tries. The first try of each query is cold when Cold is set
// (the server restarted), else lukewarm; the others are hot, and the
// query's hot time is the best of them. A try that fails or runs past
// QueryTimeout is recorded without a time (null, never zero) and with
// its error, and the run goes on. Duration, the closed loop's and the
// arrival rate's settings do not apply.
type Analytic struct {
	// Tries, when set, selects the timing model: the number of tries of
	// each query (--tries, at least 1).
	Tries *int
	// QueryTimeout limits one try (--query-timeout; 0: no limit).
	QueryTimeout time.Duration
	// ColdMode is how each query's first try is made cold (--cold): one
	// of the Cold constants, "" for the target's default (package
	// session decides it: ColdRestart on a managed server that can be
	// restarted, else ColdNone) and turns it into Cold.
	ColdMode string
	// Cold, when set, is called before the first try of each query, on no
	// open connection: it makes the try cold (a managed server restarted,
	// with ColdDropCaches the operating system's page cache dropped too)
	// and returns the try's label (result.LabelColdCacheKept,
	// result.LabelCold). Without it the first try is result.LabelLukewarm.
	Cold func(ctx context.Context) (label string, err error)
	// OnTry, when set, is told about each try as it ends, on the run's
	// goroutine (live output).
	OnTry func(TryEvent)
}

// The cold modes (Analytic.ColdMode, --cold).
const (
	// ColdRestart restarts the server before each query's first try; the
	// operating system's page cache is left alone.
	ColdRestart = "restart"
	// ColdDropCaches restarts the server and drops the operating
	// system's page cache (sync, then 1 to /proc/sys/vm/drop_caches): it
	// empties the cache of the whole host, and needs root.
	ColdDropCaches = "drop-caches"
	// ColdNone runs the first tries as they come: lukewarm.
	ColdNone = "none"
)

// ColdModes are the cold modes in the order help gives them.
var ColdModes = []string{ColdRestart, ColdDropCaches, ColdNone}

// TryEvent is what Analytic.OnTry is told after each try.
type TryEvent struct {
	Query string
	// N counts the query's tries from 1; Of is their number.
	N, Of int
	Try   result.Try
}

// Sentinel errors of the analytic timing model.
var (
	// ErrInterrupted marks a run stopped by its context (Ctrl-C); it is
	// runner.ErrInterrupted, in the closed and open models too.
	ErrInterrupted = errors.New("interrupted")
	// ErrEveryTryFailed fails a run of the analytic timing model none of
	// whose tries answered (status failed, every try kept).
	ErrEveryTryFailed = errors.New("every try failed")
)

// Validate reports the problems with the timing model's options in a run
// of threads workers after a warm-up, at rate, each a
// *workload.OptionError naming the option's flag and value
// (runner.Config.Validate reports them with the run's others).
func (c Analytic) Validate(threads int, warmup time.Duration, rate RateConfig) []error {
	var errs []error
	bad := func(flag string, v any, msg string) {
		errs = append(errs, &workload.OptionError{Flag: flag, Value: fmt.Sprint(v), Err: msg})
	}
	if c.QueryTimeout < 0 {
		bad("query-timeout", c.QueryTimeout, "must not be negative")
	}
	if c.Tries == nil {
		if c.QueryTimeout > 0 {
			bad("query-timeout", c.QueryTimeout, "limits the tries of the analytic timing model: give --tries too")
		}
		if c.ColdMode != "" {
			bad("cold", c.ColdMode, "says how the first tries of the analytic timing model are made cold: give --tries too")
		}
		return errs
	}
	if c.ColdMode != "" && !slices.Contains(ColdModes, c.ColdMode) {
		bad("cold", c.ColdMode, "want "+strings.Join(ColdModes, ", "))
	}
	if *c.Tries < 1 {
		bad("tries", *c.Tries, "must be at least 1")
	}
	if threads > 1 {
		bad("threads", threads, "the analytic timing model (--tries) runs its queries on one connection: give 1")
	}
	if warmup > 0 {
		bad("warmup", warmup, "the analytic timing model (--tries) has no warm-up: its tries after the first are the warm ones")
	}
	if rate.Open() {
		bad("tries", *c.Tries, "the analytic timing model runs each query in turn on one connection: it takes no --rate or --rate-stages")
	}
	return errs
}

// CheckAnalytic refuses the analytic timing model (cfg.Tries) for a
// workload whose operations are not queries it can time (not a
// Spec.Answers), naming --tries; the CLI calls it before any work,
// RunTries again.
func CheckAnalytic(w workload.Workload, cfg Analytic) error {
	if cfg.Tries == nil {
		return nil
	}
	if w.Define().Answers == nil {
		return &workload.OptionError{Flag: "tries", Value: strconv.Itoa(*cfg.Tries), Err: "the workload's operations are not queries with answers that the analytic timing model can time"}
	}
	return nil
}

// RunTries runs w on eng in the analytic timing model m (m.Tries set),
// with the clock now, and returns its result: runner.Run hands it the
// run once the run's configuration is validated (Analytic.Validate) and
// w is the implementation for eng's family. The result is filled in even
// when an error is returned (status interrupted or failed), every try
// so far kept.
//
// The model is no Scheduler. A Scheduler says when workers start their
// transactions (workload.Worker.Next) and the loop around it cuts
// intervals, the warm-up and the end, replaces lost connections and
// merges the workers' histograms; the analytic model has none of that to
// schedule. It runs each query of a workload's Spec.Answers (not its workers'
// transactions) in turn on one connection, which it replaces after each
// failed try and, before each query's first try, around m.Cold (a
// server's restart); it keeps every try with its label, rows and hash
// (result.Tries) rather than intervals; and it ends when the tries are
// done, not at a time.
func RunTries(ctx context.Context, eng engine.Engine, w workload.Workload, m Analytic, now func() time.Time) (*result.Run, error) {
	cfg := triesConfig{Analytic: m, Now: now}
	if err := CheckAnalytic(w, cfg.Analytic); err != nil {
		return nil, err
	}
	spec := w.Define()
	a := spec.Answers
	queries, err := a.Ops()
	if err != nil {
		return nil, err
	}
	ops := spec.Ops
	index := make(map[string]int, len(ops))
	names := make([]string, len(ops))
	for i, op := range ops {
		index[op.Name], names[i] = i, op.Name
	}
	for _, q := range queries {
		if _, ok := index[q]; !ok {
			return nil, fmt.Errorf("the workload's query %q is none of its ops", q)
		}
	}

	t := &tryRun{eng: eng, a: a, cfg: cfg}
	defer t.close()
	if cfg.Cold == nil {
		if err := t.connect(ctx); err != nil {
			return nil, err
		}
	}
	start := cfg.Now()
	cpu0 := cpuTime()
	total := histogram.NewInterval(len(ops))
	res := &result.Run{Threads: 1, StartedAt: start.UTC(), Status: result.StatusComplete,
		Tries: &result.Tries{Count: *cfg.Tries, QueryTimeoutS: cfg.QueryTimeout.Seconds()}}
	finish := func(runErr error) (*result.Run, error) {
		elapsed := cfg.Now().Sub(start)
		res.Fill(total, names, elapsed, cpuTime()-cpu0)
		res.Intervals = []result.Interval{result.IntervalOf(total, elapsed, elapsed, false)}
		if n := res.Errors; runErr == nil && n > 0 && res.Transactions == 0 {
			runErr = fmt.Errorf("%w: all %d tries of the %d queries failed; the first: %s", ErrEveryTryFailed, n, len(res.Tries.Queries), firstTryError(res.Tries))
		}
		switch {
		case runErr == nil:
		case errors.Is(runErr, ErrInterrupted):
			res.Status = result.StatusInterrupted
		default:
			res.Status, res.Error = result.StatusFailed, runErr.Error()
		}
		return res, runErr
	}

	for _, q := range queries {
		op := index[q]
		res.Tries.Queries = append(res.Tries.Queries, result.QueryTries{Name: q})
		qt := &res.Tries.Queries[len(res.Tries.Queries)-1]
		label := result.LabelLukewarm
		if cfg.Cold != nil {
			t.close()
			if label, err = cfg.Cold(ctx); err != nil {
				if ctx.Err() != nil {
					return finish(fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err()))
				}
				return finish(fmt.Errorf("before query %s's first try: %w", q, err))
			}
			if err := t.connect(ctx); err != nil {
				return finish(fmt.Errorf("before query %s's first try: %w", q, err))
			}
		}
		for n := 1; n <= *cfg.Tries; n++ {
			if n > 1 {
				label = result.LabelHot
			}
			try, err := t.try(ctx, q, label)
			if err != nil {
				return finish(err)
			}
			if try.S != nil {
				_ = total.Ops[op].Hist.RecordValue(max(1, int64(*try.S*1e6)))
				total.Queries.Reads++
			} else {
				total.Ops[op].Counts.Errors++
			}
			qt.Tries = append(qt.Tries, try)
			if cfg.OnTry != nil {
				cfg.OnTry(TryEvent{Query: q, N: n, Of: *cfg.Tries, Try: try})
			}
		}
	}
	res.Tries.Storage = t.storage(ctx, spec)
	return finish(nil)
}

// storage is the sizes on disk of the workload's tables, when the
// engine's catalogue tells them (engine.TableSizer); nil when it cannot,
// which is no failure of the run.
func (t *tryRun) storage(ctx context.Context, spec workload.Spec) []result.TableStorage {
	if spec.Tables == nil {
		return nil
	}
	if t.c == nil && t.connect(ctx) != nil {
		return nil
	}
	sizer, ok := t.c.Catalog().(engine.TableSizer)
	if !ok {
		return nil
	}
	var names []string
	for _, tb := range spec.Tables(t.eng.Dialect()) {
		names = append(names, tb.Schema.Name)
	}
	sizes, err := sizer.TableSizes(ctx, names)
	if err != nil {
		return nil
	}
	out := make([]result.TableStorage, len(sizes))
	for i, s := range sizes {
		out[i] = result.TableStorage{Table: s.Table, DataBytes: s.Data, IndexBytes: s.Indexes, TotalBytes: s.Total}
	}
	return out
}

// firstTryError is the error of the first try that failed.
func firstTryError(t *result.Tries) string {
	for _, q := range t.Queries {
		for _, try := range q.Tries {
			if try.Error != "" {
				return try.Error
			}
		}
	}
	return ""
}

// triesConfig is a run of the analytic timing model: the model and the
// clock.
type triesConfig struct {
	Analytic
	Now func() time.Time
}

// tryRun holds the timing model's one connection.
type tryRun struct {
	eng engine.Engine
	a   *workload.Answers
	cfg triesConfig
	c   engine.Conn
}

func (t *tryRun) connect(ctx context.Context) error {
	c, err := t.eng.Connect(ctx)
	if err != nil {
		return err
	}
	t.c = c
	return nil
}

func (t *tryRun) close() {
	if t.c != nil {
		t.c.Close()
		t.c = nil
	}
}

// try runs query q once and returns the try. A query that fails or runs
// out of time is a try without a time; its connection, in an unknown
// state, is replaced. The error is the run's: Ctrl-C, or no new
// connection.
func (t *tryRun) try(ctx context.Context, q, label string) (result.Try, error) {
	try := result.Try{Label: label}
	qctx, cancel := ctx, context.CancelFunc(func() {})
	if t.cfg.QueryTimeout > 0 {
		qctx, cancel = context.WithTimeout(ctx, t.cfg.QueryTimeout)
	}
	start := t.cfg.Now()
	rows, err := t.a.Answer(qctx, t.c, q)
	elapsed := t.cfg.Now().Sub(start)
	timedOut := err != nil && ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded)
	cancel()
	if ctx.Err() != nil {
		return try, fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err())
	}
	switch {
	case timedOut:
		try.Error = fmt.Sprintf("query %s timed out after %s (--query-timeout)", q, t.cfg.QueryTimeout)
	case err != nil:
		try.Error = err.Error()
	default:
		s := elapsed.Seconds()
		try.S, try.Rows, try.Hash = &s, int64(len(rows)), workload.HashRows(rows)
		return try, nil
	}
	t.close()
	if err := t.connect(ctx); err != nil {
		if ctx.Err() != nil {
			return try, fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err())
		}
		return try, fmt.Errorf("after query %s failed (%s): %w", q, try.Error, err)
	}
	return try, nil
}

// cpuTime is this process's user+system CPU time so far, as the run
// loop's.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
