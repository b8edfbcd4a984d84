package postgres

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/statstest"
)

var errDenied = errors.New("ERROR: permission denied for view pg_stat_wal (SQLSTATE 42501)")

// pgIdentity answers openPostgres's first statement.
func pgIdentity(backend int64, addr string, start float64, version int64) []any {
	return []any{backend, addr, start, version, true}
}

func TestOpenPostgresSource(t *testing.T) {
	c := (&statstest.Conn{}).
		On("pg_backend_pid(), coalesce", nil, pgIdentity(3120, "127.0.0.1", 1795422400.5, 150018)).
		On("current_setting('data_directory')", nil, []any{"/var/lib/postgresql/15/main"}).
		On("FROM pg_stat_wal", errDenied).
		On("UNION ALL", nil,
			[]any{"xact_commit", int64(42)}, []any{"blks_hit", int64(7)}, []any{"tup_deleted", nil},
			[]any{"sessions.active", int64(3)}, []any{"sessions.idle", int64(2)}, []any{"sessions.other", int64(1)},
					[]any{"sessions.lock_wait", int64(1)}).
		On("FROM pg_stat", nil) // every other view works, with no rows
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
	var s statstest.Sink
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
	c := (&statstest.Conn{}).On("pg_backend_pid()", errors.New("connection refused"))
	src, _, notes := openPostgres(context.Background(), c)
	if src != nil || len(notes) != 1 || !strings.Contains(notes[0], "no PostgreSQL metrics") {
		t.Errorf("source %v notes %q", src, notes)
	}
	// Nothing known of the server: no process to look for.
	if op := openStats(context.Background(), c); op.Source != nil || !reflect.DeepEqual(op.Process, engine.ProcessLocator{DataDirFlag: "-D", LogDir: "pg_wal"}) {
		t.Errorf("opening %+v", op)
	}
}

// Where the postmaster is: the parent of the monitor's backend when the
// server's address is a loopback one or a Unix socket; remote otherwise.
func TestOpenStatsLocatesProcess(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want engine.ProcessLocator
	}{
		{"127.0.0.1", engine.ProcessLocator{Local: "127.0.0.1", Names: []string{"postgres", "postmaster"}, ParentOf: 3120, Start: 1795422400.5,
			DataDir: "/var/lib/postgresql/15/main", DataDirFlag: "-D", LogDir: "pg_wal"}},
		{"", engine.ProcessLocator{Local: "a Unix socket", Names: []string{"postgres", "postmaster"}, ParentOf: 3120, Start: 1795422400.5,
			DataDir: "/var/lib/postgresql/15/main", DataDirFlag: "-D", LogDir: "pg_wal"}},
		{"10.0.0.5", engine.ProcessLocator{Remote: "the server is not on this host (inet_server_addr() is 10.0.0.5)",
			DataDir: "/var/lib/postgresql/15/main", DataDirFlag: "-D", LogDir: "pg_wal"}},
	} {
		t.Run("addr="+tc.addr, func(t *testing.T) {
			c := (&statstest.Conn{}).
				On("pg_backend_pid(), coalesce", nil, pgIdentity(3120, tc.addr, 1795422400.5, 150018)).
				On("current_setting('data_directory')", nil, []any{"/var/lib/postgresql/15/main"}).
				On("FROM pg_stat", nil)
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
