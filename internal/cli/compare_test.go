package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/result"
)

// writeResult writes a result file of oltp_point_select with one run per
// thread count and returns its path.
func writeResult(t *testing.T, name, label, tableSize string, tps map[int]float64) string {
	t.Helper()
	f := &result.File{
		SchemaVersion: result.SchemaVersion,
		Workload:      result.Workload{Name: "oltp_point_select", Options: map[string]string{"tables": "1", "table-size": tableSize}},
		Target:        result.Target{Label: label, Engine: "sqlite"},
		Status:        result.StatusComplete,
	}
	for _, th := range []int{1, 4} {
		f.Runs = append(f.Runs, result.Run{Threads: th, DurationS: 10, TPS: tps[th], Status: result.StatusComplete})
	}
	path := filepath.Join(t.TempDir(), name)
	if err := result.Write(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompare(t *testing.T) {
	ctx := context.Background()
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	b := writeResult(t, "b.json", "sqlite", "1000", map[int]float64{1: 1100, 4: 1900})
	other := writeResult(t, "c.json", "sqlite", "5000", map[int]float64{1: 900, 4: 1800})

	o := dbarena(t, ctx, nil, "compare", "before="+a, "after="+b)
	if o.code != 0 {
		t.Fatalf("compare: exit %d: %s", o.code, o.stderr)
	}
	for _, want := range []string{"changes against before", "after vs before", "1                            1000   1100          +10.00%", "average (change of means)    1500   1500           +0.00%"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, o.stdout)
		}
	}

	// The study's spreadsheet convention: (10% − 5%) / 2.
	o = dbarena(t, ctx, nil, "compare", "--average", "mean-of-changes", "before="+a, "after="+b)
	if o.code != 0 || !strings.Contains(o.stdout, "average (mean of changes)    1500   1500           +2.50%") {
		t.Errorf("--average mean-of-changes: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = dbarena(t, ctx, nil, "compare", "--average", "median", "before="+a, "after="+b)
	if o.code != 2 || !strings.Contains(o.stderr, `--average "median": want change-of-means, mean-of-changes`) {
		t.Errorf("--average median: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}

	o = dbarena(t, ctx, nil, "compare", "--format", "csv", "--baseline", "after", "before="+a, "after="+b)
	if o.code != 0 || !strings.Contains(o.stdout, "oltp_point_select,tps,/s,,4,,before,after,1,2000,,,5.263157895,,,vs-baseline\n") {
		t.Errorf("csv: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}

	o = dbarena(t, ctx, nil, "compare", "--format", "md", "--relative", "before="+a, "after="+b)
	if o.code != 0 || !strings.Contains(o.stdout, "| 4 | 2.00x | 1.90x | -5.00% |") {
		t.Errorf("md --relative: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{a, other}, "--table-size is \"1000\" in " + a + "; \"5000\" in " + other},
		{[]string{a, filepath.Join(t.TempDir(), "missing.json")}, "missing.json"},
		{[]string{"--format", "xml", a}, `--format "xml"`},
		{[]string{"--metric", "nopm", a}, "--metric nopm"},
		{[]string{"--baseline", "x", a}, `--baseline "x"`},
		{[]string{"=" + a + "x"}, "empty label"},
		{[]string{"--change", "vs-worse", a}, `--change "vs-worse"`},
	} {
		o := dbarena(t, ctx, nil, append([]string{"compare"}, tc.args...)...)
		if o.code != 2 || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("compare %q: exit %d, stderr %q; want 2 and %q", tc.args, o.code, o.stderr, tc.want)
		}
	}
	if o := dbarena(t, ctx, nil, "compare", "--change", "vs-previous", "before="+a, "after="+b); o.code != 0 || !strings.Contains(o.stdout, "changes against the column before") {
		t.Errorf("--change vs-previous: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := dbarena(t, ctx, nil, "compare", "--force", a, other); o.code != 0 || !strings.Contains(o.stdout, "option --table-size  sqlite: mixed: 1000, 5000") {
		t.Errorf("--force: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

func TestExport(t *testing.T) {
	ctx := context.Background()
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	out := filepath.Join(t.TempDir(), "runs.csv")
	if o := dbarena(t, ctx, nil, "export", a, "-o", out); o.code != 0 || o.stdout != "" {
		t.Fatalf("export -o: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[2], a+",sqlite,sqlite,oltp_point_select,4,complete,10,0,0,2000,") {
		t.Errorf("runs.csv:\n%s", b)
	}
	if o := dbarena(t, ctx, nil, "export", "--table", "ops", "--format", "md", a); o.code != 0 || !strings.HasPrefix(o.stdout, "| file | label |") {
		t.Errorf("export --format md: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xlsx", a}, `--format "xlsx"`},
		{[]string{"--table", "rows", a}, `--table "rows"`},
		{[]string{filepath.Join(t.TempDir(), "none.json")}, "none.json"},
		{[]string{a, "-o", filepath.Join(t.TempDir(), "no", "such", "dir", "x.csv")}, "--output"},
	} {
		o := dbarena(t, ctx, nil, append([]string{"export"}, tc.args...)...)
		if o.code == 0 || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("export %q: exit %d, stderr %q; want an error naming %q", tc.args, o.code, o.stderr, tc.want)
		}
	}
}

func TestReport(t *testing.T) {
	ctx := context.Background()
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	b := writeResult(t, "b.json", "sqlite", "1000", map[int]float64{1: 1100, 4: 1900})
	out := filepath.Join(t.TempDir(), "r.html")
	o := dbarena(t, ctx, nil, "report", "before="+a, "after="+b, "-o", out, "--title", "A <b>test</b>")
	if o.code != 0 || !strings.Contains(o.stdout, "report: wrote "+out) {
		t.Fatalf("report: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>A &lt;b&gt;test&lt;/b&gt;</title>", "<th>after vs before</th>", `id="run4-time"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("report file mode %v, %v; want 0644", fi.Mode(), err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{a}, "--output (-o) is required"},
		{[]string{a, "-o", filepath.Join(t.TempDir(), "none", "r.html")}, "--output"},
		{[]string{filepath.Join(t.TempDir(), "none.json"), "-o", out}, "none.json"},
	} {
		o := dbarena(t, ctx, nil, append([]string{"report"}, tc.args...)...)
		if o.code == 0 || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("report %q: exit %d, stderr %q; want an error naming %q", tc.args, o.code, o.stderr, tc.want)
		}
	}
}

// planDir writes a plan's results directory: plan.json with two targets
// (labels "pg" and "pgb") of oltp_point_select, one done run each, and
// their result files, whose own target labels ("x") differ from the
// plan's.
func planDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	st := plan.State{SchemaVersion: plan.StateVersion, Name: "p", Repetitions: 1, Status: plan.PlanComplete}
	for i, label := range []string{"pg", "pgb"} {
		id := label + "-ps"
		st.Cells = append(st.Cells, plan.CellState{ID: id, Target: label, Workload: "ps", WorkloadName: "oltp_point_select", Threads: 1})
		name := id + "__r1.json"
		st.Runs = append(st.Runs, plan.RunState{Cell: id, Rep: 1, File: name, Status: plan.RunDone})
		src := writeResult(t, name, "x", "1000", map[int]float64{1: float64(100 * (i + 1)), 4: float64(400 * (i + 1))})
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, plan.StateFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A plan's directory, or a glob over it that catches plan.json, gives
// compare, export and report the same result files under the plan's
// labels; plan.json is skipped with one notice.
func TestPlanDirectoryInputs(t *testing.T) {
	ctx := context.Background()
	dir := planDir(t)
	glob, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(glob) != 3 {
		t.Fatalf("glob: %v %v", glob, err)
	}
	notice := "skipped 1 file that is not a dbarena result file: " + filepath.Join(dir, plan.StateFile)
	for _, args := range [][]string{{dir}, glob} {
		o := dbarena(t, ctx, nil, append([]string{"compare", "--metric", "qps"}, args...)...)
		if o.code != 0 || !strings.Contains(o.stdout, "pgb vs pg") {
			t.Errorf("compare %v: exit %d\n%s%s", args, o.code, o.stdout, o.stderr)
		}
		if len(args) > 1 && !strings.Contains(o.stderr, "compare: "+notice) {
			t.Errorf("compare %v: stderr %q lacks the notice %q", args, o.stderr, notice)
		}
		o = dbarena(t, ctx, nil, append([]string{"export"}, args...)...)
		if lines := strings.Split(strings.TrimSpace(o.stdout), "\n"); o.code != 0 || len(lines) != 5 || !strings.Contains(lines[4], ",pgb,sqlite,") {
			t.Errorf("export %v: exit %d\n%s%s", args, o.code, o.stdout, o.stderr)
		}
		out := filepath.Join(t.TempDir(), "r.html")
		o = dbarena(t, ctx, nil, append([]string{"report", "-o", out}, args...)...)
		if o.code != 0 {
			t.Errorf("report %v: exit %d\n%s%s", args, o.code, o.stdout, o.stderr)
		} else if page, _ := os.ReadFile(out); !strings.Contains(string(page), "<th>pgb vs pg</th>") {
			t.Errorf("report %v: the page lacks the plan's labels", args)
		}
	}
	// Nothing but plan.json: an error that names what was given.
	o := dbarena(t, ctx, nil, "compare", filepath.Join(dir, plan.StateFile))
	if o.code != 2 || !strings.Contains(o.stderr, "no result files among "+filepath.Join(dir, plan.StateFile)) || strings.Contains(o.stderr, "  ") {
		t.Errorf("compare plan.json: exit %d, stderr %q", o.code, o.stderr)
	}
}

// TestReportMetric: report --metric chooses the headline figure; one no
// run has is bad input naming the flag.
func TestReportMetric(t *testing.T) {
	ctx := context.Background()
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	out := filepath.Join(t.TempDir(), "r.html")
	if o := dbarena(t, ctx, nil, "report", "--metric", "p99", a, "-o", out); o.code != 0 {
		t.Fatalf("report --metric p99: exit %d\n%s", o.code, o.stderr)
	}
	if page, _ := os.ReadFile(out); !strings.Contains(string(page), "oltp_point_select: p99 (ms), lower is better") {
		t.Error("the report's headline table is not p99")
	}
	if o := dbarena(t, ctx, nil, "report", "--metric", "NOPM", a, "-o", out); o.code != 2 || !strings.Contains(o.stderr, "--metric NOPM: no run of oltp_point_select has NOPM") {
		t.Errorf("report --metric NOPM: exit %d, stderr %q", o.code, o.stderr)
	}
}

// TestRecordedStudyDirectory reads a recorded plan directory (the airline
// study at the smallest scale: one target, two entries of one workload)
// as examples/airline-isolation.yaml says to: compare puts the entries
// side by side under their plan labels, export has the retries, and the
// report has the retries table.
func TestRecordedStudyDirectory(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "..", "plan", "testdata", "studies", "airline-isolation-results")
	o := dbarena(t, ctx, nil, "compare", dir, "--vary", "isolation", "--metric", "retries")
	if o.code != 0 || !strings.Contains(o.stdout, "airline: retries (count), lower is better; changes against pg/rc") || !strings.Contains(o.stdout, "pg/ser vs pg/rc") {
		t.Errorf("compare: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := dbarena(t, ctx, nil, "compare", dir); o.code != 2 || !strings.Contains(o.stderr, "--isolation is") {
		t.Errorf("compare without --vary: exit %d, stderr %q", o.code, o.stderr)
	}
	o = dbarena(t, ctx, nil, "export", dir)
	if lines := strings.Split(strings.TrimSpace(o.stdout), "\n"); o.code != 0 || len(lines) != 9 || !strings.Contains(lines[0], ",retries,retries_per_s,retry_pct,") || !strings.Contains(o.stdout, ",pg/ser,postgres,airline,8,") {
		t.Errorf("export: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if o := dbarena(t, ctx, nil, "report", dir, "--vary", "isolation", "-o", out); o.code != 0 {
		t.Fatalf("report: exit %d\n%s", o.code, o.stderr)
	}
	if page, _ := os.ReadFile(out); !strings.Contains(string(page), `<table class="retries">`) || !strings.Contains(string(page), `<th colspan="3">pg/ser</th>`) {
		t.Error("the report lacks the retries table of pg/rc and pg/ser")
	}
	// As compare: the isolation levels differ, and the report is not
	// said to be about them.
	other := filepath.Join(t.TempDir(), "other.html")
	if o := dbarena(t, ctx, nil, "report", dir, "-o", other); o.code != 2 || !strings.Contains(o.stderr, "--isolation is") {
		t.Errorf("report without --vary: exit %d, stderr %q", o.code, o.stderr)
	}
	if _, err := os.Stat(other); err == nil {
		t.Error("a refused report was written")
	}
}

// TestReportConventions: report takes compare's --relative, --vary,
// --force and --average; bad values are refused before anything is
// written, naming the flag and its value; the options of the headline
// table are refused for runs of the analytic timing model, as compare
// refuses them.
func TestReportConventions(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "..", "plan", "testdata", "studies", "tpce-study-results")
	out := filepath.Join(t.TempDir(), "r.html")
	o := dbarena(t, ctx, nil, "report", dir, "--vary", "mode,index-set", "--relative", "--average", "mean-of-changes", "-o", out)
	if o.code != 0 {
		t.Fatalf("report --relative: exit %d\n%s", o.code, o.stderr)
	}
	page, _ := os.ReadFile(out)
	for _, want := range []string{"values relative to pg-dbt5/client-dbt5 at 4 threads (48.80 = 1.00x)", "<td>2.19x</td>", `"name":"TR/s"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report --relative lacks %q", want)
		}
	}
	if o := dbarena(t, ctx, nil, "report", dir, "--force", "-o", out); o.code != 0 {
		t.Errorf("report --force: exit %d\n%s", o.code, o.stderr)
	}
	tries := filepath.Join("..", "..", "plan", "testdata", "studies", "docolap-study-results")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{dir, "--vary", "mode"}, `--index-set is "dbt5" in`},
		{[]string{dir}, `--mode is "client" in`},
		{[]string{dir, "--vary", "mode,index-set,nosuch"}, "--vary nosuch: not an option of tpce"},
		{[]string{dir, "--average", "x"}, `--average "x": want change-of-means, mean-of-changes`},
		{[]string{dir, "--average", "median", "--change", "vs-worse"}, `--change "vs-worse"`},
		{[]string{tries, "--relative"}, "--relative true: the inputs are runs of --tries"},
		{[]string{tries, "--vary", "cold"}, "--vary [cold]: the inputs are runs of --tries"},
		{[]string{tries, "--average", "mean-of-changes"}, "--average mean-of-changes: the inputs are runs of --tries"},
	} {
		refused := filepath.Join(t.TempDir(), "refused.html")
		o := dbarena(t, ctx, nil, append([]string{"report", "-o", refused}, tc.args...)...)
		if o.code != 2 || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("report %q: exit %d, stderr %q; want 2 and %q", tc.args, o.code, o.stderr, tc.want)
		}
		if _, err := os.Stat(refused); err == nil {
			t.Errorf("report %q: the refused report was written", tc.args)
		}
	}
}

// TestColumns: compare --columns puts the server's figures beside each
// label's value in every format, report --columns in the headline table;
// a name that is no metric is bad input naming the flag and the name.
func TestColumns(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "..", "plan", "testdata", "studies", "read-intensive-sweep-results")
	cols := "server_cpu_pct,host_iowait_pct,disk_iops"
	o := dbarena(t, ctx, nil, "compare", dir, "--metric", "qps", "--columns", cols)
	if o.code != 0 || !strings.Contains(o.stdout, "tuned  tuned server_cpu_pct  tuned host_iowait_pct  tuned disk_iops         default  default server_cpu_pct") {
		t.Errorf("compare --columns: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = dbarena(t, ctx, nil, "compare", dir, "--metric", "qps", "--columns", cols, "--format", "md")
	if o.code != 0 || !strings.Contains(o.stdout, "| 1 | 5060 ±∞ (n=2) | 17.99 | 0.251 | 2441 | 4746 ±∞ (n=2) | 16.50 | 0.500 | 1339 | ~ (p=0.667 n=2+2) |") {
		t.Errorf("compare --columns --format md: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = dbarena(t, ctx, nil, "compare", dir, "--metric", "qps", "--columns", "disk_iops", "--format", "csv")
	if lines := strings.Split(o.stdout, "\n"); o.code != 0 || !strings.HasSuffix(lines[0], ",change,disk_iops") || !strings.HasSuffix(lines[1], ",vs-baseline,2440.5995") {
		t.Errorf("compare --columns --format csv: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := dbarena(t, ctx, nil, "compare", dir, "--columns", "server_cpu,disk_iops"); o.code != 2 || !strings.Contains(o.stderr, `--columns "server_cpu": no such metric`) {
		t.Errorf("compare --columns server_cpu: exit %d, stderr %q", o.code, o.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if o := dbarena(t, ctx, nil, "report", dir, "--columns", cols, "-o", out); o.code != 0 {
		t.Fatalf("report --columns: exit %d\n%s", o.code, o.stderr)
	}
	if page, _ := os.ReadFile(out); !strings.Contains(string(page), "<th>tuned host_iowait_pct</th>") {
		t.Error("the report's headline table lacks the columns beside")
	}
	if o := dbarena(t, ctx, nil, "report", dir, "--columns", "iops", "-o", out); o.code != 2 || !strings.Contains(o.stderr, `--columns "iops": no such metric`) {
		t.Errorf("report --columns iops: exit %d, stderr %q", o.code, o.stderr)
	}
	// The plan's convention, as report flags.
	if o := dbarena(t, ctx, nil, "report", dir, "--change", "vs-better", "--baseline", "default", "-o", out); o.code != 0 {
		t.Fatalf("report --change vs-better: exit %d\n%s", o.code, o.stderr)
	}
	if page, _ := os.ReadFile(out); !strings.Contains(string(page), "<th>default over tuned</th>") {
		t.Error("report --change vs-better --baseline default: no column \"default over tuned\"")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--change", "vs-worse"}, `--change "vs-worse"`},
		{[]string{"--baseline", "nosuch"}, `--baseline "nosuch": no result file has that label`},
		{[]string{"--change", "vs-previous", "--baseline", "tuned"}, `--baseline "tuned": --change vs-previous`},
	} {
		if o := dbarena(t, ctx, nil, append([]string{"report", dir, "-o", out}, tc.args...)...); o.code != 2 || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("report %q: exit %d, stderr %q; want 2 and %q", tc.args, o.code, o.stderr, tc.want)
		}
	}
}
