package sysmon

// MB is the unit of every *_mb_s metric: 2^20 bytes, as iostat's -m.
const MB = 1 << 20

// sectorBytes is the size of the sectors /proc/diskstats counts, whatever
// the device's own sector size.
const sectorBytes = 512

// MetricInfo describes one metric of an Interval and of a Summary.
type MetricInfo struct {
	// Name is the key in Interval and Summary maps; it ends in its unit.
	Name string
	// Unit is the unit for labels: "%", "/s", "MB/s", "count" (of events
	// in the interval), "sessions", "processes" or "threads".
	Unit string
	// Help says what is measured and where it comes from.
	Help string
	// Summed tells that Summary adds the metric up over the intervals (a
	// count of events) rather than averaging it.
	Summed bool
}

// metricDef is a metric and how it is computed.
type metricDef struct {
	MetricInfo
	// delta computes the metric for one interval; false leaves it out.
	delta func(d *deltaCtx) (float64, bool)
	// summary, when set, replaces the time-weighted mean (or the sum, for
	// Summed metrics) in Summary: ratios are recomputed from their parts.
	summary func(ivs []Interval) (float64, bool)
}

// Metrics lists every metric an Interval may hold, in a stable order
// (server process, host, disk, PostgreSQL, MySQL/MariaDB). IntervalKey is
// not listed.
func Metrics() []MetricInfo {
	out := make([]MetricInfo, len(metricDefs))
	for i, m := range metricDefs {
		out[i] = m.MetricInfo
	}
	return out
}

// Raw counter and gauge names that sources write into a Sample.
const (
	cServerCPU   = "server.cpu_us" // user+system CPU of the process tree, µs
	gServerProcs = "server.procs"

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
// columns took; busy means everything but idle and iowait.
func hostShare(busy bool, column string) func(d *deltaCtx) (float64, bool) {
	return func(d *deltaCtx) (float64, bool) {
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

// hitPctSummary recomputes a hit percentage from the interval rates of its
// parts, so that a run's figure is its total hits over its total accesses.
// hitsAreTotal means the first rate counts all accesses (hits and
// misses), as InnoDB's read requests do.
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
			return clampPct(100 * (1 - m/h)), true
		}
		if h+m == 0 {
			return 0, false
		}
		return 100 * h / (h + m), true
	}
}

func clampPct(v float64) float64 {
	return max(0, min(100, v))
}

