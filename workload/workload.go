// Package workload is the public API between dbarena's runner and the
// benchmarks it runs.
//
// A workload package registers a Meta in its init function; the binary
// picks workloads up by blank-importing workload/all, and their
// implementations for other engine families by workload/all/mongo. A
// Workload knows its options (a pflag.FlagSet), its tables and their initial data, its
// operations, and how to build a Worker on one connection. The runner owns
// the loop: it calls Worker.Next back to back (closed model), times each
// call and classifies its error.
//
// The registered Workload runs on SQL engines. A workload that also runs
// on another engine family (MongoDB) has an implementation for it in a
// subpackage that registers itself with RegisterFamily; ForFamily picks
// the implementation for a target's engine, or says that there is none,
// or, for an implementation that is a FamilyValidator, that its family
// cannot do what some options ask.
//
// Optional abilities are separate interfaces, checked by type assertion:
// Checker (consistency checks after a run), Validator (option checks),
// Retryer (which error classes restart a transaction), LoadFinisher (setup
// after every table is loaded), Installer (server-side code installed
// before a run), CounterReader (counts kept by the database itself),
// Reporter (the workload's headline figures), RunDefaulter (its defaults
// for the run's isolation level and retry policy, which the runner owns),
// IsolationChecker (a run's isolation level accepted or refused by the
// workload itself), DataOptioner (the options that define the data,
// recorded by prepare and checked by every run) and, on workers, Pacer (keying and think times) and
// Replayer (a failed transaction run again with the same input).
package workload

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/schema"
)

// Meta describes a registered workload.
type Meta struct {
	// Name is how users select the workload ("oltp_read_write").
	Name string
	// Description is one line for `dbarena list`.
	Description string
	// Version changes whenever the workload's data or transactions change
	// in a way that makes results incomparable.
	Version string
	// New returns a fresh Workload holding default options.
	New func() Workload
}

// Workload is one benchmark with its options already set.
type Workload interface {
	// Meta returns the registration record.
	Meta() Meta
	// Flags returns the workload's options. Parsing command-line flags into
	// this set configures the workload.
	Flags() *pflag.FlagSet
	// Tables lists the tables the workload creates, in creation order.
	// d is a dialect of the implementation's family (ForFamily): an
	// engine.SQLDialect for the registered Workload.
	Tables(d engine.Dialect) []Table
	// Ops names the operations (transaction types) a Worker reports.
	Ops() []Op
	// NewWorker returns a worker bound to c, a connection of the
	// implementation's family (an engine.SQLConn for the registered
	// Workload). It may prepare statements.
	NewWorker(ctx context.Context, c engine.Conn, env WorkerEnv) (Worker, error)
}

// Op is one operation (transaction type) of a workload.
type Op struct {
	Name string
	// Steps are the parts of the op whose latencies and failures are
	// reported on their own (a pgbench script's commands, as pgbench -r
	// reports them), in order; a worker records them through
	// WorkerEnv.Steps. Most workloads have none.
	Steps []Step
}

// Step names one step of an op for the result file and the summary.
type Step struct {
	// Name identifies the step within its op ("command 3 (line 7)").
	Name string
	// Text is what the step runs, as written (a command's first line).
	Text string
}

// WorkerEnv is what the runner gives each worker.
type WorkerEnv struct {
	// ID is the worker's number, 0-based.
	ID int
	// Seed seeds the worker's own random source. It is derived from the
	// run's seed and the worker ID, so runs are reproducible.
	Seed uint64
	// Queries is where the worker counts the statements it sends. Only the
	// worker's goroutine touches it.
	Queries *Queries
	// Steps is where the worker records its ops' steps (Op.Steps):
	// Steps.Done(op, step, latency) for a step that completed,
	// Steps.Failed(op, step) for the step that failed its transaction.
	// It is nil when no op has steps (a nil Steps records nothing). Only
	// the worker's goroutine touches it.
	Steps *Steps
	// Sleeper is how the worker waits for time (Sleep): the runner's, which
	// knows whether the worker shares an OS thread with others (that
	// time.Sleep would stop too) and ends the wait when the run stops. Nil
	// waits on a timer.
	Sleeper func(ctx context.Context, d time.Duration) bool
}

