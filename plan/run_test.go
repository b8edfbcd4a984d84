package plan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/dbarena/dbarena/engine/all" // the engines' setting roles, as the command line has them
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/result"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// experiment is a plan of 3 targets (a knob pair and a plain URL with a
// password) × 1 workload × 2 thread counts = 6 cells, 2 repetitions.
const experiment = `name: exp
description: a test plan
seed: 7
repetitions: 2
duration: 10s
warmup: 1s
threads: [1, 2]
targets:
  - label: m
    url: "managed:postgres"
    knobs: {shared_buffers: [1GB, 2GB]}
  - label: remote
    url: "postgres://bench:s3cret@127.0.0.1/bench"
workloads:
  - name: oltp_point_select
    options: {tables: 1, table_size: 100}
`

// writePlan writes src as exp.yaml in a fresh directory and loads it.
func writePlan(t *testing.T, dir, src string) *plan.Plan {
	t.Helper()
	path := filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := plan.Load(path, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fake is an Executor that records its calls and returns result files
// built by hand.
type fake struct {
	calls []string
	runs  int
	// cancelAfter cancels the context when the run with this number
	// (from 1) returns; cutAt cancels it during that run, which then
	// returns the context's error.
	cancelAfter, cutAt int
	cancel             context.CancelFunc
	// fail makes the runs of these cells (cell ID and rep) fail: "error"
	// returns an error, "file" a file marked failed.
	fail        map[string]string
	prepareFail map[string]error // by target label
	// problems are the server monitor's problems of the runs of these
	// cells (cell ID and rep).
	problems map[string][]string
}

func (f *fake) Prepare(ctx context.Context, c plan.Cell) error {
	f.calls = append(f.calls, "prepare "+c.Key.Target)
	return f.prepareFail[c.Key.Target]
}

func (f *fake) Release(ctx context.Context, k plan.PrepareKey) error {
	f.calls = append(f.calls, "release "+k.Target)
	if ctx.Err() != nil {
		return errors.New("release on a canceled context")
	}
	return nil
}

func (f *fake) Run(ctx context.Context, c plan.Cell, rep int) (*result.File, error) {
	f.runs++
	id := fmt.Sprintf("%s r%d", c.ID, rep)
	f.calls = append(f.calls, "run "+id)
	if f.runs == f.cutAt {
		f.cancel()
		return nil, ctx.Err()
	}
	if f.runs == f.cancelAfter {
		defer f.cancel()
	}
	switch f.fail[id] {
	case "error":
		return nil, errors.New("server died\nlog tail: FATAL: out of memory, password s3cret")
	case "file":
		rf := resultFile(c, rep)
		rf.Status, rf.Error = result.StatusFailed, "too many errors"
		return rf, nil
	case "stalled":
		rf := resultFile(c, rep)
		rf.Status, rf.Error = result.StatusStalled, "the run stalled: 7 of 8 measured intervals had no transaction end"
		rf.Runs[0].Status, rf.Runs[0].Error = rf.Status, rf.Error
		return rf, nil
	}
	rf := resultFile(c, rep)
	if ps, ok := f.problems[id]; ok {
		rf.Target.Monitor = &result.Monitor{Sources: []string{"postgres"}, Problems: ps}
	}
	return rf, nil
}

// resultFile is a minimal complete result file for a cell: tps grows with
// the threads and differs a little by repetition.
func resultFile(c plan.Cell, rep int) *result.File {
	opts := map[string]string{}
	for _, o := range c.Workload.Options {
		opts[o.Name] = o.Value
	}
	tps := float64(100*c.Threads + rep)
	return &result.File{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "dbarena", Version: "test", Commit: "abc"},
		Workload:      result.Workload{Name: c.Workload.Name, Version: "1", Options: opts},
		Target:        result.Target{Label: c.Target.Label, Engine: "postgres", URL: c.Target.Redacted, ServerVersion: "PostgreSQL 15", Settings: map[string]string{"shared_buffers": "x"}},
		Client:        result.Client{Hostname: "h", Cores: 2},
		Seed:          c.Seed,
		Status:        result.StatusComplete,
		Runs: []result.Run{{Threads: c.Threads, DurationS: 10, TPS: tps, QPS: tps, Transactions: int64(tps * 10),
			LatencyMS: histogram.Latency{P50: 1, P95: 2, P99: 3}, Status: result.StatusComplete}},
	}
}

// clock is a fake clock one second further at every call.
func clock() func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func readState(t *testing.T, dir string) *plan.State {
	t.Helper()
	var st plan.State
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, plan.StateFile))), &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

func runsOf(calls []string) []string {
	var out []string
	for _, c := range calls {
		if s, ok := strings.CutPrefix(c, "run "); ok {
			out = append(out, s)
		}
	}
	return out
}

