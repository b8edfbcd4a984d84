package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/shard"
	"github.com/dbarena/dbarena/workload"
)

func newPrepareCmd(st *State, m workload.Meta) *cobra.Command {
	w := m.New()
	var tf targetFlags
	var loadThreads int
	var quiet bool
	var sf shardFlags
	cmd := &cobra.Command{
		Use:   m.Name,
		Short: m.Description,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			errs := validateWorkload(w)
			if loadThreads < 1 {
				errs = append(errs, fmt.Errorf("--load-threads %d: must be at least 1", loadThreads))
			}
			sp, err := sf.spec()
			if err != nil {
				errs = append(errs, err)
			}
			if err := usage(errs); err != nil {
				return err
			}
			if sp != nil {
				tf.shards = sp.Count
			}
			r, err := tf.open(cmd.Context(), st, w)
			if err != nil {
				return err
			}
			defer r.Engine.Close()
			return prepare(cmd.Context(), quietly(st, quiet), r.Target, r.Engine, w, loadThreads, sp)
		},
	}
	tf.register(cmd.Flags())
	sf.register(cmd.Flags())
	cmd.Flags().IntVar(&loadThreads, "load-threads", 4, "parallel loaders, each with its own connection")
	addQuiet(cmd.Flags(), &quiet)
	cmd.Flags().AddFlagSet(w.Define().Options)
	return cmd
}

// prepare loads w into r and prints progress and a summary.
func prepare(ctx context.Context, st *State, target engine.Target, eng engine.Engine, w workload.Workload, loadThreads int, sp *shard.Spec) error {
	if !st.Quiet {
		part := ""
		if sp != nil {
			part = fmt.Sprintf(" as shard %d of %d (run %s)", sp.Index, sp.Count, sp.Run)
		}
		fmt.Fprintf(st.Stdout, "preparing %s on %s with %d loaders%s\n", w.Define().Meta.Name, target, loadThreads, part)
	}
	printNotes(st.Stdout, w)
	pb := newLoadProgress(st)
	// Loading allocates short-lived rows at a high rate over a small live
	// heap; a higher GC target trades a few MB for much less collection.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	stats, err := load.Prepare(ctx, eng, w, load.PrepareConfig{
		LoadThreads: loadThreads,
		Progress:    pb.update,
		Now:         st.Now,
		Shard:       sp,
	})
	pb.finish(err == nil)
	if err != nil {
		return err
	}
	writePrepared(st.Stdout, stats, loadThreads)
	return nil
}

// writePrepared prints a prepare's summary: the totals, where the
// loaders' time went and each table's size on disk.
func writePrepared(w io.Writer, stats load.PrepareStats, loaders int) {
	rate := 0.0
	if stats.Load > 0 {
		rate = float64(stats.Rows) / stats.Load.Seconds()
	}
	fmt.Fprintf(w, "prepared %d tables, %d rows in %s (rows in after %s, %.0f rows/s; indexes finished %s later)\n",
		stats.Tables, stats.Rows, stats.Duration.Round(time.Millisecond), stats.Load.Round(time.Millisecond), rate, stats.Indexes.Round(time.Millisecond))
	lt := stats.Times
	if lt.Loaders() > 0 {
		g, wr, f := lt.Shares()
		s := "s"
		if loaders == 1 {
			s = ""
		}
		fmt.Fprintf(w, "loader time %s (%d loader%s): generating rows %.0f%%, writing them %.0f%%, indexes and keys %.0f%%",
			lt.Loaders().Round(time.Millisecond), loaders, s, 100*g, 100*wr, 100*f)
		if fk := lt.ForeignKeys.Round(time.Millisecond); fk > 0 {
			fmt.Fprintf(w, "; then foreign keys %s", fk)
		}
		fmt.Fprintln(w)
	}
	if stats.SizeErr != nil {
		fmt.Fprintf(w, "sizes on disk: not available (%v)\n", stats.SizeErr)
		return
	}
	writeSizes(w, stats.Sizes)
	if stats.SizeNote != "" {
		fmt.Fprintf(w, "note: %s\n", stats.SizeNote)
	}
	if stats.SizeTime >= time.Second {
		fmt.Fprintf(w, "sizes read in %s\n", stats.SizeTime.Round(time.Millisecond))
	}
}

// writeSizes prints tables' sizes on disk, one line per table in the
// order given and a total line, the sizes in human units.
func writeSizes(w io.Writer, sizes []load.TableStat) {
	if len(sizes) == 0 {
		return
	}
	rows := [][]string{{"table", "rows", "data", "indexes", "total"}}
	var sum load.TableStat
	for _, s := range sizes {
		rows = append(rows, []string{s.Table, strconv.FormatInt(s.Rows, 10), humanBytes(s.Data), humanBytes(s.Indexes), humanBytes(s.Total)})
		sum.Rows += s.Rows
		sum.Data += s.Data
		sum.Indexes += s.Indexes
		sum.Total += s.Total
	}
	rows = append(rows, []string{"total", strconv.FormatInt(sum.Rows, 10), humanBytes(sum.Data), humanBytes(sum.Indexes), humanBytes(sum.Total)})
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	for _, r := range rows {
		// The table's name to the left, the figures to the right.
		line := fmt.Sprintf("%-*s", width[0], r[0])
		for i, c := range r[1:] {
			line += fmt.Sprintf("  %*s", width[i+1], c)
		}
		fmt.Fprintln(w, line)
	}
}

