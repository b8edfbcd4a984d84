package plan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/shard"
	"github.com/dbarena/dbarena/workload"
)

// ExecutorOptions configure a SessionExecutor.
type ExecutorOptions struct {
	// Env is how targets resolve (session.Resolve): the environment,
	// the data directory and where the lines about managed servers go.
	Env session.Env
	// ConnectTimeout bounds connecting to a target (0:
	// session.DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// LoadThreads are the parallel loaders when a target is prepared
	// (0: 4).
	LoadThreads int
	// Prepare loads w into a target that lacks its tables, as shard sp
	// of a sharded plan when sp is not nil (default: load.Prepare with
	// LoadThreads loaders, reporting nothing).
	Prepare func(ctx context.Context, target engine.Target, eng engine.Engine, w workload.Workload, sp *shard.Spec) error
	// Shard, when set, runs the plan as one shard of a sharded plan
	// (package shard): every shard runs the same plan; each prepare is
	// a sharded prepare, each cell's run starts at a barrier of its own,
	// and each result file is also stored in the target under the
	// cell's ID and repetition.
	Shard *shard.Spec
	// Tool is written into every result file.
	Tool result.Tool
	// Now is the clock of the runs and their files (default time.Now).
	Now func() time.Time
	// Log receives the sessions' own messages (default: nothing).
	Log io.Writer
	// Hooks, when set, gives what the caller sees of repetition rep of c
	// (live observers, lines before and after the run). It is called
	// when the run starts, its data prepared and its target open. Out
	// and Wrote are not used: plan.Run writes the result file.
	Hooks func(c Cell, rep int) session.Hooks
}

// SessionExecutor is the Executor of `dbarena plan run`: it runs a plan's
// cells through package session, as `dbarena run` runs a workload. Each
// target is resolved (session.Resolve: a managed server started, the
// embedded default made) and opened once, on its first prepare, and is
// shared by its workloads until its last prepare key is released; every
// target of a plan is prepared when its data is missing. Each run is one
// session.Measure of the cell's workload, its options set from the cell,
// with the cell's runner.Config.
type SessionExecutor struct {
	o       ExecutorOptions
	targets map[string]*openTarget // by label
	keys    map[PrepareKey]string
	// preparing is the Spec of the sharded prepare under way (Prepare).
	preparing *shard.Spec
}

// openTarget is one open target of a plan.
type openTarget struct {
	s      *session.Session
	keys   int                   // prepare keys not yet released
	loaded map[string]PrepareKey // workload name → the key whose data is there
}