// checkPrepareRelease: per target, one prepare before its first run and
// one release after its last.
func checkPrepareRelease(t *testing.T, calls []string) {
	t.Helper()
	for _, target := range []string{"m-shared_buffers=1GB", "m-shared_buffers=2GB", "remote"} {
		var prep, rel, first, last []int
		for i, c := range calls {
			switch {
			case c == "prepare "+target:
				prep = append(prep, i)
			case c == "release "+target:
				rel = append(rel, i)
			case strings.HasPrefix(c, "run "+target+"__"):
				if len(first) == 0 {
					first = append(first, i)
				}
				last = []int{i}
			}
		}
		if len(first) == 0 {
			continue
		}
		if len(prep) != 1 || len(rel) != 1 || prep[0] > first[0] || rel[0] < last[0] {
			t.Errorf("%s: prepares at %v, releases at %v, runs from %d to %d in\n%s", target, prep, rel, first[0], last[0], strings.Join(calls, "\n"))
		}
	}
}

func TestRunAll(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment)
	ex := &fake{}
	var log bytes.Buffer
	st, err := plan.Run(context.Background(), p, ex, plan.RunOptions{Now: clock(), Log: &log, Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "exp-results")
	if st.Status != plan.PlanComplete {
		t.Errorf("status %s", st.Status)
	}
	// The runs went in the plan's order.
	var want []string
	for _, s := range p.Order() {
		want = append(want, fmt.Sprintf("%s r%d", p.Cells[s.Cell].ID, s.Rep))
	}
	if got := runsOf(ex.calls); !slices.Equal(got, want) {
		t.Errorf("runs\n%q\nwant\n%q", got, want)
	}
	checkPrepareRelease(t, ex.calls)
	disk := readState(t, dir)
	if len(disk.Runs) != 12 || len(disk.Cells) != 6 || disk.Status != plan.PlanComplete {
		t.Fatalf("plan.json: %d runs, %d cells, %s", len(disk.Runs), len(disk.Cells), disk.Status)
	}
	for _, r := range disk.Runs {
		if r.Status != plan.RunDone || r.Attempts != 1 || r.StartedAt == nil || r.FinishedAt == nil {
			t.Errorf("run %+v", r)
		}
		if f, err := result.Read(filepath.Join(dir, r.File)); err != nil || f.Status != result.StatusComplete {
			t.Errorf("%s: %v", r.File, err)
		}
	}
	if c := disk.Cells[0]; c.URL != "managed:postgres?shared_buffers=1GB" || c.Threads != 1 || c.DurationS != 10 ||
		c.PrepareKey != "m-shared_buffers=1GB/oltp_point_select --table-size=100" {
		t.Errorf("cell %+v", c)
	}
	// Secrets stay out of the directory.
	for _, name := range []string{plan.StateFile, plan.SourceFile, plan.SummaryFile, plan.CompareFile, plan.ReportFile} {
		if s := readFile(t, filepath.Join(dir, name)); strings.Contains(s, "s3cret") {
			t.Errorf("%s holds the password", name)
		}
	}
	if src := readFile(t, filepath.Join(dir, plan.SourceFile)); !strings.Contains(src, "postgres://bench:xxxxx@127.0.0.1/bench") {
		t.Errorf("plan.yaml:\n%s", src)
	}
	// The end artifacts.
	cmp := readFile(t, filepath.Join(dir, plan.CompareFile))
	for _, want := range []string{"# exp: compare tables", "## oltp\\_point\\_select", "--tables=1 --table-size=100",
		"m-shared\\_buffers=1GB", "m-shared\\_buffers=2GB", "remote", "p95"} {
		if !strings.Contains(cmp, want) {
			t.Errorf("compare.md lacks %q:\n%s", want, cmp)
		}
	}
	// Two repetitions at 1 thread: 101 and 102, median 101.5.
	if !strings.Contains(cmp, "101.5") {
		t.Errorf("compare.md lacks the median of the repetitions:\n%s", cmp)
	}
	if html := readFile(t, filepath.Join(dir, plan.ReportFile)); !strings.Contains(html, "<html") || !strings.Contains(html, "dbarena plan: exp") {
		t.Error("report.html is not the report")
	}
	sum := readFile(t, filepath.Join(dir, plan.SummaryFile))
	for _, want := range []string{"# exp: summary", "| runs | 12: 12 done, 0 failed, 0 pending |", "## Failed runs\n\nNone."} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, sum)
		}
	}
	if !strings.Contains(log.String(), "[12/12] round 2/2") {
		t.Errorf("log:\n%s", log.String())
	}

	// Nothing is left to do: a second run runs nothing and rewrites the
	// artifacts.
	ex2 := &fake{}
	if _, err := plan.Run(context.Background(), p, ex2, plan.RunOptions{Now: clock()}); err != nil || len(ex2.calls) != 0 {
		t.Errorf("second run: %v, calls %q", err, ex2.calls)
	}
}

