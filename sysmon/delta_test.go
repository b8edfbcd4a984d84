package sysmon

import (
	"math"
	"reflect"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func sample(at time.Time, counters map[string]uint64, gauges map[string]float64) *Sample {
	return &Sample{Time: at, Counters: counters, Gauges: gauges}
}

// Two samples 2 s apart with hand-chosen counters; every expected value is
// worked out by hand in the comments.
func TestDelta(t *testing.T) {
	prev := sample(t0, map[string]uint64{
		"server.cpu_us": 10_000_000,
		"host.cpu.user": 1000, "host.cpu.nice": 5, "host.cpu.system": 500, "host.cpu.idle": 8000,
		"host.cpu.iowait": 100, "host.cpu.irq": 0, "host.cpu.softirq": 50, "host.cpu.steal": 0,
		"disk.reads": 100, "disk.writes": 1000, "disk.read_sectors": 5000, "disk.write_sectors": 9000, "disk.io_ms": 70000,
		"pg.xact_commit": 1000, "pg.xact_rollback": 10, "pg.blks_read": 500, "pg.blks_hit": 20000,
		"pg.tup_returned": 0, "pg.tup_fetched": 0, "pg.tup_inserted": 0, "pg.tup_updated": 0, "pg.tup_deleted": 100,
		"pg.checkpoints_timed": 3, "pg.checkpoints_req": 5, "pg.buffers_checkpoint": 0, "pg.buffers_clean": 0,
		"pg.buffers_backend": 7,
		"pg.wal_records":     0, "pg.wal_fpi": 0, "pg.wal_bytes": 1 << 30,
		"mysql.Com_select": 5, "mysql.Innodb_buffer_pool_read_requests": 0, "mysql.Innodb_buffer_pool_reads": 0,
		"mysql.Innodb_os_log_written": 0,
	}, nil)
	cur := sample(t0.Add(2*time.Second), map[string]uint64{
		"server.cpu_us": 12_860_000, // 2.86 s of CPU in 2 s: 143%
		// user +300, system +100, idle +360, iowait +20, softirq +12,
		// steal +8: 800 ticks, of which 420 busy (52.5%), 20 iowait
		// (2.5%), 8 steal (1%). nice and irq unchanged.
		"host.cpu.user": 1300, "host.cpu.nice": 5, "host.cpu.system": 600, "host.cpu.idle": 8360,
		"host.cpu.iowait": 120, "host.cpu.irq": 0, "host.cpu.softirq": 62, "host.cpu.steal": 8,
		// 40 reads + 200 writes in 2 s: 120 IOPS; 4096 sectors read = 2
		// MB in 2 s: 1 MB/s; 12288 written = 6 MB: 3 MB/s; 500 ms busy
		// in 2000: 25%.
		"disk.reads": 140, "disk.writes": 1200, "disk.read_sectors": 9096, "disk.write_sectors": 21288, "disk.io_ms": 70500,
		// 4620 commits: 2310/s; 4 rollbacks: 2/s; 20 read + 1980 hit:
		// 10/s, 990/s, 99%.
		"pg.xact_commit": 5620, "pg.xact_rollback": 14, "pg.blks_read": 520, "pg.blks_hit": 21980,
		"pg.tup_returned": 300, "pg.tup_fetched": 200, "pg.tup_inserted": 10, "pg.tup_updated": 6, "pg.tup_deleted": 50, // deleted went backwards
		// One timed checkpoint, no requested one.
		"pg.checkpoints_timed": 4, "pg.checkpoints_req": 5, "pg.buffers_checkpoint": 1000, "pg.buffers_clean": 20,
		// pg.buffers_backend missing (PostgreSQL 17).
		// 6 MB of WAL in 2 s: 3 MB/s.
		"pg.wal_records": 900, "pg.wal_fpi": 30, "pg.wal_bytes": 1<<30 + 6<<20,
		// 1000 selects: 500/s; 10000 requests, 50 misses: 99.5% hits;
		// 2 MB of redo: 1 MB/s.
		"mysql.Com_select": 1005, "mysql.Innodb_buffer_pool_read_requests": 10000, "mysql.Innodb_buffer_pool_reads": 50,
		"mysql.Innodb_os_log_written": 2 << 20,
	}, map[string]float64{
		"server.procs":       6,
		"host.server":        1, // the host source's: the server is here
		"pg.sessions.active": 7, "pg.sessions.idle": 1, "pg.sessions.idle_in_txn": 0, "pg.sessions.lock_wait": 2, "pg.sessions.total": 8,
		"mysql.Threads_running": 3,
	})
	want := Interval{
		"interval_s":       2,
		"server_cpu_pct":   143,
		"server_cpu_cores": 1.43,
		"server_procs":     6,
		"host_cpu_pct":     52.5,
		"host_iowait_pct":  2.5,
		"host_steal_pct":   1,
		"disk_iops":        120,
		"disk_read_mb_s":   1,
		"disk_write_mb_s":  3,
		"disk_util_pct":    25,
		"pg_commits_s":     2310, "pg_rollbacks_s": 2,
		"pg_blks_read_s": 10, "pg_blks_hit_s": 990, "pg_blks_hit_pct": 99,
		"pg_tup_returned_s": 150, "pg_tup_fetched_s": 100, "pg_tup_inserted_s": 5, "pg_tup_updated_s": 3,
		"pg_checkpoints": 1, "pg_checkpoints_req": 0,
		"pg_buffers_checkpoint_s": 500, "pg_buffers_clean_s": 10,
		"pg_wal_records_s": 450, "pg_wal_fpi_s": 15, "pg_wal_mb_s": 3,
		"pg_sessions_active": 7, "pg_sessions_idle": 1, "pg_sessions_idle_in_txn": 0, "pg_sessions_lock_wait": 2, "pg_sessions_total": 8,
		"mysql_com_select_s": 500, "mysql_bp_read_requests_s": 5000, "mysql_bp_reads_s": 25, "mysql_bp_hit_pct": 99.5,
		"mysql_log_mb_s":        1,
		"mysql_threads_running": 3,
	}
	got := Delta(prev, cur)
	if !reflect.DeepEqual(got, want) {
		for k, v := range want {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
			}
		}
		for k, v := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("unexpected %s = %v", k, v)
			}
		}
	}
	if b := Backwards(prev, cur); !reflect.DeepEqual(b, []string{"pg.tup_deleted"}) {
		t.Errorf("Backwards = %v, want [pg.tup_deleted]", b)
	}
}

