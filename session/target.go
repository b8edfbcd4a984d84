package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/workload"
)

// DefaultConnectTimeout is how long Resolve waits for a connection when
// the spec gives no time.
const DefaultConnectTimeout = 10 * time.Second

// ErrNoDataDir is returned when dbarena's data directory is needed (the
// embedded default target, managed servers) and the environment names
// none.
var ErrNoDataDir = errors.New("cannot find a data directory: set DBARENA_HOME or HOME")

// DataDir is dbarena's data directory, where the embedded default target
// and the managed servers live: $DBARENA_HOME, else
// $XDG_DATA_HOME/dbarena, else ~/.local/share/dbarena.
func DataDir(getenv func(string) string) (string, error) {
	if d := getenv("DBARENA_HOME"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "dbarena"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", ErrNoDataDir
	}
	return filepath.Join(home, ".local", "share", "dbarena"), nil
}

// Env is what resolving a target takes from the process.
type Env struct {
	// Getenv reads the environment: the engines' password variables
	// (PGPASSWORD, MYSQL_PWD), the data directory's (default os.Getenv).
	Getenv func(string) string
	// Home is the data directory; empty: DataDir(Getenv), read only when
	// a target needs it.
	Home string
	// Log receives a line for every managed server started, stopped with
	// a problem or reaped, as dbarena prints them on its standard error
	// (default: nothing).
	Log io.Writer
}

func (e Env) defaults() Env {
	if e.Getenv == nil {
		e.Getenv = os.Getenv
	}
	if e.Log == nil {
		e.Log = io.Discard
	}
	return e
}

func (e Env) home() (string, error) {
	if e.Home != "" {
		return e.Home, nil
	}
	return DataDir(e.Getenv)
}

// TargetSpec says which database Resolve opens.
type TargetSpec struct {
	// URL is the target as written, optionally labelled
	// ("[label=]postgres://user@host:port/db", mysql://…, mongodb://…/db,
	// sqlite:///path.db); "managed:postgres?shared_buffers=1GB" starts a
	// managed server for the target, stopped when its engine closes;
	// "managed:NAME" uses a started one. Empty: the embedded SQLite file
	// default.db in the data directory.
	URL string
	// Label, when set, labels the target (a label in URL gives way to
	// it), and a managed server started for it is named after it (see
	// server.Spec.Label), as a plan's targets are.
	Label string
	// PasswordFile is a file holding the password (else the URL's, else
	// the engine's variable).
	PasswordFile string
	// ConnectTimeout bounds connecting (0: DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// Rewrite, when set, may change the parsed target before it is
	// opened (the CLI sets MongoDB's concerns from its flags); its error
	// is returned as it is.
	Rewrite func(*engine.Target) error
	// Workload, when set, is what the target is opened for: Resolve
	// refuses a target whose engine it cannot run with its options as
	// set (no implementation for the engine's family, or what its
	// Spec.Supports refuses) before the engine is opened; a managed
	// server started for the target is stopped again.
	Workload workload.Workload
	// Shards, above 1, is the count of a sharded run's shards, which
	// need a target every shard reaches: Resolve refuses a managed
	// server (each shard would start its own) and an embedded engine
	// (each host its own file) before anything starts.
	Shards int
}

// ErrNotShared is a target the shards of a sharded run cannot share.
var ErrNotShared = errors.New("not a target for shards")

// Resolved is an open target.
type Resolved struct {
	Target engine.Target
	// Engine is the target's engine; closing it stops the managed server
	// started for it.
	Engine engine.Engine
	// Fresh is true for the embedded default and a managed server started
	// for the target: dbarena's own, prepared on first use.
	Fresh bool
	// Server is the managed server behind a managed: target, or nil.
	Server *server.Server
}

