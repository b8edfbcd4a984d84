package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
)

var opNames = []string{"read", "write"}

// tick is one reporting interval of a hand-made shard: the latencies (µs)
// of each op's successful transactions, and failures of op 1.
type tick struct {
	lat     [2][]int64
	errors  int64
	retries int64
}

// shard builds a one-run file of 4 threads the way the runner does, from
// hand-made intervals of 1 s each: IntervalOf per tick, Fill for the run.
func shard(t *testing.T, start time.Time, seed uint64, ticks ...tick) *File {
	t.Helper()
	total := histogram.NewInterval(len(opNames))
	run := Run{Threads: 4, StartedAt: start, Status: StatusComplete}
	for k, tk := range ticks {
		iv := histogram.NewInterval(len(opNames))
		for op, vs := range tk.lat {
			for _, v := range vs {
				if err := iv.Ops[op].Hist.RecordValue(v); err != nil {
					t.Fatal(err)
				}
			}
			iv.Queries.Reads += int64(len(vs)) * 3
		}
		iv.Ops[1].Counts.Errors = tk.errors
		iv.Ops[1].Counts.Retries = tk.retries
		run.Intervals = append(run.Intervals, IntervalOf(iv, time.Duration(k+1)*time.Second, time.Second, false))
		total.Merge(iv)
	}
	run.Fill(total, opNames, time.Duration(len(ticks))*time.Second, 500*time.Millisecond)
	shardRuns++
	return &File{
		Identity:      &Identity{RunID: fmt.Sprintf("run%d", shardRuns), Host: "client", PID: 100, Count: 1},
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "dbarena", Version: "1.0.0", Commit: "abc"},
		Workload:      Workload{Name: "oltp_read_write", Version: "1", Options: map[string]string{"tables": "1"}},
		Target:        Target{Label: "pg", Engine: "postgres", URL: "postgres://bench@db:5432/bench", ServerVersion: "PostgreSQL 17"},
		Client:        Client{Hostname: "client"},
		Seed:          seed,
		StartedAt:     start,
		FinishedAt:    start.Add(time.Duration(len(ticks)) * time.Second),
		Runs:          []Run{run},
		Status:        StatusComplete,
	}
}

// shardRuns numbers the files shard makes, each a run of its own.
var shardRuns int

// twin is a copy of f as another shard with the same figures would have
// written it: the same content under other identities.
func twin(t *testing.T, f *File) *File {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var c File
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.Identity != nil {
		c.Identity.RunID += "-twin"
	}
	for i := range c.Shards {
		if id := c.Shards[i].Identity; id != nil {
			id.RunID += "-twin"
		}
	}
	return &c
}

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// hdrPercentile is the value at percentile p of vs as package histogram
// defines it, computed from the sorted values: the smallest value with at
// least p% of the values at or below it. Values below 2048 µs are exact on
// dbarena's scale, so this is what a merged histogram must give.
func hdrPercentile(vs []int64, p float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	for k, v := range s {
		if float64(k+1)*100 >= p*float64(len(s)) {
			return float64(v) / 1000
		}
	}
	return float64(s[len(s)-1]) / 1000
}

