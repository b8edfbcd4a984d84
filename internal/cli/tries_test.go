package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/result"
)

// The timing model's options are refused before any work, naming the
// flag and its value.
func TestTriesOptionsRefused(t *testing.T) {
	ctx := context.Background()
	sq := sqliteURL(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"tries 0", []string{"run", "docolap", "--tries", "0", "--target", sq}, "--tries 0: must be at least 1"},
		{"query timeout alone", []string{"run", "docolap", "--query-timeout", "1m", "--target", sq}, "--query-timeout 1m0s: limits the tries of the analytic timing model: give --tries too"},
		{"threads", []string{"run", "docolap", "--tries", "3", "--threads", "4", "--target", sq}, "--threads 4: the analytic timing model (--tries) runs its queries on one connection"},
		{"cold unknown", []string{"run", "docolap", "--tries", "3", "--cold", "frozen", "--target", sq}, "--cold frozen: want restart, drop-caches, none"},
		{"cold alone", []string{"run", "docolap", "--cold", "none", "--target", sq}, "--cold none: says how the first tries of the analytic timing model are made cold: give --tries too"},
		{"cold restart on a URL", []string{"run", "docolap", "--tries", "3", "--cold", "restart", "--target", sq}, "--cold restart: target sqlite=" + sq + " is not a managed server that dbarena can restart"},
		{"drop caches on the default", []string{"run", "docolap", "--tries", "3", "--cold", "drop-caches"}, "--cold drop-caches: target the embedded default (SQLite) is not a managed server"},
		{"not queries", []string{"run", "oltp_point_select", "--tries", "3", "--target", sq}, "--tries 3: the workload's operations are not queries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := dbarena(t, ctx, nil, tc.args...)
			if o.code != cli.ExitUsage || !strings.Contains(o.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", o.code, o.stderr, cli.ExitUsage, tc.want)
			}
		})
	}
}

// compare shows result files of the timing model as the study's table of
// queries, and names a query whose answers differ between the engines.
func TestCompareTries(t *testing.T) {
	ctx := context.Background()
	dir := "../../plan/testdata/studies/docolap-study-results/"
	pg, mongo := dir+"postgres__docolap__t1__r1.json", dir+"mongodb__docolap__t1__r1.json"
	o := dbarena(t, ctx, nil, "compare", pg, mongo)
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	for _, want := range []string{"query  postgres cold  mongodb cold  cold % speedup", "first tries: postgres cold; mongodb lukewarm"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("compare lacks %q:\n%s", want, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "answers differ") {
		t.Errorf("the engines' answers are the same:\n%s", o.stdout)
	}

	// The same file again under another label, with one answer changed.
	f, err := result.Read(mongo)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Runs[0].Tries.Queries[2].Tries {
		f.Runs[0].Tries.Queries[2].Tries[i].Hash = "0123456789abcdef0123456789abcdef"
	}
	other := filepath.Join(t.TempDir(), "other.json")
	if err := result.Write(other, f); err != nil {
		t.Fatal(err)
	}
	o = dbarena(t, ctx, nil, "compare", "--format", "md", pg, "other="+other)
	want := "- query C: the answers differ: postgres 10 rows ("
	if o.code != 0 || !strings.Contains(o.stdout, want) || !strings.Contains(o.stdout, "other 10 rows (0123456789ab)") {
		t.Errorf("exit %d, want %q naming both engines:\n%s%s", o.code, want, o.stdout, o.stderr)
	}
}
