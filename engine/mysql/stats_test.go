package mysql

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/statstest"
)

func TestMySQLSource(t *testing.T) {
	c := (&statstest.Conn{}).
		On("SHOW GLOBAL STATUS", nil,
			[]any{"Com_select", "12"}, []any{"COM_INSERT", []byte("5")}, // names in either case, values as text
			[]any{"Innodb_os_log_written", "1048576"}, []any{"Threads_running", "4"}, []any{"Uptime", "158"}).
		On("UNIX_TIMESTAMP()", nil, []any{int64(1795422569), "/run/mysqld/mysqld.pid", "/var/lib/mysql/"}).
		On("information_schema.processlist", nil, []any{"127.0.0.1:33822"})
	src, srv, notes := openMySQL(context.Background(), c)
	if src == nil || len(notes) != 0 {
		t.Fatalf("source %v notes %q", src, notes)
	}
	if want := (mysqlServer{pidFile: "/run/mysqld/mysqld.pid", dataDir: "/var/lib/mysql/", clientHost: "127.0.0.1:33822",
		startEpoch: 1795422569 - 158}); srv != want {
		t.Errorf("server %+v, want %+v", srv, want)
	}
	var s statstest.Sink
	if err := src.Sample(context.Background(), &s); err != nil {
		t.Fatal(err)
	}
	wantC := map[string]uint64{"mysql.Com_select": 12, "mysql.Com_insert": 5, "mysql.Innodb_os_log_written": 1 << 20}
	wantG := map[string]float64{"mysql.Threads_running": 3} // the monitor's own thread left out
	if !reflect.DeepEqual(s.Counters, wantC) || !reflect.DeepEqual(s.Gauges, wantG) {
		t.Errorf("counters %v gauges %v\nwant %v %v", s.Counters, s.Gauges, wantC, wantG)
	}

	bad := (&statstest.Conn{}).On("SHOW GLOBAL STATUS", nil, []any{"Com_select", "lots"})
	if err := (&mysqlSource{q: bad}).Sample(context.Background(), &statstest.Sink{}); err == nil || !strings.Contains(err.Error(), "Com_select") {
		t.Errorf("unparsable value: error %v", err)
	}
}

// Where the server's process is: from its pid file (relative to the data
// directory when not absolute), or by start time, when the server sees
// this client on a loopback address; remote otherwise; unknown without
// this connection's processlist row.
func TestOpenStatsLocatesProcess(t *testing.T) {
	names := []string{"mariadbd", "mysqld"}
	for _, tc := range []struct {
		name, pidFile, client string
		want                  engine.ProcessLocator
	}{
		{"absolute pid file", "/run/mysqld/mysqld.pid", "127.0.0.1:33822",
			engine.ProcessLocator{Names: names, PIDFile: "/run/mysqld/mysqld.pid", Start: 1795422569 - 158, DataDir: "/var/lib/mysql/"}},
		{"relative pid file", "host.pid", "localhost",
			engine.ProcessLocator{Names: names, PIDFile: "/var/lib/mysql/host.pid", Start: 1795422569 - 158, DataDir: "/var/lib/mysql/"}},
		{"remote", "host.pid", "10.1.2.3:5555",
			engine.ProcessLocator{Remote: "the server is not on this host (it sees this client as 10.1.2.3:5555)", DataDir: "/var/lib/mysql/"}},
		{"unknown client", "host.pid", "",
			engine.ProcessLocator{DataDir: "/var/lib/mysql/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := (&statstest.Conn{}).
				On("SHOW GLOBAL STATUS", nil, []any{"Com_select", "12"}, []any{"Uptime", "158"}).
				On("UNIX_TIMESTAMP()", nil, []any{int64(1795422569), tc.pidFile, "/var/lib/mysql/"}).
				On("information_schema.processlist", nil, []any{tc.client})
			op := openStats(context.Background(), c)
			if op.Source == nil || len(op.Notes) != 0 {
				t.Errorf("source %v notes %q", op.Source, op.Notes)
			}
			if !reflect.DeepEqual(op.Process, tc.want) {
				t.Errorf("process %+v\nwant    %+v", op.Process, tc.want)
			}
		})
	}
}
