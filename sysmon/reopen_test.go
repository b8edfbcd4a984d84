package sysmon

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// pgStats answers the statistics query with xact_commit = commits.
func pgStats(c *fakeConn, commits int64) *fakeConn {
	for i := range c.answers {
		if c.answers[i].fragment == "UNION ALL" {
			c.answers[i].rows = [][]any{{"xact_commit", commits}}
			return c
		}
	}
	return c.on("UNION ALL", nil, []any{"xact_commit", commits})
}

// fakePostgres is a PostgreSQL connection whose backend is backend, of a
// server that started at start.
func fakePostgres(backend int64, start float64, commits int64) *fakeConn {
	c := (&fakeConn{dialect: "postgres"}).
		on("pg_backend_pid(), coalesce", nil, pgIdentity(backend, "127.0.0.1", start, 150018)).
		on("current_setting('data_directory')", nil, []any{"/var/lib/postgresql/15/main"})
	pgStats(c, commits)
	return c.on("FROM pg_stat", nil)
}

func absent(t *testing.T, when string, iv Interval, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if v, ok := iv[k]; ok {
			t.Errorf("%s: %s = %v, want absent; interval %v", when, k, v, iv)
		}
	}
}

func present(t *testing.T, when string, iv Interval, want map[string]float64) {
	t.Helper()
	for k, v := range want {
		if got, ok := iv[k]; !ok || got != v {
			t.Errorf("%s: %s = %v (present %v), want %v; interval %v", when, k, got, ok, v, iv)
		}
	}
}

// The server restarts under the monitor (recorded /proc files, faked
// connections): the statistics query fails as the connection is lost,
// reopening fails while the server starts, then succeeds on the new
// server, whose postmaster has another pid. The intervals in between have
// none of the server's metrics (no delta across the restart), the others
// go on, and then the new server's metrics come back, from its new
// counters and its new process.
func TestReopenFollowsRestartedServer(t *testing.T) {
	ctx := context.Background()
	const btime = 1795422240
	proc := procFixture(t)
	setFile(proc, "3105/mountinfo", pgMountinfo)
	old := fakePostgres(3120, btime+160.08+0.5, 1000)
	fresh := fakePostgres(5120, btime+990+0.5, 5)
	calls := 0
	reopen := func(context.Context) (Conn, error) {
		calls++
		if calls == 1 {
			return nil, errors.New("FATAL: the database system is starting up (SQLSTATE 57P03)")
		}
		return fresh, nil
	}
	m := Open(ctx, Config{Conn: old, Dialect: old.Dialect(), Reopen: reopen, Proc: proc, Sys: sysFixture(), Now: fakeClock()})
	if m.ServerPID() != 3105 {
		t.Fatalf("pid %d; notes %q", m.ServerPID(), m.Notes())
	}
	m.Start(ctx)

	// 100 commits and 100 ticks of the backend's CPU in 1 s.
	pgStats(old, 1100)
	setFile(proc, "3120/stat", "3120 (postgres) S 3105 3120 3120 0 -1 4194624 900 0 0 0 350 50 0 0 20 0 1 0 16500 0 0 0\n")
	present(t, "before", m.Tick(ctx), map[string]float64{"pg_commits_s": 100, "server_cpu_pct": 100})

	// The server goes down: its processes are gone, the connection too.
	old.answers = []answer{{"", nil, errConnLost}}
	for _, pid := range []string{"3105", "3106", "3120", "3121"} {
		delete(proc, pid+"/stat")
	}
	iv := m.Tick(ctx)
	absent(t, "down", iv, "pg_commits_s", "server_cpu_pct")
	present(t, "down", iv, map[string]float64{"disk_iops": 0})
	if calls != 1 {
		t.Errorf("Reopen called %d times after the loss, want 1 (at once)", calls)
	}

	// Up again: postmaster 5105 (started 990 s after boot), backend 5120.
	setFile(proc, "5105/stat", "5105 (postgres) S 1 5105 5105 0 -1 4194304 0 0 0 0 10 10 0 0 20 0 1 0 99000 0 0 0\n")
	setFile(proc, "5120/stat", "5120 (postgres) S 5105 5120 5120 0 -1 4194624 0 0 0 0 5 5 0 0 20 0 1 0 99100 0 0 0\n")
	iv = m.Tick(ctx)
	if calls != 2 {
		t.Errorf("Reopen called %d times, want 2 (once per sample until it works)", calls)
	}
	// Reopened in this sample: its counters start here.
	absent(t, "reopened", iv, "pg_commits_s", "server_cpu_pct")
	if m.ServerPID() != 5105 {
		t.Errorf("pid %d after the restart, want 5105", m.ServerPID())
	}

	// The new server's counters: 300 commits, 50 ticks of CPU in 1 s.
	pgStats(fresh, 305)
	setFile(proc, "5120/stat", "5120 (postgres) S 5105 5120 5120 0 -1 4194624 0 0 0 0 45 15 0 0 20 0 1 0 99100 0 0 0\n")
	present(t, "after", m.Tick(ctx), map[string]float64{"pg_commits_s": 300, "server_cpu_pct": 50, "server_procs": 2})

	notes := strings.Join(m.Notes(), "\n")
	for _, want := range []string{
		"connection: lost and reopened 1 time(s)",
		"connection: reopening it failed in 1 sample(s), the last with: FATAL: the database system is starting up",
		"process: the server's process changed 1 time(s) (restarted), the last to pid 5105",
		"postgres: 1 of 5 samples failed, the last with: fakeConn: connection lost",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "went backwards") {
		t.Errorf("a restart's counters are new ones, not backwards:\n%s", notes)
	}
}

