// Package session is dbarena's one run pipeline. Resolve turns a target
// as written (a URL, the embedded default, a managed server) into an open
// engine; a Session holds one open target: its engine, its server-metrics
// monitor and what a result file records about it. Measure describes the target (server version and
// settings, client host, round-trip time), runs a workload once per
// runner.Config and returns one result file whose status (complete,
// interrupted, failed) and error are set here and nowhere else.
//
// `dbarena run` (one Measure with one config per thread count of a sweep)
// and `dbarena plan run` (plan.SessionExecutor: one Measure per cell and
// repetition) both go through it; the CLI only maps flags to a
// TargetSpec and runner.Configs, package plan its cells.
package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/hostinfo"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/shard"
	"github.com/dbarena/dbarena/sysmon"
	"github.com/dbarena/dbarena/threshold"
	"github.com/dbarena/dbarena/workload"
)

// Managed is a server dbarena started for the target (package server's
// *Server is one). A run on it that ends while the server is gone fails,
// with the end of the server's log.
type Managed interface {
	Name() string
	Alive() bool
	LogTail(lines int) string
}

// Options open a Session.
type Options struct {
	// Engine is the target's open engine; Session.Close closes it.
	Engine engine.Engine
	// Target names the target in messages and result files (its label
	// and redacted URL; never its password).
	Target engine.Target
	// PrepareOnFirstUse lets EnsurePrepared load a workload whose tables
	// are missing (the embedded default target, a managed server started
	// empty, every target of a plan). Without it a missing table is an
	// error wrapping load.ErrNotPrepared.
	PrepareOnFirstUse bool
	// Prepare loads w into the target (with progress output of the
	// caller's choosing). Default: load.Prepare with 4 loaders and no
	// progress.
	Prepare func(ctx context.Context, eng engine.Engine, w workload.Workload) error
	// NoMonitor leaves the server's metrics unsampled.
	NoMonitor bool
	// ProvisionedIOPS is the IOPS the server's data disk was provisioned
	// with (a cloud volume's), for disk_iops_pct; 0 unknown.
	ProvisionedIOPS float64
	// ServerPID is the server's main process on this host, when known
	// (0: found through the server when it is local).
	ServerPID int
	// Managed is the managed server behind the target, or nil.
	Managed Managed
	// DropCachesFile is the file that drops the operating system's page
	// cache under --cold drop-caches (default DropCachesFile); nothing
	// else writes it.
	DropCachesFile string
	// Knobs are the settings the target's server was asked for (a
	// managed server's), recorded as the result file's Target.Knobs.
	Knobs map[string]string
	// Tool is written into every result file.
	Tool result.Tool
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Log receives the session's own messages (default: nothing).
	Log io.Writer
	// Shard, when set, makes every run a shard's of a sharded run
	// (package shard): each starts at a barrier every shard reaches, and
	// each result file is also stored in the target. Only shard 0
	// samples the server's metrics.
	Shard *shard.Spec
	// Scrub removes secrets from an error message before it is stored
	// (default: the message as it is; engines' errors carry no password
	// of the target URL, but environment passwords may appear).
	Scrub func(string) string
}

// Session is one open target. It is used by one goroutine at a time.
type Session struct {
	opt      Options
	mon      *sysmon.Monitor // nil with NoMonitor
	closeMon func()
}

// Open opens the server-metrics monitor of opt.Engine's target (unless
// opt.NoMonitor) and returns the session. What the monitor cannot sample
// is explained in its notes, never fatal.
func Open(ctx context.Context, opt Options) (*Session, error) {
	if opt.Engine == nil {
		return nil, errors.New("session: no engine")
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Scrub == nil {
		opt.Scrub = func(s string) string { return s }
	}
	if opt.Prepare == nil {
		opt.Prepare = func(ctx context.Context, eng engine.Engine, w workload.Workload) error {
			_, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: 4, Now: opt.Now})
			return err
		}
	}
	s := &Session{opt: opt, closeMon: func() {}}
	// Every shard of a sharded run measures the same server: shard 0
	// samples it, for all (a merged file's server metrics are the
	// shards' that have them), and the others add no queries of their
	// own to what the server counts.
	if opt.Shard != nil && opt.Shard.Index != 0 {
		opt.NoMonitor = true
	}
	if !opt.NoMonitor {
		s.mon, s.closeMon = openMonitor(ctx, opt.Engine, opt.Target, opt.ServerPID, opt.ProvisionedIOPS)
	}
	return s, nil
}

// Engine is the session's engine.
func (s *Session) Engine() engine.Engine { return s.opt.Engine }

