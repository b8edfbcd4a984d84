package result

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
)

// withSteps gives op 0 of f's run two steps, filled from what a worker
// recorded: the latencies (µs) of step 0 and step 1, and failures of
// step 1 in failed (retried when retried) transactions.
func withSteps(t *testing.T, f *File, lat [2][]int64, failures, retries int) *File {
	t.Helper()
	r := histogram.NewRecorder(2)
	s := r.EnableSteps([]int{2, 0})
	for j, vs := range lat {
		for _, v := range vs {
			s.Done(0, j, time.Duration(v)*time.Microsecond)
			r.Success(0, time.Millisecond, histogram.Queries{})
		}
	}
	for range failures {
		s.Failed(0, 1)
		r.Failure(0, false, histogram.Queries{})
	}
	for range retries {
		s.Failed(0, 1)
		r.Failure(0, true, histogram.Queries{})
	}
	iv := histogram.NewInterval(2)
	r.Collect(iv)
	f.Runs[0].FillSteps(iv, [][]Step{{{Name: "command 0 (line 1)", Text: `\set aid random(1, 10)`}, {Name: "command 1 (line 2)", Text: "SELECT 1;"}}, nil})
	return f
}

// The steps of shards merge as ops do: counts and failures added,
// percentiles those of all the values together; shards whose steps
// differ are refused.
func TestMergeSteps(t *testing.T) {
	a := [2][]int64{{10, 20, 30}, {100, 1900}}
	b := [2][]int64{{40}, {200, 300, 400}}
	fa := withSteps(t, shard(t, t0, 1, tick{lat: [2][]int64{{100}, {200}}}), a, 2, 0)
	fb := withSteps(t, shard(t, t0, 2, tick{lat: [2][]int64{{100}, {200}}}), b, 1, 3)
	st := fa.Runs[0].Ops[0].Steps
	if len(st) != 2 || st[0].Count != 3 || st[1].Count != 2 || st[1].Failures != 2 || st[0].LatencyMS.Max != 0.03 || st[0].Text != `\set aid random(1, 10)` {
		t.Fatalf("filled steps %+v", st)
	}
	if len(fa.Runs[0].Ops[1].Steps) != 0 {
		t.Errorf("op without steps got %+v", fa.Runs[0].Ops[1].Steps)
	}
	m, err := Merge(fa, fb)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Runs[0].Ops[0].Steps
	for j, want := range [][]int64{append(a[0], b[0]...), append(a[1], b[1]...)} {
		if got[j].Count != int64(len(want)) || got[j].Name != st[j].Name || got[j].LatencyMS.P50 != hdrPercentile(want, 50) ||
			got[j].LatencyMS.Max != hdrPercentile(want, 100) || !near(got[j].LatencyMS.Mean, mean(want)) {
			t.Errorf("step %d: %+v, want %d values, p50 %v, max %v, mean %v", j, got[j], len(want), hdrPercentile(want, 50), hdrPercentile(want, 100), mean(want))
		}
	}
	if got[1].Failures != 3 || got[1].Retries != 3 || got[0].Failures != 0 {
		t.Errorf("failures %d/%d retries %d, want 3/0 and 3", got[1].Failures, got[0].Failures, got[1].Retries)
	}
	if h, err := histogram.Decode(got[1].HDR); err != nil || h.TotalCount() != 5 {
		t.Errorf("merged step hdr: %v, %v", h, err)
	}

	fc := withSteps(t, shard(t, t0, 3, tick{lat: [2][]int64{{100}, {200}}}), b, 0, 0)
	fc.Runs[0].Ops[0].Steps[1].Name = "command 1 (line 3)"
	_, err = Merge(fa, fc)
	var me *MergeError
	if !errors.As(err, &me) || me.Field != "runs[0].ops[0].steps" || !strings.Contains(err.Error(), "steps differ") {
		t.Errorf("merging different steps: %v, want a MergeError on runs[0].ops[0].steps", err)
	}
}