func mean(vs []int64) float64 {
	var sum int64
	for _, v := range vs {
		sum += v
	}
	return float64(sum) / float64(len(vs)) / 1000
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

// Merging a file with itself doubles every count and keeps every
// percentile: an exact merge.
func TestMergeSelf(t *testing.T) {
	f := shard(t, t0, 1,
		tick{lat: [2][]int64{{100, 200, 300, 1500}, {50, 60}}, errors: 1, retries: 2},
		tick{lat: [2][]int64{{110, 120}, {900}}},
	)
	m, err := Merge(f, twin(t, f))
	if err != nil {
		t.Fatal(err)
	}
	r, mr := f.Runs[0], m.Runs[0]
	if mr.Threads != 2*r.Threads || mr.Transactions != 2*r.Transactions || mr.Queries != 2*r.Queries ||
		mr.Reads != 2*r.Reads || mr.Errors != 2*r.Errors || mr.Retries != 2*r.Retries {
		t.Errorf("merged counts %+v, want double of %+v", mr, r)
	}
	if mr.LatencyMS != r.LatencyMS {
		t.Errorf("latency %+v, want %+v", mr.LatencyMS, r.LatencyMS)
	}
	if mr.DurationS != r.DurationS || !near(mr.TPS, 2*r.TPS) || !near(mr.QPS, 2*r.QPS) || !near(mr.ClientCPUS, 2*r.ClientCPUS) || mr.ClientCPUPerTxnUS != r.ClientCPUPerTxnUS {
		t.Errorf("duration %v tps %v qps %v cpu %v cpu/txn %v, want %v, %v, %v, %v, %v",
			mr.DurationS, mr.TPS, mr.QPS, mr.ClientCPUS, mr.ClientCPUPerTxnUS, r.DurationS, 2*r.TPS, 2*r.QPS, 2*r.ClientCPUS, r.ClientCPUPerTxnUS)
	}
	for i, op := range r.Ops {
		mo := mr.Ops[i]
		if mo.Name != op.Name || mo.Count != 2*op.Count || mo.Errors != 2*op.Errors || mo.Retries != 2*op.Retries || mo.LatencyMS != op.LatencyMS {
			t.Errorf("op %d: %+v, want double of %+v", i, mo, op)
		}
		h, err := histogram.Decode(mo.HDR)
		if err != nil || h.TotalCount() != 2*op.Count {
			t.Errorf("op %d: merged hdr holds %v values (%v), want %d", i, h.TotalCount(), err, 2*op.Count)
		}
	}
	if len(mr.Intervals) != len(r.Intervals) {
		t.Fatalf("%d intervals, want %d", len(mr.Intervals), len(r.Intervals))
	}
	for j, iv := range r.Intervals {
		mi := mr.Intervals[j]
		if mi.TS != iv.TS || mi.LengthS != iv.LengthS || mi.Transactions != 2*iv.Transactions || mi.Errors != 2*iv.Errors ||
			mi.Retries != 2*iv.Retries || !near(mi.TPS, 2*iv.TPS) || mi.LatencyMS != iv.LatencyMS || len(mi.Ops) != len(iv.Ops) {
			t.Errorf("interval %d: %+v, want double of %+v", j, mi, iv)
		}
		for k, op := range iv.Ops {
			if mo := mi.Ops[k]; mo.Op != op.Op || mo.Count != 2*op.Count || mo.Errors != 2*op.Errors {
				t.Errorf("interval %d op %d: %+v, want double of %+v", j, k, mo, op)
			}
		}
	}
	if len(m.Shards) != 2 || m.Shards[1].Seed != 1 || m.SchemaVersion != SchemaVersion || m.Status != StatusComplete {
		t.Errorf("header: shards %+v version %d status %q", m.Shards, m.SchemaVersion, m.Status)
	}
	// The inputs are not modified.
	if again := shard(t, t0, 1,
		tick{lat: [2][]int64{{100, 200, 300, 1500}, {50, 60}}, errors: 1, retries: 2},
		tick{lat: [2][]int64{{110, 120}, {900}}},
	); !reflect.DeepEqual(f.Runs, again.Runs) {
		t.Error("Merge modified its input")
	}
}

// Two shards with different latencies merge into the percentiles of all
// their values together, per op, per run and per interval.
func TestMergeShardsPercentiles(t *testing.T) {
	a := [][2][]int64{
		{{100, 101, 102, 103, 104, 105, 106, 107, 108, 1900}, {40, 41}},
		{{200, 210, 220}, {50}},
	}
	b := [][2][]int64{
		{{300, 310, 320, 330, 340, 350, 360, 370, 380, 390, 400, 410}, {1000, 1001, 1002}},
		{{90}, {60, 70, 80, 90}},
		{{500}, nil}, // only b reached a third interval
	}
	fa := shard(t, t0, 1, tick{lat: a[0]}, tick{lat: a[1]})
	fb := shard(t, t0.Add(2*time.Second), 2, tick{lat: b[0], errors: 3}, tick{lat: b[1]}, tick{lat: b[2], retries: 1})
	fb.Client.Hostname = "client-b"
	// Shards stop at their own time; an interval that only one reached is
	// not at the same t_s.
	fb.Runs[0].Intervals[2].TS = 2.5
	fb.Runs[0].Status, fb.Status = StatusInterrupted, StatusInterrupted
	m, err := Merge(fa, fb)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Runs[0]

	var all []int64
	perOp := [2][]int64{}
	for _, ticks := range [][][2][]int64{a, b} {
		for _, tk := range ticks {
			for op, vs := range tk {
				perOp[op] = append(perOp[op], vs...)
				all = append(all, vs...)
			}
		}
	}
	check := func(what string, got histogram.Latency, vs []int64) {
		t.Helper()
		want := histogram.Latency{
			Min: hdrPercentile(vs, 0), Mean: mean(vs), P50: hdrPercentile(vs, 50), P95: hdrPercentile(vs, 95),
			P99: hdrPercentile(vs, 99), P999: hdrPercentile(vs, 99.9), Max: hdrPercentile(vs, 100),
		}
		if !near(got.Mean, want.Mean) {
			t.Errorf("%s: mean %v, want %v", what, got.Mean, want.Mean)
		}
		got.Mean, want.Mean = 0, 0
		if got != want {
			t.Errorf("%s: latency %+v, want %+v", what, got, want)
		}
	}
	check("run", r.LatencyMS, all)
	for op := range opNames {
		check(opNames[op], r.Ops[op].LatencyMS, perOp[op])
		if r.Ops[op].Count != int64(len(perOp[op])) {
			t.Errorf("%s: count %d, want %d", opNames[op], r.Ops[op].Count, len(perOp[op]))
		}
	}
	if r.Transactions != int64(len(all)) || r.Errors != 3 || r.Retries != 1 || r.Threads != 8 {
		t.Errorf("run: %d transactions, %d errors, %d retries, %d threads; want %d, 3, 1, 8", r.Transactions, r.Errors, r.Retries, r.Threads, len(all))
	}
	// Durations 2 s and 3 s: the merged run lasted their mean.
	if r.DurationS != 2.5 || !near(r.TPS, round(float64(len(all))/2.5, 2)) {
		t.Errorf("duration %v tps %v, want 2.5 and %v", r.DurationS, r.TPS, float64(len(all))/2.5)
	}
	if r.Status != StatusInterrupted || m.Status != StatusInterrupted {
		t.Errorf("status %q / %q, want interrupted", r.Status, m.Status)
	}

	if len(r.Intervals) != 3 {
		t.Fatalf("%d intervals, want 3 (t_s 1, 2, 2.5)", len(r.Intervals))
	}
	for j, want := range [][]int64{
		slices.Concat(a[0][0], a[0][1], b[0][0], b[0][1]),
		slices.Concat(a[1][0], a[1][1], b[1][0], b[1][1]),
		b[2][0],
	} {
		iv := r.Intervals[j]
		wl := IntervalLatency{P50: hdrPercentile(want, 50), P95: hdrPercentile(want, 95), P99: hdrPercentile(want, 99), Max: hdrPercentile(want, 100)}
		if iv.Transactions != int64(len(want)) || iv.LatencyMS != wl || iv.TPS != float64(len(want)) {
			t.Errorf("interval %d (t_s %v): %d transactions, latency %+v, tps %v; want %d, %+v, %d", j, iv.TS, iv.Transactions, iv.LatencyMS, iv.TPS, len(want), wl, len(want))
		}
	}
	if ts := []float64{r.Intervals[0].TS, r.Intervals[1].TS, r.Intervals[2].TS}; !slices.Equal(ts, []float64{1, 2, 2.5}) {
		t.Errorf("t_s %v, want [1 2 2.5]", ts)
	}
	if e := r.Intervals[0].Ops; len(e) != 2 || e[1].Errors != 3 || e[1].Count != 5 {
		t.Errorf("interval 0 ops %+v, want write with 5 transactions and 3 errors", e)
	}
	if m.StartedAt != t0 || !m.FinishedAt.Equal(t0.Add(5*time.Second)) || len(m.Shards) != 2 || m.Shards[1].Client.Hostname != "client-b" || m.Seed != 1 {
		t.Errorf("header: started %v finished %v seed %d shards %+v", m.StartedAt, m.FinishedAt, m.Seed, m.Shards)
	}

	// A merged file merges again: three shards in two steps are the same
	// as in one.
	fc := shard(t, t0, 3, tick{lat: [2][]int64{{700}, {800}}})
	one, err := Merge(fa, fb, fc)
	if err != nil {
		t.Fatal(err)
	}
	two, err := Merge(m, fc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, two) {
		t.Errorf("merge in two steps differs from merge in one:\n%+v\n%+v", two.Runs[0], one.Runs[0])
	}
}

// Server metrics, sampled by every shard from the same server, are their
// mean; the workload's own metrics are left out.
func TestMergeServerMetrics(t *testing.T) {
	a := shard(t, t0, 1, tick{lat: [2][]int64{{100}, {200}}})
	b := shard(t, t0, 2, tick{lat: [2][]int64{{100}, {200}}})
	a.Runs[0].Server = map[string]float64{"server_cpu_pct": 100, "disk_iops": 10}
	b.Runs[0].Server = map[string]float64{"server_cpu_pct": 50}
	a.Runs[0].Intervals[0].Server = map[string]float64{"server_cpu_pct": 100}
	b.Runs[0].Intervals[0].Server = map[string]float64{"server_cpu_pct": 50}
	a.Runs[0].Metrics = []Metric{{Name: "NOPM", Value: 1}}
	a.Runs[0].Intervals[0].Metrics = map[string]float64{"NOPM": 1}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Runs[0]
	if want := map[string]float64{"server_cpu_pct": 75, "disk_iops": 10}; !reflect.DeepEqual(r.Server, want) {
		t.Errorf("server %v, want %v", r.Server, want)
	}
	// 75% of one core over 1 s for 4 transactions.
	if r.ServerCPUPerTxnUS != 0.75e6/4 {
		t.Errorf("server CPU per transaction %v µs, want %v", r.ServerCPUPerTxnUS, 0.75e6/4)
	}
	if r.Intervals[0].Server["server_cpu_pct"] != 75 || r.Metrics != nil || r.Intervals[0].Metrics != nil {
		t.Errorf("interval server %v, metrics %v / %v", r.Intervals[0].Server, r.Metrics, r.Intervals[0].Metrics)
	}
}

// Unfinished transactions are added, their longest elapsed time kept
// (and the largest median, a bound); each distinct warning is kept once.
func TestMergeUnfinishedAndWarnings(t *testing.T) {
	a := shard(t, t0, 1, tick{lat: [2][]int64{{100}, {200}}})
	b := shard(t, t0, 2, tick{lat: [2][]int64{{100}, {200}}})
	a.Runs[0].Unfinished, a.Runs[0].UnfinishedMS = 3, &Elapsed{P50: 900, Max: 1500}
	b.Runs[0].Unfinished, b.Runs[0].UnfinishedMS = 2, &Elapsed{P50: 1200, Max: 1300}
	a.Runs[0].Warnings = []string{"x", "y"}
	b.Runs[0].Warnings = []string{"y", "z"}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Runs[0]
	if r.Unfinished != 5 || *r.UnfinishedMS != (Elapsed{P50: 1200, Max: 1500}) || !reflect.DeepEqual(r.Warnings, []string{"x", "y", "z"}) {
		t.Errorf("unfinished %d %+v, warnings %q", r.Unfinished, r.UnfinishedMS, r.Warnings)
	}
}

// Each shard judged its own host: the merged run keeps every distinct
// disturbance of the shards, in their order, and an interval every cause
// any shard's had, in the order other, steal, client.
func TestMergeDisturbed(t *testing.T) {
	a := shard(t, t0, 1, tick{lat: [2][]int64{{100}, {200}}}, tick{lat: [2][]int64{{100}, {200}}})
	b := shard(t, t0, 2, tick{lat: [2][]int64{{100}, {200}}}, tick{lat: [2][]int64{{100}, {200}}})
	other := Disturbance{Cause: DisturbedOther, Metric: "host_other_cpu_pct", Limit: 25, Intervals: 2, Measured: 2, Mean: 61, Max: 70, Text: "other work"}
	steal := Disturbance{Cause: DisturbedSteal, Metric: "host_steal_pct", Limit: 5, Intervals: 1, Measured: 2, Mean: 9, Max: 9, Text: "steal"}
	a.Runs[0].Disturbed = []Disturbance{other}
	b.Runs[0].Disturbed = []Disturbance{other, steal}
	a.Runs[0].Intervals[0].Disturbed = []string{DisturbedOther}
	b.Runs[0].Intervals[0].Disturbed = []string{DisturbedSteal, DisturbedOther}
	b.Runs[0].Intervals[1].Disturbed = []string{DisturbedClient}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Runs[0]
	if !reflect.DeepEqual(r.Disturbed, []Disturbance{other, steal}) {
		t.Errorf("disturbed %+v", r.Disturbed)
	}
	if got := [][]string{r.Intervals[0].Disturbed, r.Intervals[1].Disturbed}; !reflect.DeepEqual(got, [][]string{{"other", "steal"}, {"client"}}) {
		t.Errorf("intervals' causes %q", got)
	}
	// Undisturbed shards merge into an undisturbed run.
	c := shard(t, t0, 1, tick{lat: [2][]int64{{100}, {200}}})
	d := shard(t, t0, 2, tick{lat: [2][]int64{{100}, {200}}})
	if m, err := Merge(c, d); err != nil || m.Runs[0].Disturbed != nil || m.Runs[0].Intervals[0].Disturbed != nil {
		t.Errorf("undisturbed: %v, %+v", err, m)
	}
}

// Files that are not shards of one run are refused, naming the file and
// the field.
func TestMergeRefuses(t *testing.T) {
	good := func() *File { return shard(t, t0, 1, tick{lat: [2][]int64{{100}, {200}}}) }
	for _, tc := range []struct {
		name   string
		change func(f *File)
		field  string
		reason string
	}{
		{"version 1", func(f *File) { f.SchemaVersion = 1 }, "schema_version", "no histograms per interval"},
		{"workload", func(f *File) { f.Workload.Name = "tpcc" }, "workload.name", `tpcc, but the first file has oltp_read_write`},
		{"option value", func(f *File) { f.Workload.Options["tables"] = "8" }, "workload.options.tables", `"8", but the first file has "1"`},
		{"extra option", func(f *File) { f.Workload.Options["range-size"] = "5" }, "workload.options.range-size", `"5", but the first file has no such option`},
		{"target", func(f *File) { f.Target.URL = "postgres://bench@other:5432/bench" }, "target.url", "not a shard of the same run"},
		{"tool", func(f *File) { f.Tool.Commit = "def" }, "tool.commit", "def"},
		{"start", func(f *File) { f.StartedAt = f.StartedAt.Add(time.Minute) }, "started_at", "shards of one run start within 10s"},
		{"run start", func(f *File) { f.Runs[0].StartedAt = f.Runs[0].StartedAt.Add(-11 * time.Second) }, "runs[0].started_at", "11s from the first file's"},
		{"threads", func(f *File) { f.Runs = append(f.Runs, f.Runs[0]) }, "runs", "threads (4,4), but the first file has threads (4)"},
		{"warm-up", func(f *File) { f.Runs[0].WarmupS = 5 }, "runs[0].warmup_s", "5, but the first file has 0"},
		{"ops", func(f *File) { f.Runs[0].Ops[1].Name = "delete" }, "runs[0].ops", "(read,delete), but the first file has (read,write)"},
		{"op histogram", func(f *File) { f.Runs[0].Ops[0].Count++ }, "runs[0].ops[0].hdr", "holds 1 values, but the count is 2"},
		{"interval histogram", func(f *File) { f.Runs[0].Intervals[0].Ops[0].HDR = "garbage" }, "runs[0].intervals[0].ops[op 0].hdr", "not a histogram"},
		{"interval ops", func(f *File) { f.Runs[0].Intervals[0].Ops = nil }, "runs[0].intervals[0].ops", "do not add up"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := good()
			tc.change(bad)
			_, err := Merge(good(), bad)
			var me *MergeError
			if !errors.As(err, &me) || !errors.Is(err, ErrNotMergeable) {
				t.Fatalf("Merge = %v, want a MergeError", err)
			}
			if me.File != 1 || me.Field != tc.field || !strings.Contains(me.Reason, tc.reason) {
				t.Errorf("refusal %+v, want file 1, field %q, reason with %q", me, tc.field, tc.reason)
			}
			if !strings.HasPrefix(err.Error(), "file 2: "+tc.field+": ") {
				t.Errorf("message %q does not name file 2 and %s", err, tc.field)
			}
			me.Name = "b.json"
			if !strings.HasPrefix(me.Error(), "b.json: "+tc.field+": ") {
				t.Errorf("message %q does not name b.json", me)
			}
		})
	}
	if _, err := Merge(); !errors.Is(err, ErrNotMergeable) {
		t.Errorf("Merge() = %v, want ErrNotMergeable", err)
	}
}

