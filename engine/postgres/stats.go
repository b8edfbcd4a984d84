package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/statsutil"
)

// serverStats is PostgreSQL's part of the server metrics: the statistics
// views, the postmaster (the parent of pg_backend_pid() when the server's
// address is a loopback one or a Unix socket) and data_directory (else the
// postmaster's -D), with pg_wal kept apart.
var serverStats = &engine.ServerStats{Open: openStats, Metrics: metrics}

// openStats learns about the server through c and says where its process
// is.
func openStats(ctx context.Context, conn engine.Conn) engine.ServerStatsOpening {
	c, ok := conn.(engine.StatsConn)
	if !ok {
		return engine.ServerStatsOpening{Notes: []string{fmt.Sprintf("postgres: the monitor's connection (%T) runs no queries: no PostgreSQL metrics", conn)}}
	}
	src, srv, notes := openPostgres(ctx, c)
	out := engine.ServerStatsOpening{Notes: notes}
	if src != nil {
		out.Source = src
	}
	loc := engine.ProcessLocator{DataDir: srv.dataDir, DataDirFlag: "-D", LogDir: "pg_wal"}
	if srv.backendPID > 0 {
		if !statsutil.IsLoopback(srv.serverAddr) {
			loc.Remote = fmt.Sprintf("the server is not on this host (inet_server_addr() is %s)", srv.serverAddr)
		} else {
			loc.Local = srv.serverAddr
			if loc.Local == "" {
				loc.Local = "a Unix socket"
			}
			loc.Names = []string{"postgres", "postmaster"}
			loc.ParentOf = srv.backendPID
			loc.Start = srv.startEpoch
		}
	}
	out.Process = loc
	return out
}

// pgSource reads PostgreSQL's cumulative statistics views in one round
// trip: a UNION ALL of (name, value) rows, one branch per view that worked
// when the source was opened.
type pgSource struct {
	q   engine.StatsConn
	sql string
}

var _ engine.StatsSource = (*pgSource)(nil)

func (p *pgSource) Name() string { return "postgres" }

// pgSessionGauges are the pg_stat_activity gauges the sessions branch
// produces; a state with no session gives no row, so each starts at 0.
var pgSessionGauges = [...]string{"active", "idle", "idle_in_txn", "other", "lock_wait"}

func (p *pgSource) Sample(ctx context.Context, s engine.StatsSink) error {
	var sessions map[string]float64
	if strings.Contains(p.sql, "pg_stat_activity") {
		sessions = make(map[string]float64, len(pgSessionGauges))
		for _, g := range pgSessionGauges {
			sessions[g] = 0
		}
	}
	err := p.q.QueryRows(ctx, p.sql, nil, func(row []any) error {
		if len(row) < 2 {
			return fmt.Errorf("postgres statistics: %d columns, want 2", len(row))
		}
		name := statsutil.String(row[0])
		v, ok := statsutil.Int64(row[1])
		if !ok {
			return nil // NULL: a view without that column's value (e.g. never reset)
		}
		if g, ok := strings.CutPrefix(name, "sessions."); ok {
			sessions[g] = float64(v)
			return nil
		}
		s.SetCounter("pg."+name, uint64(max(v, 0)))
		return nil
	})
	if err != nil {
		return err
	}
	if sessions != nil {
		var total float64
		for _, g := range pgSessionGauges {
			if g != "lock_wait" {
				total += sessions[g]
			}
			if g != "other" {
				s.SetGauge("pg.sessions."+g, sessions[g])
			}
		}
		s.SetGauge("pg.sessions.total", total)
	}
	return nil
}

// pgPart is one branch of the statistics query.
type pgPart struct {
	what string // for notes: the view
	sql  string
}

