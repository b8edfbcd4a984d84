package sysmon

import (
	"fmt"
	"sync"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/metric"
)

// MB is the unit of every *_mb_s metric: 2^20 bytes, as iostat's -m.
const MB = 1 << 20

// sectorBytes is the size of the sectors /proc/diskstats counts, whatever
// the device's own sector size.
const sectorBytes = 512

// MetricInfo describes one metric of an Interval and of a Summary: its
// name (the key in Interval and Summary maps), unit, help, and whether
// Summary adds it up over the intervals (Summed) rather than averaging it.
// It is the metric registry's metric.ServerMetric.
type MetricInfo = metric.ServerMetric

// init makes Metrics the list of the server metrics of the metric
// registry (metric.RegisterServerMetrics), which result readers consult.
func init() { metric.RegisterServerMetrics(Metrics) }

// metricDef is a metric and how it is computed.
type metricDef struct {
	MetricInfo
	// delta computes the metric for one interval; false leaves it out.
	delta func(d *deltaCtx) (float64, bool)
	// summary, when set, replaces the time-weighted mean (or the sum, for
	// Summed metrics) in Summary: ratios are recomputed from their parts.
	summary func(ivs []Interval) (float64, bool)
	// live and liveLabel place an engine's metric in Compact's line.
	live      engine.LiveSlot
	liveLabel string
}

// Metrics lists every metric an Interval may hold, in a stable order: the
// server's process, the host, the disk, then the metrics of every
// registered engine (engine.Registration.ServerStats), by engine name.
// IntervalKey is not listed.
func Metrics() []MetricInfo {
	defs := metricDefs()
	out := make([]MetricInfo, len(defs))
	for i, m := range defs {
		out[i] = m.MetricInfo
	}
	return out
}

// metricDefs is every metric, in the order Metrics lists them, made once
// from the engines registered (they all are before main runs).
var metricDefs = sync.OnceValue(func() []metricDef {
	defs := append([]metricDef(nil), localDefs...)
	for _, r := range engine.Registrations() {
		if r.ServerStats == nil {
			continue
		}
		for _, sm := range r.ServerStats.Metrics {
			defs = append(defs, engineDef(sm))
		}
	}
	return defs
})

// metricUnits is every metric's unit by name.
var metricUnits = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	for _, m := range metricDefs() {
		out[m.Name] = m.Unit
	}
	return out
})

// engineDef is how an engine's declared metric is computed.
func engineDef(sm engine.StatsMetric) metricDef {
	d := metricDef{MetricInfo: MetricInfo{Name: sm.Name, Unit: sm.Unit, Help: sm.Help, Summed: sm.Kind == engine.MetricCount,
		Chart: sm.Chart, ChartLabel: sm.ChartLabel},
		live: sm.Live, liveLabel: sm.LiveLabel}
	first := ""
	if len(sm.Counters) > 0 {
		first = sm.Counters[0]
	}
	switch sm.Kind {
	case engine.MetricRate:
		d.delta = rateOf(first)
	case engine.MetricMBRate:
		d.delta = mbRateOf(first)
	case engine.MetricCount:
		d.delta = countOf(sm.Counters...)
	case engine.MetricGauge:
		d.delta = gaugeOf(first)
	case engine.MetricHitPct, engine.MetricHitPctOfTotal:
		if len(sm.Counters) != 2 {
			panic(fmt.Sprintf("sysmon: metric %s: a hit percentage needs 2 counters, has %d", sm.Name, len(sm.Counters)))
		}
		ofTotal := sm.Kind == engine.MetricHitPctOfTotal
		if ofTotal {
			d.delta = hitPctOfTotal(sm.Counters[0], sm.Counters[1])
		} else {
			d.delta = hitPct(sm.Counters[0], sm.Counters[1])
		}
		d.summary = hitPctSummary(sm.Parts[0], sm.Parts[1], ofTotal)
	default:
		panic(fmt.Sprintf("sysmon: metric %s: unknown kind %d", sm.Name, sm.Kind))
	}
	return d
}

// Raw counter and gauge names that sources write into a Sample.
const (
	cServerCPU   = "server.cpu_us" // user+system CPU of the process tree, µs
	gServerProcs = "server.procs"
	gHostCPUs    = "host.cpus" // CPUs of the host, from /proc/stat
	// gServerHost is 1 when the host source samples /proc/stat: the
	// server is on this host, whose CPU host_cpu_pct describes.
	gServerHost = "host.server"

	// dbarena's own process (the client source).
	cClientCPU = "client.cpu_us" // user+system CPU of this process, µs
	// gServerLocal is 1 when the server's CPU is on this host and must
	// be taken out of the host's busy time to leave the other work's.
	gServerLocal = "client.server_local"

	gDiskProvisionedIOPS = "disk.provisioned_iops" // Config.ProvisionedIOPS

	cDiskReads        = "disk.reads"
	cDiskWrites       = "disk.writes"
	cDiskReadSectors  = "disk.read_sectors"
	cDiskWriteSectors = "disk.write_sectors"
	cDiskIOMS         = "disk.io_ms"
)