// A version-1 file still reads; it lacks only the interval histograms.
func TestReadVersion1(t *testing.T) {
	f, err := Read("testdata/result-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.SchemaVersion != 1 || len(f.Runs) != 1 || len(f.Runs[0].Intervals) == 0 || f.Runs[0].Ops[0].HDR == "" {
		t.Fatalf("read %+v", f)
	}
	for _, iv := range f.Runs[0].Intervals {
		if iv.Ops != nil || iv.LengthS != 0 || iv.LatencyMS.P95 == 0 {
			t.Errorf("interval %+v: want the version-1 fields only", iv)
		}
	}
	if _, err := Merge(f, f); err == nil || !strings.Contains(err.Error(), "file 1: schema_version: version 1 has no histograms per interval") {
		t.Errorf("Merge of a version-1 file = %v", err)
	}
}

// BenchmarkIntervalOf is the collector's cost per tick of one op,
// encoding its histogram included: one second of oltp_point_select on
// SQLite with 8 threads (79 558 transactions, 5 µs … 226 ms).
func BenchmarkIntervalOf(b *testing.B) {
	h, err := histogram.Decode(pointSelectSecond)
	if err != nil {
		b.Fatal(err)
	}
	iv := histogram.NewInterval(1)
	iv.Ops[0].Hist.Merge(h)
	for b.Loop() {
		_ = IntervalOf(iv, time.Second, time.Second, false)
	}
}

