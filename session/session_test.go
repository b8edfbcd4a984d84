package session_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/postgres"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/workload"
	_ "github.com/dbarena/dbarena/workload/oltp"
)

func oltp(t *testing.T) workload.Workload {
	t.Helper()
	m, ok := workload.Lookup("oltp_read_only")
	if !ok {
		t.Fatal("oltp_read_only is not registered")
	}
	w := m.New()
	if err := w.Define().Options.Parse([]string{"--tables=1", "--table-size=200"}); err != nil {
		t.Fatal(err)
	}
	return w
}

func open(t *testing.T, target engine.Target, opt session.Options) *session.Session {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.Open(ctx, target, engine.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	opt.Engine, opt.Target = eng, target
	s, err := session.Open(ctx, opt)
	if err != nil {
		eng.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStatus(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, result.StatusComplete},
		{runner.ErrInterrupted, result.StatusInterrupted},
		{fmt.Errorf("run: %w", runner.ErrInterrupted), result.StatusInterrupted},
		{runner.ErrTooManyErrors, result.StatusFailed},
		{fmt.Errorf("%w: 7 of 8 measured intervals had no transaction end", runner.ErrStalled), result.StatusStalled},
		{errors.New("connection refused"), result.StatusFailed},
	} {
		if got := session.Status(c.err); got != c.want {
			t.Errorf("Status(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}

// A target without the workload's tables is refused unless the session
// prepares on first use; then one Measure runs every configuration (a
// sweep) into one complete file that describes the target.
func TestMeasureSweepPreparesOnFirstUse(t *testing.T) {
	ctx := context.Background()
	target := testdb.SQLite(t)
	target.Label = "embedded"
	w := oltp(t)

	strict := open(t, target, session.Options{NoMonitor: true})
	if err := strict.EnsurePrepared(ctx, w); !errors.Is(err, load.ErrNotPrepared) {
		t.Fatalf("EnsurePrepared without PrepareOnFirstUse = %v, want ErrNotPrepared", err)
	}

	var log strings.Builder
	s := open(t, target, session.Options{PrepareOnFirstUse: true, Log: &log, NoMonitor: true,
		Tool: result.Tool{Name: "dbarena", Version: "test"}, Knobs: map[string]string{"cache_size": "-4000"}})
	if err := s.EnsurePrepared(ctx, w); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "preparing it now") {
		t.Errorf("log %q does not say the target is being prepared", log.String())
	}
	var before []int
	var after int
	cfgs := []runner.Config{
		{Threads: 1, Duration: 300 * time.Millisecond, ReportInterval: 100 * time.Millisecond, Seed: 7},
		{Threads: 2, Duration: 300 * time.Millisecond, ReportInterval: 100 * time.Millisecond, Seed: 7},
	}
	file, err := s.Measure(ctx, w, cfgs, session.Hooks{
		Before: func(cfg runner.Config) { before = append(before, cfg.Threads) },
		After:  func(*result.Run) { after++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(before) != "[1 2]" || after != 2 {
		t.Errorf("hooks saw threads %v before and %d runs after, want [1 2] and 2", before, after)
	}
	if file.Status != result.StatusComplete || file.Error != "" {
		t.Errorf("status %s, error %q, want complete", file.Status, file.Error)
	}
	if len(file.Runs) != 2 || file.Runs[0].Threads != 1 || file.Runs[1].Threads != 2 {
		t.Fatalf("runs %+v, want one per thread count", file.Runs)
	}
	if file.Seed != 7 || file.Target.Label != "embedded" || file.Target.Engine != "sqlite" || file.Tool.Version != "test" {
		t.Errorf("file describes seed %d, target %+v, tool %+v", file.Seed, file.Target, file.Tool)
	}
	if file.Target.Knobs["cache_size"] != "-4000" || len(file.Target.Knobs) != 1 {
		t.Errorf("knobs %v, want the ones asked for", file.Target.Knobs)
	}
	if file.Client.RTTMS <= 0 || file.Target.ServerVersion == "" {
		t.Errorf("no round-trip time (%v) or server version (%q)", file.Client.RTTMS, file.Target.ServerVersion)
	}
	if file.FinishedAt.Before(file.StartedAt) {
		t.Errorf("finished %v before it started %v", file.FinishedAt, file.StartedAt)
	}
}

// deadServer is a managed server that has died.
type deadServer struct{}

func (deadServer) Name() string       { return "pg-test" }
func (deadServer) Alive() bool        { return false }
func (deadServer) LogTail(int) string { return "FATAL: terminated by signal 9" }

// A run on a managed server that is gone fails, with the end of the
// server's log in the file's error, scrubbed of secrets.
func TestMeasureOnDeadManagedServerFails(t *testing.T) {
	ctx := context.Background()
	target := testdb.SQLite(t)
	w := oltp(t)
	s := open(t, target, session.Options{PrepareOnFirstUse: true, NoMonitor: true, Managed: deadServer{},
		Scrub: func(m string) string { return strings.ReplaceAll(m, "signal 9", "xxxxx") }})
	if err := s.EnsurePrepared(ctx, w); err != nil {
		t.Fatal(err)
	}
	file, err := s.Measure(ctx, w, []runner.Config{{Threads: 1, Duration: 200 * time.Millisecond, ReportInterval: 100 * time.Millisecond}}, session.Hooks{})
	if err == nil || !strings.Contains(err.Error(), "managed server pg-test is not running any more") {
		t.Fatalf("err = %v, want the dead server named", err)
	}
	if file == nil || file.Status != result.StatusFailed || file.Runs[0].Status != result.StatusFailed {
		t.Fatalf("file %+v, want a failed file and run", file)
	}
	if !strings.Contains(file.Error, "terminated by xxxxx") || strings.Contains(file.Error, "signal 9") {
		t.Errorf("file error %q: want the log's end, scrubbed", file.Error)
	}
}

// On a PostgreSQL server the session samples the server's metrics and
// records the monitor and the OS settings in the file.
func TestMeasurePostgresMonitor(t *testing.T) {
	ctx := context.Background()
	target := testdb.Isolated(t, testdb.Postgres(t))
	target.Label = "pg"
	w := oltp(t)
	s := open(t, target, session.Options{PrepareOnFirstUse: true})
	if err := s.EnsurePrepared(ctx, w); err != nil {
		t.Fatal(err)
	}
	file, err := s.Measure(ctx, w, []runner.Config{{Threads: 2, Duration: 1500 * time.Millisecond, ReportInterval: 500 * time.Millisecond, Seed: 1}}, session.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if file.Target.Monitor == nil || len(file.Target.Monitor.Sources) == 0 {
		t.Fatalf("monitor %+v: want the sources sampled", file.Target.Monitor)
	}
	if file.Runs[0].Transactions == 0 {
		t.Errorf("no transactions")
	}
	if want := session.ProcessFor(s.Engine(), runner.Config{Threads: 2}).Threads; file.Runs[0].ClientThreads != want {
		t.Errorf("%d client threads, want %d: the session gives every run its process (ProcessFor)", file.Runs[0].ClientThreads, want)
	}
	if file.Target.URL != target.Redacted() {
		t.Errorf("the file's URL %s, want the redacted %s", file.Target.URL, target.Redacted())
	}
}

// The monitor's connection is killed during a run: the monitor reopens
// it, and the server's metrics come back in the run's later intervals
// (the session gives the monitor a way to reconnect), with a note saying
// so. Only this test's monitor connection is killed (by its application
// name and statement), never the shared server.
func TestMeasureMonitorReconnects(t *testing.T) {
	ctx := context.Background()
	target := testdb.Isolated(t, testdb.Postgres(t))
	app := "dbarena_session_monitor_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	u := *target.URL
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	target.URL = &u
	w := oltp(t)
	s := open(t, target, session.Options{PrepareOnFirstUse: true})
	if err := s.EnsurePrepared(ctx, w); err != nil {
		t.Fatal(err)
	}
	adminEng, err := engine.Open(ctx, testdb.Postgres(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer adminEng.Close()
	admin, err := engine.ConnectSQL(ctx, adminEng)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	killed := make(chan int64, 1)
	time.AfterFunc(800*time.Millisecond, func() {
		var n int64
		err := admin.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ? AND query LIKE '%pg_stat_bgwriter%' AND pid <> pg_backend_pid()", []any{app}, &n)
		if err != nil {
			t.Errorf("terminating the monitor's backend: %v", err)
		}
		killed <- n
	})
	file, err := s.Measure(ctx, w, []runner.Config{{Threads: 1, Duration: 2500 * time.Millisecond, ReportInterval: 250 * time.Millisecond, Seed: 1}}, session.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if n := <-killed; n != 1 {
		t.Fatalf("terminated %d monitor backends, want 1", n)
	}
	ivs := file.Runs[0].Intervals
	last := ivs[len(ivs)-1]
	if _, ok := last.Server["pg_commits_s"]; !ok {
		t.Errorf("no PostgreSQL metrics in the last interval after the monitor's connection was killed: %v; notes %q", last.Server, file.Target.Monitor.Notes)
	}
	if _, ok := last.Server["server_cpu_pct"]; !ok {
		t.Errorf("no server_cpu_pct in the last interval: %v", last.Server)
	}
	if notes := strings.Join(file.Target.Monitor.Notes, "\n"); !strings.Contains(notes, "connection: lost and reopened 1 time(s)") {
		t.Errorf("notes:\n%s", notes)
	}
}

// The monitor's notes quote server and driver errors: they are scrubbed
// as the run's error is before they reach the result file.
func TestMonitorNotesScrubbed(t *testing.T) {
	ctx := context.Background()
	w := oltp(t)
	s := open(t, testdb.SQLite(t), session.Options{PrepareOnFirstUse: true,
		Scrub: func(m string) string { return strings.ReplaceAll(m, "sqlite", "[scrubbed]") }})
	if err := s.EnsurePrepared(ctx, w); err != nil {
		t.Fatal(err)
	}
	file, err := s.Measure(ctx, w, []runner.Config{{Threads: 1, Duration: 100 * time.Millisecond, Seed: 1}}, session.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(file.Target.Monitor.Notes, "\n")
	if !strings.Contains(notes, "[scrubbed]: no server statistics for this engine") || strings.Contains(notes, "sqlite") {
		t.Errorf("notes not scrubbed:\n%s", notes)
	}
}
