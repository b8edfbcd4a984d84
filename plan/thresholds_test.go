package plan_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/plan"
)

// Thresholds are a run option: the plan's apply to every entry, an
// entry's add to them; abort_on_fail is set alike.
func TestThresholds(t *testing.T) {
	p := parse(t, `
duration: 10s
threads: [1]
thresholds: ["errors<1%"]
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: tpcc
    thresholds: [NOPM>1000, "op:new_order p90<5ms"]
    abort_on_fail: true
  - name: oltp_read_only
    thresholds: "p99<50ms, tps>100"
`)
	a, b := p.Cells[0].Config(), p.Cells[1].Config()
	if !slices.Equal(a.Thresholds, []string{"errors<1%", "NOPM>1000", "op:new_order p90<5ms"}) || !a.AbortOnFail {
		t.Errorf("first cell: thresholds %q, abort on fail %v", a.Thresholds, a.AbortOnFail)
	}
	if !slices.Equal(b.Thresholds, []string{"errors<1%", "p99<50ms", "tps>100"}) || b.AbortOnFail {
		t.Errorf("second cell: thresholds %q, abort on fail %v", b.Thresholds, b.AbortOnFail)
	}
}

// Every bad threshold is refused where it is written, checked against
// the entry's workload: the plan's against every entry.
func TestThresholdProblems(t *testing.T) {
	pe := problems(t, `duration: 10s
threads: [1]
thresholds: ["op:new_order p90<5ms"]
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: tpcc
    thresholds: [p99<50, "tps=>5"]
  - name: oltp_read_only
`, plan.Options{})
	var got []string
	for _, p := range pe.Problems {
		got = append(got, fmt.Sprintf("%d:%d: %s: %s", p.Line, p.Column, p.Field, p.Msg))
	}
	want := []string{
		`3:13: thresholds: oltp_read_only: op:new_order p90<5ms: op "new_order": oltp_read_only has no such operation`,
		`8:17: workloads[0].thresholds: tpcc: p99<50: limit "50" has no unit`,
		`8:17: workloads[0].thresholds: tpcc: tps=>5: bad operator "=>"`,
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

// abort_on_fail needs a threshold, as the flag does.
func TestAbortOnFailAlone(t *testing.T) {
	pe := problems(t, minimal+"    abort_on_fail: true\n", plan.Options{})
	if len(pe.Problems) != 1 || pe.Problems[0].Field != "workloads[0].abort_on_fail" || pe.Problems[0].Msg != "true: needs at least one --threshold" {
		t.Errorf("problems %+v", pe.Problems)
	}
}