// TestResume: a plan interrupted after k runs records k done; the next
// run does exactly the rest; a different plan is refused on the same
// directory.
func TestResume(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment)
	dir := filepath.Join(tmp, "exp-results")
	const k = 5
	ctx, cancel := context.WithCancel(context.Background())
	ex := &fake{cancelAfter: k, cancel: cancel}
	st, err := plan.Run(ctx, p, ex, plan.RunOptions{Now: clock()})
	if !errors.Is(err, plan.ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
	if done, failed, pending := st.Counts(); done != k || failed != 0 || pending != 12-k {
		t.Errorf("returned state: %d done, %d failed, %d pending", done, failed, pending)
	}
	disk := readState(t, dir)
	if disk.Status != plan.PlanInterrupted {
		t.Errorf("status %s", disk.Status)
	}
	for i, r := range disk.Runs {
		if want := map[bool]string{true: plan.RunDone, false: plan.RunPending}[i < k]; r.Status != want {
			t.Errorf("run %d (%s r%d): %s, want %s", i, r.Cell, r.Rep, r.Status, want)
		}
	}
	// Everything prepared was released, on a live context.
	var prepared, released []string
	for _, c := range ex.calls {
		if s, ok := strings.CutPrefix(c, "prepare "); ok {
			prepared = append(prepared, s)
		}
		if s, ok := strings.CutPrefix(c, "release "); ok {
			released = append(released, s)
		}
	}
	slices.Sort(prepared)
	slices.Sort(released)
	if !slices.Equal(prepared, released) || len(prepared) == 0 {
		t.Errorf("prepared %q, released %q", prepared, released)
	}
	if st.Warnings != nil {
		t.Errorf("warnings %q", st.Warnings)
	}
	if _, err := os.Stat(filepath.Join(dir, plan.SummaryFile)); err == nil {
		t.Error("an interrupted plan wrote its summary")
	}

	// A changed plan is refused and runs nothing.
	other := writePlan(t, tmp, strings.Replace(experiment, "threads: [1, 2]", "threads: [1, 4]", 1))
	ex2 := &fake{}
	_, err = plan.Run(context.Background(), other, ex2, plan.RunOptions{Dir: dir, Now: clock()})
	if !errors.Is(err, plan.ErrDifferentPlan) || len(ex2.calls) != 0 {
		t.Fatalf("a different plan: %v, calls %q", err, ex2.calls)
	}
	for _, want := range []string{"cells not in the directory: m-shared_buffers=1GB__oltp_point_select__t4", "cells only in the directory: m-shared_buffers=1GB__oltp_point_select__t2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nlacks %q", err, want)
		}
	}
	changed := writePlan(t, tmp, strings.Replace(experiment, "duration: 10s", "duration: 20s", 1))
	if _, err := plan.Run(context.Background(), changed, &fake{}, plan.RunOptions{Dir: dir, Now: clock()}); !errors.Is(err, plan.ErrDifferentPlan) ||
		!strings.Contains(err.Error(), "duration 20s, was 10s") {
		t.Errorf("changed duration: %v", err)
	}

	isolated := writePlan(t, tmp, strings.Replace(experiment, "duration: 10s", "duration: 10s\nisolation: serializable\nmax_errors: 0", 1))
	if _, err := plan.Run(context.Background(), isolated, &fake{}, plan.RunOptions{Dir: dir, Now: clock()}); !errors.Is(err, plan.ErrDifferentPlan) ||
		!strings.Contains(err.Error(), "run options [{isolation serializable}], was []") {
		t.Errorf("changed isolation: %v", err)
	}

	// An option given at its default is the same plan.
	same := writePlan(t, tmp, strings.Replace(experiment, "{tables: 1, table_size: 100}", "{table_size: 100}", 1))
	if st, err := plan.Inspect(same, plan.RunOptions{Dir: dir}); err != nil {
		t.Errorf("leaving out a default option: %v", err)
	} else if done, _, _ := st.Counts(); done != k {
		t.Errorf("inspect: %d done", done)
	}

	// The same plan resumes with exactly the rest.
	p = writePlan(t, tmp, experiment)
	ex3 := &fake{}
	var log bytes.Buffer
	if _, err := plan.Run(context.Background(), p, ex3, plan.RunOptions{Now: clock(), Log: &log}); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for _, s := range p.Order()[k:] {
		rest = append(rest, fmt.Sprintf("%s r%d", p.Cells[s.Cell].ID, s.Rep))
	}
	if got := runsOf(ex3.calls); !slices.Equal(got, rest) {
		t.Errorf("resumed runs\n%q\nwant\n%q", got, rest)
	}
	checkPrepareRelease(t, ex3.calls)
	if !strings.Contains(log.String(), "resuming") {
		t.Errorf("log:\n%s", log.String())
	}
	if st := readState(t, dir); st.Status != plan.PlanComplete {
		t.Errorf("status %s", st.Status)
	}
}

