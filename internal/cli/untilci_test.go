package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/result"
)

// run --until-ci repeats the sweep in rounds, keeps every round in the
// file with the rule's outcome, and compare says how it ended.
func TestRunUntilCI(t *testing.T) {
	ctx := context.Background()
	sq := sqliteURL(t)
	out := filepath.Join(t.TempDir(), "r.json")
	if o := dbarena(t, ctx, nil, "prepare", "oltp_point_select", "--tables", "1", "--table-size", "100", "--target", sq); o.code != 0 {
		t.Fatalf("prepare: %d %s", o.code, o.stderr)
	}
	o := dbarena(t, ctx, nil, "run", "oltp_point_select", "--tables", "1", "--table-size", "100", "--threads", "1,2", "--events", "300", "--warmup", "0s",
		"--until-ci", "50%", "--until-ci-min", "6", "--until-ci-max", "6", "--target", sq, "--out", out)
	if o.code != 0 {
		t.Fatalf("run: %d %s", o.code, o.stderr)
	}
	for _, want := range []string{"until-ci ±50%: round 1 done, the widest interval of tps no interval yet; another round", "until-ci ±50%: round 5 done"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	p := f.Precision
	if p == nil || p.Rounds != 6 || p.Metric != "tps" || p.WidthPct != 50 || (p.Stop != "reached" && p.Stop != "max") || len(f.Runs) != 12 {
		t.Fatalf("precision %+v, %d runs", p, len(f.Runs))
	}
	for i, r := range f.Runs {
		if want := []int{1, 2}[i%2]; r.Threads != want {
			t.Errorf("run %d has %d threads, want %d: the rounds interleave", i, r.Threads, want)
		}
	}
	c := dbarena(t, ctx, nil, "compare", out)
	if c.code != 0 || !strings.Contains(c.stdout, "(n=6)") || !strings.Contains(c.stdout, "until-ci ±50%: ") || !strings.Contains(c.stdout, "6 rounds") {
		t.Errorf("compare: %d\n%s%s", c.code, c.stdout, c.stderr)
	}
}
