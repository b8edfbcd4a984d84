package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/shard"
	"github.com/dbarena/dbarena/workload"
)

// shardFlags are --shard, --run-id and --barrier-timeout: this process
// as one shard of a sharded run.
type shardFlags struct {
	shard   string
	runID   string
	timeout time.Duration
}

func (f *shardFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.shard, "shard", "", "run as shard INDEX/COUNT of a sharded run (0/3, 1/3, 2/3 on three hosts), which starts together at a barrier in the target; needs --run-id")
	fs.StringVar(&f.runID, "run-id", "", "the sharded run's name, the same on every shard (dbarena merge --from collects its results by it)")
	fs.DurationVar(&f.timeout, "barrier-timeout", shard.DefaultTimeout, "how long a shard waits at a barrier for the others before it fails naming those missing")
}

// spec returns the shard flags' Spec, nil without --shard.
func (f *shardFlags) spec() (*shard.Spec, error) {
	if f.shard == "" {
		if f.runID != "" {
			return nil, fmt.Errorf("--run-id %s: only with --shard", f.runID)
		}
		return nil, nil
	}
	i, n, err := shard.Parse(f.shard)
	if err != nil {
		return nil, err
	}
	sp := &shard.Spec{Index: i, Count: n, Run: f.runID, Timeout: f.timeout}
	if f.timeout <= 0 {
		return nil, fmt.Errorf("--barrier-timeout %v: must be positive", f.timeout)
	}
	if err := sp.Validate(); err != nil {
		return nil, err
	}
	return sp, nil
}

// checkSharded runs w's check once for a sharded run: every shard
// arrives at the check's barrier, shard 0 checks and stores its verdict
// in the target, and every shard reports that verdict.
func checkSharded(ctx context.Context, sp *shard.Spec, eng engine.Engine, w workload.Workload, check func() ([]workload.Problem, error)) ([]workload.Problem, error) {
	c, err := eng.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	cat := c.Catalog()
	config := "workload=" + w.Define().Meta.Name
	if _, err := sp.Arrive(ctx, cat, "check", config); err != nil {
		return nil, err
	}
	const verdict = "check verdict"
	if sp.Index == 0 {
		problems, err := check()
		if err != nil {
			_ = sp.Fail(ctx, cat, "check: "+err.Error())
			return nil, err
		}
		b, _ := json.Marshal(problems)
		if err := sp.Tell(ctx, cat, verdict, string(b)); err != nil {
			return nil, err
		}
		_, err = sp.Arrive(ctx, cat, "checked", config)
		return problems, err
	}
	if _, err := sp.Arrive(ctx, cat, "checked", config); err != nil {
		return nil, err
	}
	body, ok, err := sp.Told(ctx, cat, verdict, 0)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("shard 0 recorded no check verdict")
	}
	var problems []workload.Problem
	if err := json.Unmarshal([]byte(body), &problems); err != nil {
		return nil, fmt.Errorf("shard 0's check verdict: %w", err)
	}
	return problems, nil
}