// Target is the session's target.
func (s *Session) Target() engine.Target { return s.opt.Target }

// Close closes the monitor's connection and the engine (which stops a
// managed server started for it).
func (s *Session) Close() error {
	s.closeMon()
	return s.opt.Engine.Close()
}

// EnsurePrepared checks that w's tables are ready on the target and, when
// they are not and the session may prepare on first use, loads them.
func (s *Session) EnsurePrepared(ctx context.Context, w workload.Workload) error {
	eng := s.opt.Engine
	c, err := eng.Connect(ctx)
	if err != nil {
		return err
	}
	err = load.VerifyPrepared(ctx, c, eng.Dialect(), w)
	c.Close()
	if err == nil || !s.opt.PrepareOnFirstUse || !errors.Is(err, load.ErrNotPrepared) {
		return err
	}
	fmt.Fprintf(s.opt.Log, "the %s target is not prepared for %s: preparing it now\n", s.opt.Target.Label, w.Define().Meta.Name)
	return s.opt.Prepare(ctx, eng, w)
}

// Hooks are what a caller sees of Measure's runs.
type Hooks struct {
	// Observer receives every run's ticks.
	Observer runner.Observer
	// Before is called before each run, After with each run's result
	// (also a failed or interrupted one that measured something).
	Before func(cfg runner.Config)
	After  func(run *result.Run)
	// Out, when not "", is the result file's path, and Measure writes the
	// file itself: at the end, and in a sweep after every run but the
	// last (with status killed until the sweep ends, so that a process
	// killed during a sweep keeps its finished runs). While it runs, it
	// appends every interval to the interval log result.JournalPath(Out)
	// beside the file, from which Recover rebuilds the file of a killed
	// process; the log is removed once the file is written. The caller
	// holds result.LockOutput(Out) while Measure runs.
	Out string
	// Wrote is called when Measure has written Out at the end.
	Wrote func(path string, file *result.File)
	// Part names the result among a sharded run's (a plan's cell); ""
	// is a run's.
	Part string
	// Repeat, when set, is asked after each round of the configurations
	// (all of them run once) whether another round follows; file holds
	// every run so far. It repeats a sweep until its figures are precise
	// (run --until-ci). Not with a shard.
	Repeat func(file *result.File) bool
}

// Measure describes the target, then runs w once per configuration, in
// order, into one result file; the file's seed is the first
// configuration's. It stops at the first run that ends with an error.
// The file is returned whenever a run measured something, with its
// status and scrubbed error set; the error is the run's (with the end of
// a dead managed server's log).
func (s *Session) Measure(ctx context.Context, w workload.Workload, cfgs []runner.Config, h Hooks) (*result.File, error) {
	if len(cfgs) == 0 {
		return nil, errors.New("session: no run configuration")
	}
	cfgs = slices.Clone(cfgs)
	for i := range cfgs {
		if err := s.coldFor(&cfgs[i]); err != nil {
			return nil, err
		}
	}
	file, err := s.describe(ctx, w, cfgs[0])
	if err != nil {
		return nil, s.serverDied(err)
	}
	sh := s.sharded(h.Part, file)
	if sh != nil {
		for i := range cfgs {
			if err := sh.configure(i, &cfgs[i]); err != nil {
				return nil, err
			}
		}
	}
	if s.mon != nil {
		// The file records the problems of its own runs, not those of
		// the files the session measured before it.
		s.mon.ResetProblems()
	}
	var jl *journal
	if h.Out != "" {
		if jl, err = s.openJournal(h.Out, file); err != nil {
			return nil, err
		}
	}
	if h.Repeat != nil && sh != nil {
		return nil, errors.New("session: a shard's runs are not repeated until precise: the shards would decide apart")
	}
	var runErr error
	n := 0 // runs so far, all rounds: the journal's index
rounds:
	for {
		for i, cfg := range cfgs {
			if h.Before != nil {
				h.Before(cfg)
			}
			obs := h.Observer
			if jl != nil {
				obs = jl.observe(n, cfg, h.Observer)
			}
			run, err := s.Run(ctx, w, cfg, obs)
			if run != nil && sh != nil {
				sh.record(i, run)
			}
			if run != nil {
				file.Runs = append(file.Runs, *run)
				if h.After != nil {
					h.After(run)
				}
				if jl != nil {
					jl.end(n, run, file, (i < len(cfgs)-1 || h.Repeat != nil) && err == nil)
				}
			}
			n++
			if err != nil {
				runErr = err
				break rounds
			}
		}
		if h.Repeat == nil || ctx.Err() != nil || !h.Repeat(file) {
			break
		}
	}
	if len(file.Runs) == 0 {
		if jl != nil {
			jl.discard()
		}
		if sh != nil {
			s.finish(file, runErr)
			if err := sh.store(ctx, file, runErr); err != nil {
				runErr = errors.Join(runErr, err)
			}
		}
		return nil, runErr
	}
	s.finish(file, runErr)
	if sh != nil {
		if err := sh.store(ctx, file, runErr); err != nil {
			return file, errors.Join(runErr, err)
		}
	}
	if jl != nil {
		if err := jl.close(file); err != nil {
			return file, errors.Join(runErr, err)
		}
		if h.Wrote != nil {
			h.Wrote(h.Out, file)
		}
	}
	return file, runErr
}

