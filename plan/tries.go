package plan

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/markdown"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
)

// buildTriesTables is compare.BuildTries for one workload entry run in
// the analytic timing model, without a baseline that has no runs
// (noted).
func buildTriesTables(inputs []compare.Input, p *Plan, notes *[]string) ([]*compare.TriesTable, error) {
	baseline := p.Baseline
	if baseline != "" && !slices.ContainsFunc(inputs, func(in compare.Input) bool { return in.Label == baseline }) {
		baseline = ""
		note := fmt.Sprintf("the baseline %s has no complete runs: the speedups are against the first column", p.Baseline)
		if !slices.Contains(*notes, note) {
			*notes = append(*notes, note)
		}
	}
	return compare.BuildTries(inputs, baseline)
}

// triesHeading says how a workload entry in the timing model ran.
func triesHeading(cfg runner.Config) string {
	s := fmt.Sprintf("each query %d times in a row on one connection (the analytic timing model)", *cfg.Tries)
	if cfg.QueryTimeout > 0 {
		s += fmt.Sprintf(", %s at most each", cfg.QueryTimeout.Round(time.Millisecond))
	}
	return s
}

// writeTriesTables writes a section's table of the timing model, or why
// there is none, and tells whether there was one.
func writeTriesTables(b *bytes.Buffer, s *section) bool {
	switch {
	case s.triesErr != nil:
		b.WriteString("_No table: " + markdown.Escape(s.triesErr.Error()) + "_\n")
		return false
	case len(s.tries) == 0:
		b.WriteString("_No runs of the timing model yet._\n")
		return false
	}
	compare.WriteTriesMarkdown(b, s.tries)
	return true
}

// triesGiven tells whether the plan or the workload entry sets tries
// (the analytic timing model), which needs neither threads nor a
// duration.
func triesGiven(plan, entry *runSettings) bool {
	return contains(plan.given, "tries") || contains(entry.given, "tries")
}

// checkTriesThreads refuses thread counts above 1 for a workload entry
// in the timing model, at its threads.
func (d *decoder) checkTriesThreads(rw *rawWorkload, cfg runner.Config) {
	if cfg.Tries == nil || rw.node == nil {
		return
	}
	for _, n := range rw.w.Threads {
		if n > 1 {
			d.errorf(rw.node, rw.path+".threads", "%v: the analytic timing model (tries) runs its queries on one connection: give 1", rw.w.Threads)
			return
		}
	}
}

// triesLine is a run's tries in one line: each query's cold and hot
// seconds ("A 0.170/0.002 s"), and the failed tries.
func triesLine(t *result.Tries) string {
	var parts []string
	failed := 0
	for _, q := range t.Queries {
		parts = append(parts, fmt.Sprintf("%s %s/%s", q.Name, triesSeconds(q.Cold()), triesSeconds(q.Hot())))
		failed += q.Errors()
	}
	s := "cold/hot s " + strings.Join(parts, ", ")
	if failed > 0 {
		s += fmt.Sprintf(", %d tries failed", failed)
	}
	return s
}

func triesSeconds(v *float64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64)
}

// TriesCells counts the cells in the analytic timing model, which
// Estimate leaves out: they run until each query has had its tries.
func (p *Plan) TriesCells() int {
	n := 0
	for _, c := range p.Cells {
		if c.Workload.Run.Tries != nil {
			n++
		}
	}
	return n
}
