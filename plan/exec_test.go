package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/server"
	_ "github.com/dbarena/dbarena/server/all"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/workload"
)

// failing is a workload whose every fifth transaction fails (a statement
// on a table that does not exist); the others read nothing.
type failing struct{}

func (failing) Define() workload.Spec {
	return workload.Spec{
		Meta:    workload.Meta{Name: "plan_test_failing", Version: "1", New: func() workload.Workload { return failing{} }},
		Options: pflag.NewFlagSet("failing", pflag.ContinueOnError),
		Tables:  func(engine.Dialect) []workload.Table { return nil },
		Ops:     []workload.Op{{Name: "tx"}},
	}
}

func (failing) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: func(_ context.Context, c engine.Conn, _ workload.WorkerEnv) (workload.Worker, error) {
		return &failingWorker{c: c.(engine.SQLConn)}, nil
	}}, nil
}

type failingWorker struct {
	c engine.SQLConn
	n int
}

func (w *failingWorker) Next(ctx context.Context) (int, error) {
	if w.n++; w.n%5 == 0 {
		return 0, w.c.Exec(ctx, "SELECT * FROM no_such_table")
	}
	return 0, w.c.Exec(ctx, "SELECT 1")
}

func init() { workload.Register(failing{}.Define().Meta) }

// sessionEnv is an environment of nothing but a data directory of the
// test's own.
func sessionEnv(t *testing.T) session.Env {
	return session.Env{Getenv: func(string) string { return "" }, Home: t.TempDir()}
}

// A plan cell's workload options and run options reach the run through
// the SessionExecutor: tolerate_errors keeps a run with errors going,
// max_errors stops it, isolation and the retry policy are set, and the
// workload's options are set on it; all are recorded with the result.
func TestSessionExecutorAppliesCellOptions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p, err := plan.Parse(filepath.Join(dir, "exp.yaml"), []byte(`
duration: 300ms
report_interval: 100ms
threads: 1
targets:
  - {label: sq, url: "sqlite://`+filepath.Join(dir, "x.db")+`"}
workloads:
  - {name: plan_test_failing, label: tolerant, tolerate_errors: true, isolation: serializable}
  - {name: plan_test_failing, label: strict, max_errors: 2}
  - {name: airline, isolation: serializable, max_retries: 3, retry_backoff: 1ms, options: {schedules: 5, aircraft: 2}}
`), plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ex := plan.NewSessionExecutor(plan.ExecutorOptions{Env: sessionEnv(t)})
	defer ex.Close()
	measure := func(c plan.Cell) *result.File {
		t.Helper()
		if err := ex.Prepare(ctx, c); err != nil {
			t.Fatal(err)
		}
		f, err := ex.Run(ctx, c, 1)
		if err != nil || f == nil {
			t.Fatalf("%s: %v, file %v", c.ID, err, f)
		}
		return f
	}

	tolerant := measure(p.Cells[0])
	if tolerant.Status != result.StatusComplete || tolerant.Runs[0].Errors < 3 {
		t.Fatalf("tolerate_errors: status %s, %d errors; want complete with errors", tolerant.Status, tolerant.Runs[0].Errors)
	}
	if got := tolerant.Workload.Options["isolation"]; got != "serializable" {
		t.Errorf("isolation recorded as %q", got)
	}
	if tolerant.Target.Label != "sq" {
		t.Errorf("target %q, want the plan's label sq", tolerant.Target.Label)
	}
	strict := measure(p.Cells[1])
	if strict.Status != result.StatusFailed || strict.Runs[0].Errors != 3 || !strings.Contains(strict.Error, "--max-errors 2") {
		t.Fatalf("max_errors 2: file %s, %d errors, %q", strict.Status, strict.Runs[0].Errors, strict.Error)
	}
	air := measure(p.Cells[2])
	o := air.Workload.Options
	if o["isolation"] != "serializable" || o["max-retries"] != "3" || o["retry-backoff"] != "1ms" || o["retry-backoff-max"] != "500ms" {
		t.Errorf("airline's run options recorded as %v", o)
	}
	if o["schedules"] != "5" || o["aircraft"] != "2" {
		t.Errorf("airline's own options recorded as %v", o)
	}
}

// Workload.New sets the entry's options on a new instance of the
// workload and validates them.
func TestWorkloadNew(t *testing.T) {
	w := plan.Workload{Label: "a", Name: "airline", Options: []plan.Setting{{Name: "schedules", Value: "5"}}}
	wl, err := w.New()
	if err != nil {
		t.Fatal(err)
	}
	if got := wl.Define().Options.Lookup("schedules").Value.String(); got != "5" {
		t.Errorf("schedules %s, want 5", got)
	}
	for _, bad := range []plan.Workload{
		{Label: "a", Name: "no_such_workload"},
		{Label: "a", Name: "airline", Options: []plan.Setting{{Name: "schedules", Value: "many"}}},
		{Label: "a", Name: "airline", Options: []plan.Setting{{Name: "no-such-option", Value: "1"}}},
		{Label: "a", Name: "airline", Options: []plan.Setting{{Name: "schedules", Value: "-1"}}},
	} {
		if _, err := bad.New(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// A plan's version axis (the knob version of a managed target) starts
// each version's server, named after the cell's target label, which
// server list shows; each result records the version that ran.
func TestSessionExecutorVersions(t *testing.T) {
	testdb.Postgres18(t)
	ctx := context.Background()
	dir := t.TempDir()
	p, err := plan.Parse(filepath.Join(dir, "exp.yaml"), []byte(`
duration: 300ms
report_interval: 100ms
threads: 1
targets:
  - {label: pg, url: "managed:postgres", knobs: {version: [15, 18]}}
workloads:
  - {name: plan_test_failing, tolerate_errors: true}
`), plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := sessionEnv(t)
	env.Getenv = func(k string) string { // the cache of PostgreSQL 18, if the caller's
		if k == "HOME" || k == "XDG_CACHE_HOME" {
			return os.Getenv(k)
		}
		return ""
	}
	ex := plan.NewSessionExecutor(plan.ExecutorOptions{Env: env})
	defer ex.Close()
	for _, c := range p.Cells {
		if err := ex.Prepare(ctx, c); err != nil {
			t.Fatal(err)
		}
		f, err := ex.Run(ctx, c, 1)
		if err != nil || f == nil {
			t.Fatalf("%s: %v, file %v", c.ID, err, f)
		}
		want := "PostgreSQL " + strings.TrimPrefix(c.Target.Label, "pg-version=") + "."
		if f.Target.Label != c.Target.Label || !strings.HasPrefix(f.Target.ServerVersion, want) {
			t.Errorf("%s: target %q, server version %q, want %s…", c.ID, f.Target.Label, f.Target.ServerVersion, want)
		}
	}
	list, err := server.List(env.Home)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name())
	}
	if got := strings.Join(names, " "); got != "pg-version-15 pg-version-18" {
		t.Errorf("servers %q, want pg-version-15 pg-version-18", got)
	}
}
