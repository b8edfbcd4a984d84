package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/compare"
)

func newCompareCmd(st *State) *cobra.Command {
	var opt compare.Options
	var format string
	cmd := &cobra.Command{
		Use:   "compare [LABEL=]RESULT.json|DIR ...",
		Short: "Compare result files side by side: one row per thread count, one column per target",
		Long: `compare lines up the runs of result files by workload and thread count:
one column per label (the target's label, or LABEL= before the file name),
each column's change against the baseline in percent (--change chooses the
convention), and an average row: each column's mean, and the change of the
means (not the mean of the rows' changes).
Several files under one label (or several runs of one thread count) are
repetitions: the cell shows their median and 95% confidence interval, and a
change the Mann-Whitney U test cannot tell from noise shows as "~".

--columns puts other figures beside each column's value (the server's CPU,
iowait and IOPS beside the throughput, as the TPC-E study prints them).

Runs whose workload options differ are refused unless the comparison is about
them (--vary isolation) or --force; whatever else
differs between the columns (server version and settings, client host,
dbarena version) is listed under the table.
` + inputsHelp,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "md" && format != "csv" {
				return &UsageError{fmt.Errorf("--format %q: want text, md or csv", format)}
			}
			if err := compare.CheckChange(opt.Change); err != nil {
				return &UsageError{err}
			}
			if err := compare.CheckAverage(opt.Average); err != nil {
				return &UsageError{err}
			}
			inputs, err := loadInputs(cmd.Context(), "compare", args, st.Stderr, "", "")
			if err != nil {
				return err
			}
			if err := triesOnly(cmd, inputs); err != nil {
				return err
			}
			if inputs, err = compareTries(st.Stdout, inputs, opt.Baseline, format); err != nil || len(inputs) == 0 {
				return err
			}
			tables, err := compare.Build(inputs, opt)
			if err != nil {
				return &UsageError{err}
			}
			switch format {
			case "md":
				return compare.WriteMarkdown(st.Stdout, tables)
			case "csv":
				return compare.WriteCSV(st.Stdout, tables)
			}
			return compare.WriteText(st.Stdout, tables)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opt.Metric, "metric", "tps", "figure to compare: any number of a run's summary (tps, qps, p50, p95, p99, p999, mean, min, max in ms, errors, retries, retry_pct, client_cpu_per_txn_us or cpu, server_cpu_pct, host_iowait_pct, disk_iops and every server metric: the columns of export --table runs), or a workload metric such as NOPM or tpmC")
	fs.StringVar(&opt.Op, "op", "", "take tps and latencies from this operation (transaction type) only, e.g. new_order")
	fs.StringSliceVar(&opt.Columns, "columns", nil, "figures shown beside each column's value, the median of its runs (e.g. --columns server_cpu_pct,host_iowait_pct,disk_iops): any name --metric takes; the changes stay those of --metric")
	fs.StringVar(&opt.Baseline, "baseline", "", "label of the column the others are compared with (default: the first)")
	fs.BoolVar(&opt.Relative, "relative", false, "divide every value by the baseline's at its lowest thread count (which reads 1.00x)")
	fs.StringSliceVar(&opt.Vary, "vary", nil, "workload options the comparison is about (e.g. --vary isolation): they may differ between the columns; repeat or separate with commas")
	fs.StringVar(&opt.Change, "change", compare.ChangeVsBaseline, "how a change is computed, A the column it is against, B the column: vs-baseline ((B−A)/A, A the baseline), vs-better (the baseline's lead: (A−B)/A, or (B−A)/A where lower is better), vs-previous ((B−A)/A, A the column before: one knob after another)")
	fs.StringVar(&opt.Average, "average", compare.AverageChangeOfMeans, "the average row's change: change-of-means (the change between the columns' means over the rows) or mean-of-changes (the mean of the rows' changes, as a study's spreadsheet averages them)")
	fs.BoolVar(&opt.Force, "force", false, "compare runs whose workload options differ (the differences are listed)")
	fs.StringVar(&format, "format", "text", "output: text (aligned), md (Markdown) or csv (one line per thread count and label)")
	return cmd
}