// TestInterruptedRun: a run cut short by Ctrl-C is not a failure: it stays
// pending and is run again.
func TestInterruptedRun(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment)
	ctx, cancel := context.WithCancel(context.Background())
	ex := &fake{cutAt: 3, cancel: cancel}
	if _, err := plan.Run(ctx, p, ex, plan.RunOptions{Now: clock()}); !errors.Is(err, plan.ErrInterrupted) {
		t.Fatal(err)
	}
	disk := readState(t, filepath.Join(tmp, "exp-results"))
	if done, failed, _ := disk.Counts(); done != 2 || failed != 0 {
		t.Errorf("%d done, %d failed", done, failed)
	}
	if r := disk.Runs[2]; r.Status != plan.RunPending || r.Attempts != 0 || r.StartedAt != nil {
		t.Errorf("the cut run: %+v", r)
	}
}

// TestFailedRuns: a failed run is recorded with its error and the plan
// goes on; the next run retries it unless told not to.
func TestFailedRuns(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment)
	dir := filepath.Join(tmp, "exp-results")
	ex := &fake{fail: map[string]string{
		"remote__oltp_point_select__t1 r1":               "error",
		"m-shared_buffers=2GB__oltp_point_select__t2 r2": "file",
	}}
	st, err := plan.Run(context.Background(), p, ex, plan.RunOptions{Now: clock()})
	if !errors.Is(err, plan.ErrRunsFailed) {
		t.Fatalf("want ErrRunsFailed, got %v", err)
	}
	if len(runsOf(ex.calls)) != 12 {
		t.Errorf("%d runs, want all 12", len(runsOf(ex.calls)))
	}
	if done, failed, _ := st.Counts(); done != 10 || failed != 2 || st.Status != plan.PlanFailed {
		t.Errorf("%d done, %d failed, %s", done, failed, st.Status)
	}
	byFile := map[string]plan.RunState{}
	for _, r := range readState(t, dir).Runs {
		byFile[r.File] = r
	}
	r := byFile["remote__oltp_point_select__t1__r1.json"]
	if r.Status != plan.RunFailed || r.Error != "server died\nlog tail: FATAL: out of memory, password xxxxx" {
		t.Errorf("failed run %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, r.File)); err == nil {
		t.Error("a run that returned no file has one")
	}
	r = byFile["m-shared_buffers=2GB__oltp_point_select__t2__r2.json"]
	if r.Status != plan.RunFailed || r.Error != "too many errors" {
		t.Errorf("failed file %+v", r)
	}
	if f, err := result.Read(filepath.Join(dir, r.File)); err != nil || f.Status != result.StatusFailed {
		t.Errorf("the failed run's file: %v", err)
	}
	sum := readFile(t, filepath.Join(dir, plan.SummaryFile))
	for _, want := range []string{"| runs | 12: 10 done, 2 failed, 0 pending |", "| remote\\_\\_oltp\\_point\\_select\\_\\_t1 | 1 | 1 | server died … |",
		"```\nserver died\nlog tail: FATAL: out of memory, password xxxxx\n```", "too many errors"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, sum)
		}
	}

	// --no-retry-failed: nothing to do.
	ex2 := &fake{}
	if _, err := plan.Run(context.Background(), p, ex2, plan.RunOptions{Now: clock(), NoRetryFailed: true}); !errors.Is(err, plan.ErrRunsFailed) || len(ex2.calls) != 0 {
		t.Errorf("no retry: %v, %q", err, ex2.calls)
	}
	// By default the failed runs run again, each key prepared and released.
	ex3 := &fake{}
	if _, err := plan.Run(context.Background(), p, ex3, plan.RunOptions{Now: clock()}); err != nil {
		t.Fatal(err)
	}
	want := []string{"prepare m-shared_buffers=2GB", "run m-shared_buffers=2GB__oltp_point_select__t2 r2", "release m-shared_buffers=2GB",
		"prepare remote", "run remote__oltp_point_select__t1 r1", "release remote"}
	slices.SortFunc(ex3.calls, func(a, b string) int { return strings.Compare(keyOf(a), keyOf(b)) })
	if !slices.Equal(ex3.calls, want) {
		t.Errorf("retry calls %q", ex3.calls)
	}
	if r := readState(t, dir).Runs; !slices.ContainsFunc(r, func(r plan.RunState) bool { return r.Attempts == 2 && r.Status == plan.RunDone }) {
		t.Error("no run counts two attempts")
	}
}

