package sysmon

import (
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/engine"
)

// Summary summarises a run's intervals into one map with the same keys:
//
//   - rates, percentages and gauges: the mean weighted by interval length
//     (Σ value·interval_s / Σ interval_s), over the intervals that have
//     the metric, so server_cpu_pct is the CPU time used over the time
//     observed;
//   - counts (MetricInfo.Summed, e.g. pg_checkpoints): the sum;
//   - hit percentages: total hits over total accesses, from the intervals'
//     rates, not a mean of percentages;
//   - IntervalKey: the total seconds the intervals cover.
//
// Intervals without a positive interval_s are ignored. Keys that are not
// known metrics (from a newer dbarena) are averaged. Summary returns nil
// when no interval counts.
func Summary(ivs []Interval) map[string]float64 {
	type acc struct{ weighted, secs float64 }
	sums := map[string]*acc{}
	var total float64
	for _, iv := range ivs {
		secs := iv[IntervalKey]
		if secs <= 0 {
			continue
		}
		total += secs
		for k, v := range iv {
			if k == IntervalKey {
				continue
			}
			a := sums[k]
			if a == nil {
				a = &acc{}
				sums[k] = a
			}
			a.weighted += v * secs
			a.secs += secs
		}
	}
	if total == 0 {
		return nil
	}
	out := make(map[string]float64, len(sums)+1)
	out[IntervalKey] = round3(total)
	for k, a := range sums {
		out[k] = round3(a.weighted / a.secs)
	}
	defs := metricDefs()
	for i := range defs {
		m := &defs[i]
		if _, ok := sums[m.Name]; !ok {
			continue
		}
		switch {
		case m.summary != nil:
			if v, ok := m.summary(ivs); ok {
				out[m.Name] = round3(v)
			} else {
				delete(out, m.Name)
			}
		case m.Summed:
			var s float64
			for _, iv := range ivs {
				if iv[IntervalKey] > 0 {
					s += iv[m.Name]
				}
			}
			out[m.Name] = round3(s)
		}
	}
	return out
}

// Compact formats an interval (or a Summary) for a live line, with only the
// metrics it has, in this order:
//
//	srv cpu 72% of host (1.43 cores) host 71% io 2% iops 120 wal 3.1MB/s hit 99.8% ckpt 1
//
// srv cpu is server_cpu_pct_host (the share of all the host's CPUs)
// and server_cpu_cores, or only the cores when the host's CPUs are
// not known; host and io are
// host_cpu_pct and host_iowait_pct, iops is disk_iops; then the engines'
// metrics that have a place in the live line (engine.StatsMetric.Live):
// the log written (PostgreSQL's WAL, "wal", or MySQL's redo log, "log"),
// the buffer hit ratio ("hit") and events such as checkpoints ("ckpt"),
// shown only when there were some. An interval with none of these gives
// "".
func Compact(iv Interval) string {
	var b strings.Builder
	add := func(format, key string, args ...any) {
		v, ok := iv[key]
		if !ok {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, format, append(args, v)...)
	}
	if _, ok := iv["server_cpu_pct_host"]; ok {
		add("srv cpu %.0f%% of host", "server_cpu_pct_host")
		if cores, ok := iv["server_cpu_cores"]; ok {
			fmt.Fprintf(&b, " (%.2f cores)", cores)
		}
	} else {
		add("srv cpu %.2f cores", "server_cpu_cores")
	}
	add("host %.0f%%", "host_cpu_pct")
	add("io %.0f%%", "host_iowait_pct")
	add("iops %.0f", "disk_iops")
	defs := metricDefs()
	for _, slot := range []engine.LiveSlot{engine.LiveLog, engine.LiveHit, engine.LiveEvents} {
		for i := range defs {
			m := &defs[i]
			if m.live != slot {
				continue
			}
			switch slot {
			case engine.LiveLog:
				add("%s %.1fMB/s", m.Name, m.liveLabel)
			case engine.LiveHit:
				add("%s %.1f%%", m.Name, m.liveLabel)
			case engine.LiveEvents:
				if iv[m.Name] > 0 {
					add("%s %.0f", m.Name, m.liveLabel)
				}
			}
		}
	}
	return b.String()
}
