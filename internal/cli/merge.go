package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/threshold"
)

func newMergeCmd(st *State) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge RESULT.json ... -o MERGED.json",
		Short: "Merge the result files of shards of one run into one result file",
		Long: `merge combines the result files of shards of one run: dbarena processes that
ran the same workload with the same options against the same target, started
together, with the same thread counts, for instance on several client hosts.
The merged file is what one process running all their workers would have
written: counts are added, latency histograms merged and every percentile
recomputed from them (exactly, per run, per operation and per interval),
intervals aligned by their time, threads added, rates recomputed. Server
metrics are the shards' mean; the workload's own metrics are left out.

Files that are not shards of one run are refused, naming the file and the
field that differs. Files of result schema version 1 cannot be merged: their
intervals have no histograms.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return &UsageError{errors.New("--out (-o) is required: the merged result file to write")}
			}
			if err := checkOutputFile("--out", out); err != nil {
				return err
			}
			if err := checkInputFiles("--out", out, args...); err != nil {
				return err
			}
			files := make([]*result.File, len(args))
			for i, path := range args {
				if err := cmd.Context().Err(); err != nil {
					return err
				}
				f, err := result.Read(path)
				if err != nil {
					return &UsageError{fmt.Errorf("%s: %w", path, err)}
				}
				files[i] = f
			}
			m, err := result.Merge(files...)
			if err != nil {
				var me *result.MergeError
				if errors.As(err, &me) {
					me.Name = args[me.File]
				}
				var de *result.DuplicateError
				if errors.As(err, &de) {
					de.Names = [2]string{args[de.Files[0]], args[de.Files[1]]}
				}
				return &UsageError{err}
			}
			// Thresholds are judged again on the merged figures.
			for i := range m.Runs {
				threshold.Judge(&m.Runs[i])
			}
			if err := result.WriteContext(cmd.Context(), out, m); err != nil {
				return err
			}
			fmt.Fprintf(st.Stdout, "merge: wrote %s (%d shards, %s)\n", out, len(m.Shards), m.Status)
			if names := metricNames(files); len(names) > 0 {
				fmt.Fprintf(st.Stderr, "merge: the workload's own metrics (%s) are left out of the merged file: only the workload computes them\n", strings.Join(names, ", "))
			}
			for i := range m.Runs {
				report.Thresholds(st.Stdout, &m.Runs[i])
			}
			return threshold.Check(m)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the merged result file to write (complete or not at all)")
	return cmd
}

// metricNames lists the workload metrics the files' runs have, in order of
// first appearance.
func metricNames(files []*result.File) []string {
	var names []string
	for _, f := range files {
		for _, r := range f.Runs {
			for _, m := range r.Metrics {
				if !slices.Contains(names, m.Name) {
					names = append(names, m.Name)
				}
			}
		}
	}
	return names
}
