package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/result"
)

// `dbarena run --rate-stages` without --time runs for the stages' length,
// ramps the rate as they say, and prints and stores what was offered.
func TestRunRateStages(t *testing.T) {
	ctx := context.Background()
	u := sqliteURL(t)
	out := filepath.Join(t.TempDir(), "r.json")
	if o := dbarena(t, ctx, nil, "prepare", "oltp_point_select", "--table-size", "1000", "--target", u); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	// 0 → 100/s over 1 s (50 arrivals), then 100/s → 0 over 1 s (50).
	o := dbarena(t, ctx, nil, "run", "oltp_point_select", "--table-size", "1000", "--target", u, "--threads", "2",
		"--rate-stages", "1s:100,1s:0", "--arrival", "uniform", "--report-interval", "500ms", "--out", out)
	if o.code != 0 {
		t.Fatalf("exit %d: %s%s", o.code, o.stdout, o.stderr)
	}
	for _, want := range []string{"uniform arrivals, stages 1s:100,1s:0", "offered: 75.00", "offered:                             50.00 per sec.", "from intended start"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, o.stdout)
		}
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Runs[0]
	if r.DurationS < 1.99 || r.DurationS > 2.1 || r.Transactions < 99 || r.Transactions > 101 || r.OfferedTPS != 50 {
		t.Errorf("ran %vs, %d transactions, offered %v/s: want 2 s, 100 ± 1, 50/s", r.DurationS, r.Transactions, r.OfferedTPS)
	}
	if r.Open == nil || r.Open.RateStages != "1s:100,1s:0" || r.Open.Arrival != "uniform" {
		t.Errorf("open %+v", r.Open)
	}
}

// `dbarena run --rate` far above what the target keeps up with ends on
// time (the arrivals that never started are counted, not stepped
// through), keeps every arrival's count in the result file, and warns on
// its standard error and in the run's warnings that most of them never
// started.
func TestRunRateShortfall(t *testing.T) {
	ctx := context.Background()
	u := sqliteURL(t)
	out := filepath.Join(t.TempDir(), "r.json")
	if o := dbarena(t, ctx, nil, "prepare", "oltp_point_select", "--table-size", "1000", "--target", u); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	done := make(chan outcome, 1)
	go func() {
		done <- dbarena(t, ctx, nil, "run", "oltp_point_select", "--table-size", "1000", "--target", u, "--threads", "2",
			"--rate", "1e8", "--time", "1s", "--report-interval", "250ms", "--out", out)
	}()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("a 1 s run at --rate 1e8 has not ended after 20 s")
	}
	if o.code != 0 {
		t.Fatalf("exit %d: %s%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, "warning: only ") || !strings.Contains(o.stderr, "arrivals offered started") {
		t.Errorf("stderr lacks the warning that most arrivals did not start: %q", o.stderr)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Runs[0]
	if r.Offered < 5e7 || r.Started == 0 || r.Started+r.Unstarted+r.Skipped+r.Dropped != r.Offered || r.UnstartedMS == nil || r.UnstartedMS.Max <= 0 {
		t.Errorf("offered %d, started %d, unstarted %d (waits %+v): want about 1e8 offered, some started, the rest unstarted with their waits",
			r.Offered, r.Started, r.Unstarted, r.UnstartedMS)
	}
	if len(r.Warnings) == 0 || !strings.Contains(strings.Join(r.Warnings, "\n"), "arrivals offered started") {
		t.Errorf("warnings %q", r.Warnings)
	}
	if !strings.Contains(o.stdout, "unstarted at the end:") || !strings.Contains(o.stdout, "waited p50") {
		t.Errorf("the summary lacks the unstarted arrivals' waits:\n%s", o.stdout)
	}
}
