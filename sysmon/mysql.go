package sysmon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func init() { registerServerStats("mysql", openMySQLStats) }

// openMySQLStats is MySQL's and MariaDB's part of Open: SHOW GLOBAL STATUS,
// the server's pid (from @@pid_file, else by start time among this host's
// processes, when this connection's client host is a loopback address)
// and @@datadir.
func openMySQLStats(ctx context.Context, o *opening) {
	m := o.m
	src, srv, notes := openMySQL(ctx, o.q)
	m.notes = append(m.notes, notes...)
	if src != nil {
		m.sources = append(m.sources, src)
	}
	if o.pid == 0 {
		switch {
		case srv.clientHost == "":
		case !isLoopback(srv.clientHost):
			m.addNote("process", "the server is not on this host (it sees this client as %s): no process, host or disk metrics (give its pid if it is)", srv.clientHost)
		default:
			p, err := m.mysqlPID(o.env, srv)
			if err != nil {
				m.addNote("process", "the server looks local but its pid was not found: %v", err)
			} else {
				o.pid, o.local = p, true
			}
		}
	}
	if o.dataDir == "" && o.local {
		o.dataDir = srv.dataDir
	}
}

// mysqlPID finds a local MySQL/MariaDB server's pid: from its pid file,
// else among this host's processes.
func (m *Monitor) mysqlPID(env procEnv, srv mysqlServer) (int, error) {
	pidFile := srv.pidFile
	if pidFile != "" && !filepath.IsAbs(pidFile) {
		pidFile = filepath.Join(srv.dataDir, pidFile)
	}
	b, err := os.ReadFile(pidFile)
	if err == nil {
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if perr != nil {
			return 0, fmt.Errorf("pid file %s: %v", pidFile, perr)
		}
		return env.mysqlPID(pid, srv.startEpoch)
	}
	pid, ferr := env.findMySQLPID(srv.startEpoch)
	if ferr != nil {
		return 0, fmt.Errorf("pid file %q: %v; %v", pidFile, err, ferr)
	}
	return pid, nil
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
	q querier
}

func (m *mysqlSource) Name() string { return "mysql" }

func (m *mysqlSource) Sample(ctx context.Context, s *Sample) error {
	_, err := m.read(ctx, s)
	return err
}

// read samples into s and returns the server's uptime in seconds.
func (m *mysqlSource) read(ctx context.Context, s *Sample) (uptime int64, err error) {
	err = m.q.QueryRows(ctx, mysqlStatusSQL, nil, func(row []any) error {
		if len(row) < 2 {
			return fmt.Errorf("SHOW GLOBAL STATUS: %d columns, want 2", len(row))
		}
		name, val := asString(row[0]), asString(row[1])
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
func openMySQL(ctx context.Context, q querier) (*mysqlSource, mysqlServer, []string) {
	var srv mysqlServer
	var notes []string
	src := &mysqlSource{q: q}
	uptime, err := src.read(ctx, &Sample{})
	if err != nil {
		notes = append(notes, fmt.Sprintf("mysql: cannot read SHOW GLOBAL STATUS (%v): no MySQL metrics", err))
		src = nil
	}
	var now int64
	err = q.QueryRows(ctx, "SELECT UNIX_TIMESTAMP(), @@pid_file, @@datadir", nil, func(row []any) error {
		if len(row) < 3 {
			return fmt.Errorf("%d columns", len(row))
		}
		now, _ = asInt64(row[0])
		srv.pidFile, srv.dataDir = asString(row[1]), asString(row[2])
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
			srv.clientHost = asString(row[0])
		}
		return nil
	})
	if err != nil {
		notes = append(notes, fmt.Sprintf("mysql: cannot read this connection's processlist row (%v)", err))
	}
	return src, srv, notes
}
