package mysql

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/statsutil"
)

// serverStats is MySQL's and MariaDB's part of the server metrics: SHOW
// GLOBAL STATUS, the server's process (from @@pid_file, else by start time
// among this host's mariadbd and mysqld processes, when this connection's
// client host is a loopback address) and @@datadir.
var serverStats = &engine.ServerStats{Open: openStats, Metrics: metrics}

// openStats learns about the server through c and says where its process
// is.
func openStats(ctx context.Context, conn engine.Conn) engine.ServerStatsOpening {
	c, ok := conn.(engine.StatsConn)
	if !ok {
		return engine.ServerStatsOpening{Notes: []string{fmt.Sprintf("mysql: the monitor's connection (%T) runs no queries: no MySQL metrics", conn)}}
	}
	src, srv, notes := openMySQL(ctx, c)
	out := engine.ServerStatsOpening{Notes: notes}
	if src != nil {
		out.Source = src
	}
	loc := engine.ProcessLocator{DataDir: srv.dataDir}
	switch {
	case srv.clientHost == "":
	case !statsutil.IsLoopback(srv.clientHost):
		loc.Remote = fmt.Sprintf("the server is not on this host (it sees this client as %s)", srv.clientHost)
	default:
		loc.Names = []string{"mariadbd", "mysqld"}
		loc.PIDFile = srv.pidFile
		if loc.PIDFile != "" && !filepath.IsAbs(loc.PIDFile) {
			loc.PIDFile = filepath.Join(srv.dataDir, loc.PIDFile)
		}
		loc.Start = srv.startEpoch
	}
	out.Process = loc
	return out
}

// mysqlCounters are the SHOW GLOBAL STATUS counters sampled.
var mysqlCounters = []string{
	"Com_select", "Com_insert", "Com_update", "Com_delete", "Com_commit", "Com_rollback",
	"Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests",
	"Innodb_data_writes", "Innodb_os_log_written",
}

// mysqlStatusSQL reads the counters, Threads_running and Uptime in one
// statement.
var mysqlStatusSQL = "SHOW GLOBAL STATUS WHERE Variable_name IN ('" +
	strings.Join(mysqlCounters, "', '") + "', 'Threads_running', 'Uptime')"

// mysqlSource reads SHOW GLOBAL STATUS.
type mysqlSource struct {
	q engine.StatsConn
}

var _ engine.StatsSource = (*mysqlSource)(nil)

func (m *mysqlSource) Name() string { return "mysql" }

func (m *mysqlSource) Sample(ctx context.Context, s engine.StatsSink) error {
	_, err := m.read(ctx, s)
	return err
}

// discard is a sink that keeps nothing.
type discard struct{}

func (discard) SetCounter(string, uint64) {}
func (discard) SetGauge(string, float64)  {}

// read samples into s and returns the server's uptime in seconds.
func (m *mysqlSource) read(ctx context.Context, s engine.StatsSink) (uptime int64, err error) {
	err = m.q.QueryRows(ctx, mysqlStatusSQL, nil, func(row []any) error {
		if len(row) < 2 {
			return fmt.Errorf("SHOW GLOBAL STATUS: %d columns, want 2", len(row))
		}
		name, val := statsutil.String(row[0]), statsutil.String(row[1])
		// Variable_name's case differs between versions (Com_select,
		// COM_SELECT); the value is a decimal string.
		for _, c := range mysqlCounters {
			if strings.EqualFold(name, c) {
				v, err := strconv.ParseUint(val, 10, 64)
				if err != nil {
					return fmt.Errorf("SHOW GLOBAL STATUS: %s = %q: %w", c, val, err)
				}
				s.SetCounter("mysql."+c, v)
				return nil
			}
		}
		v, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return fmt.Errorf("SHOW GLOBAL STATUS: %s = %q: %w", name, val, err)
		}
		switch {
		case strings.EqualFold(name, "Threads_running"):
			// The thread running this statement is one of them.
			s.SetGauge("mysql.Threads_running", float64(max(v-1, 0)))
		case strings.EqualFold(name, "Uptime"):
			uptime = v
		}
		return nil
	})
	return uptime, err
}

// mysqlServer is what the monitor learns about a MySQL/MariaDB server when
// it opens.
type mysqlServer struct {
	pidFile    string
	dataDir    string
	clientHost string  // this connection's client as the server sees it: "127.0.0.1:40512", "localhost"
	startEpoch float64 // now − Uptime, seconds since the epoch
}

