package session

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
)

// Restarter is a managed server that can be restarted with its data
// (package server's *Server is one). On one, the analytic timing model's
// first try of each query is cold: the session restarts the server
// before it.
type Restarter interface {
	Restart(ctx context.Context) error
}

// dropCachesFile is where Linux takes the order to drop its page cache.
const dropCachesFile = "/proc/sys/vm/drop_caches"

// coldHook is the analytic timing model's Cold (timing.Analytic) for the
// session's target: restart a managed server that can be, drop the
// operating system's page cache where permitted (writing 1 to
// /proc/sys/vm/drop_caches needs root, and a container may forbid it
// even then), and wait until the server takes connections again. It is
// nil for a target dbarena cannot restart, whose first tries are
// lukewarm.
func (s *Session) coldHook() func(ctx context.Context) (string, error) {
	r, ok := s.opt.Managed.(Restarter)
	if !ok {
		return nil
	}
	warned := false
	return func(ctx context.Context) (string, error) {
		if err := r.Restart(ctx); err != nil {
			return "", err
		}
		label := result.LabelCold
		if err := dropPageCache(); err != nil {
			label = result.LabelColdCacheKept
			if !warned {
				warned = true
				fmt.Fprintf(s.opt.Log, "the OS page cache is kept between cold tries: %v\n", err)
			}
		}
		return label, waitForServer(ctx, s.opt.Engine, time.Minute)
	}
}

// dropPageCache writes the dirty pages out and drops the clean ones from
// the page cache.
func dropPageCache() error {
	syscall.Sync()
	return os.WriteFile(dropCachesFile, []byte("1\n"), 0)
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
