package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/result"
)

// oltpSQLite is a SQLite target prepared with one small OLTP table.
func oltpSQLite(t *testing.T) string {
	t.Helper()
	u := sqliteURL(t)
	if o := dbarena(t, context.Background(), nil, "prepare", "oltp_read_only", "--tables", "1", "--table-size", "1000", "--target", u); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	return u
}

// A threshold that cannot hold exits with its own code after the result
// file is written, the file keeping every verdict; thresholds that hold
// exit 0.
func TestThresholdExitCodes(t *testing.T) {
	ctx := context.Background()
	u := oltpSQLite(t)
	run := func(t *testing.T, out string, th ...string) (outcome, *result.File) {
		args := []string{"run", "oltp_read_only", "--tables", "1", "--table-size", "1000", "--target", u, "--time", "1s", "--report-interval", "500ms", "--out", out}
		for _, e := range th {
			args = append(args, "--threshold", e)
		}
		o := dbarena(t, ctx, nil, args...)
		f, err := result.Read(out)
		if err != nil {
			t.Fatalf("exit %d, no result file: %v\n%s%s", o.code, err, o.stdout, o.stderr)
		}
		return o, f
	}
	t.Run("holds", func(t *testing.T) {
		o, f := run(t, filepath.Join(t.TempDir(), "r.json"), "tps>0", "errors<1%", "op:oltp_read_only p90<10s", "p99<1m")
		if o.code != cli.ExitOK {
			t.Fatalf("exit %d: %s%s", o.code, o.stdout, o.stderr)
		}
		ths := f.Runs[0].Thresholds
		if len(ths) != 4 || ths[0].Expr != "tps>0" || ths[0].Pass == nil || !*ths[0].Pass || ths[0].Observed == nil || *ths[0].Observed != f.Runs[0].TPS {
			t.Errorf("thresholds in the file: %+v", ths)
		}
		if !strings.Contains(o.stdout, "Thresholds:") || !strings.Contains(o.stdout, "tps>0") || strings.Contains(o.stdout, "FAIL") {
			t.Errorf("table:\n%s", o.stdout)
		}
	})
	t.Run("cannot hold", func(t *testing.T) {
		o, f := run(t, filepath.Join(t.TempDir(), "r.json"), "tps>0", "max<1us")
		if o.code != cli.ExitThreshold || cli.ExitThreshold == cli.ExitOK {
			t.Fatalf("exit %d, want %d: %s%s", o.code, cli.ExitThreshold, o.stdout, o.stderr)
		}
		if !strings.Contains(o.stderr, "thresholds failed: max<1us") {
			t.Errorf("stderr %q", o.stderr)
		}
		if f.Status != result.StatusComplete {
			t.Errorf("status %s: a run that failed its thresholds is still complete", f.Status)
		}
		ths := f.Runs[0].Thresholds
		if len(ths) != 2 || !*ths[0].Pass || *ths[1].Pass {
			t.Errorf("thresholds in the file: %+v", ths)
		}
		if !strings.Contains(o.stdout, "FAIL") {
			t.Errorf("table:\n%s", o.stdout)
		}
	})
	t.Run("abort on fail", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "r.json")
		o := dbarena(t, ctx, nil, "run", "oltp_read_only", "--tables", "1", "--table-size", "1000", "--target", u, "--time", "60s",
			"--report-interval", "500ms", "--threshold", "max<1us", "--abort-on-fail", "--out", out)
		if o.code != cli.ExitThreshold {
			t.Fatalf("exit %d, want %d: %s%s", o.code, cli.ExitThreshold, o.stdout, o.stderr)
		}
		f, err := result.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		r := f.Runs[0]
		if f.Status != result.StatusFailed || !strings.Contains(r.Error, "threshold max<1us can no longer hold") || r.DurationS >= 60 {
			t.Errorf("status %s, error %q, measured %gs", f.Status, r.Error, r.DurationS)
		}
		if len(r.Thresholds) != 1 || *r.Thresholds[0].Pass || r.Thresholds[0].Note != "stopped the run early" {
			t.Errorf("thresholds in the file: %+v", r.Thresholds)
		}
	})
}

// Every bad threshold is refused before any work, each named with its
// flag and what is wrong.
func TestThresholdBadInput(t *testing.T) {
	ctx := context.Background()
	sq := sqliteURL(t)
	o := dbarena(t, ctx, nil, "run", "tpcc", "--target", sq, "--time", "1s",
		"--threshold", "p99<50", "--threshold", "tps=>5", "--threshold", "op:nope p90<5ms", "--threshold", "latency<5ms",
		"--threshold", "tps>5%", "--threshold", "nopm>1000,op:new_order p90<5ms")
	if o.code != cli.ExitUsage {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	for _, want := range []string{
		`--threshold p99<50: limit "50" has no unit`,
		`--threshold tps=>5: bad operator "=>"`,
		`--threshold op:nope p90<5ms: op "nope": tpcc has no such operation`,
		`--threshold latency<5ms: unknown metric "latency"`,
		`--threshold tps>5%: bad unit "%"`,
	} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
		}
	}
	if strings.Contains(o.stderr, "nopm") || strings.Contains(o.stderr, "new_order p90") {
		t.Errorf("a good threshold refused:\n%s", o.stderr)
	}
	if o := dbarena(t, ctx, nil, "run", "tpcc", "--target", sq, "--abort-on-fail"); o.code != cli.ExitUsage || !strings.Contains(o.stderr, "--abort-on-fail true: needs at least one --threshold") {
		t.Errorf("abort-on-fail alone: exit %d: %s", o.code, o.stderr)
	}
}

