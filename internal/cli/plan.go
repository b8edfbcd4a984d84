package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/plan"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/shard"
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
	var vars []string
	var sf shardFlags
	var hostKnobs bool
	var budget seconds
	run := &cobra.Command{
		Use:   "run PLAN.yaml",
		Short: "Run a plan's cells in interleaved, seeded rounds; resumes a half-finished results directory",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := loadPlan(st, args[0], vars)
			if err != nil {
				return err
			}
			if loadThreads < 1 {
				return &UsageError{fmt.Errorf("--load-threads %d: must be at least 1", loadThreads)}
			}
			for _, c := range p.Cells {
				if c.Workload.Run.Tries != nil && c.Workload.Run.ColdMode == timing.ColdDropCaches {
					if err := session.CheckDropCaches(""); err != nil {
						return &UsageError{fmt.Errorf("%s: workload %q: %w", args[0], c.Workload.Label, err)}
					}
					break
				}
			}
			if connectTimeout <= 0 {
				return &UsageError{fmt.Errorf("--connect-timeout %s: must be positive", connectTimeout.String())}
			}
			sp, err := sf.spec()
			if err != nil {
				return &UsageError{err}
			}
			if err := shardablePlan(args[0], p, sp); err != nil {
				return &UsageError{err}
			}
			if budget != 0 {
				switch {
				case p.Precision == nil:
					return &UsageError{fmt.Errorf("--until-ci-budget %s: %s repeats no rounds until precise (give it repetitions: {until_ci: 2%%})", budget.String(), args[0])}
				case budget < 0:
					return &UsageError{fmt.Errorf("--until-ci-budget %s: must be positive", budget.String())}
				}
				p.Precision.Budget = time.Duration(budget)
			}
			if err := plan.CheckHostKnobs(p, plan.RunOptions{HostKnobs: hostKnobs}); err != nil {
				return &UsageError{fmt.Errorf("%s: %w", args[0], err)}
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
			ex := planExecutor(st, pp.log(), pp, time.Duration(connectTimeout), loadThreads, live, sp)
			defer ex.Close()
			if !st.Quiet {
				if pr := p.Precision; pr != nil {
					fmt.Fprintf(st.Stdout, "plan %s: %d cells × %d to %d rounds until every interval is within ±%g%%, at least %s of measurement%s\n",
						p.Name, len(p.Cells), p.Repetitions, pr.Max, 100*pr.Width, p.Estimate().Round(time.Second), triesEstimate(p))
				} else {
					fmt.Fprintf(st.Stdout, "plan %s: %d cells × %d repetitions, about %s of measurement%s\n",
						p.Name, len(p.Cells), p.Repetitions, p.Estimate().Round(time.Second), triesEstimate(p))
				}
			}
			state, err := plan.Run(cmd.Context(), p, ex, plan.RunOptions{Dir: dir, NoRetryFailed: noRetry, Now: st.Now, Log: pp.log(),
				Tool: "dbarena " + st.Version, Progress: pp.update, HostKnobs: hostKnobs})
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
	run.Flags().StringArrayVar(&vars, "var", nil, "set a variable the plan declares under vars (NAME=VALUE, the value in YAML: 8, 64MB, [1, 2, 4]); repeatable")
	run.Flags().BoolVar(&hostKnobs, "host-knobs", false, "let the plan's host knobs (os.vm.dirty_ratio, os.transparent_hugepage.enabled …) change this host's kernel settings around their targets' runs, restored after (needs root)")
	run.Flags().Var(&budget, "until-ci-budget", "with repetitions: {until_ci: …}: no round starts once this much time is spent (e.g. 1h), instead of the plan's budget")
	run.Flags().BoolVar(&noRetry, "no-retry-failed", false, "leave runs that failed before as they are instead of running them again")
	run.Flags().Var(&connectTimeout, "connect-timeout", "give up connecting after this long")
	run.Flags().IntVar(&loadThreads, "load-threads", 4, "parallel loaders when a target is prepared")
	addMetricsAddr(run.Flags(), &metricsAddr)
	addQuiet(run.Flags(), &quiet)
	sf.register(run.Flags())
	show := &cobra.Command{
		Use:   "show PLAN.yaml",
		Short: "Print a plan's cells, their order and which runs are done",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := loadPlan(st, args[0], vars)
			if err != nil {
				return err
			}
			return plan.Show(st.Stdout, p, plan.RunOptions{Dir: dir, Now: st.Now})
		},
	}
	show.Flags().StringVarP(&dir, "out", "o", "", "results directory (default: <plan name>-results next to the plan file)")
	show.Flags().StringArrayVar(&vars, "var", nil, "set a variable the plan declares under vars (NAME=VALUE); repeatable")
	for _, c := range []*cobra.Command{run, show} {
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{err} })
	}
	cmd.AddCommand(run, show)
	return cmd
}

