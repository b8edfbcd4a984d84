package plan_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/plan"
	_ "github.com/dbarena/dbarena/workload/all"
	_ "github.com/dbarena/dbarena/workload/all/mongo"
)

func parse(t *testing.T, src string) *plan.Plan {
	t.Helper()
	p, err := plan.Parse(filepath.Join(t.TempDir(), "exp.yaml"), []byte(src), plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func problems(t *testing.T, src string, opt plan.Options) *plan.Error {
	t.Helper()
	_, err := plan.Parse("exp.yaml", []byte(src), opt)
	var pe *plan.Error
	if !errors.As(err, &pe) {
		t.Fatalf("want a *plan.Error, got %v", err)
	}
	if !errors.Is(err, plan.ErrInvalid) {
		t.Errorf("%v does not match ErrInvalid", err)
	}
	return pe
}

const minimal = `
duration: 10s
threads: [1]
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: oltp_point_select
`

// TestStrictDecoding: an unknown field or a value of the wrong type is an
// error naming the file, the line and column, and the field.
func TestStrictDecoding(t *testing.T) {
	for _, tc := range []struct {
		name, src  string
		line, col  int
		field, msg string
	}{
		{"unknown top-level field", "repetition: 3\n" + minimal, 1, 1, "repetition", `unknown field "repetition"`},
		{"unknown target field", `
duration: 10s
threads: [1]
targets:
  - label: pg
    url: postgres://bench@127.0.0.1/bench
    pasword_file: ./pw
workloads: [{name: oltp_point_select}]
`, 7, 5, "targets[0].pasword_file", `unknown field "pasword_file" (known: label, url, password_file, provisioned_iops, knobs, knob_sequence)`},
		{"provisioned iops not positive", `
duration: 10s
threads: [1]
targets:
  - label: pg
    url: postgres://bench@127.0.0.1/bench
    provisioned_iops: -3000
workloads: [{name: oltp_point_select}]
`, 7, 23, "targets[0].provisioned_iops", `"-3000": want a positive number of IOPS`},
		{"integer expected", "repetitions: three\n" + minimal, 1, 14, "repetitions", `want an integer, got string "three"`},
		{"duration expected", "warmup: [1]\n" + minimal, 1, 9, "warmup", "want a duration"},
		{"bad duration", "warmup: 10 seconds\n" + minimal, 1, 9, "warmup", `"10 seconds": want a duration`},
		{"list expected", "threads: {a: 1}\nduration: 1s\ntargets: [{label: a, url: 'sqlite:///x'}]\nworkloads: [{name: tpcc}]\n", 1, 10, "threads", "want a list or a single value, got a mapping"},
		{"mapping expected", "targets: [pg]\nduration: 1s\nthreads: 1\nworkloads: [{name: tpcc}]\n", 1, 11, "targets[0]", "want a mapping"},
		{"option of the wrong type", `
duration: 10s
threads: [1]
targets: [{label: pg, url: "postgres://bench@127.0.0.1/bench"}]
workloads:
  - name: tpcc
    options:
      warehouses: ten
`, 8, 19, "workloads[0].options.warehouses", `invalid argument "ten" for "--warehouses" flag`},
		{"unknown option", `
duration: 10s
threads: [1]
targets: [{label: pg, url: "postgres://bench@127.0.0.1/bench"}]
workloads:
  - name: tpcc
    options: {warehouse: 1}
`, 7, 15, "workloads[0].options.warehouse", `tpcc has no option "warehouse"`},
		{"duplicate key", "duration: 1s\n" + minimal, 3, 1, "", `mapping key "duration" already defined`},
		{"syntax", "threads: [1, 2\n", 1, 10, "", "YAML syntax"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe := problems(t, tc.src, plan.Options{})
			if len(pe.Problems) != 1 {
				t.Fatalf("want 1 problem, got %d:\n%v", len(pe.Problems), pe)
			}
			p := pe.Problems[0]
			if p.Line != tc.line || p.Column != tc.col || p.Field != tc.field || !strings.Contains(p.Msg, tc.msg) {
				t.Errorf("got %d:%d %q %q\nwant %d:%d %q containing %q", p.Line, p.Column, p.Field, p.Msg, tc.line, tc.col, tc.field, tc.msg)
			}
			prefix := fmt.Sprintf("exp.yaml:%d:%d: ", tc.line, tc.col)
			if tc.field != "" {
				prefix += tc.field + ": "
			}
			if !strings.HasPrefix(pe.Error(), prefix) {
				t.Errorf("message %q does not start with %q", pe.Error(), prefix)
			}
		})
	}
}

// TestAllProblemsAtOnce: every problem of a file comes back in one error,
// in the order of the file.
func TestAllProblemsAtOnce(t *testing.T) {
	src := `name: bad
repetitions: 0
duration: -1s
warmup: 1s
report_interval: 1ms
threads: [8, 0, 8]
targets:
  - label: pg
    url: postgres://bench@127.0.0.1/bench
  - label: pg
    url: "managed:postgres"
  - url: "sqlite:///x.db"
  - label: nourl
  - label: web
    url: "http//nowhere"
workloads:
  - name: tpcc
    options: {warehouses: 0}
  - name: no_such_workload
  - name: oltp_read_write
    options: {tables: x, table_size: 10}
    threads: []
  - options: {}
`
	pe := problems(t, src, plan.Options{})
	want := []string{
		"2:14: repetitions: 0: must be at least 1",
		"3:11: duration: -1s: must be positive",
		"5:18: report_interval: 1ms: must be at least 10ms",
		"6:14: threads[1]: 0: must be at least 1",
		"6:17: threads[2]: 8 is in the list twice",
		`10:12: targets[1].label: label "pg" is also targets[0]'s`,
		"12:5: targets[2].label: required",
		"13:5: targets[3].url: required",
		"15:10: targets[4].url: target http//nowhere: url:",
		"18:14: workloads[0].options: --warehouses 0: must be at least 1",
		`19:11: workloads[1].name: "no_such_workload": no such workload`,
		"21:14: workloads[2].options: --range-size 100: must be <= --table-size (10)",
		`21:23: workloads[2].options.tables: invalid argument "x"`,
		"22:14: workloads[2].threads: empty",
		"23:5: workloads[3].name: required",
	}
	var got []string
	for _, p := range pe.Problems {
		got = append(got, fmt.Sprintf("%d:%d: %s: %s", p.Line, p.Column, p.Field, p.Msg))
	}
	if len(got) != len(want) {
		t.Errorf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range min(len(got), len(want)) {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s…", i, got[i], want[i])
		}
	}
}

// TestChangeField: change takes compare's conventions, checked up front;
// vs-previous takes no baseline.
func TestChangeField(t *testing.T) {
	if p := parse(t, "change: vs-better\n"+minimal); p.Change != "vs-better" {
		t.Errorf("change %q", p.Change)
	}
	pe := problems(t, "change: vs-worse\n"+minimal, plan.Options{})
	if len(pe.Problems) != 1 || pe.Problems[0].Field != "change" || !strings.Contains(pe.Problems[0].Msg, `"vs-worse": want vs-baseline, vs-better, vs-previous`) {
		t.Errorf("problems %+v", pe.Problems)
	}
	pe = problems(t, "change: vs-previous\nbaseline: pg\n"+minimal, plan.Options{})
	if len(pe.Problems) != 1 || pe.Problems[0].Field != "change" || !strings.Contains(pe.Problems[0].Msg, "takes no baseline") {
		t.Errorf("problems %+v", pe.Problems)
	}
}

// TestMetricCheckedUpFront: a workload entry's metric is a run figure or
// one the workload reports with its options; a typo is found before
// anything runs, naming what the workload has.
func TestMetricCheckedUpFront(t *testing.T) {
	entry := func(name, opts, metric string) string {
		return "duration: 10s\nthreads: [1]\ntargets:\n  - {label: pg, url: \"postgres://bench@127.0.0.1/bench\"}\nworkloads:\n  - name: " +
			name + "\n    options: {" + opts + "}\n    metric: " + metric + "\n"
	}
	for _, ok := range []string{entry("tpcc", "", "NOPM"), entry("tpcc", "", "nopm"), entry("tpcc", "wait: true", "tpmC"),
		entry("payments", "", "transfers/min"), entry("oltp_point_select", "", "retry_pct"), entry("airline", "", "p999"),
		entry("oltp_point_select", "", "server_cpu_pct")} {
		parse(t, ok)
	}
	for _, tc := range []struct{ src, want string }{
		{entry("tpcc", "", "NOMP"), `"NOMP": no such metric (tpcc's own are NOPM, NO/min, TPM;`},
		{entry("tpcc", "", "tpmC"), `"tpmC": no such metric (tpcc's own are NOPM`},
		{entry("oltp_point_select", "", "NOPM"), `"NOPM": no such metric (oltp_point_select reports no figure of its own;`},
	} {
		pe := problems(t, tc.src, plan.Options{})
		if len(pe.Problems) != 1 || pe.Problems[0].Field != "workloads[0].metric" || !strings.Contains(pe.Problems[0].Msg, tc.want) {
			t.Errorf("problems %+v, want workloads[0].metric: %s", pe.Problems, tc.want)
		}
	}
}

// TestColumnsField: columns name the figures beside each target's value,
// at the top level for every entry or an entry's own instead; a name
// that is no metric of the entry's workload is refused before anything
// runs, at its line and column.
func TestColumnsField(t *testing.T) {
	src := "columns: [server_cpu_pct, host_iowait_pct, disk_iops]\nduration: 10s\nthreads: [1]\ntargets:\n  - {label: pg, url: \"postgres://bench@127.0.0.1/bench\"}\n" +
		"workloads:\n  - name: oltp_point_select\n  - name: tpcc\n    metric: NOPM\n    columns: [TPM, server_cpu_pct]\n"
	p := parse(t, src)
	if got := strings.Join(p.Workloads[0].Columns, ","); got != "server_cpu_pct,host_iowait_pct,disk_iops" {
		t.Errorf("inherited columns %q", got)
	}
	if got := strings.Join(p.Workloads[1].Columns, ","); got != "TPM,server_cpu_pct" {
		t.Errorf("the entry's columns %q", got)
	}
	if p := parse(t, "columns: disk_iops\n"+minimal); strings.Join(p.Workloads[0].Columns, ",") != "disk_iops" {
		t.Errorf("one column: %q", p.Workloads[0].Columns)
	}
	if p := parse(t, minimal); p.Workloads[0].Columns != nil {
		t.Errorf("no columns asked: %q", p.Workloads[0].Columns)
	}
	for _, tc := range []struct{ src, want string }{
		{"columns: [server_cpu, disk_iops]\n" + minimal, `exp.yaml:1:11: columns[0]: "server_cpu": no such metric (oltp_point_select reports no figure of its own;`},
		{"columns: [disk_iops, DISK_IOPS]\n" + minimal, `exp.yaml:1:22: columns[1]: "DISK_IOPS" is in the list twice`},
		{"columns: [p99.9, p999]\n" + minimal, `exp.yaml:1:18: columns[1]: "p999" is in the list twice`},
		{"columns: [{a: 1}]\n" + minimal, `columns[0]: want a string`},
		{strings.Replace(src, "[TPM, server_cpu_pct]", "[NOMP]", 1), `exp.yaml:10:15: workloads[1].columns[0]: "NOMP": no such metric (tpcc's own are NOPM, NO/min, TPM;`},
		{strings.Replace(src, "    columns: [TPM, server_cpu_pct]\n", "", 1) + "  - name: oltp_read_write\n", ""},
	} {
		if tc.want == "" {
			parse(t, tc.src) // a plan-level column every entry has
			continue
		}
		pe := problems(t, tc.src, plan.Options{})
		if len(pe.Problems) != 1 || !strings.Contains(pe.Error(), tc.want) {
			t.Errorf("problems:\n%v\nwant one: %s", pe, tc.want)
		}
	}
	// A plan-level column one entry's workload lacks is that entry's problem.
	pe := problems(t, strings.Replace(src, "columns: [server_cpu_pct, host_iowait_pct, disk_iops]", "columns: [NOPM]", 1), plan.Options{})
	if len(pe.Problems) != 1 || !strings.Contains(pe.Error(), `exp.yaml:1:11: columns[0]: "NOPM": no such metric (oltp_point_select reports no figure of its own`) {
		t.Errorf("problems:\n%v", pe)
	}
}

func TestRequiredSettings(t *testing.T) {
	pe := problems(t, `
targets: [{label: a, url: "sqlite:///a.db"}]
workloads:
  - name: tpcc
  - name: oltp_insert
    threads: 4
    duration: 5s
`, plan.Options{})
	var got []string
	for _, p := range pe.Problems {
		got = append(got, p.Field+": "+p.Msg)
	}
	want := []string{
		"workloads[0].threads: required: give threads here or at the top level",
		"workloads[0].duration: required: give duration here or at the top level (or events)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	pe = problems(t, "name: x\n", plan.Options{})
	if len(pe.Problems) != 2 || pe.Problems[0].Field != "targets" || pe.Problems[1].Field != "workloads" {
		t.Errorf("an empty plan: %v", pe)
	}
}

// TestExpansion: the cells are the cartesian product of targets (knob
// matrices expanded), workloads and thread counts; a workload's threads
// replace the plan's.
func TestExpansion(t *testing.T) {
	p := parse(t, `
name: knobs
seed: 42
repetitions: 3
duration: 60s
warmup: 10s
threads: [8, 32]
knobs:
  shared_buffers: [128MB, 1GB, 4GB]
  max_wal_size: [1GB, 16GB]
knob_labels: {shared_buffers: sb, max_wal_size: wal}
targets:
  - label: pg
    url: "managed:postgres?fsync=off"
  - label: maria
    url: "managed:mariadb"
    knobs: {innodb_buffer_pool_size: [1G, 3G]}
workloads:
  - name: tpcc
    options: {warehouses: 10, mode: procedure}
    threads: [16]
    metric: NOPM
  - name: oltp_read_write
    options: {table_size: 10000, tables: 4}
    duration: 30s
`)
	var labels []string
	for _, tg := range p.Targets {
		labels = append(labels, tg.Label)
	}
	wantLabels := []string{
		"pg-sb=128MB-wal=1GB", "pg-sb=128MB-wal=16GB", "pg-sb=1GB-wal=1GB", "pg-sb=1GB-wal=16GB", "pg-sb=4GB-wal=1GB", "pg-sb=4GB-wal=16GB",
		"maria-innodb_buffer_pool_size=1G", "maria-innodb_buffer_pool_size=3G",
	}
	if !slices.Equal(labels, wantLabels) {
		t.Errorf("targets %q\nwant %q", labels, wantLabels)
	}
	if u := p.Targets[3].URL; u != "managed:postgres?fsync=off&shared_buffers=1GB&max_wal_size=16GB" {
		t.Errorf("knobs appended: %s", u)
	}
	if k := p.Targets[3].Knobs; !slices.Equal(k, []plan.Setting{{Name: "shared_buffers", Value: "1GB"}, {Name: "max_wal_size", Value: "16GB"}}) || p.Targets[3].Base != "pg" {
		t.Errorf("knobs %v, base %s", k, p.Targets[3].Base)
	}
	if u := p.Targets[7].URL; u != "managed:mariadb?innodb_buffer_pool_size=3G" {
		t.Errorf("a target's own knobs: %s", u)
	}
	// 8 targets × (tpcc at 16 + oltp at 8, 32) = 24 cells.
	if len(p.Cells) != 24 {
		t.Fatalf("%d cells, want 24", len(p.Cells))
	}
	c := p.Cells[4]
	if c.ID != "pg-sb=128MB-wal=16GB__oltp_read_write__t8" || c.Threads != 8 || c.Workload.Run.Duration != 30*time.Second ||
		c.Workload.Run.Warmup != 10*time.Second || c.Workload.Run.ReportInterval != time.Second || c.Seed != 42 {
		t.Errorf("cell 4: %+v", c)
	}
	if got := p.Cells[0]; got.Workload.Threads[0] != 16 || got.Threads != 16 || got.Workload.Metric != "NOPM" || got.Workload.Run.Duration != time.Minute {
		t.Errorf("the workload's threads replace the plan's: %+v", got)
	}
	if got := p.Cells[1].Workload.Metric; got != "tps" {
		t.Errorf("default metric %q", got)
	}
	// Options under their flag names, in the file's order; the key holds
	// those that are not at their defaults, sorted.
	if args := p.Cells[1].Workload.Args(); !slices.Equal(args, []string{"--table-size=10000", "--tables=4"}) {
		t.Errorf("args %q", args)
	}
	if k := p.Cells[1].Key; k != p.Cells[2].Key || k.Options != "--tables=4" || k.Workload != "oltp_read_write" || k.Target != "pg-sb=128MB-wal=1GB" {
		t.Errorf("thread counts share a key: %+v, %+v", k, p.Cells[2].Key)
	}
	if p.Cells[0].Key == p.Cells[1].Key || p.Cells[1].Key == p.Cells[4].Key {
		t.Error("different workloads or targets share a key")
	}
	if got := p.Cells[1].FileName(2); got != "pg-sb=128MB-wal=1GB__oltp_read_write__t8__r2.json" {
		t.Errorf("file name %s", got)
	}
	if d := p.Estimate(); d != 3*(8*70*time.Second+16*40*time.Second) {
		t.Errorf("estimate %s", d)
	}
}

// TestKnobsOnPlainTargets: knobs are settings of servers dbarena starts;
// a plain URL with knobs is refused, naming the target.
func TestKnobsOnPlainTargets(t *testing.T) {
	pe := problems(t, `
duration: 10s
threads: 1
knobs: {shared_buffers: [1GB, 2GB]}
targets:
  - {label: managed, url: "managed:postgres"}
  - {label: remote, url: "postgres://bench@db.example/bench"}
workloads: [{name: tpcc}]
`, plan.Options{})
	if len(pe.Problems) != 1 || !strings.Contains(pe.Problems[0].Msg, `target "remote" is not a managed server`) ||
		!strings.Contains(pe.Problems[0].Msg, "give the managed targets knobs of their own") || pe.Problems[0].Line != 7 {
		t.Errorf("%v", pe)
	}
	pe = problems(t, `
duration: 10s
threads: 1
targets:
  - {label: remote, url: "postgres://bench@db.example/bench", knobs: {work_mem: [4MB]}}
  - {label: m, url: "managed:postgres?work_mem=1MB", knobs: {work_mem: [4MB]}}
  - {label: twice, url: "managed:postgres", knobs: {work_mem: [4MB, 4MB]}}
workloads: [{name: tpcc}]
`, plan.Options{})
	var msgs []string
	for _, p := range pe.Problems {
		msgs = append(msgs, p.Field+": "+p.Msg)
	}
	want := []string{
		`targets[0]: target "remote" is not a managed server (managed:…) but has knobs work_mem; knobs are server settings dbarena applies to the servers it starts`,
		"targets[1].url: work_mem is set in the URL and in the knobs: set it in one place",
		`targets[2].knobs.work_mem[1]: "4MB" is in the list twice`,
	}
	if !slices.Equal(msgs, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
}

// TestValidateTarget: the caller's validator sees every expanded URL and
// its error is reported at the target's url, password hidden.
func TestValidateTarget(t *testing.T) {
	var seen []string
	pe := problems(t, `
duration: 10s
threads: 1
targets:
  - {label: a, url: "managed:postgres", knobs: {shared_buffers: [1GB, 2GB]}}
  - {label: b, url: "postgres://bench:hunter2@127.0.0.1/bench"}
  - {label: c, url: "managed:"}
workloads: [{name: tpcc}]
`, plan.Options{ValidateTarget: func(raw string) error {
		seen = append(seen, raw)
		if strings.Contains(raw, "2GB") {
			return errors.New("shared_buffers 2GB: more than this host's memory")
		}
		if strings.Contains(raw, "hunter2") {
			return fmt.Errorf("cannot reach %s", raw)
		}
		return nil
	}})
	wantSeen := []string{"managed:postgres?shared_buffers=1GB", "managed:postgres?shared_buffers=2GB", "postgres://bench:hunter2@127.0.0.1/bench"}
	if !slices.Equal(seen, wantSeen) {
		t.Errorf("validator saw %q", seen)
	}
	msg := pe.Error()
	for _, want := range []string{
		"exp.yaml:5:21: targets[0].url: managed:postgres?shared_buffers=2GB: shared_buffers 2GB: more than this host's memory",
		"exp.yaml:6:21: targets[1].url: postgres://bench@127.0.0.1/bench: cannot reach postgres://bench:xxxxx@127.0.0.1/bench",
		`exp.yaml:7:21: targets[2].url: "managed:": name the server after managed:`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "hunter2") {
		t.Errorf("the password is in the message:\n%s", msg)
	}
}

// TestLabels: workloads that appear twice need labels; labels that make
// the same file name are refused.
func TestLabels(t *testing.T) {
	pe := problems(t, `
duration: 10s
threads: 1
targets:
  - {label: "a:b", url: "sqlite:///a.db"}
  - {label: "a_b", url: "sqlite:///b.db"}
workloads:
  - {name: tpcc}
  - {name: tpcc, options: {warehouses: 2}}
`, plan.Options{})
	if len(pe.Problems) != 1 || !strings.Contains(pe.Problems[0].Msg, `workload tpcc (give the entries distinct labels) "tpcc" is also workloads[0]'s`) {
		t.Errorf("%v", pe)
	}
	pe = problems(t, `
duration: 10s
threads: 1
targets:
  - {label: "a:b", url: "sqlite:///a.db"}
  - {label: "a_b", url: "sqlite:///b.db"}
workloads:
  - {name: tpcc}
  - {name: tpcc, label: tpcc-w2, options: {warehouses: 2}}
`, plan.Options{})
	if len(pe.Problems) != 2 || !strings.Contains(pe.Problems[0].Msg, "have the same file name a_b__tpcc__t1") {
		t.Errorf("%v", pe)
	}
}

// TestOrder: rounds are contiguous, each holds every cell once, the order
// within a round is a seeded shuffle, and more repetitions keep the
// earlier rounds.
func TestOrder(t *testing.T) {
	src := func(seed, reps int) string {
		return fmt.Sprintf(`
seed: %d
repetitions: %d
duration: 1s
threads: [1, 2, 4, 8, 16]
targets:
  - {label: a, url: "sqlite:///a.db"}
  - {label: b, url: "sqlite:///b.db"}
workloads:
  - {name: oltp_point_select}
  - {name: oltp_read_only}
`, seed, reps)
	}
	p := parse(t, src(42, 4))
	n := len(p.Cells)
	order := p.Order()
	if len(order) != 4*n {
		t.Fatalf("%d steps, want %d", len(order), 4*n)
	}
	for r := 0; r < 4; r++ {
		round := order[r*n : (r+1)*n]
		seen := map[int]bool{}
		for _, s := range round {
			if s.Rep != r+1 {
				t.Fatalf("round %d holds a step of repetition %d", r+1, s.Rep)
			}
			if seen[s.Cell] {
				t.Fatalf("round %d visits cell %d twice", r+1, s.Cell)
			}
			seen[s.Cell] = true
		}
		if len(seen) != n {
			t.Fatalf("round %d visits %d of %d cells", r+1, len(seen), n)
		}
		identity := true
		for i, s := range round {
			identity = identity && s.Cell == i
		}
		if identity {
			t.Errorf("round %d is not shuffled", r+1)
		}
	}
	if slices.Equal(cells(order[:n]), cells(order[n:2*n])) {
		t.Error("two rounds have the same order")
	}
	if again := parse(t, src(42, 4)).Order(); !slices.Equal(again, order) {
		t.Error("the same seed gave another order")
	}
	if other := parse(t, src(43, 4)).Order(); slices.Equal(other, order) {
		t.Error("another seed gave the same order")
	}
	if more := parse(t, src(42, 6)).Order(); !slices.Equal(more[:4*n], order) {
		t.Error("more repetitions changed the earlier rounds")
	}
}

func cells(steps []plan.Step) []int {
	out := make([]int, len(steps))
	for i, s := range steps {
		out[i] = s.Cell
	}
	return out
}

// TestPrepareKeys: the key holds the options that are not at their
// defaults, so giving a default or leaving it out shares prepared data,
// and entries that differ only in run settings share it too.
func TestPrepareKeys(t *testing.T) {
	p := parse(t, `
duration: 10s
threads: [1]
targets: [{label: a, url: "sqlite:///a.db"}]
workloads:
  - {name: tpcc, options: {warehouses: 1}}
  - {name: tpcc, label: tpcc-long, duration: 1m}
  - {name: tpcc, label: tpcc-w2, options: {warehouses: 2}}
  - {name: tpcc, label: tpcc-proc, options: {mode: procedure}}
  - {name: oltp_point_select, options: {table_size: 100}}
  - {name: oltp_point_select, label: zipf, options: {table_size: 100, rand_type: zipfian}}
`)
	if k0, k1, k2 := p.Cells[0].Key, p.Cells[1].Key, p.Cells[2].Key; k0 != k1 || k0 == k2 || k0.Options != "" || k2.Options != "--warehouses=2" {
		t.Errorf("keys %+v %+v %+v", k0, k1, k2)
	}
	// Options that only change the run (tpcc's mode, oltp's access
	// distribution) share the data of the entries without them.
	if k3 := p.Cells[3].Key; k3 != p.Cells[0].Key {
		t.Errorf("--mode=procedure has key %+v, want %+v", k3, p.Cells[0].Key)
	}
	if k4, k5 := p.Cells[4].Key, p.Cells[5].Key; k4 != k5 || k4.Options != "--table-size=100" {
		t.Errorf("oltp keys %+v %+v", k4, k5)
	}
}

// Every run option (runner.Options) is settable at the top level and in a
// workload entry; the entry's value wins, the rest keep their defaults,
// and the cell's configuration carries them.
func TestRunOptions(t *testing.T) {
	p := parse(t, `
duration: 10s
threads: [2]
max_errors: 5
stop_grace: 3s
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: oltp_point_select
    max_errors: 7
  - name: oltp_read_only
    report_interval: 500ms
  - name: oltp_write_only
    tolerate_errors: true
    max_errors: 0
`)
	a, b, c := p.Cells[0].Config(), p.Cells[1].Config(), p.Cells[2].Config()
	if a.Threads != 2 || a.Seed != 1 || a.Duration != 10*time.Second || a.MaxErrors != 7 || a.TolerateErrors || a.StopGrace != 3*time.Second || a.ReportInterval != time.Second {
		t.Errorf("first cell's config %+v", a)
	}
	if b.MaxErrors != 5 || b.TolerateErrors || b.ReportInterval != 500*time.Millisecond || b.StopGrace != 3*time.Second {
		t.Errorf("second cell's config %+v", b)
	}
	if c.MaxErrors != 0 || !c.TolerateErrors || c.StopGrace != 3*time.Second {
		t.Errorf("third cell's config %+v", c)
	}
}

// A report interval of 0, and a limit of errors beside tolerate_errors,
// are refused as the flags refuse them, at the value's place.
func TestRunOptionContradictions(t *testing.T) {
	pe := problems(t, `duration: 10s
threads: [1]
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: oltp_point_select
    report_interval: 0s
  - name: oltp_read_only
    tolerate_errors: true
    max_errors: 5
`, plan.Options{})
	var got []string
	for _, p := range pe.Problems {
		got = append(got, fmt.Sprintf("%d:%d: %s: %s", p.Line, p.Column, p.Field, p.Msg))
	}
	want := []string{
		"7:22: workloads[0].report_interval: 0s: must be at least 10ms",
		"10:17: workloads[1].max_errors: 5: contradicts --tolerate-errors, which never stops a run for errors: give one",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A run option's bad value is reported at its place with the flag's
// validation; an unknown one at its line and column.
func TestRunOptionProblems(t *testing.T) {
	pe := problems(t, `duration: 10s
threads: [1]
max_errors: -1
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: oltp_point_select
    tolerate_errors: maybe
    stop_grace: -2s
    max_error: 3
  - name: oltp_read_only
    options: {isolation: serializable}
`, plan.Options{})
	var got []string
	for _, p := range pe.Problems {
		got = append(got, fmt.Sprintf("%d:%d: %s: %s", p.Line, p.Column, p.Field, p.Msg))
	}
	want := []string{
		"3:13: max_errors: -1: must not be negative",
		`8:22: workloads[0].tolerate_errors: want true or false, got string "maybe"`,
		"9:17: workloads[0].stop_grace: -2s: must not be negative",
		`10:5: workloads[0].max_error: unknown field "max_error"`,
		`12:15: workloads[1].options.isolation: isolation is a run option, not oltp_read_only's: give it as the entry's (or the plan's) field isolation`,
	}
	if len(got) != len(want) {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d: %s\nwant %s…", i, got[i], want[i])
		}
	}
}

// events is a run option like the others: with it a plan needs no
// duration (the run then has no limit in time), beside a duration both
// limits hold, and a count below 1 is refused at its place.
func TestEventsOption(t *testing.T) {
	p := parse(t, `
events: 5000
threads: [2]
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: oltp_point_select
  - name: oltp_read_only
    duration: 30s
    events: 700
`)
	a, b := p.Cells[0].Config(), p.Cells[1].Config()
	if a.Events == nil || *a.Events != 5000 || a.Duration != 0 {
		t.Errorf("first cell: events %v, duration %v; want 5000 and no limit in time", a.Events, a.Duration)
	}
	if b.Events == nil || *b.Events != 700 || b.Duration != 30*time.Second {
		t.Errorf("second cell: events %v, duration %v; want 700 and 30s", b.Events, b.Duration)
	}
	pe := problems(t, `duration: 10s
threads: [1]
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: oltp_point_select
    events: 0
`, plan.Options{})
	if len(pe.Problems) != 1 || pe.Problems[0].Field != "workloads[0].events" || pe.Problems[0].Msg != "0: must be at least 1 transaction" || pe.Problems[0].Line != 7 {
		t.Errorf("problems %+v", pe.Problems)
	}
}
