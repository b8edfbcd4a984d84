package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner/timing"
)

// TryLine formats one try of the analytic timing model as it ends:
//
//	[ query A 1/3 lukewarm ] 1.234s, 120 rows, answer 3f2a…
//	[ query B 2/3 hot ] failed: query B timed out after 1m0s (--query-timeout)
func TryLine(e timing.TryEvent) string {
	head := fmt.Sprintf("[ query %s %d/%d %s ]", e.Query, e.N, e.Of, e.Try.Label)
	if e.Try.S == nil {
		return head + " failed: " + e.Try.Error
	}
	return fmt.Sprintf("%s %s, %d rows, answer %s", head, Seconds(e.Try.S), e.Try.Rows, short(e.Try.Hash))
}

// Seconds writes a try's time ("1.234s"), or "null" for a try that
// failed: never a zero.
func Seconds(s *float64) string {
	if s == nil {
		return "null"
	}
	return fmt.Sprintf("%.3fs", *s)
}

// Spread writes the range of a query's tries after the first ("1.200–1.310s"),
// "—" when none succeeded.
func Spread(q result.QueryTries) string {
	lo, hi, ok := q.Spread()
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.3f–%.3fs", lo, hi)
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// Tries prints the summary of a run in the analytic timing model: per
// query, the first try (cold or lukewarm) and the best of the others
// (hot) with their spread, the answer's rows and hash, and the tries that
// failed.
func Tries(w io.Writer, r *result.Run) {
	t := r.Tries
	if t == nil {
		return
	}
	limit := ""
	if t.QueryTimeoutS > 0 {
		limit = fmt.Sprintf(", query timeout %gs", t.QueryTimeoutS)
	}
	fmt.Fprintf(w, "\nQueries (%d tries each%s, status: %s):\n", t.Count, limit, r.Status)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    query\tfirst try\t\thot (best)\tspread\trows\tanswer\tfailed")
	for _, q := range t.Queries {
		rows, hash, differ, ok := q.Answer()
		ans, nrows := "—", "—"
		if ok {
			ans, nrows = short(hash), fmt.Sprint(rows)
			if differ {
				ans += " (tries differ)"
			}
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", q.Name, Seconds(q.Cold()), q.FirstLabel(), Seconds(q.Hot()), Spread(q), nrows, ans, q.Errors())
	}
	tw.Flush()
	for _, q := range t.Queries {
		for i, tr := range q.Tries {
			if tr.S == nil {
				fmt.Fprintf(w, "    query %s try %d: %s\n", q.Name, i+1, tr.Error)
			}
		}
	}
}
