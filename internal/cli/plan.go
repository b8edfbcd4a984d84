package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/sysmon"
	"github.com/dbarena/dbarena/threshold"
	"github.com/dbarena/dbarena/workload"
)

func newPlanCmd(st *State) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Run an experiment: targets × workloads × threads × knobs × repetitions from one YAML file",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return &UsageError{errors.New("plan needs a subcommand: run or show")}
		},
	}
	var dir string
	var noRetry bool
	var connectTimeout = seconds(10 * time.Second)
	var loadThreads int
	var metricsAddr string
	var quiet bool
	run := &cobra.Command{
		Use:   "run PLAN.yaml",
		Short: "Run a plan's cells in interleaved, seeded rounds; resumes a half-finished results directory",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := loadPlan(st, args[0])
			if err != nil {
				return err
			}
			if loadThreads < 1 {
				return &UsageError{fmt.Errorf("--load-threads %d: must be at least 1", loadThreads)}
			}
			if dir != "" {
				err = checkOutputDir("--out", dir)
			} else {
				err = checkOutputDir("--out (default)", plan.DefaultDir(p))
			}
			if err != nil {
				return err
			}
			live, err := serveMetrics(st, metricsAddr)
			if err != nil {
				return err
			}
			defer live.close()
			st := quietly(st, quiet)
			pp := newPlanProgress(st, p.Name)
			ex := &planExecutor{st: st, out: pp.log(), progress: pp, connectTimeout: time.Duration(connectTimeout), loadThreads: loadThreads,
				targets: map[string]*planTarget{}, keys: map[plan.PrepareKey]string{}, live: live}
			defer ex.closeAll()
			if !st.Quiet {
				fmt.Fprintf(st.Stdout, "plan %s: %d cells × %d repetitions, about %s of measurement%s\n",
					p.Name, len(p.Cells), p.Repetitions, p.Estimate().Round(time.Second), triesEstimate(p))
			}
			state, err := plan.Run(cmd.Context(), p, ex, plan.RunOptions{Dir: dir, NoRetryFailed: noRetry, Now: st.Now, Log: pp.log(),
				Tool: "dbarena " + st.Version, Progress: pp.update})
			pp.finish()
			resDir := dir
			if resDir == "" {
				resDir = plan.DefaultDir(p)
			}
			if st.Quiet && state != nil && (err == nil || errors.Is(err, plan.ErrRunsFailed)) {
				// The plan's log, which ends with this, went nowhere.
				done, failed, _ := state.Counts()
				fmt.Fprintf(st.Stdout, "plan %s: %d runs done, %d failed; results in %s\n", p.Name, done, failed, resDir)
			}
			if err == nil {
				err = planThresholds(state, resDir)
			}
			return err
		},
	}
	run.Flags().StringVarP(&dir, "out", "o", "", "results directory (default: <plan name>-results next to the plan file)")
	run.Flags().BoolVar(&noRetry, "no-retry-failed", false, "leave runs that failed before as they are instead of running them again")
	run.Flags().Var(&connectTimeout, "connect-timeout", "give up connecting after this long")
	run.Flags().IntVar(&loadThreads, "load-threads", 4, "parallel loaders when a target is prepared")
	addMetricsAddr(run.Flags(), &metricsAddr)
	addQuiet(run.Flags(), &quiet)
	show := &cobra.Command{
		Use:   "show PLAN.yaml",
		Short: "Print a plan's cells, their order and which runs are done",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := loadPlan(st, args[0])
			if err != nil {
				return err
			}
			return plan.Show(st.Stdout, p, plan.RunOptions{Dir: dir, Now: st.Now})
		},
	}
	show.Flags().StringVarP(&dir, "out", "o", "", "results directory (default: <plan name>-results next to the plan file)")
	for _, c := range []*cobra.Command{run, show} {
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{err} })
	}
	cmd.AddCommand(run, show)
	return cmd
}

