package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/shard"
	"github.com/dbarena/dbarena/threshold"
	"github.com/dbarena/dbarena/workload"
)

type runFlags struct {
	threads intList
	// cfg holds the run options (runner.Options) and the seed.
	cfg         runner.Config
	out         string
	loadThreads int
	serverPID   int
	noMonitor   bool
	// provisionedIOPS is --provisioned-iops: disk_iops_pct's 100%.
	provisionedIOPS float64
	// untilCI… are --until-ci and its bounds (run only).
	untilCI                string
	untilCIMin, untilCIMax int
	untilCIBudget          seconds
	metricsAddr            string
	// renamed are the run options registered as run-<flag> because the
	// workload has an option of that name (runner.BindFlagsBeside).
	renamed map[string]string
	// timeSet tells whether --time was given: without it, --rate-stages
	// set the run's length, and --events alone sets no limit in time.
	timeSet func() bool
	shard   shardFlags
}

func newRunCmd(st *State, m workload.Meta) *cobra.Command {
	w := m.New()
	var tf targetFlags
	rf := newRunFlags()
	cmd := &cobra.Command{
		Use:   m.Name,
		Short: m.Description,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWorkload(cmd.Context(), st, w, &tf, &rf)
		},
	}
	bindRunFlags(cmd.Flags(), w, &tf, &rf)
	fs := cmd.Flags()
	fs.StringVar(&rf.untilCI, "until-ci", "", "repeat the runs (every --threads value once a round) in interleaved rounds until the 95% confidence interval of each one's headline figure is within ±this of its median, e.g. 2%")
	fs.IntVar(&rf.untilCIMin, "until-ci-min", compare.DefaultPrecisionMin, "with --until-ci: rounds before the rule is looked at (an interval needs 6)")
	fs.IntVar(&rf.untilCIMax, "until-ci-max", compare.DefaultPrecisionMax, "with --until-ci: the most rounds")
	fs.Var(&rf.untilCIBudget, "until-ci-budget", "with --until-ci: no round starts once this much time is spent (e.g. 1h; default none)")
	cmd.Flags().StringVar(&rf.out, "out", "", "write the result file (JSON) here; while the run goes on, its interval log is kept beside it (see recover)")
	return cmd
}

// newRunFlags are run's flags at their defaults.
func newRunFlags() runFlags { return runFlags{threads: intList{1}, cfg: runner.DefaultConfig()} }

// bindRunFlags registers on fs every flag of `dbarena run` for w but
// --out: the target's, the thread counts, the run options
// (runner.BindFlagsBeside), the seed, the monitor's and the workload's
// own options. k8s job binds the same set for its pods.
func bindRunFlags(fs *pflag.FlagSet, w workload.Workload, tf *targetFlags, rf *runFlags) {
	tf.register(fs)
	fs.Var(&rf.threads, "threads", "workers (one connection each); a list like 1,2,4,8 runs a sweep, one run per value")
	rf.renamed = runner.BindFlagsBeside(fs, &rf.cfg, w.Define().Options)
	rf.timeSet = func() bool { return fs.Changed("time") }
	fs.Uint64Var(&rf.cfg.Seed, "seed", rf.cfg.Seed, "seed of the workers' random choices")
	fs.IntVar(&rf.loadThreads, "load-threads", 4, "parallel loaders when the embedded default target is prepared on first use")
	fs.IntVar(&rf.serverPID, "server-pid", 0, "the server's main process on this host, for its CPU, the host's and the data disk's metrics (default: found through the server when it is local)")
	fs.Float64Var(&rf.provisionedIOPS, "provisioned-iops", 0, "the IOPS the server's data disk was provisioned with (a cloud volume's): adds disk_iops_pct, the disk's IOPS as a share of it")
	fs.BoolVar(&rf.noMonitor, "no-server-metrics", false, "do not sample the server's statistics, process, host and disk every interval")
	addMetricsAddr(fs, &rf.metricsAddr)
	rf.shard.register(fs)
	fs.AddFlagSet(w.Define().Options)
}

func (rf *runFlags) config(threads int, st *State) runner.Config {
	cfg := rf.cfg
	cfg.Threads, cfg.Now = threads, st.Now
	if cfg.Events != nil && rf.timeSet != nil && !rf.timeSet() {
		cfg.Duration = 0 // --events alone: no limit in time
	}
	if len(cfg.Rate.Stages) > 0 && rf.timeSet != nil && !rf.timeSet() {
		cfg.Duration = cfg.Rate.StagesTotal() - cfg.Warmup // the stages span warm-up and measured phase
	}
	if cfg.Tries != nil {
		cfg.OnTry = func(e timing.TryEvent) { fmt.Fprintln(st.Stdout, report.TryLine(e)) }
	}
	return cfg
}

