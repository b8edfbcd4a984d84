// Package oltptest holds what the tests of workload/oltp and of its
// family implementations share: the tests and options every engine runs.
package oltptest

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/workload"
)

// RunCase is one sysbench test with the options a run-then-check test
// adds to its data options.
type RunCase struct {
	Test string
	Args []string
}

// RunCases are the tests and options the run-then-check tests run on
// every engine family.
var RunCases = []RunCase{
	{"oltp_point_select", nil},
	{"oltp_read_only", nil},
	{"oltp_read_write", nil},
	{"oltp_read_write", []string{"--skip-trx", "--auto-inc=false"}},
	{"oltp_write_only", nil},
	{"oltp_update_index", nil},
	{"oltp_update_non_index", nil},
	{"oltp_insert", nil},
	{"oltp_insert", []string{"--auto-inc=false"}},
	{"oltp_delete", nil},
	{"oltp_read_write_pct", nil},
	{"oltp_read_write", []string{"--rand-type=uniform"}},
	{"oltp_read_write", []string{"--rand-type=gaussian"}},
	{"oltp_read_write", []string{"--rand-type=pareto"}},
	{"oltp_read_write", []string{"--rand-type=zipfian"}},
}

// Found logs probs and returns them as "table check" (the table is what
// each Detail starts with, up to a colon), reporting an error for each of
// want that is not among them.
func Found(t *testing.T, probs []workload.Problem, want ...string) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	for _, p := range probs {
		got[strings.SplitN(p.Detail, ":", 2)[0]+" "+p.Check] = true
		t.Logf("%s: %s", p.Check, p.Detail)
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("no %q problem", w)
		}
	}
	return got
}