// hostCPUFields are the columns of /proc/stat's "cpu" line that add up to
// all of the CPUs' time (guest time is already inside user and nice).
var hostCPUFields = [...]string{"host.cpu.user", "host.cpu.nice", "host.cpu.system", "host.cpu.idle",
	"host.cpu.iowait", "host.cpu.irq", "host.cpu.softirq", "host.cpu.steal"}

// rateOf is a metric that is one counter's increase per second.
func rateOf(counter string) func(d *deltaCtx) (float64, bool) {
	return func(d *deltaCtx) (float64, bool) { return d.rate(counter) }
}

// countOf is a metric that is the increase of counters over the interval.
func countOf(counters ...string) func(d *deltaCtx) (float64, bool) {
	return func(d *deltaCtx) (float64, bool) { return d.sum(counters...) }
}

// mbRateOf is a byte counter's increase in MB per second.
func mbRateOf(counter string) func(d *deltaCtx) (float64, bool) {
	return func(d *deltaCtx) (float64, bool) {
		v, ok := d.rate(counter)
		return v / MB, ok
	}
}

// gaugeOf is a gauge's value at the end of the interval.
func gaugeOf(gauge string) func(d *deltaCtx) (float64, bool) {
	return func(d *deltaCtx) (float64, bool) { return d.gauge(gauge) }
}

// hostShare is the share (%) of all CPU time that the named /proc/stat
// columns took; busy means everything but idle and iowait. serverHost
// asks for the server on this host (the host source), not just
// dbarena's host (the client source).
func hostShare(busy, serverHost bool, column string) func(d *deltaCtx) (float64, bool) {
	return func(d *deltaCtx) (float64, bool) {
		if _, ok := d.gauge(gServerHost); serverHost && !ok {
			return 0, false
		}
		total, ok := d.sum(hostCPUFields[:]...)
		if !ok || total == 0 {
			return 0, false
		}
		if busy {
			idle, _ := d.sum("host.cpu.idle", "host.cpu.iowait")
			return 100 * (total - idle) / total, true
		}
		v, _ := d.diff(column)
		return 100 * v / total, true
	}
}

// hitPct is 100·hits/(hits+misses) over the interval, absent without
// either.
func hitPct(hits, misses string) func(d *deltaCtx) (float64, bool) {
	return func(d *deltaCtx) (float64, bool) {
		h, ok1 := d.diff(hits)
		m, ok2 := d.diff(misses)
		if !ok1 || !ok2 || h+m == 0 {
			return 0, false
		}
		return 100 * h / (h + m), true
	}
}

// hitPctOfTotal is 100·(1 − misses/accesses) over the interval, absent
// without accesses.
func hitPctOfTotal(accesses, misses string) func(d *deltaCtx) (float64, bool) {
	return func(d *deltaCtx) (float64, bool) {
		req, ok1 := d.diff(accesses)
		miss, ok2 := d.diff(misses)
		if !ok1 || !ok2 || req == 0 {
			return 0, false
		}
		// Not clamped: more misses than accesses cannot be, and the
		// monitor leaves such a value out with a note.
		return 100 * (1 - miss/req), true
	}
}

// hitPctSummary recomputes a hit percentage from the interval rates of its
// parts, so that a run's figure is its total hits over its total accesses.
// hitsAreTotal means the first rate counts all accesses (hits and
// misses), as engine.MetricHitPctOfTotal's first counter does.
func hitPctSummary(hitsRate, missesRate string, hitsAreTotal bool) func(ivs []Interval) (float64, bool) {
	return func(ivs []Interval) (float64, bool) {
		var h, m float64
		for _, iv := range ivs {
			hv, ok1 := iv[hitsRate]
			mv, ok2 := iv[missesRate]
			secs := iv[IntervalKey]
			if !ok1 || !ok2 || secs <= 0 {
				continue
			}
			h += hv * secs
			m += mv * secs
		}
		if hitsAreTotal {
			if h == 0 {
				return 0, false
			}
			if m > h {
				return 0, false // more misses than accesses: no figure
			}
			return 100 * (1 - m/h), true
		}
		if h+m == 0 {
			return 0, false
		}
		return 100 * h / (h + m), true
	}
}

// otherSlack is how far below zero the other work's share may read
// before it is an impossible value rather than the counters' rounding:
// /proc/stat and the processes' CPU times move in clock ticks, sampled
// at slightly different instants.
const otherSlack = 5