func TestDeltaEdges(t *testing.T) {
	a := sample(t0, map[string]uint64{"pg.blks_hit": 5, "pg.blks_read": 5, "host.cpu.idle": 10}, nil)
	for name, tc := range map[string]struct {
		prev, cur *Sample
		want      Interval
	}{
		"no previous sample": {nil, a, nil},
		"same instant":       {a, a, nil},
		"earlier":            {sample(t0.Add(time.Second), nil, nil), a, nil},
		// No block accesses: no hit ratio (not 0, not 100); the rates
		// are 0. Host CPU with only idle present: absent.
		"nothing happened": {a, sample(t0.Add(500*time.Millisecond), map[string]uint64{"pg.blks_hit": 5, "pg.blks_read": 5, "host.cpu.idle": 60}, nil),
			Interval{"interval_s": 0.5, "pg_blks_hit_s": 0, "pg_blks_read_s": 0}},
	} {
		t.Run(name, func(t *testing.T) {
			if got := Delta(tc.prev, tc.cur); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if b := Backwards(nil, a); b != nil {
		t.Errorf("Backwards(nil, a) = %v", b)
	}
}

func TestSummary(t *testing.T) {
	ivs := []Interval{
		{"interval_s": 1, "server_cpu_pct": 100, "pg_blks_hit_s": 90, "pg_blks_read_s": 10, "pg_blks_hit_pct": 90, "pg_checkpoints": 0, "future_metric": 4},
		{"interval_s": 3, "server_cpu_pct": 200, "pg_blks_hit_s": 400, "pg_blks_read_s": 0, "pg_blks_hit_pct": 100, "pg_checkpoints": 1},
		{"interval_s": 0, "server_cpu_pct": 999, "pg_checkpoints": 50}, // no length: ignored
		{"server_cpu_pct": 999}, // no length: ignored
		// The process source failed in this one.
		{"interval_s": 1, "disk_iops": 50, "pg_checkpoints": 2, "mysql_bp_read_requests_s": 1000, "mysql_bp_reads_s": 10, "mysql_bp_hit_pct": 99},
	}
	want := map[string]float64{
		"interval_s": 5,
		// (100·1 + 200·3) / (1 + 3): the interval without the metric
		// does not count.
		"server_cpu_pct": 175,
		// (90·1 + 400·3) / 4 and 10·1 / 4.
		"pg_blks_hit_s": 322.5, "pg_blks_read_s": 2.5,
		// Total hits over total accesses: 1290 / 1300 = 99.2307…, not
		// the time-weighted mean of the percentages (97.5).
		"pg_blks_hit_pct": 99.231,
		// A count: 0 + 1 + 2.
		"pg_checkpoints": 3,
		"disk_iops":      50,
		// 100·(1 − 10/1000).
		"mysql_bp_read_requests_s": 1000, "mysql_bp_reads_s": 10, "mysql_bp_hit_pct": 99,
		// Unknown to this build: a time-weighted mean (4·1 / 1).
		"future_metric": 4,
	}
	if got := Summary(ivs); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if got := Summary(nil); got != nil {
		t.Errorf("Summary(nil) = %v", got)
	}
	// A hit percentage whose parts have no accesses at all is absent.
	if got := Summary([]Interval{{"interval_s": 1, "pg_blks_hit_pct": 50}}); got != nil {
		if _, ok := got["pg_blks_hit_pct"]; ok {
			t.Errorf("hit pct without its parts: %v", got)
		}
	}
}

// The metric table is consistent: unique names ending in a unit, help for
// each, sums only for counts.
func TestMetrics(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Metrics() {
		if seen[m.Name] {
			t.Errorf("%s listed twice", m.Name)
		}
		seen[m.Name] = true
		if m.Help == "" || m.Unit == "" {
			t.Errorf("%s: no help or unit", m.Name)
		}
		if m.Summed != (m.Unit == "count") {
			t.Errorf("%s: Summed %v for unit %s", m.Name, m.Summed, m.Unit)
		}
	}
	if seen[IntervalKey] {
		t.Errorf("%s is not a metric", IntervalKey)
	}
}

// The other work on the host is its busy share less the server's and
// dbarena's, each a share of all the CPUs; dbarena's own CPU is in % of
// one core. Worked out by hand: 4 CPUs, 2 s, 800 ticks.
func TestDeltaOtherWork(t *testing.T) {
	host := func(user, system, idle, steal uint64) map[string]uint64 {
		return map[string]uint64{"host.cpu.user": user, "host.cpu.nice": 0, "host.cpu.system": system, "host.cpu.idle": idle,
			"host.cpu.iowait": 0, "host.cpu.irq": 0, "host.cpu.softirq": 0, "host.cpu.steal": steal}
	}
	with := func(m map[string]uint64, kv ...any) map[string]uint64 {
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(uint64)
		}
		return m
	}
	// user +500, system +100, idle +160, steal +40: processes ran 600
	// of 800 ticks (75%; steal, 5%, is not theirs). The server used 1 s of CPU in 2 s (0.5 of
	// a core, 12.5% of the host); dbarena 1.6 s (0.8 of a core, 80%;
	// 20% of the host): the rest, 75 − 12.5 − 20 = 42.5%, is other work.
	for _, tc := range []struct {
		name        string
		prev, cur   map[string]uint64
		gauges      map[string]float64
		other       float64
		otherAbsent bool
	}{
		{"server here", with(host(1000, 1000, 1000, 0), "server.cpu_us", uint64(5_000_000), "client.cpu_us", uint64(3_000_000)),
			with(host(1500, 1100, 1160, 40), "server.cpu_us", uint64(6_000_000), "client.cpu_us", uint64(4_600_000)),
			map[string]float64{"host.cpus": 4, "client.server_local": 1}, 42.5, false},
		// Remote (or embedded): the server's CPU is not this host's.
		{"server elsewhere", with(host(1000, 1000, 1000, 0), "client.cpu_us", uint64(3_000_000)),
			with(host(1500, 1100, 1160, 40), "client.cpu_us", uint64(4_600_000)),
			map[string]float64{"host.cpus": 4}, 55, false},
		// Here, but its CPU unread: the other work cannot be told apart.
		{"server here, unread", with(host(1000, 1000, 1000, 0), "client.cpu_us", uint64(3_000_000)),
			with(host(1500, 1100, 1160, 40), "client.cpu_us", uint64(4_600_000)),
			map[string]float64{"host.cpus": 4, "client.server_local": 1}, 0, true},
		// Ticks rounded: a little below zero reads 0 (processes 200 of
		// 800 ticks, 25%; dbarena 2.08 s in 2 s, 26% of the host).
		{"rounding", with(host(1000, 1000, 1000, 0), "client.cpu_us", uint64(0)),
			with(host(1100, 1100, 1600, 0), "client.cpu_us", uint64(2_080_000)),
			map[string]float64{"host.cpus": 4}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			iv := Delta(sample(t0, tc.prev, nil), sample(t0.Add(2*time.Second), tc.cur, tc.gauges))
			if v, ok := iv["host_other_cpu_pct"]; ok == tc.otherAbsent || (ok && math.Abs(v-tc.other) > 1e-9) {
				t.Errorf("host_other_cpu_pct = %v (present %v), want %v (absent %v)", v, ok, tc.other, tc.otherAbsent)
			}
			if v := iv["client_cpu_pct"]; math.Abs(v-80) > 1e-9 && tc.name != "rounding" {
				t.Errorf("client_cpu_pct = %v, want 80", v)
			}
			if v := iv["host_steal_pct"]; tc.name != "rounding" && math.Abs(v-5) > 1e-9 {
				t.Errorf("host_steal_pct = %v, want 5", v)
			}
			// Without the host source, the server's host is not known
			// to be this one: no host_cpu_pct.
			if v, ok := iv["host_cpu_pct"]; ok {
				t.Errorf("host_cpu_pct = %v from the client source alone", v)
			}
		})
	}
}
