package runner_test

import (
	"context"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/workload"
)

// runWithPolicy is runner.Run in the process that session gives every
// run of dbarena's (session.ProcessFor): on PostgreSQL the workers run on
// client threads, on other engines served over a network (and the tests'
// engines without a server) on goroutines under a lower GOMAXPROCS.
func runWithPolicy(ctx context.Context, eng engine.Engine, w workload.Workload, cfg runner.Config, obs runner.Observer) (*result.Run, error) {
	cfg.Process = session.ProcessFor(eng, cfg)
	return runner.Run(ctx, eng, w, cfg, obs)
}
