package sysmon

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	_ "github.com/dbarena/dbarena/engine/mysql"
	_ "github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/internal/testdb"
)

// connect opens target and returns two connections: one for the monitor,
// one for the load.
func connect(t *testing.T, target engine.Target) (mon, work engine.SQLConn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eng, err := engine.Open(ctx, target, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	for _, c := range []*engine.SQLConn{&mon, &work} {
		if *c, err = engine.ConnectSQL(ctx, eng); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { mon.Close(); work.Close() })
	return mon, work
}

// insertCommits runs n transactions of one INSERT each into a new table.
func insertCommits(t *testing.T, c engine.SQLConn, table string, n int) {
	t.Helper()
	ctx := context.Background()
	if err := c.Exec(ctx, "CREATE TABLE "+table+" (id INTEGER PRIMARY KEY, v VARCHAR(100))"); err != nil {
		t.Fatal(err)
	}
	st, err := c.Prepare(ctx, "INSERT INTO "+table+" (id, v) VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := c.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Exec(ctx, i, strings.Repeat("x", 100)); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// checkLocalServer checks what Open found about a server on this host.
func checkLocalServer(t *testing.T, m *Monitor, comm string) {
	t.Helper()
	notes := strings.Join(m.Notes(), "\n")
	t.Logf("sources %v, pid %d, data directory %s, device %q, notes:\n%s", m.Sources(), m.ServerPID(), m.DataDir(), m.Device(), notes)
	pid := m.ServerPID()
	if pid == 0 {
		t.Fatalf("the test server runs on this host, but its pid was not found; notes:\n%s", notes)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil || strings.TrimSpace(string(b)) != comm {
		t.Errorf("pid %d is %q (%v), want %s", pid, b, err, comm)
	}
	if m.DataDir() == "" {
		t.Errorf("no data directory")
	}
	if m.Device() == "" && !strings.Contains(notes, "disk: ") {
		t.Errorf("data directory %s has no device and no note says why", m.DataDir())
	}
	os := m.OSSettings()
	if os["os.datadir.fstype"] == "" || os["os.vm.dirty_ratio"] == "" {
		t.Errorf("OS settings %v", os)
	}
}

// tickUntil ticks every 200 ms until done says the totals are complete or
// 15 s have passed, checking on the way that no counter goes backwards and
// every bound holds. It returns the intervals.
func tickUntil(t *testing.T, m *Monitor, done func(total map[string]float64) bool) []Interval {
	t.Helper()
	ctx := context.Background()
	var ivs []Interval
	total := map[string]float64{}
	cores := float64(runtime.NumCPU())
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		prev := cloneCounters(m.prev)
		iv := m.Tick(ctx)
		for name, v := range m.prev.Counters {
			if p, ok := prev[name]; ok && v < p {
				t.Errorf("counter %s went from %d to %d", name, p, v)
			}
		}
		for k, v := range iv {
			if v < 0 {
				t.Errorf("%s = %v < 0", k, v)
			}
			if strings.HasSuffix(k, "_pct") && k != "server_cpu_pct" && v > 100 {
				t.Errorf("%s = %v > 100", k, v)
			}
			total[k] += v * iv[IntervalKey]
		}
		if v := iv["server_cpu_pct"]; v > 100*cores {
			t.Errorf("server_cpu_pct = %v > %v", v, 100*cores)
		}
		ivs = append(ivs, iv)
		if done(total) {
			return ivs
		}
	}
	t.Errorf("totals after 15 s: %v", total)
	return ivs
}

func cloneCounters(s *Sample) map[string]uint64 {
	out := make(map[string]uint64, len(s.Counters))
	for k, v := range s.Counters {
		out[k] = v
	}
	return out
}

func TestPostgresServer(t *testing.T) {
	mon, work := connect(t, testdb.Isolated(t, testdb.Postgres(t)))
	ctx := context.Background()
	m := Open(ctx, Config{Conn: mon, Dialect: mon.Dialect()})
	checkLocalServer(t, m, "postgres")
	for _, want := range []string{"postgres", "process", "host"} {
		if !strings.Contains(strings.Join(m.Sources(), " "), want) {
			t.Errorf("sources %v lack %s", m.Sources(), want)
		}
	}

	m.Start(ctx)
	const n = 300
	insertCommits(t, work, "sysmon_pg", n)
	// The load's connection is still open, idle: a session.
	iv := m.Tick(ctx)
	if iv["pg_sessions_total"] < 1 {
		t.Errorf("pg_sessions_total = %v with the load's connection open", iv["pg_sessions_total"])
	}
	// A backend's statistics reach the views within a second or so, and
	// at once when it exits.
	work.Close()
	ivs := append([]Interval{iv}, tickUntil(t, m, func(total map[string]float64) bool {
		return total["pg_commits_s"] >= n && total["pg_tup_inserted_s"] >= n && total["pg_wal_mb_s"] > 0
	})...)
	s := Summary(ivs)
	t.Logf("summary %v", s)
	t.Logf("last: %s", Compact(ivs[len(ivs)-1]))
	if s["pg_commits_s"] <= 0 || s["pg_wal_mb_s"] <= 0 || s["pg_wal_records_s"] <= 0 {
		t.Errorf("summary %v: want commits and WAL > 0", s)
	}
	if _, ok := s["server_cpu_pct"]; !ok {
		t.Errorf("no server_cpu_pct in %v", s)
	}
	if notes := strings.Join(m.Notes(), "\n"); strings.Contains(notes, "failed") || strings.Contains(notes, "backwards") {
		t.Errorf("notes:\n%s", notes)
	}

	// A statistics reset: the database's counters go back to zero. The
	// interval has no pg_stat_database metrics rather than negative ones,
	// the others go on, and a note says so.
	if err := mon.QueryRows(ctx, "SELECT pg_stat_reset()", nil, func([]any) error { return nil }); err != nil {
		t.Fatal(err)
	}
	iv = m.Tick(ctx)
	for _, k := range []string{"pg_commits_s", "pg_tup_inserted_s", "pg_blks_hit_s"} {
		if v, ok := iv[k]; ok {
			t.Errorf("after pg_stat_reset(): %s = %v, want absent", k, v)
		}
	}
	if _, ok := iv["pg_wal_records_s"]; !ok {
		t.Errorf("after pg_stat_reset(): pg_wal_records_s absent (pg_stat_wal is not reset): %v", iv)
	}
	if notes := strings.Join(m.Notes(), "\n"); !strings.Contains(notes, "counter pg.xact_commit went backwards in 1 interval(s)") {
		t.Errorf("notes after pg_stat_reset():\n%s", notes)
	}
}

func TestMySQLServer(t *testing.T) {
	mon, work := connect(t, testdb.Isolated(t, testdb.MySQL(t)))
	ctx := context.Background()
	m := Open(ctx, Config{Conn: mon, Dialect: mon.Dialect()})
	checkLocalServer(t, m, "mariadbd")
	for _, want := range []string{"mysql", "process", "host"} {
		if !strings.Contains(strings.Join(m.Sources(), " "), want) {
			t.Errorf("sources %v lack %s", m.Sources(), want)
		}
	}

	m.Start(ctx)
	const n = 300
	insertCommits(t, work, "sysmon_my", n)
	ivs := tickUntil(t, m, func(total map[string]float64) bool {
		// Other tests may insert too: at least ours. A rate is its
		// counter's change over the time between the server's two
		// readings, and the interval's length is the monitor's own: on a
		// busy host the two differ by a few per cent, so the product
		// comes back within 2 % of the count.
		return total["mysql_com_insert_s"] >= 0.98*n && total["mysql_com_commit_s"] >= 0.98*n
	})
	s := Summary(ivs)
	t.Logf("summary %v", s)
	t.Logf("first: %s", Compact(ivs[0]))
	if s["mysql_com_insert_s"] <= 0 || s["mysql_log_mb_s"] <= 0 {
		t.Errorf("summary %v: want inserts and redo log > 0", s)
	}
	if _, ok := s["server_cpu_pct"]; !ok {
		t.Errorf("no server_cpu_pct in %v", s)
	}
	if notes := strings.Join(m.Notes(), "\n"); strings.Contains(notes, "failed") || strings.Contains(notes, "backwards") {
		t.Errorf("notes:\n%s", notes)
	}
}

// The monitor's own connection is killed on the server (the server goes
// on): the monitor reopens it at once, the server's metrics go on in the
// next interval and no value is impossible. Only the test's own
// connection is killed.
func TestMonitorConnectionKilled(t *testing.T) {
	for _, tc := range []struct {
		name           string
		target         func(testing.TB) engine.Target
		id, kill, rate string
	}{
		{"postgres", testdb.Postgres, "SELECT pg_backend_pid()", "SELECT pg_terminate_backend(%d)", "pg_commits_s"},
		{"mysql", testdb.MySQL, "SELECT CONNECTION_ID()", "KILL CONNECTION %d", "mysql_com_select_s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			target := testdb.Isolated(t, tc.target(t))
			mon, work := connect(t, target)
			eng, err := engine.Open(ctx, target, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			var id int64
			if err := mon.QueryRow(ctx, tc.id, nil, &id); err != nil {
				t.Fatal(err)
			}
			conn := Conn(mon)
			reopen := func(ctx context.Context) (Conn, error) {
				c, err := engine.ConnectSQL(ctx, eng)
				if err != nil {
					return nil, err
				}
				conn = c
				return c, nil
			}
			defer func() {
				if conn != Conn(mon) {
					conn.(engine.SQLConn).Close()
				}
			}()
			m := Open(ctx, Config{Conn: mon, Dialect: mon.Dialect(), Reopen: reopen})
			m.Start(ctx)
			time.Sleep(200 * time.Millisecond)
			if iv := m.Tick(ctx); !hasAll(iv, tc.rate, "server_cpu_pct") {
				t.Fatalf("before: %v; notes %q", iv, m.Notes())
			}
			if err := work.Exec(ctx, fmt.Sprintf(tc.kill, id)); err != nil {
				t.Fatal(err)
			}
			cores := runtime.NumCPU()
			var ivs []Interval
			for range 3 {
				time.Sleep(200 * time.Millisecond)
				iv := m.Tick(ctx)
				ivs = append(ivs, iv)
				if v, ok := iv["server_cpu_pct"]; ok && v > cpuLimit(cores) {
					t.Errorf("server_cpu_pct = %v on %d CPUs", v, cores)
				}
			}
			if last := ivs[len(ivs)-1]; !hasAll(last, tc.rate, "server_cpu_pct") {
				t.Errorf("the metrics did not come back: %v", ivs)
			}
			notes := strings.Join(m.Notes(), "\n")
			if !strings.Contains(notes, "connection: lost and reopened 1 time(s)") || strings.Contains(notes, "process changed") {
				t.Errorf("notes:\n%s", notes)
			}
			t.Logf("%v\nnotes:\n%s", ivs, notes)
		})
	}
}

// TestMongoServer inserts documents through the engine and reads them
// back from serverStatus: opcounters, transactions, the WiredTiger cache,
// tickets, network and connections; the server's process is the one the
// server reports (engine.ProcessReporter), as the session asks it.
func TestMongoServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eng, err := engine.Open(ctx, testdb.Isolated(t, testdb.Mongo(t)), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	mon, err := eng.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mon.Close() })
	work, err := eng.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { work.Close() })
	pr := eng.(engine.ProcessReporter)
	locate := func(ctx context.Context) (int, string, error) {
		sp, err := pr.ServerProcess(ctx)
		return sp.PID, sp.DataDir, err
	}
	m := Open(ctx, Config{Conn: mon, Dialect: eng.Dialect(), Locate: locate})
	checkLocalServer(t, m, "mongod")
	for _, want := range []string{"mongodb", "process", "host"} {
		if !strings.Contains(strings.Join(m.Sources(), " "), want) {
			t.Errorf("sources %v lack %s", m.Sources(), want)
		}
	}

	m.Start(ctx)
	const n, txns = 300, 50
	mc, err := mongo.ConnOf(work)
	if err != nil {
		t.Fatal(err)
	}
	coll := mc.DB().Collection("sysmon_mongo")
	for i := range n {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "v", Value: strings.Repeat("x", 100)}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range txns {
		if err := mc.Session().StartTransaction(); err != nil {
			t.Fatal(err)
		}
		if _, err := coll.UpdateOne(mc.Ctx(ctx), bson.D{{Key: "_id", Value: i}}, bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: i}}}}); err != nil {
			t.Fatal(err)
		}
		if err := mc.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ivs := tickUntil(t, m, func(total map[string]float64) bool {
		// Other tests may write too: at least ours (within 2 %, as
		// TestMySQLServer says why).
		return total["mongo_opcounters_insert_s"] >= 0.98*n && total["mongo_txn_commits_s"] >= 0.98*txns &&
			total["mongo_opcounters_update_s"] >= 0.98*txns
	})
	s := Summary(ivs)
	t.Logf("summary %v", s)
	t.Logf("first: %s", Compact(ivs[0]))
	if s["mongo_net_in_mb_s"] <= 0 || s["mongo_net_out_mb_s"] <= 0 || s["mongo_opcounters_command_s"] <= 0 {
		t.Errorf("summary %v: want network and commands > 0", s)
	}
	if v := s["mongo_cache_mb"]; v <= 0 || v > 1<<20 {
		t.Errorf("mongo_cache_mb = %v", v)
	}
	if v, ok := s["mongo_cache_dirty_mb"]; !ok || v < 0 || v > s["mongo_cache_mb"] {
		t.Errorf("mongo_cache_dirty_mb = %v (%v), cache %v", v, ok, s["mongo_cache_mb"])
	}
	for _, k := range []string{"mongo_tickets_read", "mongo_tickets_write"} {
		if v := s[k]; v < 1 || v > 1<<16 {
			t.Errorf("%s = %v", k, v)
		}
	}
	if v := s["mongo_connections"]; v < 2 {
		t.Errorf("mongo_connections = %v, want the monitor's and the test's at least", v)
	}
	if _, ok := s["server_cpu_pct"]; !ok {
		t.Errorf("no server_cpu_pct in %v", s)
	}
	if notes := strings.Join(m.Notes(), "\n"); strings.Contains(notes, "failed") || strings.Contains(notes, "backwards") {
		t.Errorf("notes:\n%s", notes)
	}
}
