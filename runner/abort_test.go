package runner_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
)

// aborter fails the run from the second interval it is told of.
type aborter struct {
	seen int
	err  error
}

func (a *aborter) OnTick(t runner.Tick) {
	a.seen++
	if a.seen >= 2 {
		t.Abort(a.err)
		t.Abort(errors.New("a second call does nothing"))
	}
}

// An observer's Tick.Abort fails the run with its error at once: the run
// stops long before its end, keeps what it measured, and its status and
// error are the abort's.
func TestObserverAborts(t *testing.T) {
	eng := open(t)
	stop := errors.New("stop here")
	a := &aborter{err: stop}
	run, err := runner.Run(context.Background(), eng, &probe{}, runner.Config{
		Threads: 1, Duration: 30 * time.Second, ReportInterval: 100 * time.Millisecond,
	}, a)
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the abort's", err)
	}
	if run == nil || run.Status != result.StatusFailed || run.Error != "stop here" || run.Transactions == 0 {
		t.Fatalf("run = %+v, want failed with its transactions", run)
	}
	if run.DurationS > 20 {
		t.Errorf("run lasted %vs, want it stopped at the abort", run.DurationS)
	}
}
