package sysmon

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// fakeClock returns t0, then one second later at every call.
func fakeClock() func() time.Time {
	n := 0
	return func() time.Time {
		n++
		return t0.Add(time.Duration(n-1) * time.Second)
	}
}

// The postmaster 3105 of the fixture sees its data directory on dm-0 in its
// own mount namespace (on sda2 in ours).
const pgMountinfo = `27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
70 27 253:0 /pg /var/lib/postgresql rw,noatime - ext4 /dev/mapper/vg0-pg rw,data=ordered
`

func TestOpenLocalFromFixtures(t *testing.T) {
	proc := procFixture(t)
	setFile(proc, "3105/mountinfo", pgMountinfo)
	ctx := context.Background()
	m := Open(ctx, Config{ServerPID: 3105, DataDir: "/var/lib/postgresql/15/main", Proc: proc, Sys: sysFixture(), Now: fakeClock(), ProvisionedIOPS: 200})
	if got, want := m.Sources(), []string{"process", "host", "disk"}; !reflect.DeepEqual(got, want) {
		t.Errorf("sources %v, want %v", got, want)
	}
	if n := m.Notes(); len(n) != 0 {
		t.Errorf("notes %q", n)
	}
	if m.ServerPID() != 3105 || m.DataDir() != "/var/lib/postgresql/15/main" || m.Device() != "dm-0" {
		t.Errorf("pid %d dir %q device %q", m.ServerPID(), m.DataDir(), m.Device())
	}
	if os := m.OSSettings(); os["os.datadir.device"] != "dm-0" || os["os.datadir.fstype"] != "ext4" || os["os.vm.dirty_ratio"] != "20" {
		t.Errorf("OS settings %v", os)
	}

	m.Start(ctx)
	// One second later: backend 3120 used 100 more ticks (1 s: 100%);
	// 3121 exited and was reaped, its 40 ticks now in 3120's cutime; the
	// host's CPUs: user +50, system +30, idle +110, iowait +10 (200
	// ticks: 40% busy, 5% iowait; two CPUs, so the server's one core
	// is 50% of the host); dm-0: 30 reads, 20 writes (25% of the 200
	// IOPS provisioned), 2048 sectors written (1 MB), 250 ms busy.
	setFile(proc, "3120/stat", "3120 (postgres) S 3105 3120 3120 0 -1 4194624 900 0 0 0 350 50 30 10 20 0 1 0 16500 0 0 0\n")
	delete(proc, "3121/stat")
	setFile(proc, "stat", "cpu  34545 28 12545 68467 734 0 1169 43 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\ncpu1 1 0 0 0 0 0 0 0 0 0\nbtime 1795422240\n")
	setFile(proc, "diskstats", " 253       0 dm-0 330 0 2400 100 420 0 5248 200 0 500 300 0 0 0 0\n")
	iv := m.Tick(ctx)
	want := Interval{"interval_s": 1, "server_cpu_pct": 100, "server_cpu_cores": 1, "server_cpu_pct_host": 50, "server_procs": 3,
		"host_cpu_pct": 40, "host_iowait_pct": 5, "host_steal_pct": 0,
		"disk_iops": 50, "disk_iops_pct": 25, "disk_read_mb_s": 0, "disk_write_mb_s": 1, "disk_util_pct": 25}
	if !reflect.DeepEqual(iv, want) {
		t.Errorf("interval %v\nwant     %v", iv, want)
	}

	// The disk's counters go backwards (a device reset), and the server
	// restarts under the same pid: both are noted, neither is fatal.
	setFile(proc, "diskstats", " 253       0 dm-0 1 0 2400 100 420 0 5248 200 0 500 300 0 0 0 0\n")
	setFile(proc, "3105/stat", "3105 (postgres) S 1 3105 3105 0 -1 4194304 0 0 0 0 1 2 6 12 20 0 1 0 99999 0 0 0\n")
	iv = m.Tick(ctx)
	if _, ok := iv["disk_iops"]; ok {
		t.Errorf("disk_iops present after reads went backwards: %v", iv)
	}
	if _, ok := iv["server_cpu_pct"]; ok {
		t.Errorf("server_cpu_pct present after a restart: %v", iv)
	}
	if _, ok := iv["disk_write_mb_s"]; !ok {
		t.Errorf("disk_write_mb_s absent, though its counter went on: %v", iv)
	}
	notes := strings.Join(m.Notes(), "\n")
	for _, want := range []string{
		"process: 1 of 3 samples failed, the last with: pid 3105: server process is gone (restarted?)",
		"counter disk.reads went backwards in 1 interval(s)",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	// Both are problems (measurements lost); the notes from Open are not.
	problems := m.Problems()
	if len(problems) != 2 || !strings.HasPrefix(problems[0], "counter disk.reads went backwards") ||
		!strings.HasPrefix(problems[1], "process: 1 of 3 samples failed") {
		t.Errorf("problems %q, want the failed samples and the counter that went backwards", problems)
	}
	m.WithNotes("postgres: not sampled: permission denied")
	if got := m.Problems(); len(got) != 2 {
		t.Errorf("problems %q after an informational note", got)
	}
	// A new result file starts without the problems of the files before
	// it; the informational notes stay.
	m.ResetProblems()
	if got := m.Problems(); len(got) != 0 {
		t.Errorf("problems %q after ResetProblems", got)
	}
	notes = strings.Join(m.Notes(), "\n")
	if strings.Contains(notes, "samples failed") || !strings.Contains(notes, "permission denied") {
		t.Errorf("notes after ResetProblems:\n%s", notes)
	}
	// What goes wrong afterwards counts from there: the process is still
	// gone.
	m.Tick(ctx)
	if got := m.Problems(); len(got) != 1 || !strings.HasPrefix(got[0], "process: 1 of 1 samples failed") {
		t.Errorf("problems %q after one more sample", got)
	}
}

func TestOpenNotes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		cfg     Config
		sources []string
		notes   []string // fragments, one per note
	}{
		{"nothing known", Config{}, []string{}, nil},
		{"overlay data directory", Config{ServerPID: 3105, DataDir: "/var/lib/docker/overlay2/abc/merged/pgdata"},
			[]string{"process", "host"},
			[]string{"disk: /var/lib/docker/overlay2/abc/merged/pgdata is on /var/lib/docker/overlay2/abc/merged (overlay from overlay, device 0:45), which is not a block device in /proc/diskstats: the disk metrics are absent"}},
		{"no such pid", Config{ServerPID: 99999}, []string{"host"},
			[]string{"process: pid 99999: open 99999/stat: file does not exist: no server CPU", "disk: the data directory is unknown"}},
		{"relative data directory", Config{DataDir: "pgdata"}, []string{"host"},
			[]string{`disk: data directory "pgdata" is not an absolute path`}},
		{"sqlite", Config{Conn: &fakeConn{dialect: "sqlite"}, Dialect: fakeDialect{name: "sqlite"}}, []string{}, []string{"sqlite: no server statistics for this engine"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Proc, tc.cfg.Sys = procFixture(t), sysFixture()
			m := Open(ctx, tc.cfg)
			if got := m.Sources(); !reflect.DeepEqual(got, tc.sources) {
				t.Errorf("sources %v, want %v", got, tc.sources)
			}
			notes := m.Notes()
			if len(notes) != len(tc.notes) {
				t.Fatalf("notes %q, want %d", notes, len(tc.notes))
			}
			for i, n := range tc.notes {
				if !strings.Contains(notes[i], n) {
					t.Errorf("note %q lacks %q", notes[i], n)
				}
			}
			if (m.OSSettings() != nil) != (len(tc.sources) > 0) {
				t.Errorf("OS settings %v with sources %v", m.OSSettings(), tc.sources)
			}
		})
	}
}