// A run that stalled is recorded as such, its file (status stalled) with
// every figure kept; the plan ends as with a failed run, but a resumed
// plan does not run it again: it went to its end, and would stall again.
// Without its file, it runs again.
func TestStalledRuns(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment)
	dir := filepath.Join(tmp, "exp-results")
	const id = "remote__oltp_point_select__t1 r1"
	ex := &fake{fail: map[string]string{id: "stalled"}}
	st, err := plan.Run(context.Background(), p, ex, plan.RunOptions{Now: clock()})
	if !errors.Is(err, plan.ErrRunsFailed) {
		t.Fatalf("want ErrRunsFailed, got %v", err)
	}
	if done, failed, _ := st.Counts(); done != 11 || failed != 1 || st.Status != plan.PlanFailed {
		t.Errorf("%d done, %d failed or stalled, %s", done, failed, st.Status)
	}
	var r plan.RunState
	for _, x := range readState(t, dir).Runs {
		if x.File == "remote__oltp_point_select__t1__r1.json" {
			r = x
		}
	}
	if r.Status != plan.RunStalled || !strings.HasPrefix(r.Error, "the run stalled") {
		t.Errorf("stalled run %+v", r)
	}
	f, err := result.Read(filepath.Join(dir, r.File))
	if err != nil || f.Status != result.StatusStalled || f.Runs[0].TPS == 0 {
		t.Fatalf("the stalled run's file: %v, %+v", err, f)
	}
	if sum := readFile(t, filepath.Join(dir, plan.SummaryFile)); !strings.Contains(sum, "the run stalled") {
		t.Errorf("summary.md does not list the stalled run:\n%s", sum)
	}
	ex2 := &fake{}
	if _, err := plan.Run(context.Background(), p, ex2, plan.RunOptions{Now: clock()}); !errors.Is(err, plan.ErrRunsFailed) || len(runsOf(ex2.calls)) != 0 {
		t.Errorf("resumed: %v, %q: want the stalled run kept, not run again", err, ex2.calls)
	}
	if err := os.Remove(filepath.Join(dir, r.File)); err != nil {
		t.Fatal(err)
	}
	ex3 := &fake{}
	if _, err := plan.Run(context.Background(), p, ex3, plan.RunOptions{Now: clock()}); err != nil || !slices.Equal(runsOf(ex3.calls), []string{id}) {
		t.Errorf("resumed without its file: %v, %q", err, ex3.calls)
	}
}

// keyOf groups a fake's calls by target, keeping their order within one.
func keyOf(call string) string {
	_, rest, _ := strings.Cut(call, " ")
	target, _, _ := strings.Cut(rest, "__")
	return target
}

// TestPrepareFails: a failed prepare fails every run of its key without
// running them, releases the key at once, and the plan goes on.
func TestPrepareFails(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment)
	ex := &fake{prepareFail: map[string]error{"remote": errors.New("initdb: permission denied")}}
	st, err := plan.Run(context.Background(), p, ex, plan.RunOptions{Now: clock()})
	if !errors.Is(err, plan.ErrRunsFailed) {
		t.Fatal(err)
	}
	if done, failed, _ := st.Counts(); done != 8 || failed != 4 {
		t.Errorf("%d done, %d failed", done, failed)
	}
	i := slices.Index(ex.calls, "prepare remote")
	if i < 0 || ex.calls[i+1] != "release remote" || slices.Contains(runsOf(ex.calls), "remote__oltp_point_select__t1 r1") ||
		strings.Count(strings.Join(ex.calls, "\n"), "prepare remote") != 1 {
		t.Errorf("calls %q", ex.calls)
	}
	for _, r := range st.Runs {
		if strings.HasPrefix(r.Cell, "remote") && !strings.HasPrefix(r.Error, "prepare remote/oltp_point_select --table-size=100: initdb: permission denied") {
			t.Errorf("%+v", r)
		}
	}
}

// TestForeignDirectory: a directory with files but no plan.json is not
// taken over; a second Run on a busy directory is refused.
func TestForeignDirectory(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment)
	dir := filepath.Join(tmp, "other")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	_, err := plan.Run(context.Background(), p, &fake{}, plan.RunOptions{Dir: dir, Now: clock()})
	if err == nil || !strings.Contains(err.Error(), "not a plan's results directory") {
		t.Errorf("%v", err)
	}
}

// blocking runs a nested plan.Run on the same directory during its first
// run.
type blocking struct {
	fake
	p      *plan.Plan
	nested error
}

func (b *blocking) Run(ctx context.Context, c plan.Cell, rep int) (*result.File, error) {
	if b.nested == nil {
		_, b.nested = plan.Run(ctx, b.p, &fake{}, plan.RunOptions{Now: clock()})
	}
	return b.fake.Run(ctx, c, rep)
}

func TestBusyDirectory(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment)
	b := &blocking{p: p}
	if _, err := plan.Run(context.Background(), p, b, plan.RunOptions{Now: clock()}); err != nil {
		t.Fatal(err)
	}
	if b.nested == nil || !strings.Contains(b.nested.Error(), "in use by another dbarena plan run") {
		t.Errorf("nested run: %v", b.nested)
	}
}