// merge judges the thresholds again on the merged figures: a bound one
// shard meets and two shards together do not fails, exit 7.
func TestMergeJudgesThresholds(t *testing.T) {
	ctx := context.Background()
	u := oltpSQLite(t)
	dir := t.TempDir()
	r := filepath.Join(dir, "r.json")
	if o := dbarena(t, ctx, nil, "run", "oltp_read_only", "--tables", "1", "--table-size", "1000", "--target", u, "--time", "1s",
		"--threshold", "tps>0", "--out", r); o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	f, err := result.Read(r)
	if err != nil {
		t.Fatal(err)
	}
	n := f.Runs[0].Transactions
	bound := fmt.Sprintf("transactions<=%d", n)
	f.Runs[0].Thresholds = append(f.Runs[0].Thresholds, result.Threshold{Expr: bound})
	if err := result.Write(r, f); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "m.json")
	twin, _ := writeTwin(t, r)
	o := dbarena(t, ctx, nil, "merge", r, twin, "-o", m)
	if o.code != cli.ExitThreshold || !strings.Contains(o.stderr, "thresholds failed: "+bound) {
		t.Fatalf("exit %d: %s%s", o.code, o.stdout, o.stderr)
	}
	mf, err := result.Read(m)
	if err != nil {
		t.Fatal(err)
	}
	ths := mf.Runs[0].Thresholds
	if len(ths) != 2 || !*ths[0].Pass || *ths[1].Pass || *ths[1].Observed != float64(2*n) {
		t.Errorf("merged thresholds %+v", ths)
	}
}

// A plan whose runs all complete but one failed its thresholds exits 7
// after its last run; each run's file keeps its verdicts. A plan whose
// thresholds hold exits 0.
func TestPlanThresholds(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "p.db")
	plan := func(name, th string) string {
		return "name: " + name + "\nduration: 1s\nthreads: [1]\nreport_interval: 500ms\nthresholds: [\"tps>0\"]\ntargets:\n  - label: lite\n    url: sqlite://" + db +
			"\nworkloads:\n  - name: oltp_read_only\n    options: {tables: 1, table_size: 1000}\n    thresholds: [\"" + th + "\"]\n"
	}
	for _, tc := range []struct {
		name, th string
		code     int
		pass     bool
	}{
		{"holds", "p99<1m", cli.ExitOK, true},
		{"fails", "max<1us", cli.ExitThreshold, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, tc.name+".yaml")
			if err := os.WriteFile(file, []byte(plan(tc.name, tc.th)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, tc.name+"-results")
			o := dbarena(t, context.Background(), nil, "plan", "run", file, "-o", out)
			if o.code != tc.code {
				t.Fatalf("exit %d, want %d: %s%s", o.code, tc.code, o.stdout, o.stderr)
			}
			files, _ := filepath.Glob(filepath.Join(out, "*", "*.json"))
			files2, _ := filepath.Glob(filepath.Join(out, "*.json"))
			var found bool
			for _, p := range append(files, files2...) {
				f, err := result.Read(p)
				if err != nil || len(f.Runs) == 0 || f.Workload.Name == "" {
					continue
				}
				found = true
				ths := f.Runs[0].Thresholds
				if len(ths) != 2 || ths[0].Expr != "tps>0" || !*ths[0].Pass || ths[1].Expr != tc.th || *ths[1].Pass != tc.pass {
					t.Errorf("%s: thresholds %+v", p, ths)
				}
			}
			if !found {
				t.Errorf("no result file in %s", out)
			}
			// Resumed with every run done, the plan judges the runs it
			// finished before.
			if again := dbarena(t, context.Background(), nil, "plan", "run", file, "-o", out); again.code != tc.code {
				t.Errorf("resumed: exit %d, want %d: %s", again.code, tc.code, again.stderr)
			} else if tc.code == cli.ExitThreshold && !strings.Contains(again.stderr, "thresholds failed: "+"lite__oltp_read_only__t1 #1 (max<1us)") {
				t.Errorf("resumed: stderr %q", again.stderr)
			}
		})
	}
}

// A workload's own figure and an operation's percentile are judged from
// the run's result: TPC-C's NOPM (read from the database's counters) and
// New-Order's p90.
func TestThresholdWorkloadMetric(t *testing.T) {
	u := tpccSQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	o := dbarena(t, context.Background(), nil, "run", "tpcc", "--target", u, "--time", "2s", "--out", out,
		"--threshold", "NOPM>0", "--threshold", "op:new_order p90<1m", "--threshold", "tpm<1")
	if o.code != cli.ExitThreshold {
		t.Fatalf("exit %d: %s%s", o.code, o.stdout, o.stderr)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Runs[0]
	var nopm float64
	for _, m := range r.Metrics {
		if m.Name == "NOPM" {
			nopm = m.Value
		}
	}
	ths := r.Thresholds
	if len(ths) != 3 || *ths[0].Observed != nopm || !*ths[0].Pass || ths[0].Unit != "/min" || !*ths[1].Pass || ths[1].Unit != "ms" || *ths[2].Pass {
		t.Errorf("NOPM %v, thresholds %+v", nopm, ths)
	}
	if !strings.Contains(o.stderr, "thresholds failed: tpm<1") {
		t.Errorf("stderr %q", o.stderr)
	}
}