// Resolve parses spec's target (or picks the embedded default), starts
// or finds its managed server, and opens its engine. A target without a
// label is labelled by its scheme (mysql) and, once connected, by the
// server it is (mariadb, result.Target.Product).
func Resolve(ctx context.Context, spec TargetSpec, env Env) (*Resolved, error) {
	env = env.defaults()
	timeout := spec.ConnectTimeout
	if timeout == 0 {
		timeout = DefaultConnectTimeout
	}
	if timeout < 0 {
		return nil, &workload.OptionError{Flag: "connect-timeout", Value: timeout.String(), Err: "must be positive"}
	}
	r := &Resolved{}
	raw := spec.URL
	if raw == "" {
		dir, err := env.home()
		if err != nil {
			return nil, err
		}
		// The embedded default's directory is dbarena's own: made here.
		// A sqlite target elsewhere needs its directory to exist.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
		raw = "sqlite=sqlite://" + filepath.ToSlash(filepath.Join(dir, "default.db"))
		r.Fresh = true
	}
	t, err := engine.ParseTarget(raw, spec.PasswordFile, env.Getenv)
	if err != nil {
		return nil, err
	}
	if spec.Rewrite != nil {
		if err := spec.Rewrite(&t); err != nil {
			return nil, err
		}
	}
	byScheme := t.Label == t.URL.Scheme && !strings.HasPrefix(raw, t.Label+"=")
	if spec.Label != "" {
		t.Label, byScheme = spec.Label, false
	}
	if spec.Shards > 1 {
		reg, _ := engine.Lookup(t.URL.Scheme)
		switch {
		case t.URL.Scheme == server.Scheme:
			return nil, fmt.Errorf("%w: target %s: a managed server, which each of the %d shards would start on its own host: give the URL of a server every shard reaches", ErrNotShared, t.Redacted(), spec.Shards)
		case reg.Dialect != nil && reg.Dialect.Capabilities().Embedded:
			return nil, fmt.Errorf("%w: target %s: an embedded engine, a file of each shard's host: give the URL of a server every shard reaches", ErrNotShared, t.Redacted())
		}
	}
	var stop func() error
	if t.URL.Scheme == server.Scheme {
		if r.Server, t, stop, err = openManaged(ctx, env, t, spec.PasswordFile); err != nil {
			return nil, err
		}
		r.Fresh = stop != nil // a new server is empty
	}
	if err := runsOn(spec.Workload, t); err != nil {
		if stop != nil {
			_ = stop()
		}
		return nil, err
	}
	r.Target = t
	r.Engine, err = engine.Open(ctx, t, engine.Options{ConnectTimeout: timeout})
	if err != nil {
		if stop != nil {
			_ = stop()
		}
		return nil, err
	}
	if stop != nil {
		r.Engine = &managedEngine{Engine: r.Engine, stop: stop}
	}
	if byScheme && r.Server == nil {
		r.Target.Label = productLabel(ctx, r.Engine, r.Target.Label)
	}
	return r, nil
}

// Open opens a session on r (see Open) with opt's Engine, Target,
// Managed and Knobs set from r. The session owns r's engine from here on.
func (r *Resolved) Open(ctx context.Context, opt Options) (*Session, error) {
	opt.Engine, opt.Target = r.Engine, r.Target
	if r.Server != nil {
		opt.Managed = r.Server
		for _, k := range r.Server.Knobs() {
			if opt.Knobs == nil {
				opt.Knobs = map[string]string{}
			}
			opt.Knobs[k.Name] = k.Value
		}
	}
	return Open(ctx, opt)
}

// productLabel is the server behind eng as a reader names it
// (result.Target.Product: mariadb for a MariaDB server the mysql engine
// drives), or label when the server does not say.
func productLabel(ctx context.Context, eng engine.Engine, label string) string {
	info, err := eng.ServerInfo(ctx)
	if err != nil {
		return label
	}
	t := result.Target{Engine: eng.Name(), ServerVersion: info.Version}
	return t.Product()
}