// A connection killed while the server goes on: the monitor reopens it
// at once, the server is the same (same start time, same postmaster),
// and its counters go on without a gap.
func TestReopenSameServer(t *testing.T) {
	ctx := context.Background()
	proc := procFixture(t)
	setFile(proc, "3105/mountinfo", pgMountinfo)
	start := 1795422240 + 160.08 + 0.5
	old := fakePostgres(3120, start, 1000)
	again := fakePostgres(3121, start, 1000)
	m := Open(ctx, Config{Conn: old, Dialect: old.Dialect(), Reopen: func(context.Context) (Conn, error) { return again, nil }, Proc: proc, Sys: sysFixture(), Now: fakeClock()})
	m.Start(ctx)
	old.answers = []answer{{"", nil, errConnLost}}
	pgStats(again, 1200)
	present(t, "reopened", m.Tick(ctx), map[string]float64{"pg_commits_s": 200, "server_cpu_pct": 0})
	if m.ServerPID() != 3105 {
		t.Errorf("pid %d, want 3105", m.ServerPID())
	}
	notes := strings.Join(m.Notes(), "\n")
	if !strings.Contains(notes, "connection: lost and reopened 1 time(s)") || strings.Contains(notes, "process changed") || strings.Contains(notes, "samples failed") {
		t.Errorf("notes:\n%s", notes)
	}
}

// A statistics reset: the counter goes backwards; that interval has no
// metric that needs it, and the next one's delta starts from the new
// value.
func TestBackwardsRestartsDelta(t *testing.T) {
	ctx := context.Background()
	c := fakePostgres(3120, 0, 1000)
	m := Open(ctx, Config{Conn: c, Dialect: c.Dialect(), Proc: procFixture(t), Sys: sysFixture(), Now: fakeClock()})
	m.Start(ctx)
	pgStats(c, 10)
	absent(t, "reset", m.Tick(ctx), "pg_commits_s")
	pgStats(c, 110)
	present(t, "after", m.Tick(ctx), map[string]float64{"pg_commits_s": 100})
	if notes := strings.Join(m.Notes(), "\n"); !strings.Contains(notes, "counter pg.xact_commit went backwards in 1 interval(s)") {
		t.Errorf("notes:\n%s", notes)
	}
}

// A backend that exits between the reads of its parent and its own is in
// neither: the tree's CPU reads lower. The counter holds at its highest
// reading instead of going backwards and then counting that time again
// when the parent's cutime gets it.
func TestProcessTreeDipHeld(t *testing.T) {
	ctx := context.Background()
	proc := procFixture(t)
	m := Open(ctx, Config{ServerPID: 3105, DataDir: "/var/lib/postgresql/15/main", Proc: proc, Sys: sysFixture(), Now: fakeClock()})
	m.Start(ctx) // 3105: 1+2+6+12, 3106: 9, 3120: 300, 3121: 40: 370 ticks
	// 3121 is gone, its 40 ticks not yet in 3120's cutime: 330.
	delete(proc, "3121/stat")
	present(t, "dip", m.Tick(ctx), map[string]float64{"server_cpu_pct": 0})
	// Reaped: 3120's cutime has the 40, and 3120 used 10 more: 380, 10
	// ticks in 1 s.
	setFile(proc, "3120/stat", "3120 (postgres) S 3105 3120 3120 0 -1 4194624 900 0 0 0 260 50 30 10 20 0 1 0 16500 0 0 0\n")
	present(t, "reaped", m.Tick(ctx), map[string]float64{"server_cpu_pct": 10})
	if notes := strings.Join(m.Notes(), "\n"); !strings.Contains(notes, "process: the process tree's CPU time read lower than before in 1 sample(s)") {
		t.Errorf("notes:\n%s", notes)
	}
}