func TestShow(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment)
	var out bytes.Buffer
	if err := plan.Show(&out, p, plan.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"plan exp", "6 cells × 2 repetitions = 12 runs, seed 7", "0 done, 0 failed, 12 pending",
		"remote__oltp_point_select__t2", "postgres://bench@127.0.0.1/bench", "2m12s of warm-up and measurement"} {
		if !strings.Contains(s, want) {
			t.Errorf("show lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "s3cret") {
		t.Error("show prints the password")
	}
	// What the compare tables will show, workload by workload.
	p = writePlan(t, tmp, strings.Replace(experiment, "threads: [1, 2]\n", "threads: [1, 2]\nchange: vs-better\ncolumns: [server_cpu_pct, disk_iops]\n", 1)+"    metric: qps\n")
	out.Reset()
	if err := plan.Show(&out, p, plan.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "Compare (change vs-better, against the better column):") ||
		!strings.Contains(s, "oltp_point_select  qps     server_cpu_pct, disk_iops") {
		t.Errorf("show lacks the compare tables' metric and columns:\n%s", s)
	}
	p = writePlan(t, tmp, experiment)
	ctx, cancel := context.WithCancel(context.Background())
	plan.Run(ctx, p, &fake{cancelAfter: 3, cancel: cancel}, plan.RunOptions{Now: clock()})
	out.Reset()
	if err := plan.Show(&out, p, plan.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "(interrupted): 3 done, 0 failed, 9 pending") || !strings.Contains(s, "1m39s left") {
		t.Errorf("show after 3 runs:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(tmp, "exp-results", plan.StateFile)); err != nil {
		t.Error(err)
	}
}

// TestChangeConvention: the plan's change field reaches compare.md, its
// metric reaches report.html, and
// ResultFiles gives the directory's files with compare.md's labels.
func TestChangeConvention(t *testing.T) {
	tmp := t.TempDir()
	src := strings.Replace(experiment, "threads: [1, 2]\n", "threads: [1, 2]\nchange: vs-previous\n", 1)
	p := writePlan(t, tmp, src+"    metric: qps\n")
	if _, err := plan.Run(context.Background(), p, &fake{}, plan.RunOptions{Now: clock(), Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "exp-results")
	cmp := readFile(t, filepath.Join(dir, plan.CompareFile))
	for _, want := range []string{"changes against the column before", "m-shared\\_buffers=2GB vs m-shared\\_buffers=1GB", "remote vs m-shared\\_buffers=2GB"} {
		if !strings.Contains(cmp, want) {
			t.Errorf("compare.md lacks %q:\n%s", want, cmp)
		}
	}
	// The HTML report shows the entry's metric too.
	if html := readFile(t, filepath.Join(dir, plan.ReportFile)); !strings.Contains(html, "oltp_point_select: qps (/s), higher is better") {
		t.Error("report.html does not show the plan's metric")
	}
	files, isPlan, err := plan.ResultFiles(dir)
	if err != nil || !isPlan || len(files) != 12 {
		t.Fatalf("ResultFiles: %d files, %v, %v", len(files), isPlan, err)
	}
	if f := files[0]; f.Label != "m-shared_buffers=1GB" || f.Name != p.Cells[0].FileName(1) {
		t.Errorf("first file %+v, want %s of m-shared_buffers=1GB", f, p.Cells[0].FileName(1))
	}
	if _, isPlan, err := plan.ResultFiles(tmp); isPlan || err != nil {
		t.Errorf("ResultFiles of a directory without plan.json: %v, %v", isPlan, err)
	}
}

// TestMonitorProblemsLogged: the server monitor's problems of a run are
// warnings in the plan's log under the run's line, as at the end of
// `dbarena run`; a problem the same target's previous run reported
// already, word for word, is not repeated.
func TestMonitorProblemsLogged(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment)
	// Two cells of one target; which runs first is the plan's order.
	a, b := p.Cells[0], p.Cells[1]
	failed := "postgres: 20 of 23 samples failed, the last with: EOF"
	reopened := "connection: lost and reopened 1 time(s)"
	ex := &fake{problems: map[string][]string{
		a.ID + " r1": {failed},
		b.ID + " r1": {failed, reopened},
	}}
	var log bytes.Buffer
	if _, err := plan.Run(context.Background(), p, ex, plan.RunOptions{Now: clock(), Log: &log, Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	// The warnings under each run's line, by the run.
	warnings := map[string][]string{}
	var order []string
	run := ""
	for _, l := range strings.Split(log.String(), "\n") {
		if w, ok := strings.CutPrefix(l, "    warning: server metrics: "); ok {
			warnings[run] = append(warnings[run], w)
			continue
		}
		if _, rest, ok := strings.Cut(l, "] round "); ok && strings.Contains(rest, ": done in ") {
			run = rest[:strings.Index(rest, ": done in ")]
			order = append(order, run)
		}
	}
	ra, rb := "1/2 "+a.ID, "1/2 "+b.ID
	want := map[string][]string{ra: {failed}, rb: {reopened}} // a ran first
	if slices.Index(order, rb) < slices.Index(order, ra) {
		want = map[string][]string{rb: {failed, reopened}} // a's problem is b's, said already
	}
	if fmt.Sprint(warnings) != fmt.Sprint(want) {
		t.Errorf("warnings by run %q, want %q; log:\n%s", warnings, want, log.String())
	}
}

// updateStudies rewrites the recorded compare.md files with what Report
// gives now: go test ./plan -run TestStudyTables -update-studies.
var updateStudies = flag.Bool("update-studies", false, "rewrite plan/testdata/studies/*/compare.md")

// reportStudy copies the recorded results of the study plan src (a
// testdata/studies/*.yaml) into a temporary directory and runs Report
// there; it returns the directory and the recorded one.
func reportStudy(t *testing.T, src string) (dir, recorded string) {
	t.Helper()
	p, err := plan.Load(src, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	recorded = strings.TrimSuffix(src, ".yaml") + "-results"
	dir = t.TempDir()
	entries, err := os.ReadDir(recorded)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.WriteFile(filepath.Join(dir, e.Name()), []byte(readFile(t, filepath.Join(recorded, e.Name()))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := plan.Report(p, plan.RunOptions{Dir: dir, Now: clock(), Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	return dir, recorded
}

// TestStudyTables pins the compare.md of the study plans' small-scale
// copies (plan/testdata/studies): the result files recorded by running
// each, and the compare.md they gave, which Report must give again.
func TestStudyTables(t *testing.T) {
	plans, err := filepath.Glob("testdata/studies/*.yaml")
	if err != nil || len(plans) == 0 {
		t.Fatalf("study plans: %v %v", plans, err)
	}
	for _, src := range plans {
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir, recorded := reportStudy(t, src)
			got, want := readFile(t, filepath.Join(dir, plan.CompareFile)), readFile(t, filepath.Join(recorded, plan.CompareFile))
			if *updateStudies && got != want {
				if err := os.WriteFile(filepath.Join(recorded, plan.CompareFile), []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("compare.md\n%s\nwant (%s)\n%s", got, filepath.Join(recorded, plan.CompareFile), want)
			}
		})
	}
}

// TestRunProgress: Run tells its Progress when each run starts and ends,
// with the runs ended, failed and the warm-up and measurement left; a
// resumed plan counts only the runs it does.
func TestRunProgress(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment) // 12 runs of 1s + 10s
	ex := &fake{prepareFail: map[string]error{"remote": errors.New("no server")}}
	var got []plan.Progress
	_, err := plan.Run(context.Background(), p, ex, plan.RunOptions{Now: clock(), Progress: func(pr plan.Progress) { got = append(got, pr) }})
	if !errors.Is(err, plan.ErrRunsFailed) {
		t.Fatal(err)
	}
	if len(got) != 24 {
		t.Fatalf("%d reports, want 2 per run: %+v", len(got), got)
	}
	first := got[0]
	if first.Ended != 0 || first.Failed != 0 || first.Total != 12 || first.Left != 132*time.Second || !strings.HasPrefix(first.Current, "round 1/2 ") {
		t.Errorf("first report %+v", first)
	}
	for i := 0; i < 12; i++ {
		start, end := got[2*i], got[2*i+1]
		if start.Ended != i || end.Ended != i+1 || end.Current != "" || start.Current == "" || start.CurrentTime != 11*time.Second || end.CurrentTime != 0 ||
			end.Left != time.Duration(11-i)*11*time.Second || end.Total != 12 {
			t.Errorf("run %d: start %+v, end %+v", i+1, start, end)
		}
	}
	if last := got[23]; last.Failed != 4 || last.Left != 0 {
		t.Errorf("last report %+v, want the 4 runs of the target that did not prepare failed", last)
	}

	// Resumed: the 4 failed runs are all there is to do.
	got = nil
	if _, err := plan.Run(context.Background(), p, &fake{}, plan.RunOptions{Now: clock(), Progress: func(pr plan.Progress) { got = append(got, pr) }}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 || got[0].Total != 4 || got[0].Left != 44*time.Second || got[7].Ended != 4 || got[7].Failed != 0 {
		t.Errorf("resumed reports %+v", got)
	}
}

// TestGroupsTargetsRelative: an entry's targets limit its cells; entries
// of one group share one table, a column per target and entry, the
// options they differ in listed; relative divides the group's metric by
// the baseline's first row.
func TestGroupsTargetsRelative(t *testing.T) {
	tmp := t.TempDir()
	src := `name: exp
seed: 7
duration: 10s
warmup: 1s
threads: [1, 2]
relative: true
baseline: remote
targets:
  - label: m
    url: "managed:postgres"
  - label: remote
    url: "postgres://bench:s3cret@127.0.0.1/bench"
workloads:
  - name: oltp_point_select
    label: one
    group: sizes
    options: {tables: 1, table_size: 100}
  - name: oltp_point_select
    label: two
    group: sizes
    targets: [m]
    options: {tables: 2, table_size: 100}
  - name: oltp_read_only
    options: {tables: 1, table_size: 100}
`
	p := writePlan(t, tmp, src)
	var cells []string
	for _, c := range p.Cells {
		cells = append(cells, c.ID)
	}
	if want := []string{"m__one__t1", "m__one__t2", "m__two__t1", "m__two__t2", "m__oltp_read_only__t1", "m__oltp_read_only__t2",
		"remote__one__t1", "remote__one__t2", "remote__oltp_read_only__t1", "remote__oltp_read_only__t2"}; !slices.Equal(cells, want) {
		t.Fatalf("cells %v\nwant  %v", cells, want)
	}
	if _, err := plan.Run(context.Background(), p, &fake{}, plan.RunOptions{Now: clock(), Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	cmp := readFile(t, filepath.Join(tmp, "exp-results", plan.CompareFile))
	sizes := cmp[strings.Index(cmp, "## sizes"):strings.Index(cmp, "## oltp\\_read\\_only")]
	for _, want := range []string{"Columns are target/entry", "- one: `oltp_point_select` with --tables=1 --table-size=100;",
		"- two: `oltp_point_select` with --tables=2 --table-size=100 on m;", "m/one", "m/two", "remote/one",
		"values relative to remote/one at 1 threads (101.0 = 1.00x)", "option --tables"} {
		if !strings.Contains(sizes, want) {
			t.Errorf("the group's section lacks %q:\n%s", want, sizes)
		}
	}
	if strings.Contains(cmp, "remote/two") {
		t.Error("entry two ran on remote")
	}
	if sum := readFile(t, filepath.Join(tmp, "exp-results", plan.SummaryFile)); !strings.Contains(sum, "| cells | 10 (2 targets × 3 workloads, each on the targets it names, × their thread counts) |") {
		t.Errorf("summary.md does not count the cells of limited entries:\n%s", sum)
	}
	// A relative table's cells read as multiples of the baseline.
	if !strings.Contains(sizes, "1.00x") || !strings.Contains(sizes, "1.99x") {
		t.Errorf("the group's table is not relative:\n%s", sizes)
	}
	// An entry of its own keeps the target labels.
	rest := cmp[strings.Index(cmp, "## oltp\\_read\\_only"):]
	if !strings.Contains(rest, "| threads | m | remote |") {
		t.Errorf("oltp_read_only's table lost the target columns:\n%s", rest)
	}
}

// TestGroupsTargetsProblems: a target an entry names must exist, a group
// holds one workload, and relative is a boolean.
func TestGroupsTargetsProblems(t *testing.T) {
	src := `duration: 10s
threads: [1]
relative: maybe
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: oltp_point_select
    group: g
    targets: [pg, nosuch]
  - name: oltp_read_only
    group: g
    targets: []
`
	pe := problems(t, src, plan.Options{})
	got := pe.Error()
	for _, want := range []string{`relative: "maybe": want true or false`, `workloads[0].targets[1]: "nosuch" is not a target label (labels: pg)`,
		`group "g" holds workload oltp_point_select`, "workloads[1].targets: empty"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}

// A result file of the plan that another dbarena process is writing (a
// `dbarena run --out` into the results directory) is left to it: that run
// fails, naming the process, without running, and the plan goes on.
func TestResultFileInUse(t *testing.T) {
	tmp := t.TempDir()
	p := writePlan(t, tmp, experiment)
	dir := filepath.Join(tmp, "exp-results")
	first := p.Order()[0]
	id := fmt.Sprintf("%s r%d", p.Cells[first.Cell].ID, first.Rep)
	// A first pass in which that run failed.
	if _, err := plan.Run(context.Background(), p, &fake{fail: map[string]string{id: "error"}}, plan.RunOptions{Now: clock()}); !errors.Is(err, plan.ErrRunsFailed) {
		t.Fatalf("first pass: want ErrRunsFailed, got %v", err)
	}
	var busy plan.RunState
	for _, r := range readState(t, dir).Runs {
		if r.Status == plan.RunFailed {
			busy = r
		}
	}
	path := filepath.Join(dir, busy.File)
	lock, err := result.LockOutput(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if err := os.WriteFile(path, []byte("the other process's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ex := &fake{}
	_, err = plan.Run(context.Background(), p, ex, plan.RunOptions{Now: clock()})
	if !errors.Is(err, plan.ErrRunsFailed) {
		t.Fatalf("want ErrRunsFailed, got %v", err)
	}
	if len(ex.calls) != 0 {
		t.Errorf("calls %q: want none", ex.calls)
	}
	for _, r := range readState(t, dir).Runs {
		failed := r.File == busy.File
		if failed != (r.Status == plan.RunFailed) || (failed && !strings.Contains(r.Error, fmt.Sprintf("in use by dbarena process %d", os.Getpid()))) {
			t.Errorf("run %s: %s %q", r.File, r.Status, r.Error)
		}
	}
	if got := readFile(t, path); got != "the other process's\n" {
		t.Errorf("the plan wrote %s: %q", busy.File, got)
	}
}
