// Package result defines dbarena's result file: the versioned JSON that a
// run writes and that reports, comparisons and merges read.
//
// Everything needed to understand a number is in the file (tool, workload
// options, target settings, client host, seed); nothing in it is secret:
// target URLs are stored redacted. docs/RESULTS.md documents every field.
package result

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/outfile"
)

// SchemaVersion is the version of the layout below. It is raised whenever
// a field changes meaning or is removed, or when files of the new version
// hold what older ones cannot give (version 2: every interval keeps each
// op's histogram and counts, so files merge exactly). Read accepts every
// version from 1 on; Merge needs version 2.
const SchemaVersion = 2

// Status of a result file or a run.
const (
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
	// StatusStalled is a run that stopped making progress: most of its
	// measured intervals had no transaction end (runner.ErrStalled).
	StatusStalled = "stalled"
)

// File is one result file: one workload against one target, with one run
// per thread count.
type File struct {
	SchemaVersion int       `json:"schema_version"`
	Tool          Tool      `json:"tool"`
	Workload      Workload  `json:"workload"`
	Target        Target    `json:"target"`
	Client        Client    `json:"client"`
	Seed          uint64    `json:"seed"`
	StartedAt     time.Time `json:"started_at"`
	FinishedAt    time.Time `json:"finished_at"`
	Runs          []Run     `json:"runs"`
	Status        string    `json:"status"`
	Error         string    `json:"error,omitempty"`
	// Identity names the process that wrote the file (a run, and the
	// file recover rebuilds from its journal); absent in a merged file,
	// whose Shards carry their own, and in files written before it
	// existed.
	Identity *Identity `json:"identity,omitempty"`
	// Shards lists the files a merged file was made from (Merge), in the
	// order given; absent in a file written by a run.
	Shards []Shard `json:"shards,omitempty"`
	// MissingShards are the shards of a sharded run (--shard) that a
	// merged file lacks, by index: their identities say the run had
	// more shards than were merged.
	MissingShards []int `json:"missing_shards,omitempty"`
	// Precision is the rule the runs were repeated by (run --until-ci)
	// and how it ended; absent when the runs were not repeated so.
	Precision *Precision `json:"precision,omitempty"`
}

// Precision records a repeat-until-precise: the runs (every round kept
// in Runs) were repeated in interleaved rounds until the 95% confidence
// interval of each thread count's headline figure was within ±WidthPct
// of its median, or Max rounds or the budget ran out.
type Precision struct {
	// Metric is the figure the rule looked at (tps, NOPM, TR/s …).
	Metric string `json:"metric"`
	// WidthPct is the half-width asked for, in % of the median.
	WidthPct float64 `json:"width_pct"`
	Min      int     `json:"min"`
	Max      int     `json:"max"`
	// BudgetS is the time budget in seconds, absent without one.
	BudgetS float64 `json:"budget_s,omitempty"`
	// Rounds is how many rounds ran.
	Rounds int `json:"rounds"`
	// WidestPct is the widest half-width at the end, absent while some
	// cell had no interval (fewer than 6 values).
	WidestPct *float64 `json:"widest_pct,omitempty"`
	// Stop is why the rounds stopped: "reached" (every interval within
	// the width), "max" or "budget".
	Stop string `json:"stop"`
}

