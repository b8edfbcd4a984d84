package session

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/server"
	"github.com/dbarena/dbarena/workload"
)

// Restarter is a managed server that can be restarted with its data
// (package server's *Server is one, for every kind that holds its data).
// On one, the analytic timing model's first try of each query is cold:
// the session restarts the server before it (--cold restart, the
// default, or drop-caches).
type Restarter interface {
	Restart(ctx context.Context) error
}

// DropCachesFile is where Linux takes the order to drop its page cache
// (Options.DropCachesFile's default).
const DropCachesFile = "/proc/sys/vm/drop_caches"

// restarterOf is the managed server m as a Restarter, when it can be
// restarted: not a server in front of another (PgBouncer), whose backend
// holds the data.
func restarterOf(m Managed) (Restarter, bool) {
	r, ok := m.(Restarter)
	if !ok {
		return nil, false
	}
	if f, ok := m.(interface{ InFront() bool }); ok && f.InFront() {
		return nil, false
	}
	return r, true
}

// ColdMode is the cold mode of the analytic timing model's first tries
// on a target (mode as --cold gives it, "" for the default): mode when
// given, else timing.ColdRestart on a target dbarena can restart (a
// managed server) and timing.ColdNone on any other. It is the one place
// that decides the default.
func ColdMode(mode string, restartable bool) string {
	switch {
	case mode != "":
		return mode
	case restartable:
		return timing.ColdRestart
	}
	return timing.ColdNone
}

// CheckCold refuses a cold mode the target cannot have, before any work,
// naming --cold and the target: restart or drop-caches on a target
// dbarena cannot restart (not a managed server, or one in front of
// another), and drop-caches where dropCaches (DropCachesFile when "")
// cannot be written (CheckDropCaches). mode "" is the target's default
// and always holds.
func CheckCold(mode, target string, restartable bool, dropCaches string) error {
	if err := CheckRestartable(mode, target, restartable); err != nil {
		return err
	}
	if mode == timing.ColdDropCaches {
		return CheckDropCaches(dropCaches)
	}
	return nil
}

// CheckRestartable is CheckCold's first half, which reads nothing on
// this host: restart or drop-caches on a target dbarena cannot restart
// is refused, naming --cold and the target.
func CheckRestartable(mode, target string, restartable bool) error {
	if mode == "" || mode == timing.ColdNone || restartable {
		return nil
	}
	return &workload.OptionError{Flag: "cold", Value: mode,
		Err: fmt.Sprintf("target %s is not a managed server that dbarena can restart: give --cold none (its first tries are lukewarm) or a managed: target", target)}
}

// CheckDropCaches refuses --cold drop-caches where dropCaches
// (DropCachesFile when "") cannot be written: that needs root, and it
// empties the page cache of the whole host. It opens the file for
// writing and writes nothing.
func CheckDropCaches(dropCaches string) error {
	if dropCaches == "" {
		dropCaches = DropCachesFile
	}
	bad := func(msg string) error {
		return &workload.OptionError{Flag: "cold", Value: timing.ColdDropCaches, Err: msg}
	}
	f, err := os.OpenFile(dropCaches, os.O_WRONLY, 0)
	if err != nil {
		if os.Geteuid() != 0 {
			return bad(fmt.Sprintf("dropping the OS page cache needs root (%s cannot be written: %v); give --cold restart to restart the server only", dropCaches, err))
		}
		return bad(fmt.Sprintf("the OS page cache cannot be dropped here (%s cannot be written: %v; a container may forbid it); give --cold restart to restart the server only", dropCaches, err))
	}
	return f.Close()
}

// CheckColdTarget is CheckCold for a target as written (TargetSpec.URL;
// "" the embedded default), before it is resolved: only a managed:
// target can be restarted. Session.Measure checks again against the
// server it has (a managed PgBouncer cannot be restarted).
func CheckColdTarget(mode, raw, dropCaches string) error {
	if mode == "" || mode == timing.ColdNone {
		return nil
	}
	name, restartable := "the embedded default (SQLite)", false
	if raw != "" {
		t, err := engine.ParseTarget(raw, "", func(string) string { return "" })
		if err != nil {
			return nil // Resolve reports it
		}
		name, restartable = t.String(), t.URL.Scheme == server.Scheme
	}
	return CheckCold(mode, name, restartable, dropCaches)
}

// coldFor decides cfg's cold mode on the session's target, refusing one
// it cannot have (CheckCold), and sets it in cfg.ColdMode.
func (s *Session) coldFor(cfg *runner.Config) error {
	if cfg.Tries == nil {
		return nil
	}
	_, restartable := restarterOf(s.opt.Managed)
	if err := CheckCold(cfg.ColdMode, s.opt.Target.String(), restartable, s.opt.DropCachesFile); err != nil {
		return err
	}
	cfg.ColdMode = ColdMode(cfg.ColdMode, restartable)
	return nil
}

// coldHook is the analytic timing model's Cold (timing.Analytic) for the
// session's target in cold mode mode (decided by coldFor): with
// timing.ColdRestart, restart the managed server and wait until it takes
// connections again (the try is result.LabelColdCacheKept); with
// timing.ColdDropCaches, also write the dirty pages out and drop the
// operating system's page cache after the restart (result.LabelCold),
// failing the run when that fails. It is nil with timing.ColdNone: the
// first tries are lukewarm.
func (s *Session) coldHook(mode string) func(ctx context.Context) (string, error) {
	r, ok := restarterOf(s.opt.Managed)
	if !ok || mode == timing.ColdNone {
		return nil
	}
	drop := mode == timing.ColdDropCaches
	file := s.opt.DropCachesFile
	if file == "" {
		file = DropCachesFile
	}
	return func(ctx context.Context) (string, error) {
		if err := r.Restart(ctx); err != nil {
			return "", err
		}
		label := result.LabelColdCacheKept
		if drop {
			if err := dropPageCache(file); err != nil {
				return "", fmt.Errorf("--cold %s: dropping the OS page cache: %w", mode, err)
			}
			label = result.LabelCold
		}
		return label, waitForServer(ctx, s.opt.Engine, time.Minute)
	}
}

// dropPageCache writes the dirty pages out and drops the clean ones from
// the page cache, through file (DropCachesFile).
func dropPageCache(file string) error {
	syscall.Sync()
	return os.WriteFile(file, []byte("1\n"), 0)
}

// waitForServer waits until a new connection to eng pings, for up to
// limit: a restarted server may listen before it takes logins.
func waitForServer(ctx context.Context, eng engine.Engine, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := eng.Connect(ctx)
		if err == nil {
			err = c.Ping(ctx)
			c.Close()
			if err == nil {
				return nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the restarted server took no connection for %s: %w", limit, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// scrubTries removes secrets from the errors of a run's tries, as from
// the run's own error.
func scrubTries(run *result.Run, scrub func(string) string) {
	if run == nil || run.Tries == nil {
		return
	}
	for i := range run.Tries.Queries {
		q := &run.Tries.Queries[i]
		for j := range q.Tries {
			if q.Tries[j].Error != "" {
				q.Tries[j].Error = scrub(q.Tries[j].Error)
			}
		}
	}
}
