package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/hostinfo"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/sysmon"
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
	serverPID   int
	noMonitor   bool
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
	fs.IntVar(&rf.serverPID, "server-pid", 0, "the server's main process on this host, for its CPU, the host's and the data disk's metrics (default: found through the server when it is local)")
	fs.BoolVar(&rf.noMonitor, "no-server-metrics", false, "do not sample the server's statistics, process, host and disk every interval")
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
	if rf.serverPID < 0 {
		errs = append(errs, fmt.Errorf("--server-pid %d: must be a process id", rf.serverPID))
	} else if rf.serverPID > 0 {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d/stat", rf.serverPID)); err != nil {
			errs = append(errs, fmt.Errorf("--server-pid %d: no such process on this host", rf.serverPID))
		}
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
	var mon *sysmon.Monitor
	if !rf.noMonitor {
		var closeMon func()
		mon, closeMon = openMonitor(ctx, r, rf.serverPID)
		defer closeMon()
		for k, v := range mon.OSSettings() {
			file.Target.Settings[k] = v
		}
	}

	var runErr error
	for _, n := range rf.threads {
		fmt.Fprintf(st.Stdout, "\nrunning %s on %s: %d threads, %s (warm-up %s)\n", w.Meta().Name, r.target, n, time.Duration(rf.duration), time.Duration(rf.warmup))
		cfg := rf.config(n, st)
		cfg.Server = mon
		run, err := runner.Run(ctx, r.engine, w, cfg, &report.Lines{W: st.Stdout})
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
	if mon != nil {
		file.Target.Monitor = &result.Monitor{Sources: mon.Sources(), ServerPID: mon.ServerPID(), Device: mon.Device(), Notes: mon.Notes()}
	}
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

// openMonitor opens the server metrics' monitor for r on a connection of
// its own (SQL engines' statistics views) and with the server's process
// when it is on this host: pid given, found by sysmon through the SQL
// connection, or reported by the engine (engine.ProcessReporter) and
// recognised in /proc. What cannot be sampled is explained in the
// monitor's notes, never fatal.
func openMonitor(ctx context.Context, r *resolved, pid int) (*sysmon.Monitor, func()) {
	cfg := sysmon.Config{ServerPID: pid}
	closeConn := func() {}
	if c, err := engine.ConnectSQL(ctx, r.engine); err == nil {
		cfg.Conn, closeConn = c, func() { c.Close() }
	}
	var notes []string
	if pr, ok := r.engine.(engine.ProcessReporter); ok && pid == 0 {
		switch sp, err := pr.ServerProcess(ctx); {
		case err != nil:
			notes = append(notes, fmt.Sprintf("process: the server did not tell its process: %v", err))
		case !isLoopbackHost(r.target.URL.Hostname()):
			notes = append(notes, fmt.Sprintf("process: the server is not on this host (%s): no process, host or disk metrics (give --server-pid if it is)", r.target.Host()))
		case !processIs(sp.PID, sp.Name):
			notes = append(notes, fmt.Sprintf("process: pid %d of this host is not %s: the server runs elsewhere (a container?): no process, host or disk metrics", sp.PID, sp.Name))
		default:
			cfg.ServerPID, cfg.DataDir = sp.PID, sp.DataDir
		}
	}
	mon := sysmon.Open(ctx, cfg)
	if len(notes) > 0 {
		mon = mon.WithNotes(notes...)
	}
	return mon, closeConn
}

// isLoopbackHost tells whether a URL's host name is this host's loopback.
func isLoopbackHost(h string) bool {
	if h == "localhost" || h == "" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// processIs tells whether process pid of this host runs the program name.
func processIs(pid int, name string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return err == nil && strings.TrimSpace(string(b)) == name
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