// humanBytes is n bytes in the largest unit (kB, MB, GB, TB: powers of
// 1024, as PostgreSQL's pg_size_pretty) that leaves at least one, with
// one decimal: 12.3 MB; below 1 kB, bytes: 512 B.
func humanBytes(n int64) string {
	units := []string{"kB", "MB", "GB", "TB"}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v := float64(n) / 1024
	u := 0
	for v >= 1023.95 && u < len(units)-1 { // what %.1f would show as 1024.0
		v /= 1024
		u++
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}

func newCheckCmd(st *State, m workload.Meta) *cobra.Command {
	w := m.New()
	var tf targetFlags
	var quiet, verbose bool
	var sf shardFlags
	cmd := &cobra.Command{
		Use:   m.Name,
		Short: m.Description,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			errs := validateWorkload(w)
			sp, err := sf.spec()
			if err != nil {
				errs = append(errs, err)
			}
			if err := usage(errs); err != nil {
				return err
			}
			if sp != nil {
				tf.shards = sp.Count
			}
			r, err := tf.open(cmd.Context(), st, w)
			if err != nil {
				return err
			}
			defer r.Engine.Close()
			pc := startCheck(quietly(st, quiet), fmt.Sprintf("%s on %s", w.Define().Meta.Name, r.Target))
			var checked []string // the rules the check reported, in order
			check := func() ([]workload.Problem, error) {
				return load.Check(workload.WithCheckProgress(cmd.Context(), func(done, total int, name string) {
					checked = append(checked, name)
					pc.report(done, total, name)
				}), r.Engine, w)
			}
			var problems []workload.Problem
			if sp != nil {
				problems, err = checkSharded(cmd.Context(), sp, r.Engine, w, check)
			} else {
				problems, err = check()
			}
			pc.finish(err == nil)
			if err != nil {
				if cmd.Context().Err() != nil {
					err = fmt.Errorf("check %s on %s: %w (check only reads: nothing to roll back)", w.Define().Meta.Name, r.Target, err)
				}
				return err
			}
			doc := w.Define().CheckDoc
			if verbose {
				if doc != "" {
					fmt.Fprintf(st.Stdout, "what is checked: %s\n", doc)
				}
				fmt.Fprintf(st.Stdout, "%d rules checked:\n", len(checked))
				for _, name := range checked {
					fmt.Fprintf(st.Stdout, "  %s\n", name)
				}
			}
			if len(problems) == 0 {
				fmt.Fprintf(st.Stdout, "check %s on %s: ok\n", w.Define().Meta.Name, r.Target)
				return nil
			}
			for _, p := range problems {
				fmt.Fprintf(st.Stdout, "FAIL %s: %s\n", p.Check, p.Detail)
			}
			if doc != "" && !verbose {
				fmt.Fprintf(st.Stdout, "what is checked: %s\n", doc)
			}
			return fmt.Errorf("%w: %d problem(s) in %s on %s", ErrCheckFailed, len(problems), w.Define().Meta.Name, r.Target)
		},
	}
	tf.register(cmd.Flags())
	sf.register(cmd.Flags())
	addQuiet(cmd.Flags(), &quiet)
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "say what is checked and why, and list every rule checked")
	cmd.Flags().AddFlagSet(w.Define().Options)
	return cmd
}

func newCleanupCmd(st *State, m workload.Meta) *cobra.Command {
	w := m.New()
	var tf targetFlags
	var runID string
	cmd := &cobra.Command{
		Use:   m.Name,
		Short: m.Description,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := usage(validateWorkload(w)); err != nil {
				return err
			}
			r, err := tf.open(cmd.Context(), st, w)
			if err != nil {
				return err
			}
			defer r.Engine.Close()
			cleaned, err := load.Cleanup(cmd.Context(), r.Engine, w)
			if len(cleaned.Dropped) > 0 {
				fmt.Fprintf(st.Stdout, "dropped %s\n", strings.Join(cleaned.Dropped, ", "))
			} else if err == nil {
				fmt.Fprintf(st.Stdout, "nothing to drop for %s on %s\n", w.Define().Meta.Name, r.Target)
			}
			if err != nil && cmd.Context().Err() != nil {
				done := "nothing"
				if len(cleaned.Dropped) > 0 {
					done = strings.Join(cleaned.Dropped, ", ")
				}
				err = fmt.Errorf("cleanup %s on %s: %w (dropped %s; what is left stays recorded as dbarena's: run cleanup again)", w.Define().Meta.Name, r.Target, err, done)
			}
			if err != nil {
				return err
			}
			return cleanupShards(cmd.Context(), st, r.Engine, runID)
		},
	}
	tf.register(cmd.Flags())
	cmd.Flags().StringVar(&runID, "run-id", "", "also remove the results this sharded run's shards stored in the target (merge them first: dbarena merge --from)")
	cmd.Flags().AddFlagSet(w.Define().Options)
	return cmd
}

// cleanupShards removes the barrier records of sharded runs, and the
// stored results of run when it is given; it says which runs' results
// stay.
func cleanupShards(ctx context.Context, st *State, eng engine.Engine, run string) error {
	c, err := eng.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	cat := c.Catalog()
	if run != "" {
		n, err := shard.Remove(ctx, cat, run)
		if err != nil {
			return err
		}
		fmt.Fprintf(st.Stdout, "removed %d records of sharded run %s\n", n, run)
	}
	stored, err := shard.RemoveBarriers(ctx, cat)
	if err != nil {
		return err
	}
	if len(stored) > 0 {
		fmt.Fprintf(st.Stdout, "kept the stored results of sharded runs %s: merge them (dbarena merge --from … --run-id ID) and remove them with cleanup --run-id ID\n", strings.Join(stored, ", "))
	}
	return nil
}

// printNotes prints the workload's remarks on its options
// (Spec.Notes), one "note:" line each.
func printNotes(out io.Writer, w workload.Workload) {
	for _, note := range w.Define().Notes {
		fmt.Fprintf(out, "note: %s\n", note)
	}
}