// Sleep waits d, or less when ctx ends or the run stops, and reports
// whether it waited the whole of d. It is the one way a worker waits for
// time (a think time, \sleep): never time.Sleep, which would stop the
// other workers of its OS thread.
func (e WorkerEnv) Sleep(ctx context.Context, d time.Duration) bool {
	if e.Sleeper != nil {
		return e.Sleeper(ctx, d)
	}
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Steps records the steps of a worker's transactions (histogram.Steps).
type Steps = histogram.Steps

// Queries counts statements the way sysbench does: reads (SELECT),
// writes (INSERT, UPDATE, DELETE) and other (BEGIN, COMMIT, …).
type Queries = histogram.Queries

// Worker runs transactions on its own connection. It is used by a single
// goroutine.
type Worker interface {
	// Next runs one transaction and returns the index (into Ops) of the
	// operation it ran or attempted: the index must be valid on error too,
	// so the error is counted against the right op. On error the worker
	// has already rolled back any
	// open transaction, so the connection is ready for the next call
	// (unless the connection itself is lost).
	Next(ctx context.Context) (op int, err error)
}

// ErrRollback is returned (possibly wrapped) by Worker.Next for a
// transaction the workload rolled back on purpose, such as TPC-C's 1% of
// New-Orders with an unused item number. The worker has already rolled
// back; the runner counts the transaction as completed, with its latency,
// and as a rollback, never as an error.
var ErrRollback = errors.New("rolled back by the workload")

// Pacer is implemented by workers that wait between transactions, like a
// TPC-C terminal's keying and think times. The runner calls Pause before
// every Next and waits that long outside the measured latency; the wait
// ends early when the run stops.
type Pacer interface {
	Pause() time.Duration
}

// Closer is implemented by workers that hold resources beyond the Conn.
type Closer interface {
	Close() error
}

// Checker is implemented by workloads that can verify the consistency of
// their data after a run. Check returns one Problem per violated
// invariant; an empty slice means the data is consistent.
type Checker interface {
	Check(ctx context.Context, c engine.Conn) ([]Problem, error)
}

// CheckProgress is told, by a Checker that checks its invariants one
// after the other, each time one is done: done of total, and the name of
// the one done. It is called on the Checker's goroutine.
type CheckProgress func(done, total int, name string)

type checkProgressKey struct{}

// WithCheckProgress returns ctx carrying p, for the Checker that Check is
// called with ctx to report its progress.
func WithCheckProgress(ctx context.Context, p CheckProgress) context.Context {
	return context.WithValue(ctx, checkProgressKey{}, p)
}

// ReportCheck tells the CheckProgress ctx carries, if any, that check
// done of total (named name) is done. Checkers call it after each of
// their invariants.
func ReportCheck(ctx context.Context, done, total int, name string) {
	if p, ok := ctx.Value(checkProgressKey{}).(CheckProgress); ok && p != nil {
		p(done, total, name)
	}
}

// Problem is one violated invariant found by Check.
type Problem struct {
	Check  string // short name of the invariant
	Detail string
}

// Validator is implemented by workloads whose options need checks beyond
// parsing. Validate reports every problem at once; each names the flag
// and its value.
type Validator interface {
	Validate() []error
}

// Retryer is implemented by workloads that restart transactions on more
// error classes than serialization failures and deadlocks (which are always
// retried).
type Retryer interface {
	Retryable(c engine.ErrorClass) bool
}

// Replayer is implemented by workers that can run a failed transaction
// again with the same input. For a retryable failure (see Retryer) the
// runner then waits a back-off and calls Replay instead of Next, up to the
// run's RetryPolicy (its options, else the workload's RunDefaults); the
// transaction's latency runs from its first
// attempt to its commit, and each failed attempt counts as a retry. After
// MaxRetries failed replays the transaction counts as an error.
type Replayer interface {
	Replay(ctx context.Context) (op int, err error)
}

// RetryPolicy is how a run replays the transactions of Replayer workers:
// exponential back-off from Base, doubled per attempt up to Max, with full
// jitter (a uniform wait between 0 and the current bound), at most
// MaxRetries replays per transaction (0: none).
type RetryPolicy struct {
	Base, Max  time.Duration
	MaxRetries int
}

// DefaultRetryPolicy is the retry policy of workloads that give none
// (RunDefaulter): up to 10 replays, back-off bounds from 2 ms to 500 ms.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{Base: 2 * time.Millisecond, Max: 500 * time.Millisecond, MaxRetries: 10}
}

