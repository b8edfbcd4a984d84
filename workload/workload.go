// Package workload is the contract between dbarena's runner and the
// benchmarks it runs.
//
// A workload package registers a Meta in its init function; the binary
// picks workloads up by blank-importing workload/all, and their
// implementations for other engine families by workload/all/mongo.
//
// The contract has two phases, after CockroachDB's workload package:
//
//   - Define says what the workload is, with its options as they are
//     set: a plain Spec of its options, tables, operations and the
//     figures it reports, plus optional functions (check, install,
//     answers, dump, …) that are nil when the workload has none. Nothing
//     about a workload is found by type assertion.
//   - Open starts one run of it on an engine whose capabilities the
//     RunEnv states: the Run it returns holds every piece of per-run
//     state and makes one Worker per connection. The runner owns the
//     loop: it calls Worker.Next back to back (closed model) or at the
//     scheduled instants (open model), times each call and classifies
//     its error.
//
// The registered Workload runs on SQL engines. A workload that also runs
// on another engine family (MongoDB) has an implementation for it in a
// subpackage that registers itself with RegisterFamily; ForFamily picks
// the implementation for a target's engine. Workers have three optional
// abilities, each an interface because the runner asks once per worker
// and then calls it on every transaction: Pacer (keying and think
// times), Replayer (a failed transaction run again with the same input)
// and Closer (resources beyond the connection).
package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// Workload is one benchmark. Its options live in its Spec's flag set:
// parsing flags into it configures the workload, and Define called
// afterwards describes the workload so configured.
type Workload interface {
	// Define returns what the workload is with its options as set now.
	// It does no work on any database and may be called often.
	Define() Spec
	// Open starts one run of the workload on the engine env describes:
	// the Run holds every piece of state the run's workers share. The
	// runner calls it after Spec.Install and before any worker starts,
	// and closes the Run when the workers are done.
	Open(ctx context.Context, env RunEnv) (*Run, error)
}

// Spec is what a workload is, as plain data. Every function field is
// optional: nil means the workload has no such ability.
type Spec struct {
	// Meta is the registration record.
	Meta Meta
	// Options are the workload's options, the same set on every call.
	Options *pflag.FlagSet
	// Validate checks option values beyond parsing and reports every
	// problem at once, each naming the flag and its value.
	Validate func() []error
	// Supports refuses what an engine cannot do with the options as set
	// (pipelines where connections send one statement per round trip,
	// stored procedures where there is no server), each error naming
	// the flag and its value. Session and the runner call it before any
	// work on the target.
	Supports func(engine.Capabilities) []error
	// CheckIsolation accepts or refuses a run's isolation level (never
	// ""), for engines without session isolation levels (MongoDB) or
	// options that leave no transaction to isolate. Nil: the engine's
	// capabilities decide.
	CheckIsolation func(d engine.Dialect, level string) error
	// Notes are remarks the user sees before any work (a scale below the
	// specification's minimum).
	Notes []string
	// DataOptions name the options that define the initial data: prepare
	// records their values with the tables, and every run, check and
	// plan cell refuses a value that differs.
	DataOptions []string

	// Tables lists the tables the workload creates, in creation order,
	// for an engine of dialect d.
	Tables func(d engine.Dialect) []Table
	// BatchUnit names what one batch index of every table is ("warehouses"),
	// "" when batches are only batches: prepare reports progress in it.
	BatchUnit string
	// FinishLoad is setup that needs every table loaded first; prepare
	// calls it after indexes and AfterLoad statements, before declared
	// foreign keys and before it marks the tables ready.
	FinishLoad func(ctx context.Context, c engine.Conn) error
	// Install keeps code on the server (stored procedures); the runner
	// calls it once before Open, and it must be idempotent. Uninstall,
	// called by cleanup, removes it.
	Install, Uninstall func(ctx context.Context, c engine.Conn) error
	// Check verifies the data's consistency after a run: one Problem per
	// violated invariant, none when the data is consistent. It reports
	// each invariant it checked to ReportCheck.
	Check func(ctx context.Context, c engine.Conn) ([]Problem, error)
	// CheckDoc says, for the options set, which invariants Check
	// verifies and why they hold after a run, and what breaks them; the
	// check command prints it with -v and when a check fails.
	CheckDoc string

	// Ops name the operations (transaction types) a Worker reports.
	Ops []Op
	// Metrics name the figures of its own (NOPM, TR/s) that the Run's
	// Metrics report, in order, for thresholds and plans.
	Metrics []string
	// Counters are kept by the database itself (TPC-C's
	// sum(d_next_o_id)): the runner reads them on a connection of its own
	// when the measured phase starts, every tick and at the end, and
	// hands their deltas to Run.Metrics. Nil: none.
	Counters *Counters
	// RunDefaults are the workload's defaults for the run options the
	// runner owns (isolation, retries); nil: the engine's isolation level
	// and DefaultRetryPolicy, with the retry options not recorded.
	RunDefaults *RunDefaults
	// Retryable restarts transactions on more error classes than
	// serialization failures and deadlocks (always retried).
	Retryable func(engine.ErrorClass) bool

	// Answers are the analytic timing model's queries (--tries).
	Answers *Answers
	// Dump writes the initial data to a file for other loaders.
	Dump *Dump
}