// validate reports every problem with the run flags at once.
func (rf *runFlags) validate(st *State) []error {
	var errs []error
	if len(rf.threads) == 0 {
		errs = append(errs, errors.New("--threads: give at least one value"))
	}
	seen := map[string]bool{}
	timeSet := rf.timeSet != nil && rf.timeSet()
	flagOf := func(name string) string {
		if r := rf.renamed[name]; r != "" {
			return r
		}
		return name
	}
	// Options the run would silently ignore.
	if rf.cfg.Tries != nil {
		if timeSet {
			errs = append(errs, fmt.Errorf("--%s %s: not used with --tries: each query runs --tries times (bound a try with --query-timeout)", flagOf("time"), rf.cfg.Duration))
		}
		if rf.cfg.Warmup > 0 {
			errs = append(errs, fmt.Errorf("--%s %s: not used with --tries: the first try is the cold one", flagOf("warmup"), rf.cfg.Warmup))
		}
	}
	// --rate-stages without --time span the warm-up too: a warm-up as
	// long as all of them leaves no measured time.
	stagesOverWarmup := len(rf.cfg.Rate.Stages) > 0 && !timeSet && rf.cfg.Warmup >= rf.cfg.Rate.StagesTotal()
	if stagesOverWarmup {
		errs = append(errs, fmt.Errorf("--%s %s: not shorter than --rate-stages %s (%s in all), which span the warm-up and the measured time: shorten the warm-up or lengthen the stages",
			flagOf("warmup"), rf.cfg.Warmup, timing.FormatStages(rf.cfg.Rate.Stages), rf.cfg.Rate.StagesTotal()))
	}
	for _, n := range rf.threads {
		for _, e := range rf.config(n, st).Validate() {
			var oe *workload.OptionError
			if errors.As(e, &oe) && stagesOverWarmup && oe.Flag == "time" {
				continue // its length comes from the stages, refused above
			}
			if errors.As(e, &oe) && rf.renamed[oe.Flag] != "" {
				e = &workload.OptionError{Flag: rf.renamed[oe.Flag], Value: oe.Value, Err: oe.Err}
			}
			if !seen[e.Error()] {
				seen[e.Error()] = true
				errs = append(errs, e)
			}
		}
	}
	if rf.loadThreads < 1 {
		errs = append(errs, fmt.Errorf("--load-threads %d: must be at least 1", rf.loadThreads))
	}
	if rf.provisionedIOPS < 0 || math.IsNaN(rf.provisionedIOPS) || math.IsInf(rf.provisionedIOPS, 0) {
		errs = append(errs, fmt.Errorf("--provisioned-iops %g: must be a positive number of IOPS", rf.provisionedIOPS))
	}
	if rf.serverPID < 0 {
		errs = append(errs, fmt.Errorf("--server-pid %d: must be a process id", rf.serverPID))
	} else if rf.serverPID > 0 {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d/stat", rf.serverPID)); err != nil {
			errs = append(errs, fmt.Errorf("--server-pid %d: no such process on this host", rf.serverPID))
		}
	}
	if rf.out != "" {
		if err := checkOutputFile("--out", rf.out); err != nil {
			errs = append(errs, err)
		}
	}
	if sp, err := rf.shard.spec(); err != nil {
		errs = append(errs, err)
	} else if sp != nil && sp.Count > 1 && rf.cfg.Tries != nil {
		errs = append(errs, fmt.Errorf("--shard %s: not with --tries, whose queries run one after the other on one connection: run the analytic model as one process", rf.shard.shard))
	}
	return errs
}

