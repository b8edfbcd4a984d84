package runner_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// mortal is an engine without a server whose "server" can die: its
// connections then break and no new one can be opened.
type mortal struct {
	engine.Engine
	dead *atomic.Bool
}

func (e mortal) Connect(context.Context) (engine.Conn, error) {
	if e.dead.Load() {
		return nil, errors.New("connection refused")
	}
	return memConn{}, nil
}

// breaking is a workload whose transactions take a millisecond and fail
// with a lost connection once the server is dead.
type breaking struct{ dead *atomic.Bool }

func (p *breaking) Meta() workload.Meta {
	return workload.Meta{Name: "breaking", Version: "1", New: func() workload.Workload { return p }}
}
func (p *breaking) Flags() *pflag.FlagSet                  { return pflag.NewFlagSet("breaking", pflag.ContinueOnError) }
func (p *breaking) Ops() []workload.Op                     { return []workload.Op{{Name: "a"}} }
func (p *breaking) Tables(engine.Dialect) []workload.Table { return nil }
func (p *breaking) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	return p, nil
}
func (p *breaking) Next(context.Context) (int, error) {
	time.Sleep(time.Millisecond)
	if p.dead.Load() {
		return 0, driver.ErrBadConn
	}
	return 0, nil
}

// A server that stops answering (every worker's connection lost, none can
// be opened again) fails the run, --tolerate-errors or not, long before
// its --time; what was measured is kept.
func TestServerGoneFailsRun(t *testing.T) {
	dead := new(atomic.Bool)
	time.AfterFunc(300*time.Millisecond, func() { dead.Store(true) })
	run, err := runWithPolicy(context.Background(), mortal{open(t), dead}, &breaking{dead}, runner.Config{
		Threads: 4, Duration: time.Minute, TolerateErrors: true, ReconnectTimeout: 2 * time.Second,
	}, nil)
	if !errors.Is(err, runner.ErrServerGone) {
		t.Fatalf("err = %v, want ErrServerGone", err)
	}
	if run == nil || run.Status != result.StatusFailed || run.Transactions == 0 || run.Errors != 0 || run.Reconnects != 0 {
		t.Fatalf("run = %+v, want failed, with the transactions before the server died and no errors", run)
	}
	if run.DurationS > 30 {
		t.Errorf("the run lasted %vs of its minute", run.DurationS)
	}
}

// Define is the test workload's Spec, made of its methods.
func (r *breaking) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r *breaking) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}
