package engine

import (
	"context"
	"fmt"
)

// ServerStats is an engine's part of the server metrics (package sysmon
// samples them): how to read what the server says about itself, how to
// find its process on this host, and the metrics computed from what it
// reads. An engine gives one in Registration.ServerStats; the monitor
// names no engine and knows none of this otherwise.
type ServerStats struct {
	// Open learns about the server through c, the monitor's own
	// connection (what the engine's Connect returned: an SQL engine's is
	// a StatsConn, engine/mongo's its session), and returns its
	// statistics source, notes on what it cannot read, and where its
	// process is. It runs a few statements and
	// never fails: what does not work is a note. The monitor calls it
	// again on a new connection after the old one was lost (a server
	// restart changes the server's pid).
	Open func(ctx context.Context, c Conn) ServerStatsOpening
	// Metrics are the metrics computed from the source's counters and
	// gauges, in the order reports list them. Their names are unique
	// across engines and end in their unit.
	Metrics []StatsMetric
}

// StatsConn is what an SQL engine's statistics source needs of its
// connection: every SQLConn has it. The connection is the monitor's own and is used from
// one goroutine at a time.
type StatsConn interface {
	// QueryRows runs sql and calls fn once per row, as Conn does.
	QueryRows(ctx context.Context, sql string, args []any, fn func(row []any) error) error
}

// StatsSink receives one reading of a statistics source. Names are the
// source's prefix and the raw name ("pg.xact_commit",
// "mysql.Threads_running"), in the units of the server.
type StatsSink interface {
	// SetCounter records a cumulative counter, which only grows while
	// the server runs.
	SetCounter(name string, v uint64)
	// SetGauge records an instantaneous value.
	SetGauge(name string, v float64)
}

// StatsSource reads a server's statistics. Sample adds the source's
// current values to s; an error means s has none or only some of them
// (the monitor counts it, never fatal). It is called from one goroutine at
// a time.
type StatsSource interface {
	// Name is a short name for notes ("postgres", "mysql").
	Name() string
	// Sample reads the current values into s.
	Sample(ctx context.Context, s StatsSink) error
}

// ServerStatsOpening is what ServerStats.Open found.
type ServerStatsOpening struct {
	// Source reads the statistics; nil when nothing can be read.
	Source StatsSource
	// Notes say what cannot be read and why, each starting with the
	// engine's name ("postgres: cannot read pg_stat_wal (…)").
	Notes []string
	// Process says where the server's process is.
	Process ProcessLocator
}

// ProcessLocator says, declaratively, how the monitor finds the server's
// main process on this host and what the server says about its files. The
// monitor does the finding in /proc (a process of one of Names, not
// started after Start) and writes the notes; a zero ProcessLocator means
// nothing is known (no note, no process).
type ProcessLocator struct {
	// Remote, when not "", says that the server is not on this host and
	// how that is known: "the server is not on this host (inet_server_addr()
	// is 10.0.0.5)". The monitor looks for no process.
	Remote string
	// Local says, for notes, what makes the server look local ("127.0.0.1",
	// "a Unix socket"); "" says nothing.
	Local string
	// Names are the names (/proc/<pid>/comm) the server's processes run
	// as ("postgres", "postmaster"; "mariadbd", "mysqld"). Without them
	// the monitor looks for no process.
	Names []string
	// ParentOf, when > 0, is a process of the server whose parent is the
	// server's main process (the backend serving the monitor's
	// connection). Both must run one of Names.
	ParentOf int
	// PIDFile is the absolute path of a file holding the server's pid,
	// or "". When it cannot be read, the monitor looks through every
	// process for the one of Names that started at Start.
	PIDFile string
	// Start is when the server started, in seconds since the epoch, or 0
	// when unknown. A process that started later is another one.
	Start float64
	// DataDir is the server's data directory as it says, or "".
	DataDir string
	// DataDirFlag is the command-line flag of the server's main process
	// that names its data directory ("-D"), read when DataDir is "".
	DataDirFlag string
	// LogDir is the write-ahead log's directory relative to the data
	// directory when the engine keeps it apart ("pg_wal"): the monitor
	// notes when it is on another device than the data directory.
	LogDir string
}

// MetricKind is how a StatsMetric is computed from its counters or gauge
// over one interval.
type MetricKind int

