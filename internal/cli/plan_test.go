package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/result"
)

const twoByTwo = `name: two-by-two
seed: 7
repetitions: 2
duration: 1s
report_interval: 500ms
threads: [1, 2]
targets:
  - label: pg
    url: "managed:postgres?max_connections=40"
knobs:
  shared_buffers: [16MB, 32MB]
knob_labels:
  shared_buffers: sb
workloads:
  - name: oltp_point_select
    options:
      tables: 1
      table-size: 2000
`

// A plan of 2 managed targets (a knob matrix) × 2 thread counts × 2
// repetitions: interrupted, it keeps what it did; run again, it does the
// rest; the rounds were interleaved; each result file records the knob as
// the server reports it; the servers are gone afterwards.
func TestPlanOnManagedServers(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"DBARENA_HOME": home}
	dir := t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(file, []byte(twoByTwo), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")

	// Interrupt after the third result file.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		for {
			m, _ := filepath.Glob(filepath.Join(out, "*__r*.json"))
			if len(m) >= 3 {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	o := dbarena(t, ctx, env, "plan", "run", file, "-o", out)
	cancel()
	if o.code != cli.ExitInterrupted {
		t.Fatalf("first run: exit %d, want %d (interrupted)\n%s%s", o.code, cli.ExitInterrupted, o.stdout, o.stderr)
	}
	st := readState(t, out)
	done1, _, pending1 := st.Counts()
	if done1 < 3 || pending1 == 0 {
		t.Fatalf("after the interruption: %d done, %d pending", done1, pending1)
	}

	o = dbarena(t, context.Background(), env, "plan", "run", file, "-o", out)
	if o.code != cli.ExitOK {
		t.Fatalf("second run: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	st = readState(t, out)
	if done, failed, pending := st.Counts(); done != 8 || failed != 0 || pending != 0 {
		t.Fatalf("after resuming: %d done, %d failed, %d pending; want 8 done", done, failed, pending)
	}
	if n := strings.Count(o.stdout, "    complete: tps"); n != 8-done1 {
		t.Errorf("the second run ran %d runs, want the %d left", n, 8-done1)
	}

	// Interleaved: every run of round 1 finished before any of round 2
	// started.
	var lastRound1, firstRound2 time.Time
	for _, r := range st.Runs {
		switch r.Rep {
		case 1:
			if r.FinishedAt.After(lastRound1) {
				lastRound1 = *r.FinishedAt
			}
		case 2:
			if firstRound2.IsZero() || r.StartedAt.Before(firstRound2) {
				firstRound2 = *r.StartedAt
			}
		}
	}
	if !lastRound1.Before(firstRound2) {
		t.Errorf("round 2 started at %v, before round 1 ended at %v", firstRound2, lastRound1)
	}

	for _, r := range st.Runs {
		f, err := result.Read(filepath.Join(out, r.File))
		if err != nil {
			t.Fatal(err)
		}
		want := "16MB"
		if strings.Contains(r.Cell, "32MB") {
			want = "32MB"
		}
		if got := f.Target.Settings["shared_buffers"]; got != want {
			t.Errorf("%s: shared_buffers = %q, want %q", r.File, got, want)
		}
		if f.Status != result.StatusComplete || len(f.Runs) != 1 || f.Runs[0].Transactions == 0 {
			t.Errorf("%s: status %s, %d runs", r.File, f.Status, len(f.Runs))
		}
		if f.Runs[0].Server["server_cpu_pct"] <= 0 {
			t.Errorf("%s: no server metrics: %v", r.File, f.Runs[0].Server)
		}
	}
	for _, name := range []string{plan.CompareFile, plan.ReportFile, plan.SummaryFile} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("the plan's %s: %v", name, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, plan.CompareFile))
	if !strings.Contains(string(b), "pg-sb=32MB") || !strings.Contains(string(b), "pg-sb=16MB") {
		t.Errorf("compare.md lacks the targets:\n%s", b)
	}

	o = dbarena(t, context.Background(), env, "server", "list")
	if strings.Contains(o.stdout, "postgres") {
		t.Errorf("managed servers left running:\n%s", o.stdout)
	}
	o = dbarena(t, context.Background(), env, "plan", "show", file, "-o", out)
	if o.code != cli.ExitOK || !strings.Contains(o.stdout, "done") {
		t.Errorf("plan show: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

func readState(t *testing.T, dir string) *plan.State {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, plan.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	var st plan.State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// Bad plans are refused before anything runs, with the line and column.
func TestPlanBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"unknown field", "name: x\nduration: 1s\nthreads: 1\ntargets:\n  - label: a\n    url: sqlite:///tmp/x.db\n    colour: red\nworkloads:\n  - name: oltp_point_select\n", "7:5"},
		{"type error", "name: x\nduration: 1s\nthreads: lots\ntargets:\n  - label: a\n    url: sqlite:///tmp/x.db\nworkloads:\n  - name: oltp_point_select\n", "3:10"},
		{"unknown knob", "name: x\nduration: 1s\nthreads: 1\ntargets:\n  - label: a\n    url: \"managed:postgres?shared_bufers=1GB\"\nworkloads:\n  - name: oltp_point_select\n", "shared_bufers"},
		{"unknown engine", "name: x\nduration: 1s\nthreads: 1\ntargets:\n  - label: a\n    url: oracle://h/db\nworkloads:\n  - name: oltp_point_select\n", "oracle"},
		{"unknown workload option", "name: x\nduration: 1s\nthreads: 1\ntargets:\n  - label: a\n    url: sqlite:///tmp/x.db\nworkloads:\n  - name: oltp_point_select\n    options: {tabels: 2}\n", "tabels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".yaml")
			if err := os.WriteFile(file, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			o := dbarena(t, context.Background(), nil, "plan", "run", file, "-o", filepath.Join(dir, tc.name))
			if o.code != cli.ExitUsage || !strings.Contains(o.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", o.code, o.stderr, cli.ExitUsage, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, tc.name)); err == nil {
				t.Errorf("a results directory was made for a bad plan")
			}
		})
	}
}

// A bad flag of plan run is refused before anything runs.
func TestPlanBadFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	src := "name: x\nduration: 1s\nthreads: 1\ntargets:\n  - label: a\n    url: sqlite://" + filepath.Join(dir, "x.db") + "\nworkloads:\n  - name: oltp_point_select\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ flag, value, want string }{
		{"--connect-timeout", "0", "--connect-timeout 0s: must be positive"},
		{"--load-threads", "0", "--load-threads 0: must be at least 1"},
	} {
		out := filepath.Join(dir, "results"+tc.flag)
		o := dbarena(t, context.Background(), nil, "plan", "run", file, "-o", out, tc.flag, tc.value)
		if o.code != cli.ExitUsage || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("%s %s: exit %d, stderr %q; want exit %d with %q", tc.flag, tc.value, o.code, o.stderr, cli.ExitUsage, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s %s: a results directory was made", tc.flag, tc.value)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A managed server that dies during a run fails that run, with the end of
// its log in the result file, and the plan goes on with the next cell.
func TestPlanServerDiesMidRun(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	yml := `name: dies
seed: 3
duration: 4s
report_interval: 500ms
threads: [1]
targets:
  - label: pg
    url: "managed:postgres"
  - label: lite
    url: "sqlite://` + filepath.Join(dir, "lite.db") + `"
workloads:
  - name: oltp_point_select
    options: {tables: 1, table-size: 1000}
`
	if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	var stdout, stderr syncBuffer
	st := &cli.State{Stdout: &stdout, Stderr: &stderr, Now: time.Now, Version: "test", Commit: "none",
		Getenv: func(k string) string { return map[string]string{"DBARENA_HOME": home}[k] }}
	done := make(chan int)
	go func() { done <- cli.Main(context.Background(), st, []string{"plan", "run", file, "-o", out}) }()

	killed := false
	deadline := time.Now().Add(3 * time.Minute)
	var code int
wait:
	for {
		select {
		case code = <-done:
			break wait
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plan did not end:\n%s", stdout.String())
		}
		if killed || !strings.Contains(stdout.String(), "running oltp_point_select on pg,") {
			continue
		}
		time.Sleep(time.Second) // into the measured phase
		states, _ := filepath.Glob(filepath.Join(home, "servers", "*", "server.json"))
		if len(states) != 1 {
			t.Fatalf("managed servers: %v", states)
		}
		b, _ := os.ReadFile(states[0])
		var s struct {
			PID int `json:"pid"`
		}
		if err := json.Unmarshal(b, &s); err != nil || s.PID == 0 {
			t.Fatalf("server.json: %v %s", err, b)
		}
		if err := syscall.Kill(s.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed = true
	}
	if !killed {
		t.Fatalf("the pg run was never seen running:\n%s", stdout.String())
	}
	if code != cli.ExitRunFailed {
		t.Errorf("exit %d, want %d (runs failed)\n%s%s", code, cli.ExitRunFailed, stdout.String(), stderr.String())
	}
	stt := readState(t, out)
	for _, r := range stt.Runs {
		switch {
		case strings.HasPrefix(r.Cell, "pg"):
			if r.Status != plan.RunFailed || !strings.Contains(r.Error, "not running any more") {
				t.Errorf("pg run: %s %q", r.Status, r.Error)
			}
			f, err := result.Read(filepath.Join(out, r.File))
			if err == nil && (f.Status != result.StatusFailed || !strings.Contains(f.Error, "the end of its log")) {
				t.Errorf("pg result file: %s %q", f.Status, f.Error)
			}
		case strings.HasPrefix(r.Cell, "lite"):
			if r.Status != plan.RunDone {
				t.Errorf("lite run: %s %q", r.Status, r.Error)
			}
		}
	}
}

// Every example plan passes the CLI's checks, managed servers' knobs
// included (against the binaries' own lists of settings).
func TestPlanExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(files) < 3 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			o := dbarena(t, context.Background(), nil, "plan", "show", f, "-o", filepath.Join(t.TempDir(), "r"))
			if o.code != cli.ExitOK || !strings.Contains(o.stdout, "pending") {
				t.Errorf("plan show: exit %d\n%s%s", o.code, o.stdout, o.stderr)
			}
		})
	}
}

// plan show and plan run take --var NAME=VALUE for a variable the plan
// declares; a --var it does not declare, or without "=", is bad input.
func TestPlanVars(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "vars.yaml")
	src := "vars:\n  clients: [1, 2]\nduration: 1s\nthreads: ${clients}\ntargets:\n  - {label: sq, url: \"sqlite://" + filepath.Join(dir, "v.db") + "\"}\nworkloads:\n  - name: oltp_point_select\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := dbarena(t, ctx, nil, "plan", "show", path, "--var", "clients=[3, 5]")
	if o.code != cli.ExitOK || !strings.Contains(o.stdout, "__t3") || !strings.Contains(o.stdout, "__t5") || strings.Contains(o.stdout, "__t1") {
		t.Errorf("plan show --var clients=[3, 5]: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	for _, bad := range []string{"nosuch=1", "clients"} {
		o := dbarena(t, ctx, nil, "plan", "show", path, "--var", bad)
		if o.code != cli.ExitUsage || !strings.Contains(o.stderr, "--var "+bad) {
			t.Errorf("--var %s: exit %d, stderr %q", bad, o.code, o.stderr)
		}
	}
}