// otherCPU is host_other_cpu_pct: the share of the host's CPU time its
// processes ran (user, nice and system: not the hypervisor's steal nor
// interrupts, which the processes' own times leave out) less the
// server's process tree (when the server's CPU is on this host) and
// dbarena's own process, each as a share of all the host's CPUs. It is
// absent when the server is on this host but its CPU was not read.
func otherCPU(d *deltaCtx) (float64, bool) {
	total, ok := d.sum(hostCPUFields[:]...)
	procs, ok1 := d.sum("host.cpu.user", "host.cpu.nice", "host.cpu.system")
	client, ok2 := d.rate(cClientCPU)
	n, ok3 := d.gauge(gHostCPUs)
	if !ok || !ok1 || !ok2 || !ok3 || n <= 0 || total == 0 {
		return 0, false
	}
	v := 100*procs/total - client/1e6/n*100
	if _, local := d.gauge(gServerLocal); local {
		srv, ok := d.rate(cServerCPU)
		if !ok {
			return 0, false
		}
		v -= srv / 1e6 / n * 100
	}
	if v < 0 && v >= -otherSlack {
		v = 0
	}
	return v, true
}

func clampPct(v float64) float64 {
	return max(0, min(100, v))
}

// localDefs are the metrics of the server's process, the host and the
// disk, in the order Metrics lists them, before the engines' metrics.
var localDefs = []metricDef{
	// The server's processes on this host.
	{MetricInfo: MetricInfo{Name: "server_cpu_pct", Unit: "%", Help: "CPU (user+system) of the server's process and its descendants, % of one core (200 = two cores busy); /proc/<pid>/stat"},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.rate(cServerCPU)
			return v / 1e6 * 100, ok
		}},
	{MetricInfo: MetricInfo{Name: "server_cpu_cores", Unit: "cores", Help: "the same CPU in cores busy (server_cpu_pct / 100): 0.86 = 86% of one core"},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.rate(cServerCPU)
			return v / 1e6, ok
		}},
	{MetricInfo: MetricInfo{Name: "server_cpu_pct_host", Unit: "%", Help: "the same CPU as a share of all the host's CPUs, 0-100 (the \"Database %CPU\" of a study's table); needs the server on this host"},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.rate(cServerCPU)
			n, ok2 := d.gauge(gHostCPUs)
			if !ok || !ok2 || n <= 0 {
				return 0, false
			}
			return v / 1e6 / n * 100, true
		}},
	{MetricInfo: MetricInfo{Name: "server_procs", Unit: "processes", Help: "processes in the server's process tree at the end of the interval"},
		delta: gaugeOf(gServerProcs)},

	// The host, when the server runs on it.
	{MetricInfo: MetricInfo{Name: "host_cpu_pct", Unit: "%", Help: "busy share of all the host's CPUs (everything but idle and iowait), 0-100; /proc/stat"},
		delta: hostShare(true, true, "")},
	{MetricInfo: MetricInfo{Name: "host_iowait_pct", Unit: "%", Help: "share of all the host's CPU time idle while waiting for I/O, 0-100; /proc/stat"},
		delta: hostShare(false, true, "host.cpu.iowait")},
	{MetricInfo: MetricInfo{Name: "host_steal_pct", Unit: "%", Help: "share of this host's CPU time taken by the hypervisor, 0-100 (the host dbarena runs on, and the server when it is here); /proc/stat"},
		delta: hostShare(false, false, "host.cpu.steal")},
	{MetricInfo: MetricInfo{Name: "host_other_cpu_pct", Unit: "%", Help: "share of this host's CPUs busy with processes other than dbarena and the server, 0-100: user+nice+system time less the server's process tree (when it is here) and dbarena's own CPU; /proc/stat, /proc/self/stat"},
		delta: otherCPU},

	// dbarena's own process.
	{MetricInfo: MetricInfo{Name: "client_cpu_pct", Unit: "%", Help: "CPU (user+system) of dbarena's own process, % of one core (200 = two cores busy); /proc/self/stat"},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.rate(cClientCPU)
			return v / 1e6 * 100, ok
		}},

	// The block device of the data directory.
	{MetricInfo: MetricInfo{Name: "disk_iops", Unit: "/s", Help: "reads and writes completed per second on the data directory's block device; /proc/diskstats"},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.sum(cDiskReads, cDiskWrites)
			return v / d.secs, ok
		}},
	{MetricInfo: MetricInfo{Name: "disk_iops_pct", Unit: "%", Help: "disk_iops as a share of the IOPS the device was provisioned with (--provisioned-iops), as a cloud volume's dashboard shows it"},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.sum(cDiskReads, cDiskWrites)
			p, ok2 := d.gauge(gDiskProvisionedIOPS)
			if !ok || !ok2 || p <= 0 {
				return 0, false
			}
			return v / d.secs / p * 100, true
		}},
	{MetricInfo: MetricInfo{Name: "disk_read_mb_s", Unit: "MB/s", Help: "MB read per second from the data directory's block device"},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.rate(cDiskReadSectors)
			return v * sectorBytes / MB, ok
		}},
	{MetricInfo: MetricInfo{Name: "disk_write_mb_s", Unit: "MB/s", Help: "MB written per second to the data directory's block device"},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.rate(cDiskWriteSectors)
			return v * sectorBytes / MB, ok
		}},
	{MetricInfo: MetricInfo{Name: "disk_util_pct", Unit: "%", Help: "share of the interval the device had I/O in flight (iostat's %util), 0-100"},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.diff(cDiskIOMS)
			return clampPct(v / 10 / d.secs), ok
		}},
}
