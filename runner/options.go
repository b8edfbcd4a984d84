package runner

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/sysmon"
)

// Option is one run option: a field of Config that `dbarena run` sets by
// a flag and a plan by a field of its own or of a workload entry. Options
// is the one list both read, so that every run option is settable in
// both, parsed and validated alike.
type Option struct {
	// Flag is the option's flag name (without --); Field its name in a
	// plan file.
	Flag, Field string
	// Usage is the flag's help text.
	Usage string
	// Value binds the option to c: setting it parses the text a flag or a
	// plan field gives and writes the field of c; String reads it.
	Value func(c *Config) pflag.Value
}

// Options lists the run options in the order help and docs give them.
// The thread count is not among them: `dbarena run --threads` and a
// plan's threads take lists, one run per value (see Config.Threads).
func Options() []Option {
	return append([]Option{
		{Flag: "time", Field: "duration", Usage: "measured duration of each run (60s, 5m or plain seconds); with --events, a limit in time beside it (default then: none)",
			Value: func(c *Config) pflag.Value { return (*durationValue)(&c.Duration) }},
		{Flag: "events", Field: "events", Usage: "end each run after this many transactions in all, across every worker, warm-up included: committed, rolled back or failed, each counted once however often it was retried (sysbench's --events; pgbench's -t per client times the clients); with --time the first limit reached ends the run",
			Value: func(c *Config) pflag.Value { return &optInt64Value{p: &c.Events} }},
		{Flag: "warmup", Field: "warmup", Usage: "warm-up before each run, discarded",
			Value: func(c *Config) pflag.Value { return (*durationValue)(&c.Warmup) }},
		{Flag: "report-interval", Field: "report_interval", Usage: "length of one reporting interval",
			Value: func(c *Config) pflag.Value { return (*durationValue)(&c.ReportInterval) }},
		{Flag: "max-errors", Field: "max_errors", Usage: "stop a run after more than this many failed transactions (retried serialization failures and deadlocks, and lost connections, which are replaced, do not count)",
			Value: func(c *Config) pflag.Value { return (*intValue)(&c.MaxErrors) }},
		{Flag: "tolerate-errors", Field: "tolerate_errors", Usage: "never stop a run for failed transactions; count them",
			Value: func(c *Config) pflag.Value { return (*boolValue)(&c.TolerateErrors) }},
		{Flag: "isolation", Field: "isolation", Usage: "transaction isolation of every worker's connection: read-committed, repeatable-read or serializable (default: the workload's, else the engine's own; SQLite has serializable only; MongoDB repeatable-read only: its transactions are snapshot isolation)",
			Value: func(c *Config) pflag.Value { return (*stringValue)(&c.Isolation) }},
		{Flag: "max-retries", Field: "max_retries", Usage: "replays of a transaction that hit a serialization failure, deadlock or write conflict before it counts as an error, for workloads that replay with the same input (default: the workload's, 10)",
			Value: func(c *Config) pflag.Value { return &optIntValue{p: &c.Retry.MaxRetries} }},
		{Flag: "retry-backoff", Field: "retry_backoff", Usage: "first replay's back-off bound; doubled per replay up to --retry-backoff-max, each wait drawn uniformly below the bound (default: the workload's, 2ms)",
			Value: func(c *Config) pflag.Value { return &optDurationValue{p: &c.Retry.Backoff} }},
		{Flag: "retry-backoff-max", Field: "retry_backoff_max", Usage: "largest back-off bound (default: the workload's, 500ms)",
			Value: func(c *Config) pflag.Value { return &optDurationValue{p: &c.Retry.BackoffMax} }},
		{Flag: "stop-grace", Field: "stop_grace", Usage: "how long transactions in flight at the end of a run may take to finish before they are cancelled",
			Value: func(c *Config) pflag.Value { return (*durationValue)(&c.StopGrace) }},
		{Flag: "client-threads", Field: "client_threads", Usage: "OS threads that run the workers, at most --threads: on PostgreSQL targets each drives several connections, as pgbench's -j (0: one per CPU); on MySQL and MongoDB targets, the Go runtime's GOMAXPROCS (0: half the CPUs, at least 1); -1 a goroutine per worker with Go's defaults (SQLite always)",
			Value: func(c *Config) pflag.Value { return (*countValue)(&c.ClientThreads) }},
		{Flag: "client-io", Field: "client_io", Usage: "how client threads send and receive on PostgreSQL targets: epoll (a system call per send and per receive) or io_uring (every worker's sends and receives queued and submitted, with the wait, in one call)",
			Value: func(c *Config) pflag.Value { return (*stringValue)(&c.ClientIO) }},
		{Flag: "reconnect-timeout", Field: "reconnect_timeout", Usage: "how long every worker may be without a connection (a server restarting) before the run fails because the server stopped answering",
			Value: func(c *Config) pflag.Value { return (*durationValue)(&c.ReconnectTimeout) }},
		{Flag: "threshold", Field: "thresholds", Usage: "a pass/fail criterion judged at the end of each run, e.g. 'p99<50ms', 'tps>1000', 'errors<0.1%', 'op:new_order p90<5ms', 'NOPM>1000' (repeat the flag or separate by commas); a failed one exits 7",
			Value: func(c *Config) pflag.Value { return (*listValue)(&c.Thresholds) }},
		{Flag: "abort-on-fail", Field: "abort_on_fail", Usage: "stop a run as soon as a threshold can no longer hold (an upper bound on a count such as errors, retries or transactions, or on the max latency, already crossed)",
			Value: func(c *Config) pflag.Value { return (*boolValue)(&c.AbortOnFail) }},
		// When the host disturbed a run: sysmon.Limits.
		{Flag: "disturbed-other", Field: "disturbed_other", Usage: "flag a run as disturbed when processes other than dbarena and the server used more than this share of the host's CPUs (host_other_cpu_pct) in --disturbed-share of its measured intervals (0: never)",
			Value: func(c *Config) pflag.Value { return (*pctValue)(&c.Disturbed.Other) }},
		{Flag: "disturbed-steal", Field: "disturbed_steal", Usage: "flag a run as disturbed when the hypervisor stole more than this share of the host's CPUs (host_steal_pct) in --disturbed-share of its measured intervals (0: never)",
			Value: func(c *Config) pflag.Value { return (*pctValue)(&c.Disturbed.Steal) }},
		{Flag: "disturbed-client", Field: "disturbed_client", Usage: "flag a run as disturbed when dbarena's own CPU (client_cpu_pct) was above this share of the cores it drives the workers with (its client threads, else GOMAXPROCS, at most the host's CPUs; not judged on SQLite, whose work is dbarena's) in --disturbed-share of its measured intervals (0: never)",
			Value: func(c *Config) pflag.Value { return (*pctValue)(&c.Disturbed.Client) }},
		{Flag: "disturbed-share", Field: "disturbed_share", Usage: "how many of a run's measured intervals (at least one) must cross a --disturbed-* limit for the run to be flagged as disturbed",
			Value: func(c *Config) pflag.Value { return (*pctValue)(&c.Disturbed.Share) }},
		// The arrival-rate (open) model: timing.RateConfig.
		{Flag: "rate", Field: "rate", Usage: "arrival rate in transactions per second across all workers (at most 1e9): an open model, each transaction timed from its intended start; --threads caps how many run at once (default: none, workers back to back)",
			Value: func(c *Config) pflag.Value { return &optFloatValue{p: &c.Rate.TPS} }},
		{Flag: "rate-stages", Field: "rate_stages", Usage: "ramp the arrival rate linearly through stages duration:rate, e.g. 30s:100,2m:1000,30s:0, from --rate (default 0); they span --warmup plus --time, which must add up to them",
			Value: func(c *Config) pflag.Value { return (*stagesValue)(&c.Rate.Stages) }},
		{Flag: "arrival", Field: "arrival", Usage: "arrivals under --rate: poisson (random, the default) or uniform (evenly spaced)",
			Value: func(c *Config) pflag.Value { return (*stringValue)(&c.Rate.Arrival) }},
		{Flag: "latency-limit", Field: "latency_limit", Usage: "under --rate, skip (and count) a transaction that cannot start within this of its intended start, as pgbench -L does",
			Value: func(c *Config) pflag.Value { return (*durationValue)(&c.Rate.LatencyLimit) }},
		{Flag: "max-queue", Field: "max_queue", Usage: "under --rate, how many arrivals may wait for a busy worker, for the run (split evenly among the workers); later ones are dropped and counted (default: unbounded)",
			Value: func(c *Config) pflag.Value { return &optIntValue{p: &c.Rate.MaxQueue} }},
	}, analyticOptions()...)
}