// A value no server can have is left out, with a note, never reported
// nor clamped: 293 ticks of CPU in 1 s on a host of 2 CPUs (the
// fixture's /proc/stat), and 203, anything above 100% per CPU.
func TestImpossibleValueDropped(t *testing.T) {
	ctx := context.Background()
	proc := procFixture(t)
	m := Open(ctx, Config{ServerPID: 3105, DataDir: "/var/lib/postgresql/15/main", Proc: proc, Sys: sysFixture(), Now: fakeClock()})
	m.Start(ctx)
	setFile(proc, "3120/stat", "3120 (postgres) S 3105 3120 3120 0 -1 4194624 900 0 0 0 543 50 0 0 20 0 1 0 16500 0 0 0\n")
	iv := m.Tick(ctx)
	absent(t, "293%", iv, "server_cpu_pct")
	present(t, "293%", iv, map[string]float64{"server_procs": 4})
	want := "metric server_cpu_pct had an impossible value in 1 interval(s) (the last 293.0%, above 100% per CPU of the host's 2): left out there"
	if notes := m.Notes(); !strings.Contains(strings.Join(notes, "\n"), want) {
		t.Errorf("notes %q lack %q", notes, want)
	}
	setFile(proc, "3120/stat", "3120 (postgres) S 3105 3120 3120 0 -1 4194624 900 0 0 0 746 50 0 0 20 0 1 0 16500 0 0 0\n")
	absent(t, "203%", m.Tick(ctx), "server_cpu_pct")
	want = "metric server_cpu_pct had an impossible value in 2 interval(s) (the last 203.0%, above 100% per CPU of the host's 2): left out there"
	if notes := m.Notes(); !strings.Contains(strings.Join(notes, "\n"), want) {
		t.Errorf("notes %q lack %q", notes, want)
	}
	// Two busy CPUs are possible.
	setFile(proc, "3120/stat", "3120 (postgres) S 3105 3120 3120 0 -1 4194624 900 0 0 0 946 50 0 0 20 0 1 0 16500 0 0 0\n")
	present(t, "200%", m.Tick(ctx), map[string]float64{"server_cpu_pct": 200})
}

// A server stopped (SIGSTOP) blocks a sample; the samples after it come
// back to back, milliseconds apart. The server's CPU over so short an
// interval is not a measurement: its counters move in clock ticks (10
// ms), so one tick in 5 ms reads 200%. Below 5 ticks the figure is left
// out, with a note; from 5 on it is kept.
func TestCPUOverShortIntervalLeftOut(t *testing.T) {
	ctx := context.Background()
	proc := procFixture(t)
	now := t0
	m := Open(ctx, Config{ServerPID: 3105, DataDir: "/var/lib/postgresql/15/main", Proc: proc, Sys: sysFixture(), Now: func() time.Time { return now }})
	m.Start(ctx)
	utime := 250
	tick := func(d time.Duration, ticks int) Interval {
		now = now.Add(d)
		utime += ticks
		setFile(proc, "3120/stat", fmt.Sprintf("3120 (postgres) S 3105 3120 3120 0 -1 4194624 900 0 0 0 %d 50 0 0 20 0 1 0 16500 0 0 0\n", utime))
		return m.Tick(ctx)
	}
	absent(t, "1 tick in 5 ms", tick(5*time.Millisecond, 1), "server_cpu_pct")
	absent(t, "2 ticks in 40 ms", tick(40*time.Millisecond, 2), "server_cpu_pct")
	present(t, "5 ticks in 50 ms", tick(50*time.Millisecond, 5), map[string]float64{"server_cpu_pct": 100})
	want := "metric server_cpu_pct was left out of 2 interval(s) shorter than 5 clock ticks (50ms) (the last 40ms): its counters move in ticks"
	if notes := m.Notes(); !strings.Contains(strings.Join(notes, "\n"), want) {
		t.Errorf("notes %q lack %q", notes, want)
	}
}

func TestCountCPUs(t *testing.T) {
	for in, want := range map[string]int{
		"cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu1 1 2 3 4\nintr 5\n": 2,
		"cpu  1 2 3 4\n": 0,
		"":               0,
	} {
		if got := countCPUs([]byte(in)); got != want {
			t.Errorf("countCPUs(%q) = %d, want %d", in, got, want)
		}
	}
}

