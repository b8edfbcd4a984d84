package plan_test

import (
	"fmt"

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
	// bad.yaml:6:42: targets[0].knob: unknown field "knob" (known: label, url, password_file, knobs)
	// bad.yaml:9:14: workloads[0].options: --warehouses -1: must be at least 1
}
