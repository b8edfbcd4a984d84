package plan

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dbarena/dbarena/compare"
)

// Show writes what p would run and where it stands in its results
// directory, without running anything: the cells (target, workload,
// threads, and how many of their repetitions are done, failed or
// pending), then every run in execution order with its status.
func Show(w io.Writer, p *Plan, opt RunOptions) error {
	o := opt.defaults(p)
	st, err := inspect(p, o.Dir, o.Now().UTC())
	if err != nil {
		return err
	}
	done, failed, pending := st.Counts()
	fmt.Fprintf(w, "plan %s (%s): %d cells × %d repetitions = %d runs, seed %d\n", p.Name, p.Path, len(p.Cells), max(p.Repetitions, st.Repetitions), len(st.Runs), p.Seed)
	if p.Description != "" {
		fmt.Fprintf(w, "%s\n", p.Description)
	}
	fmt.Fprintf(w, "results: %s (%s): %d done, %d failed, %d pending\n", o.Dir, st.Status, done, failed, pending)
	fmt.Fprintf(w, "time: %s of warm-up and measurement in all", p.Estimate())
	if pending+failed > 0 && pending+failed < len(st.Runs) {
		var left time.Duration
		for _, r := range st.Runs {
			if r.Status != RunDone {
				for _, c := range p.Cells {
					if c.ID == r.Cell {
						left += c.runTime()
					}
				}
			}
		}
		fmt.Fprintf(w, ", %s left", left)
	}
	fmt.Fprintln(w, ", plus preparing data and starting servers")

	type counts struct{ done, failed, pending int }
	per := map[string]*counts{}
	for _, r := range st.Runs {
		c := per[r.Cell]
		if c == nil {
			c = &counts{}
			per[r.Cell] = c
		}
		switch r.Status {
		case RunDone:
			c.done++
		case RunFailed, RunStalled:
			c.failed++
		default:
			c.pending++
		}
	}
	fmt.Fprintln(w, "\nCells:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  cell\ttarget\tworkload\tthreads\tdone\tfailed\tpending\tprepare key")
	for _, c := range p.Cells {
		n := per[c.ID]
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", c.ID, c.Target.Label, c.Workload.Label, c.Threads, n.done, n.failed, n.pending, c.Key)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nTargets:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range p.Targets {
		fmt.Fprintf(tw, "  %s\t%s\n", t.Label, t.Redacted)
	}
	tw.Flush()

	showCompare(w, p)

	fmt.Fprintln(w, "\nOrder:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  #\tround\tcell\tfile\tstatus")
	for i, r := range st.Runs {
		status := r.Status
		if r.Error != "" {
			status += ": " + firstLine(strings.TrimSpace(r.Error))
		}
		fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\n", i+1, r.Rep, r.Cell, r.File, status)
	}
	return tw.Flush()
}

// showCompare says what the compare tables will show: the change
// convention and, workload by workload, the metric and the figures beside
// it.
func showCompare(w io.Writer, p *Plan) {
	change := p.Change
	if change == "" {
		change = compare.ChangeVsBaseline
	}
	against := "the first target"
	switch {
	case change == compare.ChangeVsPrevious:
		against = "the column before"
	case change == compare.ChangeVsBetter:
		against = "the better column"
	case p.Baseline != "":
		against = p.Baseline
	}
	if change == compare.ChangeVsBetter && p.Baseline != "" {
		against = p.Baseline + ", the better column"
	}
	relative := ""
	if p.Relative {
		relative = "; metrics relative to the baseline at its lowest thread count"
	}
	average := ""
	if p.Average == compare.AverageMeanOfChanges {
		average = "; average row: the mean of the rows' changes"
	}
	fmt.Fprintf(w, "\nCompare (change %s, against %s%s%s):\n", change, against, relative, average)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  workload\tmetric\tbeside it\ttable")
	for _, wl := range p.Workloads {
		metric := wl.Metric
		if metric == "" {
			metric = "(the workload's headline)"
		}
		beside := strings.Join(wl.Columns, ", ")
		if beside == "" {
			beside = "-"
		}
		table := "its own"
		if wl.Group != "" {
			table = "group " + wl.Group
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", wl.Label, metric, beside, table)
	}
	tw.Flush()
}
