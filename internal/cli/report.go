package cli

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/outfile"
	"github.com/dbarena/dbarena/report/htmlreport"
)

func newReportCmd(st *State) *cobra.Command {
	var output, title string
	var opt htmlreport.Options
	cmd := &cobra.Command{
		Use:   "report [LABEL=]RESULT.json|DIR ... -o report.html",
		Short: "Write one self-contained HTML report with charts from result files",
		Long: `report writes one HTML file that opens offline (the chart library is inlined):
the workload's headline figure (TR/s for tpce, NOPM for tpcc, transfers/min for
payments, tps otherwise; --metric chooses another) and p50/p95/p99/p99.9 latency
against threads per target (on a log axis: one slow percentile leaves the others
their height), the compare table, retries against threads where the workload
retried, the headline figure and p95 over time for every run (warm-up shaded), the
server's metrics over time where they were sampled (MongoDB's serverStatus too:
operations by kind, transactions, WiredTiger cache, tickets, network),
per-operation latency, errors, retries and rollbacks, workload metrics, and the
environment (targets, server versions, settings that differ, client host, dbarena
version). Runs of the analytic timing model (--tries) get the study's table of
queries instead: per query the cold and hot seconds of each target, and whether
their answers agree.

The headline table takes compare's conventions: --relative, --change, --average,
--baseline. Runs whose workload options differ are refused, as compare refuses
them, unless the comparison is about them (--vary mode) or --force; the
differences are listed under the table.
` + inputsHelp,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output == "" {
				return &UsageError{errors.New("--output (-o) is required: the HTML file to write")}
			}
			if err := checkOutputFile("--output", output); err != nil {
				return err
			}
			var bad []error
			for _, err := range []error{compare.CheckChange(opt.Change), compare.CheckAverage(opt.Average)} {
				if err != nil {
					bad = append(bad, err)
				}
			}
			if err := usage(bad); err != nil {
				return err
			}
			if opt.Change == compare.ChangeVsPrevious && opt.Baseline != "" {
				return &UsageError{fmt.Errorf("--baseline %q: --change vs-previous compares each column with the one before it, not with a baseline", opt.Baseline)}
			}
			inputs, err := loadInputs(cmd.Context(), "report", args, st.Stderr, "--output", output)
			if err != nil {
				return err
			}
			if err := triesOnly(cmd, inputs); err != nil {
				return err
			}
			if b := opt.Baseline; b != "" && !slices.ContainsFunc(inputs, func(in compare.Input) bool { return in.Column() == b }) {
				return &UsageError{fmt.Errorf("--baseline %q: no result file has that label", b)}
			}
			opt.Title, opt.Generated, opt.Tool = title, st.Now(), st.Version
			var b bytes.Buffer
			if err := htmlreport.Write(&b, inputs, opt); err != nil {
				if ie := (*htmlreport.InputError)(nil); errors.As(err, &ie) {
					return &UsageError{err}
				}
				return fmt.Errorf("report: %w", err)
			}
			// A report is for sharing: readable by all, like a file the
			// shell's ">" creates.
			if err := outfile.WriteFile(cmd.Context(), "--output", output, 0o644, b.Bytes()); err != nil {
				return err
			}
			fmt.Fprintf(st.Stdout, "report: wrote %s (%d KiB)\n", output, (b.Len()+1023)/1024)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&output, "output", "o", "", "the HTML file to write (complete or not at all)")
	fs.StringVar(&opt.Metric, "metric", "", "the figure of the headline chart and table, as compare's --metric (default: the workload's headline: TR/s for tpce, NOPM for tpcc, transfers/min for payments, else tps)")
	fs.StringSliceVar(&opt.Columns, "columns", nil, "figures shown beside each label's value in the headline table, as compare's --columns (e.g. server_cpu_pct,host_iowait_pct,disk_iops)")
	fs.BoolVar(&opt.Relative, "relative", false, "divide the headline table's and chart's values by the baseline's at its lowest thread count (which reads 1.00x), as compare's --relative; the charts over time stay in the figure's unit")
	fs.StringSliceVar(&opt.Vary, "vary", nil, "workload options the comparison is about (e.g. --vary mode), as compare's --vary: they may differ between the columns; repeat or separate with commas")
	fs.BoolVar(&opt.Force, "force", false, "report runs whose workload options differ (the differences are listed), as compare's --force")
	fs.StringVar(&opt.Change, "change", compare.ChangeVsBaseline, "how the headline table's changes are computed, as compare's --change: vs-baseline, vs-better or vs-previous")
	fs.StringVar(&opt.Average, "average", compare.AverageChangeOfMeans, "the average row's change, as compare's --average: change-of-means or mean-of-changes")
	fs.StringVar(&opt.Baseline, "baseline", "", "label of the column the headline table's changes are against (default: the first)")
	fs.StringVar(&title, "title", "", "the report's title (default: \"dbarena report: \" and the workloads)")
	return cmd
}
