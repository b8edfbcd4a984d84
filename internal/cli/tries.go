package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
)

// compareTries writes the comparison of the inputs that hold runs of the
// analytic timing model (the study's table of queries) in format, and
// returns the other inputs, for compare's usual tables.
func compareTries(w io.Writer, inputs []compare.Input, baseline, format string) ([]compare.Input, error) {
	tries, rest := compare.SplitTries(inputs)
	if len(tries) == 0 {
		return rest, nil
	}
	tables, err := compare.BuildTries(tries, baseline)
	if err != nil {
		return nil, &UsageError{err}
	}
	switch format {
	case "md":
		err = compare.WriteTriesMarkdown(w, tables)
	case "csv":
		err = compare.WriteTriesCSV(w, tables)
	default:
		err = compare.WriteTriesText(w, tables)
	}
	if err == nil && len(rest) > 0 {
		_, err = io.WriteString(w, "\n")
	}
	return rest, err
}

// triesOnly refuses compare's options that its table of tries does not
// take (it shows each query's cold and hot seconds) when every input is a
// run of the analytic timing model: they would be ignored.
func triesOnly(cmd *cobra.Command, inputs []compare.Input) error {
	tries, rest := compare.SplitTries(inputs)
	if len(tries) == 0 || len(rest) > 0 {
		return nil
	}
	var errs []error
	for _, name := range []string{"metric", "op", "columns", "relative", "vary", "change", "average", "force"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			errs = append(errs, fmt.Errorf("--%s %s: the inputs are runs of --tries, whose table gives each query's cold and hot seconds; --%s does not apply", name, f.Value, name))
		}
	}
	return usage(errs)
}

// triesSummary is a run's tries in one line of a plan's log: each
// query's cold and hot seconds, and the tries that failed.
func triesSummary(t *result.Tries) string {
	var parts []string
	failed := 0
	for _, q := range t.Queries {
		parts = append(parts, fmt.Sprintf("%s %s/%s", q.Name, report.Seconds(q.Cold()), report.Seconds(q.Hot())))
		failed += q.Errors()
	}
	s := "cold/hot " + strings.Join(parts, ", ")
	if failed > 0 {
		s += fmt.Sprintf("; %d tries failed", failed)
	}
	return s
}

// triesEstimate adds the cells of the analytic timing model to a plan's
// estimate, which leaves them out.
func triesEstimate(p *plan.Plan) string {
	switch n := p.TriesCells(); n {
	case 0:
		return ""
	case 1:
		return ", and 1 cell of the analytic timing model, which runs until its tries are done"
	default:
		return fmt.Sprintf(", and %d cells of the analytic timing model, which run until their tries are done", n)
	}
}