// runProblems are every problem of run's flags for w, found before any
// work: the workload's options, the run options of each thread count,
// thresholds, the timing model.
func runProblems(st *State, w workload.Workload, tf *targetFlags, rf *runFlags) []error {
	errs := append(validateWorkload(w), rf.validate(st)...)
	errs = append(errs, checkThresholds(w, rf.cfg)...)
	if len(w.Define().Ops) == 0 {
		// Refused before the target is opened (or the embedded default
		// prepared on first use): there is nothing to measure.
		name := w.Define().Meta.Name
		errs = append(errs, fmt.Errorf("%s has no transactions yet: only dbarena prepare, check and cleanup work for %s", name, name))
	} else if err := timing.CheckAnalytic(w, rf.cfg.Analytic); err != nil {
		errs = append(errs, err)
	}
	if rf.cfg.Tries != nil {
		if err := session.CheckColdTarget(rf.cfg.ColdMode, tf.target, ""); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := rf.precision(); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// precision is --until-ci's rule, nil without it.
func (rf *runFlags) precision() (*compare.Precision, error) {
	if rf.untilCI == "" {
		if rf.untilCIBudget != 0 {
			return nil, fmt.Errorf("--until-ci-budget %s: only with --until-ci", rf.untilCIBudget.String())
		}
		return nil, nil
	}
	w, err := compare.ParseWidth("--until-ci", rf.untilCI)
	if err != nil {
		return nil, err
	}
	p := &compare.Precision{Width: w, Min: rf.untilCIMin, Max: rf.untilCIMax, Budget: time.Duration(rf.untilCIBudget)}
	var errs []error
	if err := p.Validate(); err != nil {
		// The rule's own words name fields; here they are flags.
		msg := strings.NewReplacer("until_ci ", "--until-ci ", "min ", "--until-ci-min ", "max ", "--until-ci-max ", "budget ", "--until-ci-budget ").Replace(err.Error())
		errs = append(errs, errors.New(msg))
	}
	if rf.cfg.Tries != nil {
		errs = append(errs, fmt.Errorf("--until-ci %s: not with --tries, whose cold and hot tries are their own repetitions", rf.untilCI))
	}
	if rf.shard.shard != "" {
		errs = append(errs, fmt.Errorf("--until-ci %s: not with --shard: the shards would stop apart", rf.untilCI))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// repeatUntilPrecise is Measure's Repeat for --until-ci: it applies p
// after each round of cfgs to every thread count's headline figure,
// says where the widest interval stands, and records the outcome in the
// file.
func repeatUntilPrecise(st *State, p *compare.Precision, cfgs []runner.Config) func(file *result.File) bool {
	start := st.Now()
	var next time.Duration
	for _, c := range cfgs {
		if c.Duration > 0 {
			next += c.Warmup + c.Duration
		}
	}
	return func(file *result.File) bool {
		rounds := len(file.Runs) / len(cfgs)
		metric := compare.Headline([]compare.Input{{File: file}})
		cells := make([][]float64, len(cfgs))
		for i := range file.Runs {
			if v, ok := compare.RunValue(&file.Runs[i], metric); ok && file.Runs[i].Status == result.StatusComplete {
				cells[i%len(cfgs)] = append(cells[i%len(cfgs)], v)
			}
		}
		v := p.Check(rounds, cells, st.Now().Sub(start), next)
		file.Precision = p.Outcome(metric, rounds, v)
		widest := "no interval yet"
		if !math.IsInf(v.Widest, 0) {
			widest = fmt.Sprintf("±%.1f%% (%d threads)", 100*v.Widest, cfgs[v.Cell].Threads)
		}
		if v.Done {
			file.Precision.Stop = string(v.Stop)
			fmt.Fprintf(st.Stdout, "\n%s\n", compare.PrecisionText(file.Precision))
			return false
		}
		file.Precision.Stop = ""
		fmt.Fprintf(st.Stdout, "\nuntil-ci ±%g%%: round %d done, the widest interval of %s %s; another round\n", 100*p.Width, rounds, metric, widest)
		return true
	}
}

func runWorkload(ctx context.Context, st *State, w workload.Workload, tf *targetFlags, rf *runFlags) error {
	if err := usage(runProblems(st, w, tf, rf)); err != nil {
		return err
	}
	if rf.out != "" {
		// Held until the file is written: a second dbarena writing the
		// same file and interval log is refused before any work.
		lock, err := result.LockOutput(rf.out)
		if err != nil {
			return fmt.Errorf("--out %w", err)
		}
		defer lock.Release()
	}
	live, err := serveMetrics(st, rf.metricsAddr)
	if err != nil {
		return err
	}
	defer live.close()
	if sp, _ := rf.shard.spec(); sp != nil {
		tf.shards = sp.Count
	}
	r, err := tf.open(ctx, st, w)
	if err != nil {
		return err
	}
	sp, _ := rf.shard.spec() // validated above
	s, err := openSession(ctx, st, r, st.Stdout, rf, r.Fresh, sp)
	if err != nil {
		_ = r.Engine.Close()
		return err
	}
	defer s.Close()
	if err := s.EnsurePrepared(ctx, w); err != nil {
		return err
	}
	cfgs := make([]runner.Config, len(rf.threads))
	for i, n := range rf.threads {
		cfgs[i] = rf.config(n, st)
	}
	var repeat func(*result.File) bool
	if p, _ := rf.precision(); p != nil { // validated above
		repeat = repeatUntilPrecise(st, p, cfgs)
	}
	file, runErr := s.Measure(ctx, w, cfgs, session.Hooks{
		Repeat:   repeat,
		Observer: live.observer(&report.Lines{W: st.Stdout}),
		Before: func(cfg runner.Config) {
			if cfg.Tries != nil {
				fmt.Fprintf(st.Stdout, "\nrunning %s on %s: each query %d times on one connection (--cold %s)\n", w.Define().Meta.Name, r.Target, *cfg.Tries, cfg.ColdMode)
			} else {
				fmt.Fprintf(st.Stdout, "\nrunning %s on %s: %d threads, %s (warm-up %s)%s\n", w.Define().Meta.Name, r.Target, cfg.Threads, cfg.Limit(), cfg.Warmup, rateHeader(cfg.Rate))
			}
			printNotes(st.Stdout, w)
			live.begin(r.Target.Label, w.Define().Meta.Name, fmt.Sprintf("threads=%d", cfg.Threads), cfg)
		},
		After: func(run *result.Run) {
			live.end()
			if run.Tries != nil {
				report.Tries(st.Stdout, run)
			} else {
				report.Summary(st.Stdout, run)
			}
			report.Thresholds(st.Stdout, run)
			if w := timing.Shortfall(run); w != "" {
				fmt.Fprintf(st.Stderr, "dbarena: warning: %s\n", w)
			}
		},
		Out: rf.out,
		Wrote: func(path string, file *result.File) {
			if len(file.Runs) > 1 {
				fmt.Fprintln(st.Stdout, "\nSweep:")
				report.SweepTable(st.Stdout, file.Runs)
			}
			monitorProblems(st.Stdout, file)
			fmt.Fprintf(st.Stdout, "\nwrote %s (%s)\n", path, file.Status)
		},
	})
	if file != nil && rf.out == "" {
		if len(file.Runs) > 1 {
			fmt.Fprintln(st.Stdout, "\nSweep:")
			report.SweepTable(st.Stdout, file.Runs)
		}
		monitorProblems(st.Stdout, file)
	}
	if runErr == nil && file != nil {
		runErr = threshold.Check(file)
	}
	return runErr
}

// rateHeader describes a run's arrival rate for its header line: "" in
// the closed model.
func rateHeader(rc timing.RateConfig) string {
	if !rc.Open() {
		return ""
	}
	arrival := rc.Arrival
	if arrival == "" {
		arrival = timing.ArrivalPoisson
	}
	if len(rc.Stages) > 0 {
		return fmt.Sprintf(", %s arrivals, stages %s", arrival, timing.FormatStages(rc.Stages))
	}
	return fmt.Sprintf(", %s arrivals at %g/s", arrival, *rc.TPS)
}

// monitorProblems ends a run's output with the server monitor's
// problems, if any.
func monitorProblems(w io.Writer, file *result.File) {
	if m := file.Target.Monitor; m != nil && len(m.Problems) > 0 {
		fmt.Fprintln(w)
		report.MonitorProblems(w, m)
	}
}

// openSession opens the run pipeline on r: prepared on first use when
// prepareOnFirstUse (with progress on log, rf's loaders), with the
// server's metrics unless rf says not. The session owns r's engine from
// here on.
func openSession(ctx context.Context, st *State, r *session.Resolved, log io.Writer, rf *runFlags, prepareOnFirstUse bool, sp *shard.Spec) (*session.Session, error) {
	return r.Open(ctx, session.Options{
		PrepareOnFirstUse: prepareOnFirstUse && sp == nil,
		Prepare: func(ctx context.Context, eng engine.Engine, w workload.Workload) error {
			q := *st
			q.Stdout = log
			return prepare(ctx, &q, r.Target, eng, w, rf.loadThreads, nil)
		},
		Shard:           sp,
		NoMonitor:       rf.noMonitor,
		ServerPID:       rf.serverPID,
		ProvisionedIOPS: rf.provisionedIOPS,
		Tool:            result.Tool{Name: "dbarena", Version: st.Version, Commit: st.Commit},
		Now:             st.Now,
		Log:             log,
		Scrub:           func(msg string) string { return scrub(msg, st) },
	})
}