const (
	// MetricRate is Counters[0]'s increase per second.
	MetricRate MetricKind = iota + 1
	// MetricMBRate is a byte counter's (Counters[0]) increase in MB
	// (2^20 bytes) per second.
	MetricMBRate
	// MetricCount is the increase of all Counters over the interval,
	// added up; a run's summary is their sum, not a mean.
	MetricCount
	// MetricGauge is the gauge Counters[0] at the end of the interval.
	MetricGauge
	// MetricHitPct is 100·hits/(hits+misses) with Counters [hits,
	// misses], absent without either.
	MetricHitPct
	// MetricHitPctOfTotal is 100·(1 − misses/accesses) with Counters
	// [accesses, misses], absent without accesses.
	MetricHitPctOfTotal
)

// LiveSlot places a metric in the live line (sysmon.Compact), after the
// server's, host's and disk's metrics: log volume, then hit ratio, then
// events.
type LiveSlot int

const (
	// LiveNone leaves the metric out of the live line.
	LiveNone LiveSlot = iota
	// LiveLog shows "<label> 3.1MB/s".
	LiveLog
	// LiveHit shows "<label> 99.8%".
	LiveHit
	// LiveEvents shows "<label> 1", only when the value is above 0.
	LiveEvents
)

// StatsMetric is one metric an engine's statistics give, computed by the
// monitor from the raw counters and gauges of two samples.
type StatsMetric struct {
	// Name is the metric's key in intervals and summaries; it starts with
	// the engine's prefix and ends in its unit ("pg_wal_mb_s").
	Name string
	// Unit is the unit for labels: "/s", "MB/s", "%", "count",
	// "sessions", "threads".
	Unit string
	// Help says what is measured and where it comes from.
	Help string
	// Kind is how the metric is computed.
	Kind MetricKind
	// Counters are the raw counters (or, for MetricGauge, the gauge) the
	// metric is computed from, as the source names them.
	Counters []string
	// Parts, for the hit percentages, are the rate metrics of
	// Counters[0] and Counters[1]: a run's summary recomputes the
	// percentage from their totals rather than averaging percentages.
	Parts [2]string
	// Live places the metric in the live line, under LiveLabel.
	Live      LiveSlot
	LiveLabel string
	// Chart, when not "", is the title of the report's server chart over
	// time that draws the metric, one line per metric of the engine with
	// the same Chart, all of one Unit, under ChartLabel ("insert").
	Chart, ChartLabel string
}

// check reports what is wrong with an engine's ServerStats (a programming
// error: Register panics with it), or "".
func (s *ServerStats) check() string {
	if s.Open == nil {
		return "ServerStats without Open"
	}
	seen, chartUnits := map[string]bool{}, map[string]string{}
	for _, m := range s.Metrics {
		switch {
		case m.Name == "" || m.Unit == "" || m.Help == "":
			return fmt.Sprintf("metric %q: Name, Unit and Help are required", m.Name)
		case seen[m.Name]:
			return "metric listed twice: " + m.Name
		case m.Kind < MetricRate || m.Kind > MetricHitPctOfTotal:
			return fmt.Sprintf("metric %s: unknown kind %d", m.Name, m.Kind)
		case len(m.Counters) == 0:
			return "metric " + m.Name + ": no counter"
		case (m.Kind == MetricHitPct || m.Kind == MetricHitPctOfTotal) && (len(m.Counters) != 2 || m.Parts[0] == "" || m.Parts[1] == ""):
			return "metric " + m.Name + ": a hit percentage needs 2 counters and the 2 rate metrics of its Parts"
		case (m.Kind == MetricCount) != (m.Unit == "count"):
			return "metric " + m.Name + ": a count's unit is \"count\", and only a count's"
		case m.Live != LiveNone && m.LiveLabel == "":
			return "metric " + m.Name + ": a place in the live line needs a LiveLabel"
		case m.Chart != "" && m.ChartLabel == "":
			return "metric " + m.Name + ": a place in a chart needs a ChartLabel"
		case m.Chart != "" && chartUnits[m.Chart] != "" && chartUnits[m.Chart] != m.Unit:
			return fmt.Sprintf("metric %s: chart %q draws %s, not %s: a chart has one axis", m.Name, m.Chart, chartUnits[m.Chart], m.Unit)
		}
		if m.Chart != "" {
			chartUnits[m.Chart] = m.Unit
		}
		seen[m.Name] = true
	}
	return ""
}