const pointSelectSecond = "HISTFAAAA6B42jSTvY8bVRfG7/zuuXfuzHjGnvXaE7+7fkNwNqvVauVEIRCRrEKSIiS7KxSikCKgaCUalJKCigqCQOJTEUiIgkh8tLT8DwhoED0goRQUiCIFokDn2LjwjO895znPx/H6m/eHzoW/3OLjl89Mv36+/6W78OfiIFz69bvs0df+29+yn17/ZP+fk4+mfw/frt8vfo9/yAP/Aw+zh9mH2bvZg+yt7MXnr1269sz+E+fPvrD/8rPn988+/eTZx/5/8viJ9cePj8fj1dWVE+ur/+utrg7KQdMbrPRiWTZJkgzSoFeWMZJiSo30UpNSSdNryhR7KcbYpDQYl+W4acr15sj4yHhlRST20iBFiSnGMklZJiQmiSIiUYgpgkgsceKiOIhISgLJkSQNkuCQRlaFKGgzuDIuW6SnQIpNagxXccpSkB4SXYoIUoI4fELAxVKcTkZ6SbReS5JCkzxaLiip6GIkOj3Rh8dJAhyQ9LhAAsqJgI/24vEStFh1eJSfBCqVIlqFFoqQa0FQXTnkOBytAosTqyp0mtri9HpZ4ajsl1MpNgpPZRdUMmRxEGFi0NgE0VcPrWgLOYE1fQwNLkQv7eJc63O1eg1jYxh9vWNkfAqbFbgKI2mpCVTS0nKUnCl0FBTMDNlRKJjZIQTpQy0qSbukZoQJcxqHpoQXbXbUUhFoDSQwNOVavmOdO3yUUdAxpeU6BUfZoGNOYM6I07Qco+ODjMrI3uIlWgJn2KEgELjDKaYERgQmbChrtacVZd9feJnLbeMwYoPAaTrWmNMywTHFi19Kdda60HQazxoFNacwQ25SkeO5y2vGt8YxXwaZM6GjJjeQCSOG6iqvGlwhmoHGNFJmDJman5Umr9PVmsWaKFh0Syq1UNExxJtSzG9vJCosSc2yZUafyjSrMZqytsxsJ3I2GFo6lbVWDLnxH6Bjk21G7LFjuxwWlDpyDtmi4hi73OCLTF0iGGXPFoEZp7jCAVsa+qeazibneCMzfYWpmxE4Z9NrahZrtckGLR3P0THhIn3Y5V7GGbb5JlNKNZepOcZIOj6Hy7Y1I6Zm2oGuhWxbKi1s2fLn5uouOXfZxnOHDW4RLJ8+BU9xkwsyY433skhgj4I5B+bGITnX7cYyn1DQ4iVnjUNe0Ujk+8z+PHNq+uT8kjHjMlfwvANTNm0LZnyVqYDbXDWbajoqanbYI3CwFNGyyy1m7HGRewWfZQuIj4UdfhT+DQAA///5HWBk"