// NewSessionExecutor returns an executor with no target open. Close it
// when the plan's Run returns.
func NewSessionExecutor(o ExecutorOptions) *SessionExecutor {
	if o.LoadThreads <= 0 {
		o.LoadThreads = 4
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Env.Getenv == nil {
		o.Env.Getenv = os.Getenv
	}
	if o.Prepare == nil {
		o.Prepare = func(ctx context.Context, _ engine.Target, eng engine.Engine, w workload.Workload, sp *shard.Spec) error {
			_, err := load.Prepare(ctx, eng, w, load.PrepareConfig{LoadThreads: o.LoadThreads, Now: o.Now, Shard: sp})
			return err
		}
	}
	return &SessionExecutor{o: o, targets: map[string]*openTarget{}, keys: map[PrepareKey]string{}}
}

// open resolves and opens c's target once.
func (ex *SessionExecutor) open(ctx context.Context, c Cell) (*openTarget, error) {
	if ot, ok := ex.targets[c.Target.Label]; ok {
		return ot, nil
	}
	spec := session.TargetSpec{URL: c.Target.URL, Label: c.Target.Label, PasswordFile: c.Target.PasswordFile, ConnectTimeout: ex.o.ConnectTimeout}
	if ex.o.Shard != nil {
		spec.Shards = ex.o.Shard.Count
	}
	r, err := session.Resolve(ctx, spec, ex.o.Env)
	if err != nil {
		return nil, err
	}
	r.Target.Label = c.Target.Label
	getenv := ex.o.Env.Getenv
	s, err := r.Open(ctx, session.Options{
		PrepareOnFirstUse: true,
		Prepare: func(ctx context.Context, eng engine.Engine, w workload.Workload) error {
			return ex.o.Prepare(ctx, r.Target, eng, w, ex.preparing)
		},
		Shard:           ex.o.Shard,
		ProvisionedIOPS: c.Target.ProvisionedIOPS,
		Tool:            ex.o.Tool,
		Now:             ex.o.Now,
		Log:             ex.o.Log,
		Scrub:           func(msg string) string { return engine.ScrubEnv(msg, getenv) },
	})
	if err != nil {
		_ = r.Engine.Close()
		return nil, err
	}
	ot := &openTarget{s: s, loaded: map[string]PrepareKey{}}
	ex.targets[c.Target.Label] = ot
	return ot, nil
}

// Prepare opens c's target and loads c's workload there, unless a target
// that was not started for the plan holds it already (then the data is
// used as it is, as `dbarena run` does, and refused when it was prepared
// with other data options). Two keys of one target and workload whose
// options differ cannot share the tables: the second is refused.
func (ex *SessionExecutor) Prepare(ctx context.Context, c Cell) error {
	w, err := c.Workload.New()
	if err != nil {
		return err
	}
	ot, err := ex.open(ctx, c)
	if err != nil {
		return err
	}
	if other, ok := ot.loaded[c.Workload.Name]; ok && other != c.Key {
		return fmt.Errorf("target %s holds %s's tables for %s already; a second data set (%s) needs a target of its own",
			c.Target.Label, c.Workload.Name, other, c.Key)
	}
	ot.keys++
	ex.keys[c.Key] = c.Target.Label
	ot.loaded[c.Workload.Name] = c.Key
	if sp := ex.o.Shard; sp != nil {
		// Every shard looks at the target before any creates a table,
		// so that all find it prepared or all prepare it together.
		ex.preparing = sp.In("prepare " + c.Key.String())
		defer func() { ex.preparing = nil }()
		if err := ex.arrive(ctx, ot, ex.preparing, "look"); err != nil {
			return err
		}
	}
	return ot.s.EnsurePrepared(ctx, w)
}

// arrive waits at sp's barrier phase on a connection of ot's engine.
func (ex *SessionExecutor) arrive(ctx context.Context, ot *openTarget, sp *shard.Spec, phase string) error {
	c, err := ot.s.Engine().Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = sp.Arrive(ctx, c.Catalog(), phase, "")
	return err
}

// Run measures one repetition of c and returns its result file. A managed
// server that died during the run fails it, with the end of its log.
func (ex *SessionExecutor) Run(ctx context.Context, c Cell, rep int) (*result.File, error) {
	w, err := c.Workload.New()
	if err != nil {
		return nil, err
	}
	ot, err := ex.open(ctx, c)
	if err != nil {
		return nil, err
	}
	cfg := c.Config()
	cfg.Now = ex.o.Now
	var h session.Hooks
	if ex.o.Hooks != nil {
		h = ex.o.Hooks(c, rep)
		h.Out, h.Wrote = "", nil
	}
	h.Part = fmt.Sprintf("%s#%d", c.ID, rep)
	file, err := ot.s.Measure(ctx, w, []runner.Config{cfg}, h)
	if file == nil {
		return nil, err
	}
	return file, nil
}

// Release forgets key; the target's engine (and the managed server
// started for it) closes with its last key.
func (ex *SessionExecutor) Release(_ context.Context, key PrepareKey) error {
	label, ok := ex.keys[key]
	if !ok {
		return nil
	}
	delete(ex.keys, key)
	ot := ex.targets[label]
	if ot == nil {
		return nil
	}
	if ot.keys--; ot.keys > 0 {
		return nil
	}
	delete(ex.targets, label)
	return ot.s.Close()
}

// Close closes every target still open (after an error or an
// interruption: Run releases every key it prepared otherwise).
func (ex *SessionExecutor) Close() error {
	var errs []error
	for label, ot := range ex.targets {
		errs = append(errs, ot.s.Close())
		delete(ex.targets, label)
	}
	return errors.Join(errs...)
}

// New is a new instance of the entry's workload with its options set
// from Options (each with its flag's Set, as the plan was checked), and
// validated.
func (w Workload) New() (workload.Workload, error) {
	m, ok := workload.Lookup(w.Name)
	if !ok {
		return nil, fmt.Errorf("unknown workload %q", w.Name)
	}
	wl := m.New()
	fs := wl.Define().Options
	for _, o := range w.Options {
		if err := fs.Set(o.Name, o.Value); err != nil {
			return nil, fmt.Errorf("%s: %w", w.Label, err)
		}
	}
	if v := wl.Define().Validate; v != nil {
		if errs := v(); len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
	}
	return wl, nil
}