// Open with a PostgreSQL connection finds the postmaster from the backend
// and the data directory from the server, only when the server is local.
// A wall clock that drifted against the boot clock since the server
// started (25 s in 80 minutes) does not make its postmaster another
// process; a start 60 s off still does.
func TestOpenPostgresFindsServer(t *testing.T) {
	ctx := context.Background()
	const postmasterStart = 1795422240 + 160.08 // btime + 16008 ticks
	for _, tc := range []struct {
		name           string
		backend        int64
		addr           string
		start          float64
		pid            int
		sources, notes []string
		uptime         string // /proc/uptime, when set
	}{
		{"loopback", 3120, "127.0.0.1", postmasterStart + 0.5, 3105, []string{"postgres", "process", "host", "disk"}, nil, ""},
		{"unix socket", 3120, "", postmasterStart + 0.5, 3105, []string{"postgres", "process", "host", "disk"}, nil, ""},
		{"remote", 3120, "10.0.0.5", postmasterStart, 0, []string{"postgres"},
			[]string{"process: the server is not on this host (inet_server_addr() is 10.0.0.5)"}, ""},
		{"backend not here", 777, "127.0.0.1", postmasterStart, 0, []string{"postgres"},
			[]string{"process: the server looks local (127.0.0.1) but its pid was not found: backend pid 777 is not a process on this host"}, ""},
		{"not a postgres", 4000, "127.0.0.1", postmasterStart, 0, []string{"postgres"},
			[]string{`backend pid 4000 is "tricky) (name" on this host, not postgres`}, ""},
		{"started after the server", 3120, "127.0.0.1", postmasterStart - 60, 0, []string{"postgres"},
			[]string{"pid 3105 (postgres) started 60 s after the server did: another process"}, ""},
		{"wall clock drifted", 3120, "127.0.0.1", postmasterStart - 25, 3105, []string{"postgres", "process", "host", "disk"}, nil,
			"4960.08 9000.00\n"},
		{"started after the server, 80 minutes ago", 3120, "127.0.0.1", postmasterStart - 60, 0, []string{"postgres"},
			[]string{"pid 3105 (postgres) started 60 s after the server did: another process"}, "4960.08 9000.00\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := (&fakeConn{dialect: "postgres"}).
				on("pg_backend_pid(), coalesce", nil, pgIdentity(tc.backend, tc.addr, tc.start, 150018)).
				on("current_setting('data_directory')", nil, []any{"/var/lib/postgresql/15/main"}).
				on("FROM pg_stat", nil)
			proc := procFixture(t)
			setFile(proc, "3105/mountinfo", pgMountinfo)
			if tc.uptime != "" {
				setFile(proc, "uptime", tc.uptime)
			}
			m := Open(ctx, Config{Conn: c, Dialect: c.Dialect(), Proc: proc, Sys: sysFixture()})
			if m.ServerPID() != tc.pid {
				t.Errorf("pid %d, want %d", m.ServerPID(), tc.pid)
			}
			if got := m.Sources(); !reflect.DeepEqual(got, tc.sources) {
				t.Errorf("sources %v, want %v", got, tc.sources)
			}
			notes := m.Notes()
			if len(notes) != len(tc.notes) {
				t.Fatalf("notes %q, want %d", notes, len(tc.notes))
			}
			for i, n := range tc.notes {
				if !strings.Contains(notes[i], n) {
					t.Errorf("note %q lacks %q", notes[i], n)
				}
			}
		})
	}
}