// analyticOptions are the analytic timing model's run options
// (timing.Analytic).
func analyticOptions() []Option {
	return []Option{
		{Flag: "tries", Field: "tries", Usage: "the analytic timing model: run each of the workload's queries this many times in a row on one connection (the first try cold as --cold says; hot is the best of the others), instead of the closed loop for --time",
			Value: func(c *Config) pflag.Value { return &optIntValue{p: &c.Tries} }},
		{Flag: "cold", Field: "cold", Usage: "with --tries: how each query's first try is made cold: restart (restart the server, keeping the OS page cache; the default on a managed server), drop-caches (restart it and drop the OS page cache: the whole host's, needs root; only when asked) or none (the first try lukewarm; the default on a target dbarena cannot restart)",
			Value: func(c *Config) pflag.Value { return (*stringValue)(&c.ColdMode) }},
		{Flag: "query-timeout", Field: "query_timeout", Usage: "with --tries: the longest one try may take; a try that takes longer is cancelled and recorded as failed (null), never as a time",
			Value: func(c *Config) pflag.Value { return (*durationValue)(&c.QueryTimeout) }},
	}
}

// LookupOption finds a run option by its plan field name.
func LookupOption(field string) (Option, bool) {
	for _, o := range Options() {
		if o.Field == field {
			return o, true
		}
	}
	return Option{}, false
}