// A merged run keeps its shards' thresholds (the first shard's) without
// their verdicts, which were about each shard's share.
func TestMergeThresholdsUnjudged(t *testing.T) {
	a := shard(t, t0, 1, tick{lat: [2][]int64{{100}, {200}}})
	b := shard(t, t0, 2, tick{lat: [2][]int64{{100}, {200}}})
	v, pass := 2.0, true
	for _, f := range []*File{a, b} {
		f.Runs[0].Thresholds = []Threshold{{Expr: "tps>1", Observed: &v, Pass: &pass}, {Expr: "p99<1ms", Observed: &v, Pass: &pass, Note: "x"}}
	}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Threshold{{Expr: "tps>1"}, {Expr: "p99<1ms"}}; !reflect.DeepEqual(m.Runs[0].Thresholds, want) {
		t.Errorf("merged thresholds %+v, want %+v", m.Runs[0].Thresholds, want)
	}
}

// The arrivals of open-loop shards add up, their unstarted waits merge
// exactly, and a stalled shard makes the merged run stalled.
func TestMergeArrivalsAndStalled(t *testing.T) {
	a := shard(t, t0, 1, tick{lat: [2][]int64{{100}, {200}}})
	b := shard(t, t0, 2, tick{lat: [2][]int64{{100}, {200}}})
	waits := func(vs ...int64) string {
		h := histogram.New()
		for _, v := range vs {
			if err := h.RecordValue(v); err != nil {
				t.Fatal(err)
			}
		}
		return encode(h)
	}
	a.Runs[0].Offered, a.Runs[0].Started, a.Runs[0].Unstarted, a.Runs[0].UnstartedHDR = 10, 8, 2, waits(1000, 3000)
	b.Runs[0].Offered, b.Runs[0].Started, b.Runs[0].Unstarted, b.Runs[0].UnstartedHDR = 12, 9, 3, waits(2000, 4000, 100000)
	b.Runs[0].Status, b.Status = StatusStalled, StatusStalled
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Runs[0]
	if r.Offered != 22 || r.Started != 17 || r.Unstarted != 5 {
		t.Errorf("offered %d, started %d, unstarted %d; want 22, 17, 5", r.Offered, r.Started, r.Unstarted)
	}
	if r.UnstartedMS == nil || r.UnstartedMS.Max < 99 || r.UnstartedMS.Max > 101 {
		t.Errorf("unstarted waits %+v, want a max of 100 ms", r.UnstartedMS)
	}
	if r.Status != StatusStalled || m.Status != StatusStalled {
		t.Errorf("status %s (file %s), want stalled", r.Status, m.Status)
	}
}