// In our own mount namespace, the fixture's pg_wal is a mount of its own on
// another device than the data directory: a note says the disk metrics
// leave its writes out.
func TestOpenPostgresWALElsewhere(t *testing.T) {
	c := (&fakeConn{dialect: "postgres"}).
		on("pg_backend_pid(), coalesce", nil, pgIdentity(3120, "127.0.0.1", 1795422400.5, 150018)).
		on("current_setting('data_directory')", nil, []any{"/var/lib/postgresql/15/main"}).
		on("FROM pg_stat", nil)
	m := Open(context.Background(), Config{Conn: c, Dialect: c.Dialect(), Proc: procFixture(t), Sys: sysFixture()})
	want := []string{"disk: pg_wal (/var/lib/postgresql/15/main/pg_wal) is on sdb1, not on the data directory's sda2: the disk metrics leave out WAL writes"}
	if m.Device() != "sda2" || !reflect.DeepEqual(m.Notes(), want) {
		t.Errorf("device %q, notes %q; want sda2, %q", m.Device(), m.Notes(), want)
	}
}

func TestOpenMySQLFindsServer(t *testing.T) {
	ctx := context.Background()
	// mariadbd 5000 started 17084 ticks after boot: 1795422410.84.
	const stat = "5000 (mariadbd) S 1 5000 5000 0 -1 4194560 21482 189 3 0 2 9 0 0 20 0 10 0 17084 0 0 0\n"
	pidFile := filepath.Join(t.TempDir(), "my.pid")
	if err := os.WriteFile(pidFile, []byte("5000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, pidFile, client string
		pid                   int
		notes                 []string
	}{
		{"pid file", pidFile, "127.0.0.1:33822", 5000, nil},
		{"socket", pidFile, "localhost", 5000, nil},
		{"pid file unreadable: found by start time", "/nonexistent/my.pid", "127.0.0.1:33822", 5000, nil},
		{"remote", pidFile, "10.1.2.3:5555", 0, []string{"process: the server is not on this host (it sees this client as 10.1.2.3:5555)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := (&fakeConn{dialect: "mysql"}).
				on("SHOW GLOBAL STATUS", nil, []any{"Com_select", "12"}, []any{"Uptime", "158"}).
				on("UNIX_TIMESTAMP()", nil, []any{int64(1795422569), tc.pidFile, "/var/lib/postgresql/mysql/"}).
				on("information_schema.processlist", nil, []any{tc.client})
			proc := procFixture(t)
			setFile(proc, "5000/stat", stat)
			m := Open(ctx, Config{Conn: c, Dialect: c.Dialect(), Proc: proc, Sys: sysFixture()})
			if m.ServerPID() != tc.pid {
				t.Errorf("pid %d, want %d; notes %q", m.ServerPID(), tc.pid, m.Notes())
			}
			if tc.pid != 0 && (m.Device() != "sda2" || m.DataDir() != "/var/lib/postgresql/mysql") {
				t.Errorf("device %q dir %q", m.Device(), m.DataDir())
			}
			notes := m.Notes()
			if len(notes) != len(tc.notes) {
				t.Fatalf("notes %q, want %d", notes, len(tc.notes))
			}
			for i, n := range tc.notes {
				if !strings.Contains(notes[i], n) {
					t.Errorf("note %q lacks %q", notes[i], n)
				}
			}
		})
	}
}

// A failing SQL source is counted, the other sources go on.
func TestTickCountsFailures(t *testing.T) {
	c := (&fakeConn{dialect: "mysql"}).
		on("SHOW GLOBAL STATUS", nil, []any{"Com_select", "12"}).
		on("UNIX_TIMESTAMP()", nil, []any{int64(0), "", ""}).
		on("information_schema.processlist", nil, []any{"10.0.0.1:1"})
	proc := procFixture(t)
	m := Open(context.Background(), Config{Conn: c, Dialect: c.Dialect(), DataDir: "/", Proc: proc, Sys: fstest.MapFS{}, Now: fakeClock()})
	m.Start(context.Background())
	c.answers[0].err = context.DeadlineExceeded
	for range 3 {
		if iv := m.Tick(context.Background()); iv["interval_s"] != 1 || iv["disk_iops"] != 0 {
			t.Errorf("interval %v", iv)
		}
	}
	notes := m.Notes()
	if want := "mysql: 3 of 4 samples failed, the last with: context deadline exceeded"; notes[len(notes)-1] != want {
		t.Errorf("notes %q, want last %q", notes, want)
	}
	// A cancelled context is the caller's doing, not a failure.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m.Tick(ctx)
	if n := m.Notes(); n[len(n)-1] != "mysql: 3 of 5 samples failed, the last with: context deadline exceeded" {
		t.Errorf("after a cancelled tick: %q", n)
	}
}

// dbarena's own process and this host's CPU are sampled whatever is
// known of the server: the other work is what the host's processes ran
// beyond dbarena and, when it is here, the server.
func TestOpenClientFromFixtures(t *testing.T) {
	ctx := context.Background()
	// One second later: the host's processes ran user +50, system +30
	// of 200 ticks (40% of its two CPUs); dbarena 50 ticks (50% of a
	// core, 25% of the host); backend 3120 20 ticks (10% of the host).
	const self0 = "7000 (dbarena) R 1 7000 7000 0 -1 4194624 10 0 0 0 100 20 0 0 20 0 8 0 17000 0 0 0\n"
	const self1 = "7000 (dbarena) R 1 7000 7000 0 -1 4194624 10 0 0 0 140 30 0 0 20 0 8 0 17000 0 0 0\n"
	const stat1 = "cpu  34545 28 12545 68467 734 0 1169 43 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\ncpu1 1 0 0 0 0 0 0 0 0 0\nbtime 1795422240\n"
	for _, tc := range []struct {
		name    string
		cfg     Config
		sources []string
		note    string
		other   float64 // -1: absent
	}{
		{"server elsewhere", Config{}, []string{"client"}, "", 15},
		{"server here", Config{ServerPID: 3105}, []string{"process", "host", "client"}, "", 5},
		{"server here, pid unknown", Config{DataDir: "pgdata"}, []string{"host", "client"},
			"client: the server is or may be on this host, but its CPU is not read: no host_other_cpu_pct", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proc := procFixture(t)
			setFile(proc, "self/stat", self0)
			tc.cfg.Proc, tc.cfg.Sys, tc.cfg.Now = proc, sysFixture(), fakeClock()
			m := Open(ctx, tc.cfg)
			if got := m.Sources(); !reflect.DeepEqual(got, tc.sources) {
				t.Errorf("sources %v, want %v", got, tc.sources)
			}
			if notes := strings.Join(m.Notes(), "\n"); tc.note != "" && !strings.Contains(notes, tc.note) {
				t.Errorf("notes lack %q:\n%s", tc.note, notes)
			}
			m.Start(ctx)
			setFile(proc, "self/stat", self1)
			setFile(proc, "stat", stat1)
			setFile(proc, "3120/stat", "3120 (postgres) S 3105 3120 3120 0 -1 4194624 900 0 0 0 270 50 0 0 20 0 1 0 16500 0 0 0\n")
			iv := m.Tick(ctx)
			if iv["client_cpu_pct"] != 50 || iv["host_steal_pct"] != 0 {
				t.Errorf("client_cpu_pct %v, host_steal_pct %v; want 50, 0: %v", iv["client_cpu_pct"], iv["host_steal_pct"], iv)
			}
			v, ok := iv["host_other_cpu_pct"]
			if tc.other < 0 && ok || tc.other >= 0 && (!ok || math.Abs(v-tc.other) > 1e-9) {
				t.Errorf("host_other_cpu_pct = %v (present %v), want %v: %v", v, ok, tc.other, iv)
			}
			if _, ok := iv["host_cpu_pct"]; ok != slices.Contains(tc.sources, "host") {
				t.Errorf("host_cpu_pct present %v with sources %v", ok, tc.sources)
			}
			if p := m.Problems(); len(p) > 0 {
				t.Errorf("problems %q", p)
			}
		})
	}
}