// ReapOrphans stops and removes the managed servers of home that a
// dbarena process started for one command and left running when it was
// killed (server.Reap), but those named in keep, with a line on log for
// each.
func ReapOrphans(home string, log io.Writer, keep ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reaped, err := server.Reap(ctx, home, keep...)
	for _, s := range reaped {
		fmt.Fprintf(log, "dbarena: stopped managed %s %s, left running by dbarena process %d, which ended without stopping it; its files are removed\n",
			s.Kind(), s.Name(), s.Owner())
	}
	if err != nil {
		fmt.Fprintf(log, "dbarena: warning: a managed server left running by an ended dbarena: %v\n", err)
	}
}

// openManaged resolves a managed: target: a new server, started here and
// stopped by stop when the target's engine closes, or a started one by
// name (stop is nil then: it stays).
func openManaged(ctx context.Context, env Env, t engine.Target, passwordFile string) (srv *server.Server, target engine.Target, stop func() error, err error) {
	if passwordFile != "" {
		return nil, t, nil, &workload.OptionError{Flag: "password-file", Value: passwordFile, Err: "a managed target has a password of its own"}
	}
	spec, err := server.ParseManaged(t.URL.String())
	if err != nil {
		return nil, t, nil, err
	}
	home, err := env.home()
	if err != nil {
		return nil, t, nil, err
	}
	ReapOrphans(home, env.Log)
	userLabel := t.Label != server.Scheme
	relabel := func(s *server.Server) engine.Target {
		tg := s.Target()
		if userLabel {
			tg.Label = t.Label
		}
		return tg
	}
	if spec.Kind == "" {
		if srv, err = server.Lookup(home, spec.Name); err != nil {
			return nil, t, nil, err
		}
		if !srv.Alive() {
			return nil, t, nil, fmt.Errorf("%w: managed server %s does not run (dbarena server stop %s removes it); the end of its log:\n%s",
				engine.ErrConnect, spec.Name, spec.Name, srv.LogTail(10))
		}
		return srv, relabel(srv), nil, nil
	}
	// The server is this process's: should it be killed before it stops
	// the server, the next dbarena reaps it.
	spec.Home, spec.Getenv, spec.Owned = home, env.Getenv, true
	if userLabel {
		spec.Label = t.Label // server list names it so
	}
	if errs := spec.Validate(); len(errs) > 0 {
		return nil, t, nil, errors.Join(errs...)
	}
	if srv, err = server.Start(ctx, spec); err != nil {
		return nil, t, nil, err
	}
	fmt.Fprintf(env.Log, "dbarena: started managed %s %s on 127.0.0.1:%d; it stops when this command ends\n", srv.Kind(), srv.Name(), srv.Port())
	stop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		err := srv.Stop(ctx)
		if err != nil {
			fmt.Fprintf(env.Log, "dbarena: warning: stopping managed %s %s: %v\n", srv.Kind(), srv.Name(), err)
		}
		return err
	}
	return srv, relabel(srv), stop, nil
}

// managedEngine is the engine of a managed server started for its target:
// closing it stops the server too, once.
type managedEngine struct {
	engine.Engine
	stop    func() error
	once    sync.Once
	stopErr error
}

// Close closes the engine, then stops the server.
func (e *managedEngine) Close() error {
	err := e.Engine.Close()
	e.once.Do(func() { e.stopErr = e.stop() })
	return errors.Join(err, e.stopErr)
}

// Unwrap returns the server's own engine.
func (e *managedEngine) Unwrap() engine.Engine { return e.Engine }

// runsOn refuses t when w (if any) cannot run on its engine with its
// options as set: workload.ForFamily, judged by the engine's registered
// dialect, so that nothing is opened first.
func runsOn(w workload.Workload, t engine.Target) error {
	if w == nil {
		return nil
	}
	reg, ok := engine.Lookup(t.URL.Scheme)
	if !ok {
		return nil // engine.Open names the unknown scheme
	}
	_, err := workload.ForFamily(w, reg.Dialect)
	return err
}
