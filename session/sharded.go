package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/shard"
)

// sharded is what Measure adds to the runs of a shard of a sharded run
// (Options.Shard): a start barrier before every run, the run's place in
// the sharded run, and the result file stored in the target at the end.
type sharded struct {
	s      *Session
	spec   *shard.Spec
	part   string // the result's name among the run's (a plan's cell)
	config string // what every shard must run alike
	starts map[int]shard.Start
}

func (s *Session) sharded(part string, file *result.File) *sharded {
	spec := s.opt.Shard
	if spec == nil {
		return nil
	}
	if part == "" {
		part = "run"
	} else {
		spec = spec.In(part) // the part's barriers and failures are its own
	}
	file.Identity.RunID, file.Identity.Index, file.Identity.Count = spec.Run, spec.Index, spec.Count
	keys := make([]string, 0, len(file.Workload.Options))
	for k := range file.Workload.Options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	lines := []string{"workload=" + file.Workload.Name, fmt.Sprintf("seed=%d", file.Seed)}
	for _, k := range keys {
		lines = append(lines, k+"="+file.Workload.Options[k])
	}
	return &sharded{s: s, spec: spec, part: part, config: strings.Join(lines, "\n"), starts: map[int]shard.Start{}}
}

// configure makes cfg, the file's run i, a shard's run that starts at
// its barrier.
func (h *sharded) configure(i int, cfg *runner.Config) error {
	if cfg.Tries != nil && h.spec.Count > 1 {
		return fmt.Errorf("--tries runs each query on one connection, one after the other: it cannot run as %d shards", h.spec.Count)
	}
	cfg.Shard = h.spec.Shard()
	config := h.config + fmt.Sprintf("\nthreads=%d", cfg.Threads)
	cfg.Start = func(ctx context.Context) (time.Time, error) {
		c, err := h.s.opt.Engine.Connect(ctx)
		if err != nil {
			return time.Time{}, err
		}
		defer c.Close()
		st, err := h.spec.Arrive(ctx, c.Catalog(), fmt.Sprintf("run %d", i), config)
		if err != nil {
			return time.Time{}, err
		}
		h.starts[i] = st
		return st.At, nil
	}
	return nil
}

// record sets run i's barrier.
func (h *sharded) record(i int, run *result.Run) {
	st, ok := h.starts[i]
	if !ok {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	run.Barrier = &result.Barrier{At: st.Server.UTC(), Starts: []result.ShardStart{{
		Shard: h.spec.Index, Started: st.Clock.ToServer(run.StartedAt).UTC(),
		ClockOffsetMS: ms(st.Clock.Offset), ClockErrorMS: ms(st.Clock.Error),
	}}}
}

// store keeps file in the target's result records; a shard that failed
// before its first run stores a file that says so, and tells the shards
// waiting for it at a barrier.
func (h *sharded) store(ctx context.Context, file *result.File, runErr error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	c, err := h.s.opt.Engine.Connect(ctx)
	if err != nil {
		return fmt.Errorf("storing the result of shard %d in the target: %w", h.spec.Index, err)
	}
	defer c.Close()
	cat := c.Catalog()
	if runErr != nil && !errors.Is(runErr, runner.ErrInterrupted) {
		var ie *shard.IncompleteError
		var fe *shard.FailedError
		if !errors.As(runErr, &ie) && !errors.As(runErr, &fe) {
			_ = h.spec.Fail(ctx, cat, h.s.opt.Scrub(runErr.Error()))
		}
	}
	b, err := json.Marshal(file)
	if err != nil {
		return err
	}
	if err := h.spec.Store(ctx, cat, h.part, b); err != nil {
		return fmt.Errorf("storing the result of shard %d in the target: %w", h.spec.Index, err)
	}
	return nil
}