// Counters are counts kept by the database (Spec.Counters).
type Counters struct {
	// Names are the counters, in the order Read fills dst.
	Names []string
	Read  func(ctx context.Context, c engine.Conn, dst []int64) error
}

// Answers are a workload's analytic queries, which the runner can time
// itself (the analytic timing model, --tries): Ops are the ops it runs,
// in order (the options may choose them); Answer runs one on c and
// returns its rows, each value as text written alike by every engine, so
// that answers compare across engines. Answer honours ctx's deadline
// (--query-timeout).
type Answers struct {
	Ops    func() ([]string, error)
	Answer func(ctx context.Context, c engine.Conn, op string) ([][]string, error)
}

// Dump writes the initial data prepare would load to a file, so that an
// engine's own bulk-load tool (psql's \copy, a program of insertMany
// calls) can load exactly the same rows and be timed against dbarena's
// load. Format says what the file holds; Write writes it and returns the
// rows written. It reads only the options that define the data.
type Dump struct {
	Format string
	Write  func(ctx context.Context, w io.Writer) (rows int64, err error)
}

// Shard is one part of a run split across processes (--shard i/N):
// Index of Count, {0, 1} for a run in one process (the zero Shard is
// taken as that too).
//
// The runner numbers a shard's workers after the workers of the shards
// before it (Worker), so that a workload that divides its work by
// WorkerEnv.ID (TPC-C's home warehouses, a script's client_id, the
// workers' random streams, their shares of the arrivals) divides it
// across every shard's workers. prepare deals the tables' batches
// (Table.Batches; whole units when the workload has a Spec.BatchUnit)
// out among the shards.
type Shard struct {
	Index, Count int
}

// Whole returns s, the zero Shard as {0, 1}.
func (s Shard) Whole() Shard {
	if s.Count <= 0 {
		return Shard{0, 1}
	}
	return s
}

// Worker returns the run-wide number of the shard's worker i of threads.
func (s Shard) Worker(i, threads int) int { return s.Whole().Index*threads + i }

// Events returns the shard's part of a budget of n transactions for the
// whole run: n/Count, the first n mod Count shards one more.
func (s Shard) Events(n int64) int64 {
	s = s.Whole()
	part := n / int64(s.Count)
	if int64(s.Index) < n%int64(s.Count) {
		part++
	}
	return part
}

// RunEnv is what a run knows when the workload opens it.
type RunEnv struct {
	// Engine is what the target's engine can do.
	Engine engine.Capabilities
	// Dialect is the target's dialect.
	Dialect engine.Dialect
	// Seed is the run's seed; workers get their own, derived from it.
	Seed uint64
	// Shard is the part of the run this process runs.
	Shard Shard
	// Now is the run's clock.
	Now func() time.Time
}

// Run is one run of a workload, made by Open: it owns every piece of
// state the run's workers share.
type Run struct {
	// NewWorker returns a worker bound to c, a connection of the
	// implementation's family (an engine.SQLConn for the registered
	// Workload). It may prepare statements. The runner calls it from
	// one goroutine at a time.
	NewWorker func(ctx context.Context, c engine.Conn, env WorkerEnv) (Worker, error)
	// Metrics are the workload's own figures (Spec.Metrics) for one
	// interval and, with s.Final, the whole measured phase. Nil: none.
	Metrics func(s Span) []result.Metric
	// Close releases the run's state; nil when there is none.
	Close func() error
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
	// ID is the worker's number, 0-based, across every shard of a
	// sharded run (Shard.Worker).
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
// (Spec.RunDefaults): up to 10 replays, back-off bounds from 2 ms to 500 ms.
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

// Backoff is the bound of the wait before replay number attempt (1-based):
// Base·2^(attempt−1), at most Max.
func (p RetryPolicy) Backoff(attempt int) time.Duration {
	d := p.Base
	for i := 1; i < attempt && d < p.Max; i++ {
		d *= 2
	}
	return min(d, p.Max)
}

// Span is a stretch of a run: one interval or the whole measured phase.
type Span struct {
	Length time.Duration
	// Final is set for the whole measured phase.
	Final bool
	Ops   []OpSpan
	// Counters holds the deltas of the Spec.Counters over the
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

// DataOptionValues returns the options that define w's data
// (Spec.DataOptions) as name -> value, empty when w declares none.
func DataOptionValues(w Workload) map[string]string {
	spec := w.Define()
	out := map[string]string{}
	for _, name := range spec.DataOptions {
		if f := spec.Options.Lookup(name); f != nil {
			out[f.Name] = f.Value.String()
		}
	}
	return out
}

// OptionValues returns every option of w as name -> value, for result files.
func OptionValues(w Workload) map[string]string {
	out := map[string]string{}
	w.Define().Options.VisitAll(func(f *pflag.Flag) { out[f.Name] = f.Value.String() })
	return out
}
