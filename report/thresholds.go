package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/dbarena/dbarena/result"
)

// Thresholds prints a run's thresholds as a table: the expression, what
// was observed (in the limit's unit) and the verdict. It prints nothing
// for a run without thresholds.
func Thresholds(w io.Writer, r *result.Run) {
	if len(r.Thresholds) == 0 {
		return
	}
	fmt.Fprintf(w, "\nThresholds:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    threshold\tobserved\tresult")
	for _, t := range r.Thresholds {
		obs := "-"
		if t.Observed != nil {
			obs = strconv.FormatFloat(math.Round(*t.Observed*1000)/1000, 'f', -1, 64)
			switch t.Unit {
			case "", "count":
			case "%", "/s", "/min":
				obs += t.Unit
			default:
				obs += " " + t.Unit
			}
		}
		verdict := "not evaluated"
		if t.Pass != nil {
			verdict = "pass"
			if !*t.Pass {
				verdict = "FAIL"
			}
		}
		if t.Note != "" {
			verdict += " (" + t.Note + ")"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\n", t.Expr, obs, verdict)
	}
	tw.Flush()
}