// DefaultConfig is the configuration before any option is set: one
// thread, 10 s measured, no warm-up, 1 s intervals, seed 1, the first
// failed transaction stops the run, 10 s of stop grace, 30 s of reconnect
// timeout.
func DefaultConfig() Config {
	return Config{Threads: 1, Duration: 10 * time.Second, ReportInterval: time.Second, Seed: 1, StopGrace: 10 * time.Second,
		ReconnectTimeout: DefaultReconnectTimeout, Disturbed: sysmon.DefaultLimits()}
}

// pctValue is a percentage: "25%" or "25".
type pctValue float64

func (v *pctValue) String() string { return strconv.FormatFloat(float64(*v), 'g', -1, 64) + "%" }
func (v *pctValue) Type() string   { return "percent" }
func (v *pctValue) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%q: want a percentage such as 25%% or 25", s)
	}
	*v = pctValue(f)
	return nil
}

// durationValue is a duration that also takes plain seconds ("60"), as
// sysbench's --time does.
type durationValue time.Duration

func (d *durationValue) String() string { return time.Duration(*d).String() }
func (d *durationValue) Type() string   { return "duration" }
func (d *durationValue) Set(s string) error {
	v, err := timing.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = durationValue(v)
	return nil
}

type intValue int64

func (v *intValue) String() string { return strconv.FormatInt(int64(*v), 10) }
func (v *intValue) Type() string   { return "int" }
func (v *intValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%q: want an integer", s)
	}
	*v = intValue(n)
	return nil
}

// countValue is an int option.
type countValue int

func (v *countValue) String() string { return strconv.Itoa(int(*v)) }
func (v *countValue) Type() string   { return "int" }
func (v *countValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q: want an integer", s)
	}
	*v = countValue(n)
	return nil
}

type boolValue bool

func (v *boolValue) String() string   { return strconv.FormatBool(bool(*v)) }
func (v *boolValue) Type() string     { return "bool" }
func (v *boolValue) IsBoolFlag() bool { return true }
func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%q: want true or false", s)
	}
	*v = boolValue(b)
	return nil
}