// RunDefaults are a workload's defaults for run options the runner owns
// (--isolation, --max-retries, --retry-backoff, --retry-backoff-max): a
// run option that is not set takes the workload's value.
type RunDefaults struct {
	// Isolation is the transaction isolation level ("" keeps the
	// engine's own).
	Isolation string
	// Retry is how failed transactions of Replayer workers are replayed.
	Retry RetryPolicy
}

// RunDefaulter is implemented by workloads whose defaults for the
// runner's run options differ from "the engine's isolation" and
// DefaultRetryPolicy.
type RunDefaulter interface {
	RunDefaults() RunDefaults
}

// IsolationChecker is implemented by workloads that accept or refuse an
// isolation level themselves: on engines whose dialect is not an
// engine.Isolator (MongoDB's transactions have one level), or when an
// option of theirs leaves no transaction to isolate. The runner calls it
// before the run with the level the run sets (never ""); the error says
// why the level does not apply.
type IsolationChecker interface {
	CheckIsolation(d engine.Dialect, level string) error
}

// Backoff is the bound of the wait before replay number attempt (1-based):
// Base·2^(attempt−1), at most Max.
func (p RetryPolicy) Backoff(attempt int) time.Duration {
	d := p.Base
	for i := 1; i < attempt && d < p.Max; i++ {
		d *= 2
	}
	return min(d, p.Max)
}

// LoadFinisher is implemented by workloads with setup that needs every
// table loaded first (declared foreign keys need nothing: the Catalog adds
// them). Prepare calls FinishLoad after every table's indexes and
// AfterLoad statements, before the declared foreign keys and before it
// marks the tables ready.
type LoadFinisher interface {
	FinishLoad(ctx context.Context, c engine.Conn) error
}

// Installer is implemented by workloads that keep code on the server, such
// as stored procedures. The runner calls Install once before the workers
// start (it must be idempotent); cleanup calls Uninstall.
type Installer interface {
	Install(ctx context.Context, c engine.Conn) error
	Uninstall(ctx context.Context, c engine.Conn) error
}

// CounterReader is implemented by workloads whose progress is counted by
// the database itself, like TPC-C's sum(d_next_o_id) behind HammerDB's
// NOPM. The runner reads the counters on a connection of its own when the
// measured phase starts, on every tick and when it ends, and hands their
// deltas to the Reporter.
type CounterReader interface {
	// Counters names the counters, in the order ReadCounters fills dst.
	Counters() []string
	ReadCounters(ctx context.Context, c engine.Conn, dst []int64) error
}

// Reporter is implemented by workloads with headline figures of their
// own (NOPM, tpmC, efficiency). The runner calls Metrics for every
// interval, for the live lines and the result file, and once for the
// whole measured phase.
type Reporter interface {
	Metrics(s Span) []result.Metric
}

// Span is a stretch of a run: one interval or the whole measured phase.
type Span struct {
	Length time.Duration
	// Final is set for the whole measured phase.
	Final bool
	Ops   []OpSpan
	// Counters holds the deltas of the CounterReader's counters over the
	// span, nil when they could not be read.
	Counters []int64
}