// loadPlan reads and validates a plan: managed: targets through package
// server, other URLs by their engine's scheme.
func loadPlan(st *State, path string, vars []string) (*plan.Plan, error) {
	given, err := planVars(vars)
	if err != nil {
		return nil, err
	}
	return plan.Load(path, plan.Options{Vars: given, ValidateTarget: func(raw string) error {
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
			// A version the machine lacks and a typo in a knob are found
			// now, not when the cell's turn comes.
			if err := server.CheckVersion(context.Background(), spec); err != nil {
				return err
			}
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

// planVars are the --var flags NAME=VALUE as plan.Options takes them.
func planVars(vars []string) (map[string]string, error) {
	given := map[string]string{}
	for _, v := range vars {
		name, value, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return nil, &UsageError{fmt.Errorf("--var %s: want NAME=VALUE", v)}
		}
		if _, dup := given[name]; dup {
			return nil, &UsageError{fmt.Errorf("--var %s: %s is given twice", v, name)}
		}
		given[name] = value
	}
	return given, nil
}

// shardablePlan refuses, for a plan run as shards (sp), what every shard
// cannot share: a managed server (each shard would start its own) and
// the analytic model (one connection).
func shardablePlan(file string, p *plan.Plan, sp *shard.Spec) error {
	if sp == nil || sp.Count == 1 {
		return nil
	}
	for _, c := range p.Cells {
		if u, err := url.Parse(c.Target.URL); err == nil && u.Scheme == server.Scheme {
			return fmt.Errorf("--shard %d/%d: %s: target %q is a managed server, which every shard would start on its own host: give the URL of a server every shard reaches", sp.Index, sp.Count, file, c.Target.Label)
		}
		if c.Workload.Run.Tries != nil {
			return fmt.Errorf("--shard %d/%d: %s: workload %q runs the analytic model (tries), one query at a time on one connection: run it as one process", sp.Index, sp.Count, file, c.Workload.Label)
		}
	}
	return nil
}

// planExecutor is the executor of plan run: package plan's, with the
// plan's log lines and live metrics as its hooks, and prepares as
// `dbarena prepare` does them, their output left out of the plan's log.
func planExecutor(st *State, out io.Writer, progress *planProgress, connectTimeout time.Duration, loadThreads int, live *liveMetrics, sp *shard.Spec) *plan.SessionExecutor {
	quiet := *st
	quiet.Stdout, quiet.Quiet = io.Discard, true
	return plan.NewSessionExecutor(plan.ExecutorOptions{
		Env:            st.env(),
		ConnectTimeout: connectTimeout,
		LoadThreads:    loadThreads,
		Prepare: func(ctx context.Context, target engine.Target, eng engine.Engine, w workload.Workload, sp *shard.Spec) error {
			return prepare(ctx, &quiet, target, eng, w, loadThreads, sp)
		},
		Shard: sp,
		Tool:  result.Tool{Name: "dbarena", Version: st.Version, Commit: st.Commit},
		Now:   st.Now,
		Hooks: func(c plan.Cell, rep int) session.Hooks {
			progress.measuring()
			return session.Hooks{
				Observer: live.observer(nil),
				Before: func(cfg runner.Config) {
					live.begin(c.Target.Label, c.Workload.Label, fmt.Sprintf("threads=%d#%d", c.Threads, rep), cfg)
				},
				After: func(run *result.Run) {
					live.end()
					fmt.Fprintf(out, "    %s\n", planLine(run))
					if failed := threshold.Failed(run); len(failed) > 0 {
						fmt.Fprintf(out, "    thresholds failed: %s\n", strings.Join(failed, ", "))
					}
				},
			}
		},
	})
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

// planLine is a run's summary in the plan's log: one line, then one
// line per rule a specification judges the run by (TPC-E's mix and
// nominal throughput, the 90th percentiles), each indented below it.
func planLine(r *result.Run) string {
	if r.Tries != nil {
		return r.Status + ": " + triesSummary(r.Tries)
	}
	s := fmt.Sprintf("%s: tps %.2f qps %.2f p95 %.2f ms, errors %d, retries %d", r.Status, r.TPS, r.QPS, r.LatencyMS.P95, r.Errors, r.Retries)
	var rules []string
	for _, m := range r.Metrics {
		if m.Judged() {
			v := report.FormatMetric(m)
			if m.Unit != "" && m.Unit != "%" {
				v += " " + m.Unit
			}
			rules = append(rules, fmt.Sprintf("\n      %s: %s (%s)", m.Name, v, report.RuleText(m)))
			continue
		}
		s += ", " + m.Name + " " + report.FormatMetric(m)
	}
	if c := sysmon.Compact(r.Server); c != "" {
		s += " | " + c
	}
	if c := report.DisturbedCauses(r); c != "" {
		s += " ! disturbed: " + c
	}
	return s + strings.Join(rules, "")
}