// pgParts returns the statistics query's branches for a server version
// (server_version_num), and notes on what that version lacks.
func pgParts(version int) ([]pgPart, []string) {
	var parts []pgPart
	var notes []string
	unpivot := func(what, from string, cols ...[2]string) pgPart {
		vals := make([]string, len(cols))
		for i, c := range cols {
			vals[i] = fmt.Sprintf("('%s'::text, (%s)::bigint)", c[0], c[1])
		}
		return pgPart{what, "SELECT v.n, v.v FROM " + from + " CROSS JOIN LATERAL (VALUES " + strings.Join(vals, ", ") + ") AS v(n, v)"}
	}
	parts = append(parts, unpivot("pg_stat_database", "pg_stat_database s",
		[2]string{"xact_commit", "s.xact_commit"}, [2]string{"xact_rollback", "s.xact_rollback"},
		[2]string{"blks_read", "s.blks_read"}, [2]string{"blks_hit", "s.blks_hit"},
		[2]string{"tup_returned", "s.tup_returned"}, [2]string{"tup_fetched", "s.tup_fetched"},
		[2]string{"tup_inserted", "s.tup_inserted"}, [2]string{"tup_updated", "s.tup_updated"},
		[2]string{"tup_deleted", "s.tup_deleted"}))
	parts[0].sql += " WHERE s.datname = current_database()"
	if version >= 170000 {
		parts = append(parts,
			unpivot("pg_stat_checkpointer", "pg_stat_checkpointer s",
				[2]string{"checkpoints_timed", "s.num_timed"}, [2]string{"checkpoints_req", "s.num_requested"},
				[2]string{"buffers_checkpoint", "s.buffers_written"}),
			unpivot("pg_stat_bgwriter", "pg_stat_bgwriter s", [2]string{"buffers_clean", "s.buffers_clean"}))
		notes = append(notes, "postgres: PostgreSQL 17 moved buffers_backend out of pg_stat_bgwriter (into pg_stat_io): pg_buffers_backend_s is absent")
	} else {
		parts = append(parts, unpivot("pg_stat_bgwriter", "pg_stat_bgwriter s",
			[2]string{"checkpoints_timed", "s.checkpoints_timed"}, [2]string{"checkpoints_req", "s.checkpoints_req"},
			[2]string{"buffers_checkpoint", "s.buffers_checkpoint"}, [2]string{"buffers_clean", "s.buffers_clean"},
			[2]string{"buffers_backend", "s.buffers_backend"}))
	}
	if version >= 140000 {
		parts = append(parts, unpivot("pg_stat_wal", "pg_stat_wal s",
			[2]string{"wal_records", "s.wal_records"}, [2]string{"wal_fpi", "s.wal_fpi"},
			[2]string{"wal_bytes", "s.wal_bytes"}))
	} else {
		notes = append(notes, fmt.Sprintf("postgres: pg_stat_wal needs PostgreSQL 14 (server_version_num %d): the pg_wal_* metrics are absent", version))
	}
	// Client sessions other than the monitor's by state; waits on
	// heavyweight locks.
	parts = append(parts, pgPart{"pg_stat_activity", `SELECT 'sessions.' || CASE state WHEN 'active' THEN 'active' WHEN 'idle' THEN 'idle' ` +
		`WHEN 'idle in transaction' THEN 'idle_in_txn' WHEN 'idle in transaction (aborted)' THEN 'idle_in_txn' ELSE 'other' END, count(*) ` +
		`FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() GROUP BY 1 ` +
		`UNION ALL SELECT 'sessions.lock_wait', count(*) FROM pg_stat_activity ` +
		`WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`})
	return parts, notes
}

// pgServer is what the monitor learns about a PostgreSQL server when it
// opens.
type pgServer struct {
	backendPID  int
	serverAddr  string  // inet_server_addr(); "" over a Unix socket
	startEpoch  float64 // pg_postmaster_start_time(), seconds since the epoch
	version     int     // server_version_num
	dataDir     string  // "" when the role may not read it
	readAllStat bool    // may see every session's state
}

// openPostgres learns about the server, tries every statistics view once
// and returns a source that reads those that worked, with notes on those
// that did not. A nil source means nothing can be read.
func openPostgres(ctx context.Context, q engine.StatsConn) (*pgSource, pgServer, []string) {
	var srv pgServer
	var notes []string
	err := q.QueryRows(ctx, `SELECT pg_backend_pid(), coalesce(host(inet_server_addr()), ''), `+
		`extract(epoch FROM pg_postmaster_start_time())::float8, current_setting('server_version_num')::int, `+
		`pg_has_role(current_user, 'pg_read_all_stats', 'USAGE')`, nil, func(row []any) error {
		if len(row) < 5 {
			return fmt.Errorf("%d columns", len(row))
		}
		pid, _ := statsutil.Int64(row[0])
		ver, _ := statsutil.Int64(row[3])
		srv.backendPID, srv.version = int(pid), int(ver)
		srv.serverAddr = statsutil.String(row[1])
		srv.startEpoch, _ = statsutil.Float64(row[2])
		srv.readAllStat, _ = row[4].(bool)
		return nil
	})
	if err != nil {
		return nil, srv, []string{fmt.Sprintf("postgres: cannot identify the server (%v): no PostgreSQL metrics", err)}
	}
	err = q.QueryRows(ctx, "SELECT current_setting('data_directory')", nil, func(row []any) error {
		if len(row) > 0 {
			srv.dataDir = statsutil.String(row[0])
		}
		return nil
	})
	if err != nil {
		notes = append(notes, fmt.Sprintf("postgres: cannot read data_directory (%v; it needs superuser or pg_read_all_settings)", err))
	}
	parts, vnotes := pgParts(srv.version)
	notes = append(notes, vnotes...)
	var ok []string
	for _, p := range parts {
		if err := q.QueryRows(ctx, p.sql, nil, func([]any) error { return nil }); err != nil {
			notes = append(notes, fmt.Sprintf("postgres: cannot read %s (%v): its metrics are absent", p.what, err))
			continue
		}
		ok = append(ok, p.sql)
		if p.what == "pg_stat_activity" && !srv.readAllStat {
			notes = append(notes, "postgres: this role lacks pg_read_all_stats: the state of other roles' sessions is hidden, so pg_sessions_* count only what it may see")
		}
	}
	if len(ok) == 0 {
		return nil, srv, notes
	}
	return &pgSource{q: q, sql: strings.Join(ok, " UNION ALL ")}, srv, notes
}