// openMySQL learns about the server and tries SHOW GLOBAL STATUS once. A nil
// source means it cannot be read.
func openMySQL(ctx context.Context, q engine.StatsConn) (*mysqlSource, mysqlServer, []string) {
	var srv mysqlServer
	var notes []string
	src := &mysqlSource{q: q}
	uptime, err := src.read(ctx, discard{})
	if err != nil {
		notes = append(notes, fmt.Sprintf("mysql: cannot read SHOW GLOBAL STATUS (%v): no MySQL metrics", err))
		src = nil
	}
	var now int64
	err = q.QueryRows(ctx, "SELECT UNIX_TIMESTAMP(), @@pid_file, @@datadir", nil, func(row []any) error {
		if len(row) < 3 {
			return fmt.Errorf("%d columns", len(row))
		}
		now, _ = statsutil.Int64(row[0])
		srv.pidFile, srv.dataDir = statsutil.String(row[1]), statsutil.String(row[2])
		return nil
	})
	if err != nil {
		notes = append(notes, fmt.Sprintf("mysql: cannot read @@pid_file and @@datadir (%v)", err))
	}
	if uptime > 0 && now > 0 {
		srv.startEpoch = float64(now - uptime)
	}
	// The connection's own processlist row: its host is where the server
	// sees this client connect from.
	err = q.QueryRows(ctx, "SELECT host FROM information_schema.processlist WHERE id = CONNECTION_ID()", nil, func(row []any) error {
		if len(row) > 0 {
			srv.clientHost = statsutil.String(row[0])
		}
		return nil
	})
	if err != nil {
		notes = append(notes, fmt.Sprintf("mysql: cannot read this connection's processlist row (%v)", err))
	}
	return src, srv, notes
}

// rate shortens the metric table.
func rate(name, help, counter string) engine.StatsMetric {
	return engine.StatsMetric{Name: name, Unit: "/s", Help: help, Kind: engine.MetricRate, Counters: []string{counter}}
}

// metrics are MySQL's and MariaDB's server metrics, in the order reports
// list them.
var metrics = []engine.StatsMetric{
	rate("mysql_com_select_s", "SELECT statements per second (Com_select)", "mysql.Com_select"),
	rate("mysql_com_insert_s", "INSERT statements per second (Com_insert)", "mysql.Com_insert"),
	rate("mysql_com_update_s", "UPDATE statements per second (Com_update)", "mysql.Com_update"),
	rate("mysql_com_delete_s", "DELETE statements per second (Com_delete)", "mysql.Com_delete"),
	rate("mysql_com_commit_s", "explicit COMMITs per second (Com_commit; autocommitted statements are not counted)", "mysql.Com_commit"),
	rate("mysql_com_rollback_s", "explicit ROLLBACKs per second (Com_rollback)", "mysql.Com_rollback"),
	rate("mysql_bp_read_requests_s", "InnoDB buffer pool logical reads per second (Innodb_buffer_pool_read_requests)", "mysql.Innodb_buffer_pool_read_requests"),
	rate("mysql_bp_reads_s", "InnoDB logical reads the buffer pool missed, read from disk, per second (Innodb_buffer_pool_reads)", "mysql.Innodb_buffer_pool_reads"),
	{Name: "mysql_bp_hit_pct", Unit: "%", Help: "buffer pool hit ratio, 100·(1 − reads/read_requests); absent without read requests",
		Kind: engine.MetricHitPctOfTotal, Counters: []string{"mysql.Innodb_buffer_pool_read_requests", "mysql.Innodb_buffer_pool_reads"},
		Parts: [2]string{"mysql_bp_read_requests_s", "mysql_bp_reads_s"}, Live: engine.LiveHit, LiveLabel: "hit"},
	rate("mysql_data_writes_s", "InnoDB data write operations per second (Innodb_data_writes)", "mysql.Innodb_data_writes"),
	{Name: "mysql_log_mb_s", Unit: "MB/s", Help: "InnoDB redo log written per second in MB (Innodb_os_log_written)",
		Kind: engine.MetricMBRate, Counters: []string{"mysql.Innodb_os_log_written"}, Live: engine.LiveLog, LiveLabel: "log"},
	{Name: "mysql_threads_running", Unit: "threads", Help: "threads executing a statement (Threads_running), the monitor's own excluded",
		Kind: engine.MetricGauge, Counters: []string{"mysql.Threads_running"}},
}
