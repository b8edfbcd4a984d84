package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

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
