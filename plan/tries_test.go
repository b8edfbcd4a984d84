package plan_test

import (
	"strings"
	"testing"

	"github.com/dbarena/dbarena/plan"
)

const triesPlan = `
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: docolap
    options: {events: 1000}
    tries: 3
    query_timeout: 1m
`

// A workload entry in the analytic timing model needs neither threads
// nor a duration; it runs on one connection, counts nothing in the
// estimate, and its tries are checked like the flag's.
func TestTriesInPlans(t *testing.T) {
	p, err := plan.Parse("exp.yaml", []byte(triesPlan), plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workloads[0]
	if w.Run.Tries == nil || *w.Run.Tries != 3 || w.Run.QueryTimeout.String() != "1m0s" || len(w.Threads) != 1 || w.Threads[0] != 1 {
		t.Errorf("run %+v, threads %v", w.Run.Analytic, w.Threads)
	}
	if p.Estimate() != 0 || p.TriesCells() != 1 {
		t.Errorf("estimate %s, %d cells of tries; want 0 and 1: tries run until done", p.Estimate(), p.TriesCells())
	}
	if errs := p.Cells[0].Config().Validate(); len(errs) > 0 {
		t.Errorf("the cell's configuration: %v", errs)
	}
	// A cold mode is a run option like the others; none holds anywhere.
	p, err = plan.Parse("exp.yaml", []byte(triesPlan+"    cold: none\n"), plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Cells[0].Config().ColdMode; got != "none" {
		t.Errorf("cold mode %q, want none", got)
	}

	for _, tc := range []struct {
		name, src, field, msg string
	}{
		{"tries 0", strings.Replace(triesPlan, "tries: 3", "tries: 0", 1), "workloads[0].tries", "0: must be at least 1"},
		{"threads", triesPlan + "    threads: [1, 2]\n", "workloads[0].threads", "[1 2]: the analytic timing model (tries) runs its queries on one connection: give 1"},
		{"warmup", triesPlan + "    warmup: 5s\n", "workloads[0].warmup", "5s: the analytic timing model (--tries) has no warm-up"},
		{"cold unknown", triesPlan + "    cold: frozen\n", "workloads[0].cold", "frozen: want restart, drop-caches, none"},
		{"cold restart on a URL", triesPlan + "    cold: restart\n", "workloads[0].cold", `restart: target "pg" (postgres://bench@127.0.0.1/bench) is not a managed server that dbarena can restart`},
		{"cold without tries", strings.Replace(triesPlan, "tries: 3\n    query_timeout: 1m", "duration: 1s\n    threads: 1\n    cold: none", 1), "workloads[0].cold", "none: says how the first tries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe := problems(t, tc.src, plan.Options{})
			if len(pe.Problems) != 1 || pe.Problems[0].Field != tc.field || !strings.HasPrefix(pe.Problems[0].Msg, tc.msg) {
				t.Errorf("problems %+v, want %s: %s", pe.Problems, tc.field, tc.msg)
			}
		})
	}
}
