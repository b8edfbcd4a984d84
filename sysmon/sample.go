package sysmon

import (
	"math"
	"sort"
	"time"

	"github.com/dbarena/dbarena/metric"
)

// Sample is one reading of every source at one instant: raw counters,
// which only grow while the server runs, and gauges, which are
// instantaneous values. Sources fill it; Delta turns two of them into an
// Interval.
//
// Names are the source's prefix and the raw name, e.g. "pg.xact_commit",
// "mysql.Com_select", "host.cpu.iowait", "server.cpu_us"; the units are
// those of the source (clock ticks for host.cpu.*, microseconds for
// server.cpu_us, 512-byte sectors for disk.*_sectors, bytes for
// pg.wal_bytes). A Sample is not safe for concurrent use.
type Sample struct {
	// Time is when the sample was taken.
	Time time.Time
	// Counters are cumulative counts by name.
	Counters map[string]uint64
	// Gauges are instantaneous values by name.
	Gauges map[string]float64
}

// SetCounter records the cumulative counter name.
func (s *Sample) SetCounter(name string, v uint64) {
	if s.Counters == nil {
		s.Counters = make(map[string]uint64, 32)
	}
	s.Counters[name] = v
}

// SetGauge records the instantaneous value name.
func (s *Sample) SetGauge(name string, v float64) {
	if s.Gauges == nil {
		s.Gauges = make(map[string]float64, 8)
	}
	s.Gauges[name] = v
}

// reset empties s for reuse, keeping its maps' storage.
func (s *Sample) reset(t time.Time) {
	s.Time = t
	clear(s.Counters)
	clear(s.Gauges)
}

// Interval is the server's metrics between two samples, by metric name
// (Metrics lists every name, its unit and meaning). Rates are per second
// of the interval, percentages are 0-100 (server_cpu_pct: 100 per busy
// core). The key "interval_s" holds the interval's length in seconds, so
// that an Interval is self-contained and Summary can weight it by time.
//
// A metric is absent, never zero, when it cannot be computed: its source
// is not monitored, a sample failed, a counter went backwards (a stats
// reset or a server restart), its source started anew in the interval
// (Monitor.Tick), a ratio has no denominator (a hit percentage in an
// interval without reads) or the value cannot be (Monitor.Tick leaves it
// out with a note).
//
// The JSON form is a flat object with sorted keys and numbers rounded to
// three decimals:
//
//	{"disk_iops": 120, "host_cpu_pct": 41.5, "interval_s": 1.001, "pg_commits_s": 2310.2, …}
type Interval map[string]float64

// IntervalKey is the key of an Interval's (and a Summary's) length in
// seconds (metric.IntervalKey).
const IntervalKey = metric.IntervalKey

// Delta turns two samples of the same sources into the rates, percentages
// and gauges of the interval between them. A metric is left out when any
// counter it needs is missing from either sample or went backwards from
// prev to cur (Backwards names those). Delta returns nil when prev is nil
// or cur is not later than prev.
func Delta(prev, cur *Sample) Interval {
	if prev == nil || cur == nil {
		return nil
	}
	secs := cur.Time.Sub(prev.Time).Seconds()
	if secs <= 0 {
		return nil
	}
	d := &deltaCtx{prev: prev, cur: cur, secs: secs}
	iv := make(Interval, 16)
	iv[IntervalKey] = round3(secs)
	defs := metricDefs()
	for i := range defs {
		m := &defs[i]
		if v, ok := m.delta(d); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			iv[m.Name] = round3(v)
		}
	}
	return iv
}

// Backwards returns, sorted, the counters present in both samples whose
// value in cur is smaller than in prev: the server restarted or its
// statistics were reset. Delta leaves out every metric that needs one.
func Backwards(prev, cur *Sample) []string {
	if prev == nil || cur == nil {
		return nil
	}
	var out []string
	for name, c := range cur.Counters {
		if p, ok := prev.Counters[name]; ok && c < p {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// deltaCtx is what a metric's formula reads: the change of counters over
// the interval and the gauges at its end.
type deltaCtx struct {
	prev, cur *Sample
	secs      float64
}

// diff is the increase of counter name, false when it is missing from
// either sample or went backwards.
func (d *deltaCtx) diff(name string) (float64, bool) {
	p, ok1 := d.prev.Counters[name]
	c, ok2 := d.cur.Counters[name]
	if !ok1 || !ok2 || c < p {
		return 0, false
	}
	return float64(c - p), true
}

// rate is diff per second.
func (d *deltaCtx) rate(name string) (float64, bool) {
	v, ok := d.diff(name)
	return v / d.secs, ok
}

// sum is the total increase of several counters, false when any is
// unusable.
func (d *deltaCtx) sum(names ...string) (float64, bool) {
	var t float64
	for _, n := range names {
		v, ok := d.diff(n)
		if !ok {
			return 0, false
		}
		t += v
	}
	return t, true
}

// gauge is the gauge's value in the later sample.
func (d *deltaCtx) gauge(name string) (float64, bool) {
	v, ok := d.cur.Gauges[name]
	return v, ok
}

func round3(v float64) float64 {
	return math.Round(v*1000) / 1000
}