// OpSpan is one op's share of a span. Hist holds the latencies of its
// completed transactions (rollbacks included), in microseconds; it is
// only valid during the call.
type OpSpan struct {
	Name                              string
	Count, Rollbacks, Errors, Retries int64
	Hist                              *hdr.Histogram
}

// BatchUnit is implemented by workloads whose batches with the same index
// in every table form one unit of data, like TPC-C's warehouses: prepare
// then reports progress in units done ("3/10 warehouses").
type BatchUnit interface {
	BatchUnit() string
}

// Table is one table of a workload: its declaration and its initial data.
type Table struct {
	// Schema declares the table: columns, keys, indexes, foreign keys,
	// checks. Every engine renders it itself.
	Schema *schema.Table
	// Name and Columns are the schema's name and column names (the
	// order of Rows' values); they may be left empty: Resolve fills them.
	Name    string
	Columns []string
	// Batches is the number of batches of initial data.
	Batches int
	// Rows returns the rows of one batch. It must be a pure function of
	// (the workload's seed and options, this table, batch): calling it
	// twice gives the same rows, so loading is parallel and reproducible.
	// A JSON column's value is a json.RawMessage.
	Rows func(batch int) engine.RowSource
}

// Resolve fills Name and Columns from Schema when they are empty, and
// returns t.
func (t Table) Resolve() Table {
	if t.Schema != nil {
		if t.Name == "" {
			t.Name = t.Schema.Name
		}
		if t.Columns == nil {
			t.Columns = t.Schema.ColumnNames()
		}
	}
	return t
}

// OptionError is a bad value for one option.
type OptionError struct {
	Flag  string
	Value string
	Err   string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("--%s %s: %s", e.Flag, e.Value, e.Err)
}

var (
	mu       sync.RWMutex
	registry = map[string]Meta{}
)

// Register adds a workload. It panics when the name is taken or the Meta is
// incomplete (programming errors).
func Register(m Meta) {
	if m.Name == "" || m.New == nil {
		panic("workload: Register needs Name and New")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[m.Name]; dup {
		panic("workload: registered twice: " + m.Name)
	}
	registry[m.Name] = m
}

// Lookup finds a registered workload by name.
func Lookup(name string) (Meta, bool) {
	mu.RLock()
	defer mu.RUnlock()
	m, ok := registry[name]
	return m, ok
}

// All lists the registered workloads sorted by name.
func All() []Meta {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Meta, 0, len(registry))
	for _, m := range registry {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Noter is implemented by workloads whose options call for a remark the
// user sees before any work, such as a scale below the specification's
// minimum. prepare and run print each note on a line of its own.
type Noter interface {
	// Notes returns the remarks for the options set, none when there is
	// nothing to say.
	Notes() []string
}

// DataOptioner is implemented by workloads whose initial data depends on
// some of their options: the number and size of tables, a scale factor,
// the data's seed, what the tables are declared with. Prepare records
// their values with the tables; every run, check and plan cell refuses,
// before any work, a value that differs from the recorded one. Options
// that only shape what a run does (mixes, access distributions) are not
// among them.
type DataOptioner interface {
	// DataOptions names the options (flags) that define the data.
	DataOptions() []string
}

// DataOptionValues returns the options that define w's data
// (DataOptioner) as name -> value, empty when w declares none. A family
// implementation answers for the registered workload it is bound to.
func DataOptionValues(w Workload) map[string]string {
	if b, ok := w.(Bound); ok {
		w = b.Base()
	}
	out := map[string]string{}
	d, ok := w.(DataOptioner)
	if !ok {
		return out
	}
	for _, name := range d.DataOptions() {
		if f := w.Flags().Lookup(name); f != nil {
			out[f.Name] = f.Value.String()
		}
	}
	return out
}

// OptionValues returns every option of w as name -> value, for result files.
func OptionValues(w Workload) map[string]string {
	out := map[string]string{}
	w.Flags().VisitAll(func(f *pflag.Flag) { out[f.Name] = f.Value.String() })
	return out
}
