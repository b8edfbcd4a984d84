package sysmon

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

func init() { registerServerStats("postgres", openPostgresStats) }

// openPostgresStats is PostgreSQL's part of Open: the statistics views,
// the postmaster's pid (the parent of pg_backend_pid(), when the server's
// address is a loopback one) and data_directory (else the postmaster's -D).
func openPostgresStats(ctx context.Context, o *opening) {
	m := o.m
	src, srv, notes := openPostgres(ctx, o.q)
	m.notes = append(m.notes, notes...)
	if src != nil {
		m.sources = append(m.sources, src)
	}
	if o.pid == 0 && srv.backendPID > 0 {
		if !isLoopback(srv.serverAddr) {
			m.addNote("process", "the server is not on this host (inet_server_addr() is %s): no process, host or disk metrics (give its pid if it is)", srv.serverAddr)
		} else if p, err := o.env.postgresPID(srv.backendPID, srv.startEpoch); err != nil {
			m.addNote("process", "the server looks local (%s) but its pid was not found: %v", displayAddr(srv.serverAddr), err)
		} else {
			o.pid, o.local = p, true
		}
	}
	if o.dataDir == "" && o.local {
		o.dataDir = srv.dataDir
		if o.dataDir == "" && o.pid > 0 {
			o.dataDir = pgDataDirFromCmdline(o.env.proc, o.pid)
		}
	}
	o.logDir = "pg_wal"
}

// pgDataDirFromCmdline returns the -D argument of the postmaster's command
// line, or "".
func pgDataDirFromCmdline(proc fs.FS, pid int) string {
	b, err := fs.ReadFile(proc, strconv.Itoa(pid)+"/cmdline")
	if err != nil {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	for i, a := range args {
		if a == "-D" && i+1 < len(args) {
			return args[i+1]
		}
		if d, ok := strings.CutPrefix(a, "-D"); ok && d != "" {
			return d
		}
	}
	return ""
}

// pgSource reads PostgreSQL's cumulative statistics views in one round
// trip: a UNION ALL of (name, value) rows, one branch per view that worked
// when the source was opened.
type pgSource struct {
	q   querier
	sql string
}

func (p *pgSource) Name() string { return "postgres" }

// pgSessionGauges are the pg_stat_activity gauges the sessions branch
// produces; a state with no session gives no row, so each starts at 0.
var pgSessionGauges = [...]string{"active", "idle", "idle_in_txn", "other", "lock_wait"}

func (p *pgSource) Sample(ctx context.Context, s *Sample) error {
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
		name := asString(row[0])
		v, ok := asInt64(row[1])
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
func openPostgres(ctx context.Context, q querier) (*pgSource, pgServer, []string) {
	var srv pgServer
	var notes []string
	err := q.QueryRows(ctx, `SELECT pg_backend_pid(), coalesce(host(inet_server_addr()), ''), `+
		`extract(epoch FROM pg_postmaster_start_time())::float8, current_setting('server_version_num')::int, `+
		`pg_has_role(current_user, 'pg_read_all_stats', 'USAGE')`, nil, func(row []any) error {
		if len(row) < 5 {
			return fmt.Errorf("%d columns", len(row))
		}
		pid, _ := asInt64(row[0])
		ver, _ := asInt64(row[3])
		srv.backendPID, srv.version = int(pid), int(ver)
		srv.serverAddr = asString(row[1])
		srv.startEpoch, _ = asFloat64(row[2])
		srv.readAllStat, _ = row[4].(bool)
		return nil
	})
	if err != nil {
		return nil, srv, []string{fmt.Sprintf("postgres: cannot identify the server (%v): no PostgreSQL metrics", err)}
	}
	err = q.QueryRows(ctx, "SELECT current_setting('data_directory')", nil, func(row []any) error {
		if len(row) > 0 {
			srv.dataDir = asString(row[0])
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