// Run runs w once with cfg, the session's monitor sampling the server,
// in the process the policy gives it (ProcessFor). A run on a managed
// server that died fails, with the end of its log.
func (s *Session) Run(ctx context.Context, w workload.Workload, cfg runner.Config, obs runner.Observer) (*result.Run, error) {
	if s.mon != nil && cfg.Server == nil {
		cfg.Server = s.mon
	}
	if m := s.opt.Managed; m != nil && cfg.ServerDown == nil {
		cfg.ServerDown = func() bool { return !m.Alive() }
	}
	if err := s.coldFor(&cfg); err != nil {
		return nil, err
	}
	if cfg.Tries != nil && cfg.Cold == nil {
		cfg.Cold = s.coldHook(cfg.ColdMode)
	}
	cfg.Process = ProcessFor(s.opt.Engine, cfg)
	ts, errs := threshold.ParseAll(cfg.Thresholds, threshold.ContextOf(w))
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if cfg.AbortOnFail {
		if wt := threshold.NewWatch(ts, obs); wt != nil {
			obs = wt
		}
	}
	run, err := runner.Run(ctx, s.opt.Engine, w, cfg, obs)
	scrubTries(run, s.opt.Scrub)
	if run != nil && len(ts) > 0 {
		run.Thresholds = threshold.Evaluate(ts, run)
		var ae *threshold.AbortError
		if errors.As(err, &ae) {
			for i := range run.Thresholds {
				if run.Thresholds[i].Expr == ae.Expr {
					run.Thresholds[i].Note = "stopped the run early"
				}
			}
		}
	}
	if m := s.opt.Managed; m != nil && (err == nil || errors.Is(err, runner.ErrStalled)) && !m.Alive() {
		// Workers reconnect with back-off until the run ends: a run on a
		// dead server can end without an error of its own.
		err = fmt.Errorf("%w: the server died during the run", runner.ErrServerGone)
	}
	if err != nil && !errors.Is(err, runner.ErrInterrupted) {
		err = s.serverDied(err)
		if run != nil {
			run.Status, run.Error = Status(err), s.opt.Scrub(err.Error())
		}
	}
	return run, err
}

// Status maps a run's error to a result status: nil is complete,
// runner.ErrInterrupted interrupted, runner.ErrStalled stalled, anything
// else failed.
func Status(err error) string {
	switch {
	case err == nil:
		return result.StatusComplete
	case errors.Is(err, runner.ErrInterrupted):
		return result.StatusInterrupted
	case errors.Is(err, runner.ErrStalled):
		return result.StatusStalled
	}
	return result.StatusFailed
}

// finish sets the file's end time, monitor, status and error.
func (s *Session) finish(file *result.File, runErr error) {
	file.FinishedAt = s.opt.Now().UTC()
	if s.mon != nil {
		// Notes quote server and driver errors (a reconnection's too).
		notes := s.mon.Notes()
		for i, n := range notes {
			notes[i] = s.opt.Scrub(n)
		}
		problems := s.mon.Problems()
		for i, n := range problems {
			problems[i] = s.opt.Scrub(n)
		}
		file.Target.Monitor = &result.Monitor{Sources: s.mon.Sources(), ServerPID: s.mon.ServerPID(), Device: s.mon.Device(),
			ProvisionedIOPS: s.opt.ProvisionedIOPS, Notes: notes, Problems: problems}
	}
	file.Status = Status(runErr)
	if runErr != nil {
		file.Error = s.opt.Scrub(runErr.Error())
	}
}

// serverDied adds the end of a managed server's log to err when the
// server is no longer running.
func (s *Session) serverDied(err error) error {
	m := s.opt.Managed
	if m == nil || err == nil {
		return err
	}
	// A run fails as soon as its connections break, which can be a moment
	// before the server's exit is seen: give it two seconds.
	for i := 0; i < 20 && m.Alive(); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if !m.Alive() {
		return fmt.Errorf("managed server %s is not running any more: %w; the end of its log:\n%s", m.Name(), err, m.LogTail(20))
	}
	return err
}