// Shard describes one of the files a merged file was made from: what the
// merged file's header keeps only once (the first shard's).
type Shard struct {
	Tool       Tool      `json:"tool"`
	Client     Client    `json:"client"`
	Seed       uint64    `json:"seed"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Status     string    `json:"status"`
	// Identity is the shard's File.Identity, absent for a file that had
	// none.
	Identity *Identity `json:"identity,omitempty"`
}

// Barrier is how the shards of a sharded run started a run together,
// on the server's clock, which each measured its own against.
type Barrier struct {
	// At is the start instant the barrier published.
	At time.Time `json:"at"`
	// Starts are the shards' own starts, in shard order: one in a
	// shard's file, every merged shard's in a merged one.
	Starts []ShardStart `json:"starts"`
	// SkewMS is the latest start minus the earliest, in milliseconds.
	SkewMS float64 `json:"skew_ms"`
}

// ShardStart is one shard's start of a run.
type ShardStart struct {
	Shard int `json:"shard"`
	// Started is when its warm-up began, on the server's clock as the
	// shard's clock offset gives it.
	Started time.Time `json:"started"`
	// ClockOffsetMS is the server's clock minus the shard's; ClockErrorMS
	// bounds its error (half the round trip it was read in).
	ClockOffsetMS float64 `json:"clock_offset_ms"`
	ClockErrorMS  float64 `json:"clock_error_ms"`
}

// Skew returns the latest start minus the earliest.
func (b *Barrier) Skew() time.Duration {
	if b == nil || len(b.Starts) == 0 {
		return 0
	}
	lo, hi := b.Starts[0].Started, b.Starts[0].Started
	for _, s := range b.Starts[1:] {
		if s.Started.Before(lo) {
			lo = s.Started
		}
		if s.Started.After(hi) {
			hi = s.Started
		}
	}
	return hi.Sub(lo)
}

// Tool identifies the dbarena build.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
}

// Workload is the workload and every option it ran with.
type Workload struct {
	Name    string            `json:"name"`
	Version string            `json:"version"`
	Options map[string]string `json:"options"`
}

// Target is the database under test. URL is redacted.
type Target struct {
	Label         string `json:"label"`
	Engine        string `json:"engine"`
	URL           string `json:"url"`
	ServerVersion string `json:"server_version"`
	// Settings are the server's settings (SHOW ALL, SHOW GLOBAL
	// VARIABLES, getParameter …) and, for a server on this host, the
	// operating system's knobs read there ("os." keys).
	Settings map[string]string `json:"settings"`
	// Knobs are the settings dbarena was asked to give the server: a
	// managed server's (its --set values, a plan's knobs), as asked, by
	// the names asked ("pgbouncer." for PgBouncer's own). Comparisons
	// show them first.
	Knobs map[string]string `json:"knobs,omitempty"`
	// Monitor says which server metrics were sampled and what could not
	// be, and why (package sysmon's notes).
	Monitor *Monitor `json:"monitor,omitempty"`
}

// Product is the server as a reader names it: Engine, except that a
// MariaDB server, which the mysql engine drives, is "mariadb" (its
// ServerVersion says "MariaDB …"). Engine itself stays the engine's name,
// which is what reading a result file relies on.
func (t *Target) Product() string {
	if t.Engine == "mysql" && strings.HasPrefix(t.ServerVersion, "MariaDB") {
		return "mariadb"
	}
	return t.Engine
}

// Monitor describes the sampling of server metrics for a result file.
type Monitor struct {
	// Sources are the sources sampled every interval ("postgres",
	// "process", "host", "disk").
	Sources []string `json:"sources"`
	// ServerPID is the server's main process on this host, 0 when the
	// server was not known to be local.
	ServerPID int `json:"server_pid,omitempty"`
	// Device is the data directory's block device.
	Device string `json:"device,omitempty"`
	// ProvisionedIOPS is the IOPS the device was said to be provisioned
	// with (--provisioned-iops), disk_iops_pct's 100%.
	ProvisionedIOPS float64  `json:"provisioned_iops,omitempty"`
	Notes           []string `json:"notes,omitempty"`
	// Problems are the notes that say measurements were lost during the
	// runs (samples failed, counters went backwards, impossible values
	// left out, the connection lost): a report shows them as warnings.
	Problems []string `json:"problems,omitempty"`
}

// Client is the host that ran dbarena.
type Client struct {
	Hostname    string  `json:"hostname"`
	CPUModel    string  `json:"cpu_model"`
	Cores       int     `json:"cores"`
	MemoryBytes int64   `json:"memory_bytes"`
	OS          string  `json:"os"`
	GoVersion   string  `json:"go_version"`
	RTTMS       float64 `json:"rtt_ms"`
}

// Run is one setting (thread count) of the workload.
type Run struct {
	Threads   int       `json:"threads"`
	StartedAt time.Time `json:"started_at"`
	// DurationS is the measured phase in seconds; WarmupS the discarded
	// phase before it.
	DurationS float64 `json:"duration_s"`
	WarmupS   float64 `json:"warmup_s"`
	// Events is the run's limit in transactions (--events), warm-up
	// included; absent without one. A run that reached it ended early:
	// DurationS is then the time its measured transactions took.
	Events       int64   `json:"events,omitempty"`
	Transactions int64   `json:"transactions"`
	TPS          float64 `json:"tps"`
	Queries      int64   `json:"queries"`
	QPS          float64 `json:"qps"`
	Reads        int64   `json:"reads"`
	Writes       int64   `json:"writes"`
	Other        int64   `json:"other"`
	Errors       int64   `json:"errors"`
	Retries      int64   `json:"retries"`
	// RetriesPerS is Retries per second of the measured phase; RetryPct is
	// Retries as a percentage of the transactions that committed
	// (Transactions − Rollbacks), as the airline study tabulates them.
	RetriesPerS float64 `json:"retries_per_s"`
	RetryPct    float64 `json:"retry_pct"`
	Reconnects  int64   `json:"reconnects"`
	// Rollbacks counts transactions the workload rolled back on purpose
	// (TPC-C's unused item numbers); they are included in Transactions.
	Rollbacks int64 `json:"rollbacks,omitempty"`
	// Barrier is the start of a run of a sharded run (--shard): the
	// instant its shards waited for and each one's own start; absent
	// in a run of one process.
	Barrier *Barrier `json:"barrier,omitempty"`
	// Counters are counts kept by the database itself, read when the
	// measured phase started and ended.
	Counters []Counter `json:"counters,omitempty"`
	// Metrics are the workload's own headline figures (NOPM, tpmC …).
	Metrics []Metric `json:"metrics,omitempty"`
	// LatencyMS summarises successful transactions of all ops.
	LatencyMS histogram.Latency `json:"latency_ms"`
	// ClientCPUS is this process's user+system CPU seconds during the
	// measured phase; ClientCPUPerQueryUS divides it by Queries.
	ClientCPUS          float64 `json:"client_cpu_s"`
	ClientCPUPerTxnUS   float64 `json:"client_cpu_per_txn_us"`
	ClientCPUPerQueryUS float64 `json:"client_cpu_per_query_us"`
	// ClientThreads is how many OS threads drove the workers'
	// connections (--client-threads), 0 when each worker had a goroutine
	// of its own; GOMAXPROCS and GCPercent are the Go runtime's settings
	// during the run (GCPercent -1: no garbage collection), which the
	// client's CPU figures depend on.
	ClientThreads int `json:"client_threads,omitempty"`
	// ClientIO is how the client threads sent and received: "io_uring"
	// (--client-io io_uring), empty for epoll.
	ClientIO   string `json:"client_io,omitempty"`
	GOMAXPROCS int    `json:"gomaxprocs,omitempty"`
	GCPercent  int    `json:"gc_percent,omitempty"`
	// Server summarises the measured intervals' server metrics (means of
	// rates and percentages weighted by interval length, sums of counts);
	// ServerCPUPerTxnUS and ServerCPUPerQueryUS divide the server
	// process's CPU time (server_cpu_pct × measured time) like the
	// client's. Absent when the server's process was not sampled.
	Server              map[string]float64 `json:"server,omitempty"`
	ServerCPUPerTxnUS   float64            `json:"server_cpu_per_txn_us,omitempty"`
	ServerCPUPerQueryUS float64            `json:"server_cpu_per_query_us,omitempty"`
	Ops                 []Op               `json:"ops"`
	Intervals           []Interval         `json:"intervals"`
	// Unfinished counts the transactions still running when the run
	// ended (they are in no histogram); UnfinishedMS says how long they
	// had been running then. Absent when none was.
	Unfinished   int64    `json:"unfinished,omitempty"`
	UnfinishedMS *Elapsed `json:"unfinished_ms,omitempty"`
	// Open describes the arrival rate of a run of the open model; absent
	// in the closed model, as are the fields below.
	Open *Open `json:"open,omitempty"`
	// OfferedTPS is the arrival rate over the measured phase (what was
	// asked; TPS is what was achieved).
	OfferedTPS float64 `json:"offered_tps,omitempty"`
	// Late counts the transactions that started later than their
	// intended start by more than a tolerance (timing.LateTolerance);
	// Skipped the arrivals not started because they could not start
	// within the latency limit; Dropped those that found the queue full;
	// Unstarted those still waiting for a worker when the run ended.
	Late      int64 `json:"late,omitempty"`
	Skipped   int64 `json:"skipped,omitempty"`
	Dropped   int64 `json:"dropped,omitempty"`
	Unstarted int64 `json:"unstarted,omitempty"`
	// Offered counts the arrivals the measured phase had: Started (those
	// whose transaction ended in it or was running at its end, each once
	// however often it was retried) and the skipped, dropped and
	// unstarted ones.
	Offered int64 `json:"offered,omitempty"`
	Started int64 `json:"started,omitempty"`
	// UnstartedMS summarises how long the unstarted arrivals had waited
	// when the run ended, from their intended start: what their latency
	// would at least have been. They are in no other latency: LatencyMS
	// is that of the transactions that ended.
	// UnstartedHDR is their histogram (µs), encoded as Op.HDR.
	UnstartedMS  *histogram.Latency `json:"unstarted_ms,omitempty"`
	UnstartedHDR string             `json:"unstarted_hdr,omitempty"`
	// ServiceMS summarises the service times (from the actual start to
	// the end) of the successful transactions of all ops; LagMS how late
	// they started (from the intended start to the actual one). Under an
	// arrival rate LatencyMS runs from the intended start: it is the lag
	// and the service time together.
	ServiceMS *histogram.Latency `json:"service_ms,omitempty"`
	LagMS     *histogram.Latency `json:"lag_ms,omitempty"`
	// Warnings say what makes the run's figures doubtful (measured
	// intervals without a transaction, a measured time more than one
	// interval away from the one asked for, transactions left running
	// longer than any that finished), in plain words.
	Warnings []string `json:"warnings,omitempty"`
	// Disturbed says what else used the host during the measured phase
	// enough to make the run's figures doubtful (package sysmon judges
	// it: sysmon.Limits), one entry per cause, each also a warning;
	// absent for a run that was not disturbed, or not judged (no server
	// metrics sampled).
	Disturbed []Disturbance `json:"disturbed,omitempty"`
	// Thresholds are the run's pass/fail criteria (--threshold) with what
	// was observed, in the order given; absent when none was given.
	Thresholds []Threshold `json:"thresholds,omitempty"`
	// Tries are the run's queries and every try of each, for a run in the
	// analytic timing model (--tries); absent otherwise.
	Tries  *Tries `json:"tries,omitempty"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Disturbance is one cause that disturbed a run: a figure of the host
// above its limit in enough of the run's measured intervals.
type Disturbance struct {
	// Cause is what disturbed the run: DisturbedOther, DisturbedSteal or
	// DisturbedClient.
	Cause string `json:"cause"`
	// Metric is the intervals' server metric judged (host_other_cpu_pct,
	// host_steal_pct, client_cpu_pct); Limit its limit, in its unit.
	Metric string  `json:"metric"`
	Limit  float64 `json:"limit"`
	// Intervals counts the measured intervals above the limit, Measured
	// those that had the metric; Mean and Max are the metric's over the
	// intervals above the limit.
	Intervals int     `json:"intervals"`
	Measured  int     `json:"measured"`
	Mean      float64 `json:"mean"`
	Max       float64 `json:"max"`
	// Text says it in plain words; the run's warning is "disturbed: "
	// and Text.
	Text string `json:"text"`
}

// The causes of a Disturbance.
const (
	// DisturbedOther: processes other than dbarena and the server.
	DisturbedOther = "other"
	// DisturbedSteal: the hypervisor's steal time.
	DisturbedSteal = "steal"
	// DisturbedClient: dbarena's own CPU near the cores it drives with.
	DisturbedClient = "client"
)

// DisturbedWarning is the warning of a Disturbance: "disturbed: " and
// its text.
func DisturbedWarning(d Disturbance) string { return "disturbed: " + d.Text }

// Threshold is one pass/fail criterion of a run and its verdict (package
// threshold evaluates them). Observed is the metric's value in the unit
// of the expression's limit (ms for latencies, percent for "%" limits),
// nil when the run lacks the metric (a server metric not sampled) or it
// was not evaluated; Pass is nil when it was not evaluated (a merged
// file's, until merge evaluates it again) and false when the metric is
// absent.
type Threshold struct {
	Expr     string   `json:"expr"`
	Observed *float64 `json:"observed,omitempty"`
	// Unit is Observed's: "ms", "%", "/s", "count", a workload metric's.
	Unit string `json:"unit,omitempty"`
	Pass *bool  `json:"pass,omitempty"`
	// Note says why a threshold has no observed value, or that it stopped
	// the run early (--abort-on-fail).
	Note string `json:"note,omitempty"`
}

// Open is the arrival rate a run of the open model was given.
type Open struct {
	// Arrival is "poisson" or "uniform".
	Arrival string `json:"arrival"`
	// RateTPS is --rate: the constant rate, or the rate the stages start
	// from; RateStages is --rate-stages as given.
	RateTPS    float64 `json:"rate_tps,omitempty"`
	RateStages string  `json:"rate_stages,omitempty"`
	// LatencyLimitMS is --latency-limit; MaxQueue --max-queue (absent:
	// unbounded).
	LatencyLimitMS float64 `json:"latency_limit_ms,omitempty"`
	MaxQueue       *int    `json:"max_queue,omitempty"`
}

// Elapsed summarises how long the transactions still running at the end
// of a run had been running, in ms: the median (nearest rank) and the
// longest.
type Elapsed struct {
	P50 float64 `json:"p50"`
	Max float64 `json:"max"`
}

// Op is one operation (transaction type) of a run.
type Op struct {
	Name      string            `json:"name"`
	Count     int64             `json:"count"`
	Errors    int64             `json:"errors"`
	Retries   int64             `json:"retries"`
	Rollbacks int64             `json:"rollbacks,omitempty"`
	LatencyMS histogram.Latency `json:"latency_ms"`
	// HDR is the op's latency histogram (microseconds) in HdrHistogram's
	// compressed base64 V2 encoding, so runs can be merged exactly.
	HDR string `json:"hdr"`
	// Late, ServiceMS, ServiceHDR, LagMS and LagHDR are the op's share of
	// the run's (Run.Late …), under an arrival rate only; the histograms
	// hold Count values, encoded as HDR is.
	Late       int64              `json:"late,omitempty"`
	ServiceMS  *histogram.Latency `json:"service_ms,omitempty"`
	ServiceHDR string             `json:"service_hdr,omitempty"`
	LagMS      *histogram.Latency `json:"lag_ms,omitempty"`
	LagHDR     string             `json:"lag_hdr,omitempty"`
	// Steps are the op's steps, for workloads whose ops report their
	// parts (a pgbench script's commands, as pgbench -r does).
	Steps []Step `json:"steps,omitempty"`
}

// Step is one step of an op of the measured phase: the latencies of
// its completed executions (Count of them, the HDR encoded as Op.HDR),
// and its failures: those of transactions that failed (Failures) and of
// those the runner retried (Retries). A step of a transaction that
// failed later still counts its latency, as pgbench -r's do.
type Step struct {
	Name      string            `json:"name"`
	Text      string            `json:"text,omitempty"`
	Count     int64             `json:"count"`
	Failures  int64             `json:"failures"`
	Retries   int64             `json:"retries"`
	LatencyMS histogram.Latency `json:"latency_ms"`
	HDR       string            `json:"hdr"`
}

// Interval is one reporting tick. TS is seconds since the run started
// (warm-up included) at the end of the interval; Warmup marks intervals
// that were discarded.
type Interval struct {
	TS float64 `json:"t_s"`
	// LengthS is the interval's real length in seconds, which its rates
	// divide by (absent in version 1).
	LengthS      float64 `json:"length_s,omitempty"`
	Warmup       bool    `json:"warmup,omitempty"`
	Transactions int64   `json:"transactions"`
	Queries      int64   `json:"queries"`
	// Reads, Writes and Other are the interval's Queries by kind (as the
	// run's), so that a run rebuilt from its intervals has them; absent
	// in files written before they were kept.
	Reads      int64           `json:"reads,omitempty"`
	Writes     int64           `json:"writes,omitempty"`
	Other      int64           `json:"other,omitempty"`
	TPS        float64         `json:"tps"`
	QPS        float64         `json:"qps"`
	Errors     int64           `json:"errors"`
	Retries    int64           `json:"retries"`
	Reconnects int64           `json:"reconnects"`
	Rollbacks  int64           `json:"rollbacks,omitempty"`
	LatencyMS  IntervalLatency `json:"latency_ms"`
	// Metrics are the workload's own figures for the interval, by name.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Server holds the server's metrics over the interval (package
	// sysmon: server_cpu_pct, host_iowait_pct, disk_iops, pg_wal_mb_s …,
	// each name with its unit), absent when none could be read.
	Server map[string]float64 `json:"server,omitempty"`
	// Disturbed lists the causes (Disturbance.Cause) whose figure was
	// above its limit in this interval, in the order other, steal,
	// client; absent when none was.
	Disturbed []string `json:"disturbed,omitempty"`
	// Ops holds each op's share of the interval, for the ops that
	// recorded anything in it (version 2; absent in version 1).
	Ops []IntervalOp `json:"ops,omitempty"`
	// Under an arrival rate: the mean rate offered over the interval,
	// the late, skipped and dropped arrivals (Run.Late …) and the
	// service times and start lags of all ops.
	OfferedTPS float64          `json:"offered_tps,omitempty"`
	Late       int64            `json:"late,omitempty"`
	Skipped    int64            `json:"skipped,omitempty"`
	Dropped    int64            `json:"dropped,omitempty"`
	ServiceMS  *IntervalLatency `json:"service_ms,omitempty"`
	LagMS      *IntervalLatency `json:"lag_ms,omitempty"`
}

// IntervalOp is one op's share of an interval: its counts and its latency
// histogram, so that intervals of several files (shards of one run) or
// several intervals (a window) merge exactly.
type IntervalOp struct {
	// Op is the op's index in the run's Ops.
	Op int `json:"op"`
	// Count is the op's successful transactions (rollbacks included),
	// the number of values in HDR.
	Count     int64 `json:"count"`
	Errors    int64 `json:"errors,omitempty"`
	Retries   int64 `json:"retries,omitempty"`
	Rollbacks int64 `json:"rollbacks,omitempty"`
	// HDR is the op's latency histogram over the interval (microseconds)
	// in the encoding of Op.HDR; absent when Count is 0.
	HDR string `json:"hdr,omitempty"`
	// Under an arrival rate: the op's late transactions, and its service
	// times and start lags (Count values each).
	Late       int64  `json:"late,omitempty"`
	ServiceHDR string `json:"service_hdr,omitempty"`
	LagHDR     string `json:"lag_hdr,omitempty"`
}

// Counter is a count kept by the database itself (TPC-C: the sum of
// d_next_o_id), read at the start and end of the measured phase.
type Counter struct {
	Name  string `json:"name"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
}

// Metric is one headline figure of a workload. Rule, Limit and Pass are
// set for figures a specification judges (TPC-C's 90th-percentile
// response times, TPC-E's mix and nominal throughput); Higher tells
// whether a larger value is better.
type Metric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
	// Limit is the figure the rule names: the bound of a one-sided rule
	// (at most, or at least when Higher), a tolerance rule's target.
	Limit *float64 `json:"limit,omitempty"`
	// Rule states the check as the specification states it: "≤ 2 s",
	// "80–102% of nominal 2.00 TR/s", "21.3% ± 5% relative
	// (20.3–22.4%)". Empty in files written before it was recorded.
	Rule   string `json:"rule,omitempty"`
	Pass   *bool  `json:"pass,omitempty"`
	Higher bool   `json:"higher_is_better,omitempty"`
}

// Judged tells whether m is a rule's verdict rather than a figure to
// compare: it has a limit or a rule.
func (m Metric) Judged() bool { return m.Limit != nil || m.Rule != "" }

// IntervalLatency is the latency summary of one interval, in ms.
type IntervalLatency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// ErrSchema is returned when a file is not a dbarena result this build can
// read.
var ErrSchema = errors.New("unsupported result file")

// Write writes f as indented JSON to path as package outfile writes every
// output: a regular file atomically (a temporary file in the same
// directory, renamed over path only when complete, so a failed or
// interrupted write never leaves a half-written file), through a symlink
// to its target, in place to a character device or a FIFO. Errors name
// path as --out's value.
func Write(path string, f *File) error {
	return WriteContext(context.Background(), path, f)
}

// WriteContext is Write that stops when ctx ends (a FIFO nobody reads),
// leaving path as it was.
func WriteContext(ctx context.Context, path string, f *File) error {
	// A result file holds no secret (its URL is redacted, its errors
	// scrubbed): readable by all, like a file the shell's ">" creates.
	return outfile.Write(ctx, "--out", path, 0o644, func(w io.Writer) error { return Encode(w, f) })
}

// Encode writes f as indented JSON.
func Encode(w io.Writer, f *File) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// Read reads and validates a result file.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Decode parses and validates a result file's bytes.
func Decode(b []byte) (*File, error) {
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	if err := checkVersion(f.SchemaVersion); err != nil {
		return nil, err
	}
	return &f, nil
}

// checkVersion refuses a schema version this build cannot read.
func checkVersion(v int) error {
	if v < 1 || v > SchemaVersion {
		return fmt.Errorf("%w: schema_version %d (this build reads 1..%d)", ErrSchema, v, SchemaVersion)
	}
	return nil
}
