package sysmon_test

import (
	"fmt"
	"time"

	"github.com/dbarena/dbarena/sysmon"
)

// Compact's live-line format: only the metrics an interval has, in a fixed
// order; checkpoints only when there were some.
func ExampleCompact() {
	pg := sysmon.Interval{"interval_s": 1, "server_cpu_pct": 143.4, "server_cpu_cores": 1.434, "server_cpu_pct_host": 71.7, "host_cpu_pct": 71.2, "host_iowait_pct": 2.1,
		"disk_iops": 120.4, "pg_wal_mb_s": 3.14, "pg_blks_hit_pct": 99.84, "pg_checkpoints": 1, "pg_commits_s": 2310}
	fmt.Println(sysmon.Compact(pg))
	pg["pg_checkpoints"] = 0
	fmt.Println(sysmon.Compact(pg))
	fmt.Println(sysmon.Compact(sysmon.Interval{"interval_s": 1, "server_cpu_pct": 143.4, "server_cpu_cores": 1.434}))
	remote := sysmon.Interval{"interval_s": 1, "mysql_log_mb_s": 0.84, "mysql_bp_hit_pct": 100, "mysql_com_select_s": 900}
	fmt.Printf("%q\n", sysmon.Compact(remote))
	fmt.Printf("%q\n", sysmon.Compact(sysmon.Interval{"interval_s": 1}))
	// Output:
	// srv cpu 72% of host (1.43 cores) host 71% io 2% iops 120 wal 3.1MB/s hit 99.8% ckpt 1
	// srv cpu 72% of host (1.43 cores) host 71% io 2% iops 120 wal 3.1MB/s hit 99.8%
	// srv cpu 1.43 cores
	// "log 0.8MB/s hit 100.0%"
	// ""
}

// Two samples one second apart make an interval of per-second rates;
// Summary weights intervals by their length.
func ExampleDelta() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := &sysmon.Sample{Time: t0}
	prev.SetCounter("pg.xact_commit", 1000)
	prev.SetCounter("pg.wal_bytes", 1<<30)
	cur := &sysmon.Sample{Time: t0.Add(2 * time.Second)}
	cur.SetCounter("pg.xact_commit", 5000)
	cur.SetCounter("pg.wal_bytes", 1<<30+5<<20)
	cur.SetGauge("pg.sessions.active", 8)

	iv := sysmon.Delta(prev, cur)
	fmt.Println(iv["interval_s"], iv["pg_commits_s"], iv["pg_wal_mb_s"], iv["pg_sessions_active"])

	s := sysmon.Summary([]sysmon.Interval{iv, {"interval_s": 1, "pg_commits_s": 500}})
	fmt.Println(s["interval_s"], s["pg_commits_s"])
	// Output:
	// 2 2000 2.5 8
	// 3 1500
}
