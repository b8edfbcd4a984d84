package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/result"
)

// v1Fixture is a result file of schema version 1, as dbarena wrote them
// before intervals kept histograms.
const v1Fixture = "../../result/testdata/result-v1.json"

// A real run merged with itself gives exactly double counts and the same
// percentiles: the merge is exact end to end.
func TestMergeRunWithItself(t *testing.T) {
	ctx := context.Background()
	u := sqliteURL(t)
	if o := dbarena(t, ctx, nil, "prepare", "oltp_point_select", "--table-size", "1000", "--target", u); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	dir := t.TempDir()
	r := filepath.Join(dir, "r.json")
	if o := dbarena(t, ctx, nil, "run", "oltp_point_select", "--table-size", "1000", "--target", u, "--threads", "1,2", "--time", "2s", "--out", r); o.code != 0 {
		t.Fatalf("run: exit %d: %s", o.code, o.stderr)
	}
	m := filepath.Join(dir, "m.json")
	// The file given twice is one shard counted twice: refused, both
	// arguments named.
	o := dbarena(t, ctx, nil, "merge", r, r, "-o", m)
	if o.code != cli.ExitUsage || strings.Count(o.stderr, r) != 2 || !strings.Contains(o.stderr, "same shard") {
		t.Fatalf("merge r r: exit %d, stderr %q; want exit 2 naming r.json twice", o.code, o.stderr)
	}
	orig, err := result.Read(r)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if id := orig.Identity; id == nil || id.RunID == "" || id.PID != os.Getpid() || id.Host != host || id.Index != 0 || id.Count != 1 {
		t.Fatalf("the run's identity %+v: want a run id, pid %d, host %s, shard 0 of 1", id, os.Getpid(), host)
	}
	r2, tid := writeTwin(t, r)
	o = dbarena(t, ctx, nil, "merge", r, r2, "-o", m)
	if o.code != 0 || o.stdout != "merge: wrote "+m+" (2 shards, complete)\n" {
		t.Fatalf("merge: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	merged, err := result.Read(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Shards) != 2 || merged.Shards[0].Identity == nil || *merged.Shards[1].Identity != *tid {
		t.Errorf("merged shards %+v: want each one's identity", merged.Shards)
	}
	if orig.SchemaVersion != 2 || merged.SchemaVersion != 2 || len(merged.Runs) != 2 {
		t.Fatalf("versions %d, %d; %d runs", orig.SchemaVersion, merged.SchemaVersion, len(merged.Runs))
	}
	for i, or := range orig.Runs {
		mr := merged.Runs[i]
		if or.Transactions == 0 {
			t.Fatalf("run %d measured nothing", i)
		}
		if mr.Threads != 2*or.Threads || mr.Transactions != 2*or.Transactions || mr.Queries != 2*or.Queries || mr.Errors != 2*or.Errors {
			t.Errorf("run %d: threads %d transactions %d queries %d errors %d, want double of %d %d %d %d",
				i, mr.Threads, mr.Transactions, mr.Queries, mr.Errors, or.Threads, or.Transactions, or.Queries, or.Errors)
		}
		if mr.LatencyMS != or.LatencyMS || mr.Ops[0].LatencyMS != or.Ops[0].LatencyMS || mr.Ops[0].Count != 2*or.Ops[0].Count {
			t.Errorf("run %d: latency %+v / %+v, want %+v / %+v", i, mr.LatencyMS, mr.Ops[0].LatencyMS, or.LatencyMS, or.Ops[0].LatencyMS)
		}
		if len(mr.Intervals) != len(or.Intervals) {
			t.Fatalf("run %d: %d intervals, want %d", i, len(mr.Intervals), len(or.Intervals))
		}
		for j, oi := range or.Intervals {
			mi := mr.Intervals[j]
			if len(oi.Ops) == 0 && oi.Transactions > 0 {
				t.Errorf("run %d interval %d: no op histograms in the run's own file", i, j)
			}
			if mi.TS != oi.TS || mi.Transactions != 2*oi.Transactions || mi.Queries != 2*oi.Queries || mi.LatencyMS != oi.LatencyMS {
				t.Errorf("run %d interval %d: %+v, want double of %+v", i, j, mi, oi)
			}
		}
	}
	// The merged file reads in compare, export and report like any other.
	for _, args := range [][]string{
		{"compare", m},
		{"export", "--table", "intervals", m},
		{"report", m, "-o", filepath.Join(dir, "m.html")},
	} {
		if o := dbarena(t, ctx, nil, args...); o.code != 0 {
			t.Errorf("%s of the merged file: exit %d: %s", args[0], o.code, o.stderr)
		}
	}
}

// writeTwin writes beside the result file at path a twin of it: the file
// another shard with the same figures would have written, under an
// identity of its own, which it returns with the twin's path.
func writeTwin(t *testing.T, path string) (string, *result.Identity) {
	t.Helper()
	f, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Identity = result.NewIdentity()
	twin := strings.TrimSuffix(path, ".json") + "-twin.json"
	if err := result.Write(twin, f); err != nil {
		t.Fatal(err)
	}
	return twin, f.Identity
}

// Usage errors (exit 2) name the flag, the file and the field.
func TestMergeRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	other := writeResult(t, "c.json", "sqlite", "5000", map[int]float64{1: 900, 4: 1800})
	notJSON := filepath.Join(dir, "x.json")
	if err := os.WriteFile(notJSON, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no -o", []string{a, a}, "--out (-o) is required"},
		{"no files", []string{"-o", out}, "give the result files to merge, or --from TARGET --run-id ID"},
		{"files and --from", []string{a, "--from", "sqlite://" + filepath.Join(dir, "x.db"), "--run-id", "r", "-o", out}, a + ": with --from, the results stored in the target are merged, not files"},
		{"run id without --from", []string{a, "--run-id", "r", "-o", out}, "--run-id r: only with --from"},
		{"missing file", []string{a, filepath.Join(dir, "none.json"), "-o", out}, "none.json"},
		{"not a result", []string{a, notJSON, "-o", out}, notJSON + ": unsupported result file"},
		{"version 1", []string{a, v1Fixture, "-o", out}, v1Fixture + ": schema_version: version 1 has no histograms per interval"},
		{"other run", []string{a, other, "-o", out}, other + `: workload.options.table-size: "5000", but the first file has "1000"`},
		{"unwritable", []string{a, "-o", filepath.Join(dir, "no", "m.json")}, "--out " + filepath.Join(dir, "no", "m.json")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := dbarena(t, ctx, nil, append([]string{"merge"}, tc.args...)...)
			if o.code != cli.ExitUsage || !strings.Contains(o.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", o.code, o.stderr, tc.want)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused merge wrote %s (%v)", out, err)
	}
}

// Result files of schema version 1 still load in compare, export and
// report; they lack only the interval histograms.
func TestVersion1Loads(t *testing.T) {
	ctx := context.Background()
	o := dbarena(t, ctx, nil, "compare", "--metric", "p95", v1Fixture)
	if o.code != 0 || !strings.Contains(o.stdout, "oltp_read_write") {
		t.Errorf("compare: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = dbarena(t, ctx, nil, "export", "--table", "intervals", v1Fixture)
	if lines := strings.Split(strings.TrimSpace(o.stdout), "\n"); o.code != 0 || len(lines) != 4 {
		t.Errorf("export intervals: exit %d, want a header and 3 lines:\n%s%s", o.code, o.stdout, o.stderr)
	}
	// The intervals' percentiles are the file's own summaries.
	f, err := result.Read(v1Fixture)
	if err != nil {
		t.Fatal(err)
	}
	if p95 := f.Runs[0].Intervals[0].LatencyMS.P95; p95 == 0 || !strings.Contains(o.stdout, ","+strconv.FormatFloat(p95, 'f', -1, 64)+",") {
		t.Errorf("export intervals lacks the first interval's p95 %v:\n%s", p95, o.stdout)
	}
	o = dbarena(t, ctx, nil, "export", "--table", "ops", v1Fixture)
	if o.code != 0 || !strings.Contains(o.stdout, "oltp_read_write") {
		t.Errorf("export ops: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if o := dbarena(t, ctx, nil, "report", v1Fixture, "-o", out); o.code != 0 {
		t.Errorf("report: exit %d: %s", o.code, o.stderr)
	}
}

// The workload's own metrics cannot be merged; merge says they are left
// out.
func TestMergeNotesMetrics(t *testing.T) {
	ctx := context.Background()
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	f, err := result.Read(a)
	if err != nil {
		t.Fatal(err)
	}
	f.Runs[0].Metrics = []result.Metric{{Name: "NOPM", Value: 1}, {Name: "TPM", Value: 2}}
	if err := result.Write(a, f); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(t.TempDir(), "m.json")
	twin, _ := writeTwin(t, a)
	o := dbarena(t, ctx, nil, "merge", a, twin, "-o", m)
	if o.code != 0 || o.stderr != "merge: the workload's own metrics (NOPM, TPM) are left out of the merged file: only the workload computes them\n" {
		t.Errorf("merge: exit %d, stderr %q", o.code, o.stderr)
	}
	merged, err := result.Read(m)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Runs[0].Metrics != nil || merged.Runs[0].Threads != 2 {
		t.Errorf("merged run %+v", merged.Runs[0])
	}
}
