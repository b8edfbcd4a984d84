package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/threshold"
)

func newMergeCmd(st *State) *cobra.Command {
	var out, runID string
	var allowPartial bool
	var tf targetFlags
	cmd := &cobra.Command{
		Use:   "merge {RESULT.json ... | --from TARGET --run-id ID} -o MERGED.json",
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
intervals have no histograms.

With --from, the files are those the shards of a sharded run (--shard,
--run-id) stored in the target when they ended: no disk in common is needed.
A shard that stored nothing (killed, never started) or that failed makes the
merge say how many of the shards it has and exit non-zero; --allow-partial
writes the merged file of the others all the same. A sharded plan's shards
store one result per run of a cell: -o is then a directory, which gets one
merged file per run.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return &UsageError{errors.New("--out (-o) is required: the merged result file to write")}
			}
			from := cmd.Flags().Changed("from")
			switch {
			case from && len(args) > 0:
				return &UsageError{fmt.Errorf("%s: with --from, the results stored in the target are merged, not files", args[0])}
			case from && runID == "":
				return &UsageError{errors.New("--from needs --run-id: the sharded run whose results to merge")}
			case !from && runID != "":
				return &UsageError{fmt.Errorf("--run-id %s: only with --from", runID)}
			case !from && allowPartial:
				return &UsageError{errors.New("--allow-partial: only with --from")}
			case !from && len(args) == 0:
				return &UsageError{errors.New("give the result files to merge, or --from TARGET --run-id ID")}
			}
			if from {
				return mergeStored(cmd.Context(), st, &tf, runID, out, allowPartial)
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
			return writeMerged(cmd.Context(), st, files, args, out)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the merged result file to write (complete or not at all); with --from and a sharded plan, a directory")
	// The target flags, --target named --from.
	tfs := pflag.NewFlagSet("from", pflag.ContinueOnError)
	tf.register(tfs)
	tfs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "target" {
			f.Name, f.Usage = "from", "the target the shards of a sharded run stored their results in (a URL as --target takes)"
		}
		cmd.Flags().AddFlag(f)
	})
	tf.fs = nil
	cmd.Flags().StringVar(&runID, "run-id", "", "with --from: the sharded run whose stored results to merge")
	cmd.Flags().BoolVar(&allowPartial, "allow-partial", false, "with --from: write the merged file of the shards there are when some are missing or failed (the exit status stays non-zero)")
	return cmd
}

// writeMerged merges files (named by names in messages) into out.
func writeMerged(ctx context.Context, st *State, files []*result.File, names []string, out string) error {
	args := names
	{
		{
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
			if err := result.WriteContext(ctx, out, m); err != nil {
				return err
			}
			fmt.Fprintf(st.Stdout, "merge: wrote %s (%d shards, %s)\n", out, len(m.Shards), m.Status)
			if names := metricNames(files); len(names) > 0 {
				fmt.Fprintf(st.Stderr, "merge: the workload's own metrics (%s) are left out of the merged file: only the workload computes them\n", strings.Join(names, ", "))
			}
			for i := range m.Runs {
				if b := m.Runs[i].Barrier; b != nil {
					fmt.Fprintf(st.Stdout, "merge: run %d (%d threads): %d shards started within %.1f ms of each other\n", i+1, m.Runs[i].Threads, len(b.Starts), b.SkewMS)
				}
				report.Thresholds(st.Stdout, &m.Runs[i])
			}
			return threshold.Check(m)
		}
	}
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