// describe fills in everything a result file records before the first run.
// The run options a file records (runner.OptionValues) are cfg's, the
// first run's: the runs of one file differ in their thread counts only.
func (s *Session) describe(ctx context.Context, w workload.Workload, cfg runner.Config) (*result.File, error) {
	eng := s.opt.Engine
	info, err := eng.ServerInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading server version and settings: %w", err)
	}
	client := hostinfo.Read()
	client.RTTMS, err = MeasureRTT(ctx, eng)
	if err != nil {
		return nil, err
	}
	settings := info.Settings
	if settings == nil {
		settings = map[string]string{}
	}
	if s.mon != nil {
		for k, v := range s.mon.OSSettings() {
			settings[k] = v
		}
	}
	m := w.Define().Meta
	options := workload.OptionValues(w)
	for k, v := range runner.OptionValues(w, cfg) {
		options[k] = v
	}
	return &result.File{
		SchemaVersion: result.SchemaVersion,
		Tool:          s.opt.Tool,
		Workload:      result.Workload{Name: m.Name, Version: m.Version, Options: options},
		Target: result.Target{
			Label:         s.opt.Target.Label,
			Engine:        eng.Name(),
			URL:           s.opt.Target.Redacted(),
			ServerVersion: info.Version,
			Settings:      settings,
			Knobs:         maps.Clone(s.opt.Knobs),
		},
		Client:    client,
		Seed:      cfg.Seed,
		StartedAt: s.opt.Now().UTC(),
		Identity:  result.NewIdentity(),
	}, nil
}

// rttPings is how many round trips MeasureRTT times.
const rttPings = 11

// MeasureRTT is the median time of 11 round trips of the engine's Ping
// (SELECT 1, MongoDB's ping command) on a connection of its own, in ms.
func MeasureRTT(ctx context.Context, eng engine.Engine) (float64, error) {
	c, err := eng.Connect(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	ds := make([]time.Duration, 0, rttPings)
	for range rttPings {
		t0 := time.Now()
		if err := c.Ping(ctx); err != nil {
			return 0, fmt.Errorf("measuring round-trip time: %w", err)
		}
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	return float64(ds[rttPings/2].Microseconds()) / 1000, nil
}

// openMonitor opens the server metrics' monitor for the target on a
// connection of its own (the engine's statistics: views, serverStatus),
// which it reopens when it is lost, and with the server's process when it
// is on this host: pid given, found by sysmon through the connection, or
// reported by the engine (engine.ProcessReporter) and recognised in /proc.
func openMonitor(ctx context.Context, eng engine.Engine, t engine.Target, pid int, provisionedIOPS float64) (*sysmon.Monitor, func()) {
	cfg := sysmon.Config{ServerPID: pid, Dialect: eng.Dialect(), ProvisionedIOPS: provisionedIOPS}
	closeConn := func() {}
	if c, err := eng.Connect(ctx); err == nil {
		// The monitor reopens its connection when it is lost (a server
		// restart, a killed backend); the session closes the one it
		// replaces, and the last one when it closes.
		var mu sync.Mutex
		cur := c
		cfg.Conn = c
		cfg.Reopen = func(ctx context.Context) (sysmon.Conn, error) {
			nc, err := eng.Connect(ctx)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			old := cur
			cur = nc
			mu.Unlock()
			old.Close()
			return nc, nil
		}
		closeConn = func() {
			mu.Lock()
			defer mu.Unlock()
			cur.Close()
		}
	}
	var notes []string
	if pr, ok := eng.(engine.ProcessReporter); ok && pid == 0 {
		host := ""
		if t.URL != nil {
			host = t.URL.Hostname()
		}
		if !isLoopbackHost(host) {
			notes = append(notes, fmt.Sprintf("process: the server is not on this host (%s): no process, host or disk metrics (give --server-pid if it is)", t.Host()))
		} else {
			// Asked at the start and again after the server restarted.
			cfg.Locate = func(ctx context.Context) (int, string, error) {
				sp, err := pr.ServerProcess(ctx)
				switch {
				case err != nil:
					return 0, "", fmt.Errorf("the server did not tell its process: %w", err)
				case !processIs(sp.PID, sp.Name):
					return 0, "", fmt.Errorf("pid %d of this host is not %s: the server runs elsewhere (a container?)", sp.PID, sp.Name)
				}
				return sp.PID, sp.DataDir, nil
			}
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
