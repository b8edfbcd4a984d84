package plan_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/plan"
	_ "github.com/dbarena/dbarena/workload/all"
	_ "github.com/dbarena/dbarena/workload/all/mongo"
)

// A plan of one managed PostgreSQL at two shared_buffers settings, one
// workload at two thread counts, two repetitions: four cells run in two
// shuffled rounds.
func ExampleParse() {
	src := `
name: sb
seed: 1
repetitions: 2
duration: 30s
threads: [4, 8]
knobs:
  shared_buffers: [128MB, 1GB]
knob_labels: {shared_buffers: sb}
targets:
  - {label: pg, url: "managed:postgres"}
workloads:
  - name: oltp_read_write
    options: {tables: 4}
`
	p, err := plan.Parse("sb.yaml", []byte(src), plan.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range p.Targets {
		fmt.Println(t.Label, t.URL)
	}
	for _, s := range p.Order() {
		c := p.Cells[s.Cell]
		fmt.Println(s.Rep, c.FileName(s.Rep))
	}
	fmt.Println(p.Estimate())
	// Output:
	// pg-sb=128MB managed:postgres?shared_buffers=128MB
	// pg-sb=1GB managed:postgres?shared_buffers=1GB
	// 1 pg-sb=128MB__oltp_read_write__t8__r1.json
	// 1 pg-sb=1GB__oltp_read_write__t4__r1.json
	// 1 pg-sb=1GB__oltp_read_write__t8__r1.json
	// 1 pg-sb=128MB__oltp_read_write__t4__r1.json
	// 2 pg-sb=1GB__oltp_read_write__t4__r2.json
	// 2 pg-sb=1GB__oltp_read_write__t8__r2.json
	// 2 pg-sb=128MB__oltp_read_write__t8__r2.json
	// 2 pg-sb=128MB__oltp_read_write__t4__r2.json
	// 4m0s
}

// A plan file with mistakes: every one is reported, with its place.
func ExampleParse_problems() {
	src := `
repetitions: 0
duration: 30s
threads: [4]
targets:
  - {label: pg, url: "managed:postgres", knob: {work_mem: [4MB]}}
workloads:
  - name: tpcc
    options: {warehouses: -1}
`
	_, err := plan.Parse("bad.yaml", []byte(src), plan.Options{})
	fmt.Println(err)
	// Output:
	// bad.yaml:2:14: repetitions: 0: must be at least 1
	// bad.yaml:6:42: targets[0].knob: unknown field "knob" (known: label, url, password_file, provisioned_iops, knobs, knob_sequence)
	// bad.yaml:9:14: workloads[0].options: --warehouses -1: must be at least 1
}

// Run a plan of two cells (one workload at 1 and 2 threads, each run
// ending after 500 transactions) on a SQLite file through package session,
// and print its compare table of transactions. The target is prepared on
// first use; the results directory holds every run's file, the tables,
// the HTML report and the summary. The disturbed-run limits are off, so a
// busy host adds no marks to the table.
func ExampleSessionExecutor() {
	dir, err := os.MkdirTemp("", "dbarena-plan-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	src := `
name: threads
events: 500
threads: [1, 2]
disturbed_other: 0
disturbed_steal: 0
disturbed_client: 0
targets:
  - {label: lite, url: "sqlite://` + filepath.Join(dir, "bench.db") + `"}
workloads:
  - name: oltp_point_select
    options: {tables: 1, table_size: 100}
    metric: transactions
`
	p, err := plan.Parse(filepath.Join(dir, "threads.yaml"), []byte(src), plan.Options{})
	if err != nil {
		panic(err)
	}
	ex := plan.NewSessionExecutor(plan.ExecutorOptions{})
	defer ex.Close()
	results := filepath.Join(dir, "results")
	st, err := plan.Run(context.Background(), p, ex, plan.RunOptions{Dir: results})
	if err != nil {
		panic(err)
	}
	done, failed, _ := st.Counts()
	fmt.Printf("%d runs done, %d failed\n", done, failed)
	f, err := os.Open(filepath.Join(results, plan.CompareFile))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	// The metric's table; the latencies' table after it varies run by run.
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "p95 (ms)") {
			break
		}
		fmt.Println(sc.Text())
	}
	// Output:
	// 2 runs done, 0 failed
	// # threads: compare tables
	//
	// 1 repetitions of every cell, in interleaved rounds (seed 1). A cell with several runs shows their median and its 95% confidence interval; a change marked ~ is not significant (Mann-Whitney U test, p ≥ 0.05).
	//
	// ## oltp\_point\_select
	//
	// `oltp_point_select` with --tables=1 --table-size=100; 500 transactions measured after 0s of warm-up; threads 1, 2.
	//
	// **oltp\_point\_select: transactions (count), higher is better; changes against lite**
	//
	// | threads | lite |
	// | --- | ---: |
	// | 1 | 500.0 |
	// | 2 | 500.0 |
	// | **average** | 500.0 |
}
