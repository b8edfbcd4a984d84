package script_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/runner"
)

// TestPerCommandStatistics runs a script whose third command fails one
// transaction in four: the result file has every command of the script
// as a step, named by its number and line, with its text; the commands
// run by every transaction count them all, the failing command counts
// the run's errors as its failures and no execution, the last command
// the successful transactions only (the \endif is passed over by a
// false \if, and reached only by the failing branch); the summary prints
// them.
func TestPerCommandStatistics(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.SQLite(t))
	src := `\set r random(1, 4)
\if :r = 1
SELECT * FROM no_such_table;
\endif
SELECT :r;
`
	file := filepath.Join(t.TempDir(), "fails.sql")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	w := parse(t, "--file", file, "--builtin", "select-only@0")
	res, err := runner.Run(ctx, e, w, runner.Config{Threads: 2, Duration: time.Second, Seed: 3, TolerateErrors: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	op := res.Ops[0]
	st := op.Steps
	if len(st) != 5 {
		t.Fatalf("%d steps, want 5: %+v", len(st), st)
	}
	if st[2].Name != "command 2 (line 3)" || st[2].Text != "SELECT * FROM no_such_table;" || st[0].Text != `\set r random(1, 4)` {
		t.Errorf("steps named %q %q, %q", st[2].Name, st[2].Text, st[0].Text)
	}
	if op.Count == 0 || res.Errors == 0 {
		t.Fatalf("%d transactions, %d errors: want both", op.Count, res.Errors)
	}
	all := op.Count + res.Errors
	for i, want := range []struct{ count, failures int64 }{{all, 0}, {all, 0}, {0, res.Errors}, {0, 0}, {op.Count, 0}} {
		if st[i].Count != want.count || st[i].Failures != want.failures || st[i].Retries != 0 {
			t.Errorf("step %d: count %d failures %d retries %d; want %d, %d, 0", i, st[i].Count, st[i].Failures, st[i].Retries, want.count, want.failures)
		}
	}
	if st[4].LatencyMS.Max <= 0 || st[2].HDR == "" {
		t.Errorf("step 4 latency %+v, step 2 hdr %q", st[4].LatencyMS, st[2].HDR)
	}
	if len(res.Ops[1].Steps) != 2 || res.Ops[1].Steps[1].Count != 0 {
		t.Errorf("select-only, weight 0: steps %+v, want 2 without executions", res.Ops[1].Steps)
	}
	var b strings.Builder
	report.Summary(&b, res)
	if !strings.Contains(b.String(), "Per step (latency in ms):") || !regexp.MustCompile(`command 2 \(line 3\) +0 +[0-9]+ +0 .* SELECT \* FROM no_such_table;`).MatchString(b.String()) {
		t.Errorf("summary without the steps:\n%s", b.String())
	}
}
