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
	var output, title, metric, change, baseline string
	var columns []string
	cmd := &cobra.Command{
		Use:   "report [LABEL=]RESULT.json|DIR ... -o report.html",
		Short: "Write one self-contained HTML report with charts from result files",
		Long: `report writes one HTML file that opens offline (the chart library is inlined):
the workload's headline figure (NOPM for tpcc, transfers/min for payments,
tps otherwise; --metric chooses another) and p50/p95/p99/p99.9 latency against
threads per target, the compare table, retries against threads where the
workload retried, throughput and p95 over time for every run (warm-up shaded), the server's
metrics over time where they were sampled (MongoDB's serverStatus too: operations by kind,
transactions, WiredTiger cache, tickets, network), per-operation
latency, errors, retries and rollbacks, workload metrics, and the environment
(targets, server versions, settings that differ, client host, dbarena version).
` + inputsHelp,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output == "" {
				return &UsageError{errors.New("--output (-o) is required: the HTML file to write")}
			}
			if err := checkOutputFile("--output", output); err != nil {
				return err
			}
			if err := compare.CheckChange(change); err != nil {
				return &UsageError{err}
			}
			if change == compare.ChangeVsPrevious && baseline != "" {
				return &UsageError{fmt.Errorf("--baseline %q: --change vs-previous compares each column with the one before it, not with a baseline", baseline)}
			}
			inputs, err := loadInputs(cmd.Context(), "report", args, st.Stderr, "--output", output)
			if err != nil {
				return err
			}
			if baseline != "" && !slices.ContainsFunc(inputs, func(in compare.Input) bool { return inputLabel(in) == baseline }) {
				return &UsageError{fmt.Errorf("--baseline %q: no result file has that label", baseline)}
			}
			var b bytes.Buffer
			if err := htmlreport.Write(&b, inputs, htmlreport.Options{Title: title, Generated: st.Now(), Tool: st.Version, Metric: metric, Columns: columns,
				Change: change, Baseline: baseline}); err != nil {
				if errors.Is(err, compare.ErrNoMetric) {
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
	fs.StringVar(&metric, "metric", "", "the figure of the headline chart and table, as compare's --metric (default: the workload's headline: NOPM for tpcc, transfers/min for payments, else tps)")
	fs.StringSliceVar(&columns, "columns", nil, "figures shown beside each label's value in the headline table, as compare's --columns (e.g. server_cpu_pct,host_iowait_pct,disk_iops)")
	fs.StringVar(&change, "change", compare.ChangeVsBaseline, "how the headline table's changes are computed, as compare's --change: vs-baseline, vs-better or vs-previous")
	fs.StringVar(&baseline, "baseline", "", "label of the column the headline table's changes are against (default: the first)")
	fs.StringVar(&title, "title", "", "the report's title (default: \"dbarena report: \" and the workloads)")
	return cmd
}

// inputLabel is the column an input stands in, as compare names it: its
// label, else its target's label, else the server's product.
func inputLabel(in compare.Input) string {
	switch {
	case in.Label != "":
		return in.Label
	case in.File.Target.Label != "":
		return in.File.Target.Label
	}
	return in.File.Target.Product()
}
