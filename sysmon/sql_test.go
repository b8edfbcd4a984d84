package sysmon

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
)

// fakeConn answers statements by the first registered fragment they
// contain, so the SQL sources and Open can be tested without a server.
type fakeConn struct {
	dialect string
	answers []answer
	queries []string
}

type answer struct {
	fragment string
	rows     [][]any
	err      error
}

func (f *fakeConn) on(fragment string, err error, rows ...[]any) *fakeConn {
	f.answers = append(f.answers, answer{fragment, rows, err})
	return f
}

func (f *fakeConn) QueryRows(_ context.Context, sql string, _ []any, fn func(row []any) error) error {
	f.queries = append(f.queries, sql)
	for _, a := range f.answers {
		if strings.Contains(sql, a.fragment) {
			if a.err != nil {
				return a.err
			}
			for _, r := range a.rows {
				if err := fn(r); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return errors.New("fakeConn: unexpected statement: " + sql)
}

func (f *fakeConn) Dialect() engine.SQLDialect { return fakeDialect{name: f.dialect} }

// fakeDialect has only a name; sysmon calls nothing else.
type fakeDialect struct {
	engine.SQLDialect
	name string
}

func (d fakeDialect) Name() string { return d.name }

var errDenied = errors.New("ERROR: permission denied for view pg_stat_wal (SQLSTATE 42501)")

// pgIdentity answers openPostgres's first statement.
func pgIdentity(backend int64, addr string, start float64, version int64) []any {
	return []any{backend, addr, start, version, true}
}

func TestOpenPostgresSource(t *testing.T) {
	c := (&fakeConn{dialect: "postgres"}).
		on("pg_backend_pid(), coalesce", nil, pgIdentity(3120, "127.0.0.1", 1795422400.5, 150018)).
		on("current_setting('data_directory')", nil, []any{"/var/lib/postgresql/15/main"}).
		on("FROM pg_stat_wal", errDenied).
		on("UNION ALL", nil,
			[]any{"xact_commit", int64(42)}, []any{"blks_hit", int64(7)}, []any{"tup_deleted", nil},
			[]any{"sessions.active", int64(3)}, []any{"sessions.idle", int64(2)}, []any{"sessions.other", int64(1)},
					[]any{"sessions.lock_wait", int64(1)}).
		on("FROM pg_stat", nil) // every other view works, with no rows
	src, srv, notes := openPostgres(context.Background(), c)
	if src == nil {
		t.Fatalf("no source; notes %v", notes)
	}
	if want := (pgServer{backendPID: 3120, serverAddr: "127.0.0.1", startEpoch: 1795422400.5, version: 150018,
		dataDir: "/var/lib/postgresql/15/main", readAllStat: true}); srv != want {
		t.Errorf("server %+v, want %+v", srv, want)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "cannot read pg_stat_wal") || !strings.Contains(notes[0], "permission denied") {
		t.Errorf("notes %q, want one about pg_stat_wal", notes)
	}
	for _, v := range []string{"pg_stat_database", "pg_stat_bgwriter", "pg_stat_activity"} {
		if !strings.Contains(src.sql, v) {
			t.Errorf("statistics query lacks %s: %s", v, src.sql)
		}
	}
	if strings.Contains(src.sql, "pg_stat_wal") || strings.Contains(src.sql, "pg_stat_checkpointer") {
		t.Errorf("statistics query reads a view it should not: %s", src.sql)
	}
	var s Sample
	if err := src.Sample(context.Background(), &s); err != nil {
		t.Fatal(err)
	}
	wantC := map[string]uint64{"pg.xact_commit": 42, "pg.blks_hit": 7}
	wantG := map[string]float64{"pg.sessions.active": 3, "pg.sessions.idle": 2, "pg.sessions.idle_in_txn": 0,
		"pg.sessions.lock_wait": 1, "pg.sessions.total": 6}
	if !reflect.DeepEqual(s.Counters, wantC) || !reflect.DeepEqual(s.Gauges, wantG) {
		t.Errorf("counters %v gauges %v\nwant %v %v", s.Counters, s.Gauges, wantC, wantG)
	}
}

func TestPgPartsByVersion(t *testing.T) {
	for _, tc := range []struct {
		version        int
		views, missing []string
		notes          int
	}{
		{130012, []string{"pg_stat_database", "pg_stat_bgwriter", "pg_stat_activity"}, []string{"pg_stat_wal", "pg_stat_checkpointer"}, 1},
		{150018, []string{"pg_stat_wal", "buffers_backend"}, []string{"pg_stat_checkpointer"}, 0},
		{170002, []string{"pg_stat_checkpointer", "num_requested", "pg_stat_wal", "pg_stat_bgwriter"}, []string{"buffers_backend", "checkpoints_req"}, 1},
	} {
		t.Run("version="+strconv.Itoa(tc.version), func(t *testing.T) {
			parts, notes := pgParts(tc.version)
			var all []string
			for _, p := range parts {
				all = append(all, p.sql)
			}
			sql := strings.Join(all, " UNION ALL ")
			for _, v := range tc.views {
				if !strings.Contains(sql, v) {
					t.Errorf("lacks %s", v)
				}
			}
			for _, v := range tc.missing {
				if strings.Contains(sql, v+" ") || strings.Contains(sql, "s."+v) {
					t.Errorf("reads %s", v)
				}
			}
			if len(notes) != tc.notes {
				t.Errorf("notes %q, want %d", notes, tc.notes)
			}
		})
	}
}

func TestOpenPostgresUnreadable(t *testing.T) {
	c := (&fakeConn{dialect: "postgres"}).on("pg_backend_pid()", errors.New("connection refused"))
	src, _, notes := openPostgres(context.Background(), c)
	if src != nil || len(notes) != 1 || !strings.Contains(notes[0], "no PostgreSQL metrics") {
		t.Errorf("source %v notes %q", src, notes)
	}
}

func TestMySQLSource(t *testing.T) {
	c := (&fakeConn{dialect: "mysql"}).
		on("SHOW GLOBAL STATUS", nil,
			[]any{"Com_select", "12"}, []any{"COM_INSERT", []byte("5")}, // names in either case, values as text
			[]any{"Innodb_os_log_written", "1048576"}, []any{"Threads_running", "4"}, []any{"Uptime", "158"}).
		on("UNIX_TIMESTAMP()", nil, []any{int64(1795422569), "/run/mysqld/mysqld.pid", "/var/lib/mysql/"}).
		on("information_schema.processlist", nil, []any{"127.0.0.1:33822"})
	src, srv, notes := openMySQL(context.Background(), c)
	if src == nil || len(notes) != 0 {
		t.Fatalf("source %v notes %q", src, notes)
	}
	if want := (mysqlServer{pidFile: "/run/mysqld/mysqld.pid", dataDir: "/var/lib/mysql/", clientHost: "127.0.0.1:33822",
		startEpoch: 1795422569 - 158}); srv != want {
		t.Errorf("server %+v, want %+v", srv, want)
	}
	var s Sample
	if err := src.Sample(context.Background(), &s); err != nil {
		t.Fatal(err)
	}
	wantC := map[string]uint64{"mysql.Com_select": 12, "mysql.Com_insert": 5, "mysql.Innodb_os_log_written": 1 << 20}
	wantG := map[string]float64{"mysql.Threads_running": 3} // the monitor's own thread left out
	if !reflect.DeepEqual(s.Counters, wantC) || !reflect.DeepEqual(s.Gauges, wantG) {
		t.Errorf("counters %v gauges %v\nwant %v %v", s.Counters, s.Gauges, wantC, wantG)
	}

	bad := (&fakeConn{dialect: "mysql"}).on("SHOW GLOBAL STATUS", nil, []any{"Com_select", "lots"})
	if err := (&mysqlSource{q: bad}).Sample(context.Background(), &Sample{}); err == nil || !strings.Contains(err.Error(), "Com_select") {
		t.Errorf("unparsable value: error %v", err)
	}
}