// BindFlags registers every run option of Options on fs as a flag that
// writes c; c's values at the call are the flags' defaults.
func BindFlags(fs *pflag.FlagSet, c *Config) { BindFlagsBeside(fs, c, nil) }

// BindFlagsBeside is BindFlags for a command that also takes a
// workload's own flags (own): a run option whose flag name the workload
// uses for an option of its own (docolap's --events is the number of
// events it generates) is registered as run-<name> instead, so that both
// can be given. It returns those it renamed, old name to new.
func BindFlagsBeside(fs *pflag.FlagSet, c *Config, own *pflag.FlagSet) map[string]string {
	var renamed map[string]string
	for _, o := range Options() {
		name, usage := o.Flag, o.Usage
		if own != nil && own.Lookup(name) != nil {
			if renamed == nil {
				renamed = map[string]string{}
			}
			renamed[name] = "run-" + name
			usage += fmt.Sprintf(" (--%s, as for every workload; here --%s is the workload's own option)", name, name)
			name = "run-" + name
		}
		v := o.Value(c)
		f := fs.VarPF(v, name, "", usage)
		if v.Type() == "bool" {
			f.NoOptDefVal = "true"
		}
	}
	return renamed
}

type stringValue string

func (v *stringValue) String() string     { return string(*v) }
func (v *stringValue) Type() string       { return "string" }
func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }

// listValue is a list of texts: each Set appends its comma-separated
// items (a repeated flag, or a plan's list joined with commas).
type listValue []string

func (v *listValue) String() string { return strings.Join(*v, ",") }
func (v *listValue) Type() string   { return "list" }
func (v *listValue) Set(s string) error {
	for _, it := range strings.Split(s, ",") {
		it = strings.TrimSpace(it)
		if it == "" {
			return fmt.Errorf("%q: an empty item", s)
		}
		*v = append(*v, it)
	}
	return nil
}

// optIntValue and optDurationValue are settings that, unset (nil), keep
// a default decided later (the workload's).
type optIntValue struct{ p **int }

func (v *optIntValue) Type() string { return "int" }
func (v *optIntValue) String() string {
	if *v.p == nil {
		return ""
	}
	return strconv.Itoa(**v.p)
}
func (v *optIntValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q: want an integer", s)
	}
	*v.p = &n
	return nil
}

// optInt64Value is a count that, unset (nil), means the option is off.
type optInt64Value struct{ p **int64 }

func (v *optInt64Value) Type() string { return "int" }
func (v *optInt64Value) String() string {
	if *v.p == nil {
		return ""
	}
	return strconv.FormatInt(**v.p, 10)
}
func (v *optInt64Value) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%q: want an integer", s)
	}
	*v.p = &n
	return nil
}

type optDurationValue struct{ p **time.Duration }

func (v *optDurationValue) Type() string { return "duration" }
func (v *optDurationValue) String() string {
	if *v.p == nil {
		return ""
	}
	return (**v.p).String()
}
func (v *optDurationValue) Set(s string) error {
	var d durationValue
	if err := d.Set(s); err != nil {
		return err
	}
	x := time.Duration(d)
	*v.p = &x
	return nil
}

// optFloatValue is a number that, unset (nil), means the option is off.
type optFloatValue struct{ p **float64 }

func (v *optFloatValue) Type() string { return "float" }
func (v *optFloatValue) String() string {
	if *v.p == nil {
		return ""
	}
	return strconv.FormatFloat(**v.p, 'g', -1, 64)
}
func (v *optFloatValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%q: want a number", s)
	}
	*v.p = &f
	return nil
}

// stagesValue is --rate-stages (timing.ParseStages).
type stagesValue []timing.RateStage

func (v *stagesValue) Type() string   { return "stages" }
func (v *stagesValue) String() string { return timing.FormatStages(*v) }
func (v *stagesValue) Set(s string) error {
	st, err := timing.ParseStages(s)
	if err != nil {
		return err
	}
	*v = st
	return nil
}
