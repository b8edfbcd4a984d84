package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/lockfile"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/session"
)

func newRecoverCmd(st *State) *cobra.Command {
	var out string
	var keep bool
	cmd := &cobra.Command{
		Use:   "recover RESULT.json [-o OUT.json]",
		Short: "Rebuild the result file of a run whose dbarena process was killed",
		Long: `While "dbarena run --out RESULT.json" runs, it appends every interval to
RESULT.json` + result.JournalSuffix + `, its interval log, and in a sweep it writes RESULT.json
after every run that ends. When the process is killed (SIGKILL, a crash, the
host going down) the log stays behind; recover rebuilds RESULT.json from it:
the runs that ended as they ended, and the run that was going on from the
intervals it logged (counts added, latency histograms merged, server metrics
summarised; client CPU, the database's counters and the workload's own
figures are absent). The file's status is "killed". Lines of the log that
cannot be read, and repeated ones, are left out with a note; a log of a
schema version this build does not know is refused. The log is removed once
the file is written, unless --keep-log. A log whose run is still going on
(it holds RESULT.json` + result.LockSuffix + `) is refused.

The argument is the result file's path (as given to --out) or its log's.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target := strings.TrimSuffix(args[0], result.JournalSuffix)
			if out == "" {
				out = target
			}
			if err := checkOutputFile("--out", out); err != nil {
				return err
			}
			if err := checkInputFiles("--out", out, result.JournalPath(target)); err != nil {
				return err
			}
			// A run still writing the log holds its lock: its log is not
			// to be recovered, nor its file replaced.
			lock, err := result.LockOutput(target)
			switch {
			case errors.Is(err, lockfile.ErrHeld):
				return fmt.Errorf("%w: the run writing it is still going on (recover rebuilds the file of a process that was killed)", err)
			case err == nil:
				defer lock.Release()
			}
			// Otherwise no run can be writing there (the directory is
			// missing, or takes no new file): reading the log tells.
			if out != target {
				outLock, err := result.LockOutput(out)
				if err != nil {
					return fmt.Errorf("--out %w", err)
				}
				defer outLock.Release()
			}
			f, skipped, err := session.Recover(target)
			for _, note := range skipped.Notes() {
				fmt.Fprintf(st.Stderr, "recover: %s: %s\n", result.JournalPath(target), note)
			}
			if err != nil {
				return err
			}
			if err := result.Write(out, f); err != nil {
				return err
			}
			var ended, rebuilt, ivs int
			for _, r := range f.Runs {
				if r.Status == result.StatusKilled {
					rebuilt++
					ivs += len(r.Intervals)
				} else {
					ended++
				}
			}
			fmt.Fprintf(st.Stdout, "recover: wrote %s (%s): %d run(s) that ended, %d rebuilt from %d logged interval(s)\n", out, f.Status, ended, rebuilt, ivs)
			if !keep {
				if err := os.Remove(result.JournalPath(target)); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the result file to write (default: the result file the log belongs to)")
	cmd.Flags().BoolVar(&keep, "keep-log", false, "keep the interval log after the file is written")
	return cmd
}
