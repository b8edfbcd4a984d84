package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/result"
)

// `dbarena run --events N` ends each run of a sweep after exactly N
// transactions, with no limit in time unless --time is given too, and
// the result file records the limit.
func TestRunEvents(t *testing.T) {
	ctx := context.Background()
	u := sqliteURL(t)
	out := filepath.Join(t.TempDir(), "r.json")
	if o := dbarena(t, ctx, nil, "prepare", "oltp_point_select", "--table-size", "1000", "--target", u); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	o := dbarena(t, ctx, nil, "run", "oltp_point_select", "--table-size", "1000", "--target", u, "--threads", "1,3",
		"--events", "1234", "--report-interval", "100ms", "--out", out)
	if o.code != 0 {
		t.Fatalf("exit %d: %s%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stdout, "3 threads, 1234 transactions (warm-up 0s)") || !strings.Contains(o.stdout, "events limit:                        1234 transactions") {
		t.Errorf("output lacks the run's limit:\n%s", o.stdout)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(f.Runs))
	}
	for _, r := range f.Runs {
		if r.Transactions+r.Errors != 1234 || r.Events != 1234 || r.Status != result.StatusComplete {
			t.Errorf("threads %d: %d transactions, %d errors, events %d, %s; want 1234 in all", r.Threads, r.Transactions, r.Errors, r.Events, r.Status)
		}
	}
}

// A count of events below 1, or one beside the analytic timing model, is
// refused before any work, naming the flag and its value.
func TestRunEventsBad(t *testing.T) {
	ctx := context.Background()
	u := sqliteURL(t)
	out := filepath.Join(t.TempDir(), "r.json")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--events", "0"}, []string{"--events 0", "at least 1"}},
		{[]string{"--events", "-3", "--time", "5s"}, []string{"--events -3", "at least 1"}},
		{[]string{"--events", "many"}, []string{"--events", "many"}},
		{[]string{"--events", "10", "--time", "-1s"}, []string{"--time -1s", "negative"}},
	} {
		o := dbarena(t, ctx, nil, append([]string{"run", "oltp_point_select", "--target", u, "--out", out}, tc.args...)...)
		if o.code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", tc.args, o.code, cli.ExitUsage, o.stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(o.stderr, w) {
				t.Errorf("%v: stderr lacks %q: %s", tc.args, w, o.stderr)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
		}
	}
}

// A workload with an option of its own named events (docolap's: the
// events it generates) keeps it; the run's limit is --run-events there,
// and its errors name that flag.
func TestRunEventsBesideWorkloadOption(t *testing.T) {
	ctx := context.Background()
	o := dbarena(t, ctx, nil, "run", "docolap", "--target", sqliteURL(t), "--events", "5000", "--run-events", "0")
	if o.code != cli.ExitUsage || !strings.Contains(o.stderr, "--run-events 0: must be at least 1 transaction") || strings.Contains(o.stderr, "--events 5000") {
		t.Errorf("exit %d: %s", o.code, o.stderr)
	}
	o = dbarena(t, ctx, nil, "run", "docolap", "--help")
	if !strings.Contains(o.stdout, "--run-events int") || !strings.Contains(o.stdout, "events to generate") {
		t.Errorf("help:\n%s", o.stdout)
	}
}