// rate, count and gauge shorten the metric table.
func rate(name, help, counter string) engine.StatsMetric {
	return engine.StatsMetric{Name: name, Unit: "/s", Help: help, Kind: engine.MetricRate, Counters: []string{counter}}
}

func count(name, help string, counters ...string) engine.StatsMetric {
	return engine.StatsMetric{Name: name, Unit: "count", Help: help, Kind: engine.MetricCount, Counters: counters}
}

func gauge(name, unit, help, g string) engine.StatsMetric {
	return engine.StatsMetric{Name: name, Unit: unit, Help: help, Kind: engine.MetricGauge, Counters: []string{g}}
}

// metrics are PostgreSQL's server metrics, in the order reports list them.
var metrics = []engine.StatsMetric{
	// pg_stat_database (the current database).
	rate("pg_commits_s", "transactions committed per second in the current database (pg_stat_database.xact_commit; the monitor's own query adds one per sample)", "pg.xact_commit"),
	rate("pg_rollbacks_s", "transactions rolled back per second (xact_rollback)", "pg.xact_rollback"),
	rate("pg_blks_read_s", "blocks read from outside shared buffers per second (blks_read)", "pg.blks_read"),
	rate("pg_blks_hit_s", "blocks found in shared buffers per second (blks_hit)", "pg.blks_hit"),
	{Name: "pg_blks_hit_pct", Unit: "%", Help: "shared-buffer hit ratio, 100·hit/(hit+read); absent without block accesses",
		Kind: engine.MetricHitPct, Counters: []string{"pg.blks_hit", "pg.blks_read"}, Parts: [2]string{"pg_blks_hit_s", "pg_blks_read_s"},
		Live: engine.LiveHit, LiveLabel: "hit"},
	rate("pg_tup_returned_s", "rows returned by scans per second (tup_returned)", "pg.tup_returned"),
	rate("pg_tup_fetched_s", "rows fetched by index scans per second (tup_fetched)", "pg.tup_fetched"),
	rate("pg_tup_inserted_s", "rows inserted per second (tup_inserted)", "pg.tup_inserted"),
	rate("pg_tup_updated_s", "rows updated per second (tup_updated)", "pg.tup_updated"),
	rate("pg_tup_deleted_s", "rows deleted per second (tup_deleted)", "pg.tup_deleted"),

	// pg_stat_bgwriter, pg_stat_checkpointer (17+).
	withLive(count("pg_checkpoints", "checkpoints started in the interval, timed and requested (checkpoints_timed+checkpoints_req; 17+: num_timed+num_requested)",
		"pg.checkpoints_timed", "pg.checkpoints_req"), engine.LiveEvents, "ckpt"),
	count("pg_checkpoints_req", "requested checkpoints in the interval (WAL reached max_wal_size, or CHECKPOINT)", "pg.checkpoints_req"),
	rate("pg_buffers_checkpoint_s", "buffers written by checkpoints per second (buffers_checkpoint; 17+: pg_stat_checkpointer.buffers_written)", "pg.buffers_checkpoint"),
	rate("pg_buffers_clean_s", "buffers written by the background writer per second (buffers_clean)", "pg.buffers_clean"),
	rate("pg_buffers_backend_s", "buffers written by backends themselves per second (buffers_backend; not in PostgreSQL 17+)", "pg.buffers_backend"),

	// pg_stat_wal (14+).
	rate("pg_wal_records_s", "WAL records generated per second (pg_stat_wal.wal_records)", "pg.wal_records"),
	rate("pg_wal_fpi_s", "WAL full-page images per second (wal_fpi)", "pg.wal_fpi"),
	{Name: "pg_wal_mb_s", Unit: "MB/s", Help: "WAL generated per second in MB (wal_bytes)",
		Kind: engine.MetricMBRate, Counters: []string{"pg.wal_bytes"}, Live: engine.LiveLog, LiveLabel: "wal"},

	// pg_stat_activity (gauges at the end of the interval).
	gauge("pg_sessions_active", "sessions", "client sessions running a statement (state active), the monitor's own excluded", "pg.sessions.active"),
	gauge("pg_sessions_idle", "sessions", "client sessions idle (state idle)", "pg.sessions.idle"),
	gauge("pg_sessions_idle_in_txn", "sessions", "client sessions idle inside a transaction (idle in transaction, aborted or not)", "pg.sessions.idle_in_txn"),
	gauge("pg_sessions_lock_wait", "sessions", "client sessions waiting for a heavyweight lock (wait_event_type Lock)", "pg.sessions.lock_wait"),
	gauge("pg_sessions_total", "sessions", "all client sessions but the monitor's, whatever their state", "pg.sessions.total"),
}

func withLive(m engine.StatsMetric, slot engine.LiveSlot, label string) engine.StatsMetric {
	m.Live, m.LiveLabel = slot, label
	return m
}
