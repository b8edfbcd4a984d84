// Package sysmon measures the database server while a benchmark runs: what
// the server reports about itself (PostgreSQL's pg_stat_* views, MySQL's
// and MariaDB's SHOW GLOBAL STATUS) for any target, and, when the server
// runs on this host, what Linux reports about it (the CPU of its
// processes, the host's CPU and iowait, the I/O of its data directory's
// block device) and the operating-system settings that tuning guides set.
// Wherever the server is, it also samples dbarena's own process and this
// host's CPU: the hypervisor's steal and the work of other processes,
// which Limits judge into a disturbed run (result.Run.Disturbed).
//
// # Model
//
// A Source reads raw values into a Sample: cumulative counters
// (pg_stat_database.xact_commit, /proc/stat's iowait ticks) and gauges
// (sessions by state). Delta turns two samples into an Interval, a flat
// map of named metrics whose names end in their unit (server_cpu_pct,
// disk_iops, pg_wal_mb_s, mysql_bp_hit_pct; Metrics lists them all), with
// rates per second of the interval and the interval's length under
// "interval_s". Summary summarises a run's intervals (time-weighted means,
// sums of counts, hit ratios from their totals) and Compact formats an
// interval for a live line:
//
//	srv cpu 72% of host (1.43 cores) host 71% io 2% iops 120 wal 3.1MB/s hit 99.8%
//
// A metric that cannot be computed is absent, never zero: its source is
// not there, a sample failed, a counter went backwards (statistics reset,
// server restart), a source started anew (no delta across a server
// restart), a ratio had nothing to divide by, or the value cannot be (a
// negative one, a percentage above 100, more server CPU than the host
// has; a note counts those).
//
// # Monitor
//
// Open builds a Monitor from what is known (a connection of its own, maybe
// a server pid, maybe a data directory), finds the rest (the server's pid
// where its engine's engine.ProcessLocator says to look, its data
// directory, the block device under it) and keeps, in Notes, the reason
// for every source it could not use. sysmon names no engine: an engine's
// statistics source, process names and metrics come from its
// registration (engine.Registration.ServerStats). Nothing in Open or in
// sampling is fatal: a lost connection is reopened (Config.Reopen) and a
// restarted server's new process followed. The runner calls Start when a
// run begins and Tick at every reporting tick:
//
//	mon := sysmon.Open(ctx, sysmon.Config{Conn: c, Dialect: d, ServerPID: pid, Reopen: reconnect})
//	mon.Start(ctx)
//	for range ticker.C {
//		iv := mon.Tick(ctx) // store in the result's interval; Compact(iv) for the live line
//	}
//	summary := sysmon.Summary(intervals)
//
// Everything under /proc and /sys is read through fs.FS values (Config.Proc
// and Config.Sys), so tests run on recorded fixtures. CPU times in /proc
// are in clock ticks; the tick is read from the auxiliary vector
// (AT_CLKTCK, as sysconf(_SC_CLK_TCK) does, without cgo) and assumed to be
// 100, Linux's USER_HZ, when it cannot be read.
//
// docs/ARCHITECTURE.md ("Server metrics (sysmon)") lists every metric with
// its unit and source.
package sysmon