// metricDefs is every metric, in the order Metrics lists them.
var metricDefs = []metricDef{
	// The server's processes on this host.
	{MetricInfo: MetricInfo{"server_cpu_pct", "%", "CPU (user+system) of the server's process and its descendants, % of one core (200 = two cores busy); /proc/<pid>/stat", false},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.rate(cServerCPU)
			return v / 1e6 * 100, ok
		}},
	{MetricInfo: MetricInfo{"server_procs", "processes", "processes in the server's process tree at the end of the interval", false},
		delta: gaugeOf(gServerProcs)},

	// The host, when the server runs on it.
	{MetricInfo: MetricInfo{"host_cpu_pct", "%", "busy share of all the host's CPUs (everything but idle and iowait), 0-100; /proc/stat", false},
		delta: hostShare(true, "")},
	{MetricInfo: MetricInfo{"host_iowait_pct", "%", "share of all the host's CPU time idle while waiting for I/O, 0-100; /proc/stat", false},
		delta: hostShare(false, "host.cpu.iowait")},
	{MetricInfo: MetricInfo{"host_steal_pct", "%", "share of the host's CPU time taken by the hypervisor, 0-100; /proc/stat", false},
		delta: hostShare(false, "host.cpu.steal")},

	// The block device of the data directory.
	{MetricInfo: MetricInfo{"disk_iops", "/s", "reads and writes completed per second on the data directory's block device; /proc/diskstats", false},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.sum(cDiskReads, cDiskWrites)
			return v / d.secs, ok
		}},
	{MetricInfo: MetricInfo{"disk_read_mb_s", "MB/s", "MB read per second from the data directory's block device", false},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.rate(cDiskReadSectors)
			return v * sectorBytes / MB, ok
		}},
	{MetricInfo: MetricInfo{"disk_write_mb_s", "MB/s", "MB written per second to the data directory's block device", false},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.rate(cDiskWriteSectors)
			return v * sectorBytes / MB, ok
		}},
	{MetricInfo: MetricInfo{"disk_util_pct", "%", "share of the interval the device had I/O in flight (iostat's %util), 0-100", false},
		delta: func(d *deltaCtx) (float64, bool) {
			v, ok := d.diff(cDiskIOMS)
			return clampPct(v / 10 / d.secs), ok
		}},

	// PostgreSQL: pg_stat_database (the current database).
	{MetricInfo: MetricInfo{"pg_commits_s", "/s", "transactions committed per second in the current database (pg_stat_database.xact_commit; the monitor's own query adds one per sample)", false},
		delta: rateOf("pg.xact_commit")},
	{MetricInfo: MetricInfo{"pg_rollbacks_s", "/s", "transactions rolled back per second (xact_rollback)", false},
		delta: rateOf("pg.xact_rollback")},
	{MetricInfo: MetricInfo{"pg_blks_read_s", "/s", "blocks read from outside shared buffers per second (blks_read)", false},
		delta: rateOf("pg.blks_read")},
	{MetricInfo: MetricInfo{"pg_blks_hit_s", "/s", "blocks found in shared buffers per second (blks_hit)", false},
		delta: rateOf("pg.blks_hit")},
	{MetricInfo: MetricInfo{"pg_blks_hit_pct", "%", "shared-buffer hit ratio, 100·hit/(hit+read); absent without block accesses", false},
		delta: hitPct("pg.blks_hit", "pg.blks_read"), summary: hitPctSummary("pg_blks_hit_s", "pg_blks_read_s", false)},
	{MetricInfo: MetricInfo{"pg_tup_returned_s", "/s", "rows returned by scans per second (tup_returned)", false},
		delta: rateOf("pg.tup_returned")},
	{MetricInfo: MetricInfo{"pg_tup_fetched_s", "/s", "rows fetched by index scans per second (tup_fetched)", false},
		delta: rateOf("pg.tup_fetched")},
	{MetricInfo: MetricInfo{"pg_tup_inserted_s", "/s", "rows inserted per second (tup_inserted)", false},
		delta: rateOf("pg.tup_inserted")},
	{MetricInfo: MetricInfo{"pg_tup_updated_s", "/s", "rows updated per second (tup_updated)", false},
		delta: rateOf("pg.tup_updated")},
	{MetricInfo: MetricInfo{"pg_tup_deleted_s", "/s", "rows deleted per second (tup_deleted)", false},
		delta: rateOf("pg.tup_deleted")},

	// PostgreSQL: pg_stat_bgwriter, pg_stat_checkpointer (17+).
	{MetricInfo: MetricInfo{"pg_checkpoints", "count", "checkpoints started in the interval, timed and requested (checkpoints_timed+checkpoints_req; 17+: num_timed+num_requested)", true},
		delta: countOf("pg.checkpoints_timed", "pg.checkpoints_req")},
	{MetricInfo: MetricInfo{"pg_checkpoints_req", "count", "requested checkpoints in the interval (WAL reached max_wal_size, or CHECKPOINT)", true},
		delta: countOf("pg.checkpoints_req")},
	{MetricInfo: MetricInfo{"pg_buffers_checkpoint_s", "/s", "buffers written by checkpoints per second (buffers_checkpoint; 17+: pg_stat_checkpointer.buffers_written)", false},
		delta: rateOf("pg.buffers_checkpoint")},
	{MetricInfo: MetricInfo{"pg_buffers_clean_s", "/s", "buffers written by the background writer per second (buffers_clean)", false},
		delta: rateOf("pg.buffers_clean")},
	{MetricInfo: MetricInfo{"pg_buffers_backend_s", "/s", "buffers written by backends themselves per second (buffers_backend; not in PostgreSQL 17+)", false},
		delta: rateOf("pg.buffers_backend")},

	// PostgreSQL: pg_stat_wal (14+).
	{MetricInfo: MetricInfo{"pg_wal_records_s", "/s", "WAL records generated per second (pg_stat_wal.wal_records)", false},
		delta: rateOf("pg.wal_records")},
	{MetricInfo: MetricInfo{"pg_wal_fpi_s", "/s", "WAL full-page images per second (wal_fpi)", false},
		delta: rateOf("pg.wal_fpi")},
	{MetricInfo: MetricInfo{"pg_wal_mb_s", "MB/s", "WAL generated per second in MB (wal_bytes)", false},
		delta: mbRateOf("pg.wal_bytes")},

	// PostgreSQL: pg_stat_activity (gauges at the end of the interval).
	{MetricInfo: MetricInfo{"pg_sessions_active", "sessions", "client sessions running a statement (state active), the monitor's own excluded", false},
		delta: gaugeOf("pg.sessions.active")},
	{MetricInfo: MetricInfo{"pg_sessions_idle", "sessions", "client sessions idle (state idle)", false},
		delta: gaugeOf("pg.sessions.idle")},
	{MetricInfo: MetricInfo{"pg_sessions_idle_in_txn", "sessions", "client sessions idle inside a transaction (idle in transaction, aborted or not)", false},
		delta: gaugeOf("pg.sessions.idle_in_txn")},
	{MetricInfo: MetricInfo{"pg_sessions_lock_wait", "sessions", "client sessions waiting for a heavyweight lock (wait_event_type Lock)", false},
		delta: gaugeOf("pg.sessions.lock_wait")},
	{MetricInfo: MetricInfo{"pg_sessions_total", "sessions", "all client sessions but the monitor's, whatever their state", false},
		delta: gaugeOf("pg.sessions.total")},

	// MySQL/MariaDB: SHOW GLOBAL STATUS.
	{MetricInfo: MetricInfo{"mysql_com_select_s", "/s", "SELECT statements per second (Com_select)", false},
		delta: rateOf("mysql.Com_select")},
	{MetricInfo: MetricInfo{"mysql_com_insert_s", "/s", "INSERT statements per second (Com_insert)", false},
		delta: rateOf("mysql.Com_insert")},
	{MetricInfo: MetricInfo{"mysql_com_update_s", "/s", "UPDATE statements per second (Com_update)", false},
		delta: rateOf("mysql.Com_update")},
	{MetricInfo: MetricInfo{"mysql_com_delete_s", "/s", "DELETE statements per second (Com_delete)", false},
		delta: rateOf("mysql.Com_delete")},
	{MetricInfo: MetricInfo{"mysql_com_commit_s", "/s", "explicit COMMITs per second (Com_commit; autocommitted statements are not counted)", false},
		delta: rateOf("mysql.Com_commit")},
	{MetricInfo: MetricInfo{"mysql_com_rollback_s", "/s", "explicit ROLLBACKs per second (Com_rollback)", false},
		delta: rateOf("mysql.Com_rollback")},
	{MetricInfo: MetricInfo{"mysql_bp_read_requests_s", "/s", "InnoDB buffer pool logical reads per second (Innodb_buffer_pool_read_requests)", false},
		delta: rateOf("mysql.Innodb_buffer_pool_read_requests")},
	{MetricInfo: MetricInfo{"mysql_bp_reads_s", "/s", "InnoDB logical reads the buffer pool missed, read from disk, per second (Innodb_buffer_pool_reads)", false},
		delta: rateOf("mysql.Innodb_buffer_pool_reads")},
	{MetricInfo: MetricInfo{"mysql_bp_hit_pct", "%", "buffer pool hit ratio, 100·(1 − reads/read_requests); absent without read requests", false},
		delta: func(d *deltaCtx) (float64, bool) {
			req, ok1 := d.diff("mysql.Innodb_buffer_pool_read_requests")
			miss, ok2 := d.diff("mysql.Innodb_buffer_pool_reads")
			if !ok1 || !ok2 || req == 0 {
				return 0, false
			}
			return clampPct(100 * (1 - miss/req)), true
		},
		summary: hitPctSummary("mysql_bp_read_requests_s", "mysql_bp_reads_s", true)},
	{MetricInfo: MetricInfo{"mysql_data_writes_s", "/s", "InnoDB data write operations per second (Innodb_data_writes)", false},
		delta: rateOf("mysql.Innodb_data_writes")},
	{MetricInfo: MetricInfo{"mysql_log_mb_s", "MB/s", "InnoDB redo log written per second in MB (Innodb_os_log_written)", false},
		delta: mbRateOf("mysql.Innodb_os_log_written")},
	{MetricInfo: MetricInfo{"mysql_threads_running", "threads", "threads executing a statement (Threads_running), the monitor's own excluded", false},
		delta: gaugeOf("mysql.Threads_running")},
}