// A hit ratio from more misses than accesses (a statistics view read
// between two counters' updates) is left out with a note, not clamped to
// 0; a run's summary from such totals has no figure either.
func TestImpossibleHitRatioDropped(t *testing.T) {
	ctx := context.Background()
	status := func(requests, reads string) [][]any {
		return [][]any{{"Innodb_buffer_pool_read_requests", requests}, {"Innodb_buffer_pool_reads", reads}, {"Uptime", "100"}}
	}
	c := (&fakeConn{dialect: "mysql"}).
		on("SHOW GLOBAL STATUS", nil, status("1000", "10")...).
		on("UNIX_TIMESTAMP()", nil, []any{int64(0), "", ""}).
		on("information_schema.processlist", nil, []any{"10.0.0.1:1"})
	m := Open(ctx, Config{Conn: c, Dialect: c.Dialect(), Proc: procFixture(t), Sys: sysFixture(), Now: fakeClock()})
	m.Start(ctx)
	c.answers[0].rows = status("1100", "160")
	iv := m.Tick(ctx)
	absent(t, "150 misses of 100", iv, "mysql_bp_hit_pct")
	present(t, "150 misses of 100", iv, map[string]float64{"mysql_bp_read_requests_s": 100, "mysql_bp_reads_s": 150})
	want := "metric mysql_bp_hit_pct had an impossible value in 1 interval(s) (the last -50.0, below 0): left out there"
	if notes := m.Notes(); !strings.Contains(strings.Join(notes, "\n"), want) {
		t.Errorf("notes %q lack %q", notes, want)
	}
	if s := Summary([]Interval{iv}); s != nil {
		if v, ok := s["mysql_bp_hit_pct"]; ok {
			t.Errorf("summary mysql_bp_hit_pct = %v, want absent", v)
		}
	}
}

// A server that tells its own process (Config.Locate, MongoDB's) restarts:
// its process is gone, the monitor asks again at every sample until the
// server answers, then follows it to its new process; no CPU delta is
// taken across the restart.
func TestLocateFollowsRestartedServer(t *testing.T) {
	ctx := context.Background()
	proc := procFixture(t)
	pid, calls := 3105, 0
	locate := func(context.Context) (int, string, error) {
		calls++
		if pid == 0 {
			return 0, "", errors.New("server selection error: connection refused")
		}
		return pid, "/var/lib/postgresql/15/main", nil
	}
	m := Open(ctx, Config{Locate: locate, Proc: proc, Sys: sysFixture(), Now: fakeClock()})
	if m.ServerPID() != 3105 || calls != 1 {
		t.Fatalf("pid %d after %d calls; notes %q", m.ServerPID(), calls, m.Notes())
	}
	m.Start(ctx)
	setFile(proc, "3120/stat", "3120 (postgres) S 3105 3120 3120 0 -1 4194624 900 0 0 0 350 50 0 0 20 0 1 0 16500 0 0 0\n")
	present(t, "before", m.Tick(ctx), map[string]float64{"server_cpu_pct": 100})

	// Down: the processes are gone and the server does not answer.
	for _, p := range []string{"3105", "3106", "3120", "3121"} {
		delete(proc, p+"/stat")
	}
	pid = 0
	absent(t, "down", m.Tick(ctx), "server_cpu_pct")
	absent(t, "still down", m.Tick(ctx), "server_cpu_pct")

	// Up again as 5105.
	pid = 5105
	setFile(proc, "5105/stat", "5105 (mongod) S 1 5105 5105 0 -1 4194304 0 0 0 0 10 10 0 0 20 0 1 0 99000 0 0 0\n")
	absent(t, "found again", m.Tick(ctx), "server_cpu_pct")
	if m.ServerPID() != 5105 {
		t.Fatalf("pid %d after the restart, want 5105; notes %q", m.ServerPID(), m.Notes())
	}
	setFile(proc, "5105/stat", "5105 (mongod) S 1 5105 5105 0 -1 4194304 0 0 0 0 40 30 0 0 20 0 1 0 99000 0 0 0\n")
	present(t, "after", m.Tick(ctx), map[string]float64{"server_cpu_pct": 50})
	notes := strings.Join(m.Notes(), "\n")
	for _, want := range []string{
		"process: the server's process changed 1 time(s) (restarted), the last to pid 5105",
		"server selection error: connection refused",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}
