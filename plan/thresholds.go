package plan

import (
	"strings"

	"github.com/dbarena/dbarena/threshold"
)

// checkThresholds parses the thresholds a workload entry runs with (the
// plan's, then its own, which add to them) against its workload, each
// bad expression reported at the value that holds it.
func (d *decoder) checkThresholds(rw *rawWorkload, plan *runSettings, seen map[Problem]bool) {
	if rw.thresholds == nil {
		return
	}
	for _, rs := range []*runSettings{plan, &rw.rs} {
		v, ok := rs.get(threshold.Field)
		if !ok {
			continue
		}
		for _, expr := range strings.Split(v.text, ",") {
			if _, err := threshold.Parse(strings.TrimSpace(expr), *rw.thresholds); err != nil {
				line, col := pos(v.node)
				p := Problem{Line: line, Column: col, Field: v.path, Msg: rw.w.Name + ": " + strings.TrimSpace(expr) + ": " + err.Error()}
				if !seen[p] {
					seen[p] = true
					d.probs = append(d.probs, p)
				}
			}
		}
	}
}
