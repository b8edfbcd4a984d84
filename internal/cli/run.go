package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/hostinfo"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

type runFlags struct {
	threads     intList
	duration    seconds
	warmup      seconds
	interval    seconds
	seed        uint64
	out         string
	maxErrors   int64
	tolerate    bool
	loadThreads int
}

func newRunCmd(st *State, m workload.Meta) *cobra.Command {
	w := m.New()
	var tf targetFlags
	rf := runFlags{
		threads:  intList{1},
		duration: seconds(10 * time.Second),
		interval: seconds(time.Second),
	}
	cmd := &cobra.Command{
		Use:   m.Name,
		Short: m.Description,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWorkload(cmd.Context(), st, w, &tf, &rf)
		},
	}
	fs := cmd.Flags()
	tf.register(fs)
	fs.Var(&rf.threads, "threads", "workers (one connection each); a list like 1,2,4,8 runs a sweep, one run per value")
	fs.Var(&rf.duration, "time", "measured duration of each run (60s, 5m or plain seconds)")
	fs.Var(&rf.warmup, "warmup", "warm-up before each run, discarded")
	fs.Var(&rf.interval, "report-interval", "length of one reporting interval")
	fs.Uint64Var(&rf.seed, "seed", 1, "seed of the workers' random choices")
	fs.StringVar(&rf.out, "out", "", "write the result file (JSON) here")
	fs.Int64Var(&rf.maxErrors, "max-errors", 0, "stop a run after more than this many failed transactions (retried serialization failures and deadlocks do not count)")
	fs.BoolVar(&rf.tolerate, "tolerate-errors", false, "never stop a run for failed transactions; count them")
	fs.IntVar(&rf.loadThreads, "load-threads", 4, "parallel loaders when the embedded default target is prepared on first use")
	fs.AddFlagSet(w.Flags())
	return cmd
}

func (rf *runFlags) config(threads int, st *State) runner.Config {
	return runner.Config{
		Threads:        threads,
		Duration:       time.Duration(rf.duration),
		Warmup:         time.Duration(rf.warmup),
		ReportInterval: time.Duration(rf.interval),
		Seed:           rf.seed,
		MaxErrors:      rf.maxErrors,
		TolerateErrors: rf.tolerate,
		Now:            st.Now,
	}
}

// validate reports every problem with the run flags at once.
func (rf *runFlags) validate(st *State) []error {
	var errs []error
	if len(rf.threads) == 0 {
		errs = append(errs, errors.New("--threads: give at least one value"))
	}
	seen := map[string]bool{}
	for _, n := range rf.threads {
		for _, e := range rf.config(n, st).Validate() {
			if !seen[e.Error()] {
				seen[e.Error()] = true
				errs = append(errs, e)
			}
		}
	}
	if rf.loadThreads < 1 {
		errs = append(errs, fmt.Errorf("--load-threads %d: must be at least 1", rf.loadThreads))
	}
	if rf.out != "" {
		if err := result.CheckWritable(rf.out); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func runWorkload(ctx context.Context, st *State, w workload.Workload, tf *targetFlags, rf *runFlags) error {
	errs := append(validateWorkload(w), rf.validate(st)...)
	if err := usage(errs); err != nil {
		return err
	}
	r, err := tf.open(ctx, st)
	if err != nil {
		return err
	}
	defer r.engine.Close()

	if err := ensurePrepared(ctx, st, r, w, rf.loadThreads); err != nil {
		return err
	}
	file, err := describe(ctx, st, r, w, rf.seed)
	if err != nil {
		return err
	}

	var runErr error
	for _, n := range rf.threads {
		fmt.Fprintf(st.Stdout, "\nrunning %s on %s: %d threads, %s (warm-up %s)\n", w.Meta().Name, r.target, n, time.Duration(rf.duration), time.Duration(rf.warmup))
		run, err := runner.Run(ctx, r.engine, w, rf.config(n, st), &report.Lines{W: st.Stdout})
		if run != nil {
			report.Summary(st.Stdout, run)
			file.Runs = append(file.Runs, *run)
		}
		if err != nil {
			runErr = err
			break
		}
	}
	if len(file.Runs) > 1 {
		fmt.Fprintln(st.Stdout, "\nSweep:")
		report.SweepTable(st.Stdout, file.Runs)
	}
	file.FinishedAt = st.Now().UTC()
	switch {
	case runErr == nil:
		file.Status = result.StatusComplete
	case errors.Is(runErr, runner.ErrInterrupted):
		file.Status = result.StatusInterrupted
		file.Error = runErr.Error()
	default:
		file.Status = result.StatusFailed
		file.Error = scrub(runErr.Error(), st)
	}
	if rf.out != "" && len(file.Runs) > 0 {
		if err := result.Write(rf.out, file); err != nil {
			return errors.Join(runErr, err)
		}
		fmt.Fprintf(st.Stdout, "\nwrote %s (%s)\n", rf.out, file.Status)
	}
	return runErr
}

// ensurePrepared fails when w's tables are not ready, except on the
// embedded default target, which is prepared on first use.
func ensurePrepared(ctx context.Context, st *State, r *resolved, w workload.Workload, loadThreads int) error {
	c, err := r.engine.Connect(ctx)
	if err != nil {
		return err
	}
	err = runner.VerifyPrepared(ctx, c, r.engine.Dialect(), w)
	c.Close()
	if err == nil || !r.embedded || !errors.Is(err, runner.ErrNotPrepared) {
		return err
	}
	fmt.Fprintf(st.Stdout, "the %s target is not prepared for %s: preparing it now\n", r.target.Label, w.Meta().Name)
	prepCmd := &cobra.Command{}
	prepCmd.SetContext(ctx)
	return prepare(prepCmd, st, r, w, loadThreads)
}

// describe fills in everything a result file records before the first run.
func describe(ctx context.Context, st *State, r *resolved, w workload.Workload, seed uint64) (*result.File, error) {
	info, err := r.engine.ServerInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading server version and settings: %w", err)
	}
	client := hostinfo.Read()
	client.RTTMS, err = measureRTT(ctx, r.engine)
	if err != nil {
		return nil, err
	}
	m := w.Meta()
	return &result.File{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "dbarena", Version: st.Version, Commit: st.Commit},
		Workload:      result.Workload{Name: m.Name, Version: m.Version, Options: workload.OptionValues(w)},
		Target: result.Target{
			Label:         r.target.Label,
			Engine:        r.engine.Name(),
			URL:           r.target.Redacted(),
			ServerVersion: info.Version,
			Settings:      info.Settings,
		},
		Client:    client,
		Seed:      seed,
		StartedAt: st.Now().UTC(),
	}, nil
}

// measureRTT is the median time of 11 round trips of the engine's Ping
// (SELECT 1, MongoDB's ping command), in ms.
func measureRTT(ctx context.Context, eng engine.Engine) (float64, error) {
	c, err := eng.Connect(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	const n = 11
	var ds []time.Duration
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := c.Ping(ctx); err != nil {
			return 0, fmt.Errorf("measuring round-trip time: %w", err)
		}
		ds = append(ds, time.Since(t0))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return float64(ds[n/2].Microseconds()) / 1000, nil
}