// loadPlan reads and validates a plan: managed: targets through package
// server, other URLs by their engine's scheme.
func loadPlan(st *State, path string) (*plan.Plan, error) {
	return plan.Load(path, plan.Options{ValidateTarget: func(raw string) error {
		t, err := engine.ParseTarget(raw, "", st.Getenv)
		if err != nil {
			return err
		}
		if t.URL.Scheme == server.Scheme {
			spec, err := server.ParseManaged(raw)
			if err != nil {
				return err
			}
			if spec.Kind == "" {
				return nil // a named server: looked up when the plan runs
			}
			home, err := st.DataDir()
			if err != nil {
				return err
			}
			spec.Home, spec.Getenv = home, st.Getenv
			if errs := spec.Validate(); len(errs) > 0 {
				return errors.Join(errs...)
			}
			// A typo in a knob is found now, not when its cell's turn comes.
			return server.CheckKnobs(context.Background(), spec)
		}
		for _, s := range engine.Schemes() {
			if s == t.URL.Scheme {
				return nil
			}
		}
		return fmt.Errorf("%w %q (known: %v)", engine.ErrUnknownScheme, t.URL.Scheme, engine.Schemes())
	}})
}

// planExecutor runs a plan's cells through the same pipeline as `dbarena
// run` (package session): one session (engine, managed server, server
// monitor) per target, shared by the target's workloads and kept until its
// last prepare key is released, one result file per run.
type planExecutor struct {
	st *State
	// out is where each run's line goes: the plan's log; progress is
	// told when a run's measurement starts.
	out            io.Writer
	progress       *planProgress
	connectTimeout time.Duration
	loadThreads    int
	targets        map[string]*planTarget // by label
	keys           map[plan.PrepareKey]string
	// live serves the runs' metrics (--metrics-addr), nil when not asked.
	live *liveMetrics
}

// planTarget is one open target of a plan.
type planTarget struct {
	s      *session.Session
	keys   int                        // prepare keys not yet released
	loaded map[string]plan.PrepareKey // workload name → the key whose data is there
}

// open resolves and opens c's target once.
func (ex *planExecutor) open(ctx context.Context, c plan.Cell) (*planTarget, error) {
	if pt, ok := ex.targets[c.Target.Label]; ok {
		return pt, nil
	}
	tf := targetFlags{target: c.Target.URL, passwordFile: c.Target.PasswordFile, connectTimeout: seconds(ex.connectTimeout)}
	r, err := tf.open(ctx, ex.quiet())
	if err != nil {
		return nil, err
	}
	r.Target.Label = c.Target.Label
	// Every target of a plan is prepared when its data is missing.
	s, err := openSession(ctx, ex.quiet(), r, io.Discard, ex.loadThreads, true, false, 0)
	if err != nil {
		_ = r.Engine.Close()
		return nil, err
	}
	pt := &planTarget{s: s, loaded: map[string]plan.PrepareKey{}}
	ex.targets[c.Target.Label] = pt
	return pt, nil
}

// quiet is the CLI state with progress lines kept out of the plan's log.
func (ex *planExecutor) quiet() *State {
	q := *ex.st
	q.Stdout, q.Quiet = io.Discard, true
	return &q
}

// planWorkload builds c's workload with its options set.
func planWorkload(c plan.Cell) (workload.Workload, error) {
	m, ok := workload.Lookup(c.Workload.Name)
	if !ok {
		return nil, &UsageError{fmt.Errorf("unknown workload %q", c.Workload.Name)}
	}
	w := m.New()
	if err := w.Flags().Parse(c.Workload.Args()); err != nil {
		return nil, &UsageError{fmt.Errorf("%s: %w", c.Workload.Label, err)}
	}
	if err := usage(validateWorkload(w)); err != nil {
		return nil, err
	}
	return w, nil
}

