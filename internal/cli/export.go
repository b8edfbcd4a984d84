package cli

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/export"
	"github.com/dbarena/dbarena/outfile"
)

func newExportCmd(st *State) *cobra.Command {
	var format, table, output string
	cmd := &cobra.Command{
		Use:   "export [LABEL=]RESULT.json|DIR ... [--table runs|intervals|ops|tries] [--format csv|md]",
		Short: "Write the runs, intervals or per-operation figures of result files as CSV or Markdown",
		Long: `export flattens result files for spreadsheets and documents:
  --table runs       one line per run: every number of its summary (throughput, counts,
                     errors and retries, latency percentiles, client and server CPU,
                     the server metrics sampled) and the workload metrics
  --table intervals  one line per reporting interval of every run (throughput, latency and
                     the server metrics over time)
  --table ops        one line per operation (transaction type) of every run
  --table tries      one line per try of every query of the runs in the analytic
                     timing model (--tries): its label, seconds (empty when it failed),
                     error, rows and the hash of its answer
Each line starts with the file, label, engine, workload and threads.
` + inputsHelp,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "csv" && format != "md" {
				return &UsageError{fmt.Errorf("--format %q: want csv or md", format)}
			}
			if output != "" {
				if err := checkOutputFile("--output", output); err != nil {
					return err
				}
			}
			loaded, err := loadInputs(cmd.Context(), "export", args, st.Stderr, "--output", output)
			if err != nil {
				return err
			}
			var inputs []export.Input
			for _, in := range loaded {
				inputs = append(inputs, export.Input{Label: in.Label, Path: in.Path, File: in.File})
			}
			t, err := export.Build(table, inputs)
			if err != nil {
				return &UsageError{err}
			}
			var b bytes.Buffer
			if format == "md" {
				err = export.WriteMarkdown(&b, t)
			} else {
				err = export.WriteCSV(&b, t)
			}
			if err != nil {
				return err
			}
			if output == "" {
				_, err = st.Stdout.Write(b.Bytes())
				return err
			}
			// Tables are for sharing: readable by all, like a file the
			// shell's ">" creates.
			return outfile.WriteFile(cmd.Context(), "--output", output, 0o644, b.Bytes())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&table, "table", "runs", "what one line is: runs, intervals, ops or tries")
	fs.StringVar(&format, "format", "csv", "csv or md (Markdown)")
	fs.StringVarP(&output, "output", "o", "", "write to this file (complete or not at all) instead of standard output")
	return cmd
}
