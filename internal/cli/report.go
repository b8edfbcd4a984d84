package cli

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/report/htmlreport"
)

func newReportCmd(st *State) *cobra.Command {
	var output, title string
	cmd := &cobra.Command{
		Use:   "report [LABEL=]RESULT.json ... -o report.html",
		Short: "Write one self-contained HTML report with charts from result files",
		Long: `report writes one HTML file that opens offline (the chart library is inlined):
throughput and p50/p95/p99 latency against threads per target, the compare
table, throughput and p95 over time for every run (warm-up shaded), per-operation
latency, errors, retries and rollbacks, workload metrics, and the environment
(targets, server versions, settings that differ, client host, dbarena version).
Labels work as in compare: the target's label, or LABEL= before the file name.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output == "" {
				return &UsageError{errors.New("--output (-o) is required: the HTML file to write")}
			}
			if err := checkOutputFile("--output", output); err != nil {
				return err
			}
			inputs, err := readInputs(args)
			if err != nil {
				return err
			}
			var b bytes.Buffer
			if err := htmlreport.Write(&b, inputs, htmlreport.Options{Title: title, Generated: st.Now(), Tool: st.Version}); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			if err := writeFileAtomic(output, b.Bytes()); err != nil {
				return err
			}
			fmt.Fprintf(st.Stdout, "report: wrote %s (%d KiB)\n", output, (b.Len()+1023)/1024)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&output, "output", "o", "", "the HTML file to write (complete or not at all)")
	fs.StringVar(&title, "title", "", "the report's title (default: \"dbarena report: \" and the workloads)")
	return cmd
}