// Prepare opens c's target and loads c's workload there, unless a target
// that was not started for the plan holds it already (then the data is
// used as it is, as `dbarena run` does, and refused when it was prepared
// with other data options). Two keys of one target and
// workload whose options differ cannot share the tables: the second is
// refused.
func (ex *planExecutor) Prepare(ctx context.Context, c plan.Cell) error {
	w, err := planWorkload(c)
	if err != nil {
		return err
	}
	pt, err := ex.open(ctx, c)
	if err != nil {
		return err
	}
	if other, ok := pt.loaded[c.Workload.Name]; ok && other != c.Key {
		return fmt.Errorf("target %s holds %s's tables for %s already; a second data set (%s) needs a target of its own",
			c.Target.Label, c.Workload.Name, other, c.Key)
	}
	pt.keys++
	ex.keys[c.Key] = c.Target.Label
	pt.loaded[c.Workload.Name] = c.Key
	return pt.s.EnsurePrepared(ctx, w)
}

// Run measures one repetition of c and returns its result file. A managed
// server that died during the run fails it, with the end of its log.
func (ex *planExecutor) Run(ctx context.Context, c plan.Cell, rep int) (*result.File, error) {
	w, err := planWorkload(c)
	if err != nil {
		return nil, err
	}
	pt, err := ex.open(ctx, c)
	if err != nil {
		return nil, err
	}
	cfg := c.Config()
	cfg.Now = ex.st.Now
	if ex.progress != nil {
		ex.progress.measuring()
	}
	file, err := pt.s.Measure(ctx, w, []runner.Config{cfg}, session.Hooks{
		Observer: ex.live.observer(nil),
		Before: func(cfg runner.Config) {
			ex.live.begin(c.Target.Label, c.Workload.Label, fmt.Sprintf("threads=%d#%d", c.Threads, rep), cfg)
		},
		After: func(run *result.Run) {
			ex.live.end()
			fmt.Fprintf(ex.out, "    %s\n", planLine(run))
			if failed := threshold.Failed(run); len(failed) > 0 {
				fmt.Fprintf(ex.out, "    thresholds failed: %s\n", strings.Join(failed, ", "))
			}
		},
	})
	if file == nil {
		return nil, err
	}
	return file, nil
}

// planThresholds returns an error wrapping threshold.ErrFailed, naming
// the runs, when a run of the plan that is done (in this invocation or
// an earlier one it resumed) has a threshold that did not hold.
func planThresholds(st *plan.State, dir string) error {
	if st == nil {
		return nil
	}
	var failed []string
	for _, r := range st.Runs {
		if r.Status != plan.RunDone || r.File == "" {
			continue
		}
		f, err := result.Read(filepath.Join(dir, r.File))
		if err != nil {
			return fmt.Errorf("plan: reading %s for its thresholds: %w", r.File, err)
		}
		if err := threshold.Check(f); err != nil {
			failed = append(failed, fmt.Sprintf("%s #%d (%s)", r.Cell, r.Rep, strings.TrimPrefix(err.Error(), threshold.ErrFailed.Error()+": ")))
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", threshold.ErrFailed, strings.Join(failed, "; "))
}

// planLine is a run's one-line summary in the plan's log.
func planLine(r *result.Run) string {
	if r.Tries != nil {
		return r.Status + ": " + triesSummary(r.Tries)
	}
	s := fmt.Sprintf("%s: tps %.2f qps %.2f p95 %.2f ms, errors %d, retries %d", r.Status, r.TPS, r.QPS, r.LatencyMS.P95, r.Errors, r.Retries)
	for _, m := range r.Metrics {
		s += ", " + m.Name + " " + report.FormatMetric(m)
	}
	if c := sysmon.Compact(r.Server); c != "" {
		s += " | " + c
	}
	return s
}

// Release forgets key; the target's engine (and the managed server
// started for it) closes with its last key.
func (ex *planExecutor) Release(ctx context.Context, key plan.PrepareKey) error {
	label, ok := ex.keys[key]
	if !ok {
		return nil
	}
	delete(ex.keys, key)
	pt := ex.targets[label]
	if pt == nil {
		return nil
	}
	if pt.keys--; pt.keys > 0 {
		return nil
	}
	delete(ex.targets, label)
	return pt.close()
}

func (pt *planTarget) close() error { return pt.s.Close() }

// closeAll closes every target still open (after an error or Ctrl-C).
func (ex *planExecutor) closeAll() {
	for label, pt := range ex.targets {
		_ = pt.close()
		delete(ex.targets, label)
	}
}
