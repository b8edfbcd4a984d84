package sysmon

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

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
