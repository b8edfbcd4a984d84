package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
)

// Each bad input is refused before any work starts, with a message that
// names what is wrong and the exit code of bad input; none of them is
// silently ignored.
func TestClearMessages(t *testing.T) {
	// A refusal comes at once; an accepted one would start loading.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sq := sqliteURL(t)
	for _, tc := range []struct {
		name    string
		args    []string
		want    []string // in stderr
		notWant []string // not in stderr
	}{
		{"workload name typo", []string{"run", "oltp_pont_select", "--target", sq, "--threads", "2"},
			[]string{`unknown workload "oltp_pont_select"`, "oltp_point_select"}, []string{"unknown flag"}},
		{"workload name typo in prepare", []string{"prepare", "tpcx", "--warehouses", "1"},
			[]string{`unknown workload "tpcx"`}, []string{"unknown flag"}},
		{"query all in a list", []string{"run", "docolap", "--target", sq, "--query", "all,A"},
			[]string{"--query all,A", "all", "alone"}, []string{`unknown query "all"`}},
		{"rate stages shorter than warm-up", []string{"run", "oltp_point_select", "--target", sq, "--rate-stages", "5s:100", "--warmup", "10s"},
			[]string{"--warmup 10s", "--rate-stages 5s:100"}, []string{"--time -5s"}},
		{"pipeline in procedure mode", []string{"run", "tpce", "--target", sq, "--mode", "procedure", "--pipeline"},
			[]string{"--pipeline", "--mode procedure"}, nil},
		{"time with tries", []string{"run", "docolap", "--target", sq, "--tries", "2", "--time", "5s"},
			[]string{"--time 5s", "--tries"}, nil},
		{"warm-up with tries", []string{"run", "docolap", "--target", sq, "--tries", "2", "--warmup", "5s"},
			[]string{"--warmup 5s", "--tries"}, nil},
		{"tpce customers above the bound", []string{"prepare", "tpce", "--target", sq, "--customers", "1000000000"},
			[]string{"--customers 1000000000", "at most"}, nil},
		{"tpcc warehouses above the bound", []string{"prepare", "tpcc", "--target", sq, "--warehouses", "100000000"},
			[]string{"--warehouses 100000000", "at most"}, nil},
		{"payments accounts above the bound", []string{"prepare", "payments", "--target", sq, "--accounts", "100000000000"},
			[]string{"--accounts 100000000000", "at most"}, nil},
		{"docolap events above the bound", []string{"prepare", "docolap", "--target", sq, "--events", "100000000000000"},
			[]string{"--events 100000000000000", "at most"}, nil},
		{"pgbench scale above the bound", []string{"prepare", "script", "--target", sq, "--init", "pgbench", "--scale", "1000000"},
			[]string{"--scale 1000000", "at most"}, nil},
		{"airline schedules above the bound", []string{"prepare", "airline", "--target", sq, "--schedules", "1000000000"},
			[]string{"--schedules 1000000000", "at most"}, nil},
		{"sysbench tables above the bound", []string{"prepare", "oltp_point_select", "--target", sq, "--tables", "10000000"},
			[]string{"--tables 10000000", "at most"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := dbarena(t, ctx, nil, tc.args...)
			if o.code != cli.ExitUsage {
				t.Errorf("exit %d, want %d (bad input): %s", o.code, cli.ExitUsage, o.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("stderr %q lacks %q", o.stderr, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(o.stderr, w) {
					t.Errorf("stderr %q says %q", o.stderr, w)
				}
			}
		})
	}
	// Nothing was created by any of them.
	if _, err := os.Stat(strings.TrimPrefix(sq, "sqlite://")); err == nil {
		t.Errorf("%s was created by a refused command", sq)
	}
}

// --version and version print the version, the commit and the Go
// toolchain; the top-level help names every registered workload.
func TestVersionFlag(t *testing.T) {
	want := fmt.Sprintf("dbarena test (commit none, %s %s/%s)\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		o := dbarena(t, context.Background(), nil, args...)
		if o.code != cli.ExitOK || o.stdout != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, o.code, o.stdout, o.stderr, want)
		}
	}
	o := dbarena(t, context.Background(), nil, "--help")
	if n := len(workload.All()); n < 10 {
		t.Fatalf("%d workloads registered", n)
	}
	for _, m := range workload.All() {
		if !strings.Contains(o.stdout, m.Name) {
			t.Errorf("the top-level help does not name workload %s:\n%s", m.Name, o.stdout)
		}
	}
}

// compare refuses a figure it cannot show: an operation no run has, a
// --vary that is no workload option.
func TestCompareRefusesWhatItCannotShow(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sq := sqliteURL(t)
	oltp := filepath.Join(dir, "oltp.json")
	if o := dbarena(t, ctx, nil, "prepare", "oltp_read_write", "--target", sq, "--table-size", "100", "--tables", "1"); o.code != cli.ExitOK {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	if o := dbarena(t, ctx, nil, "run", "oltp_read_write", "--target", sq, "--events", "20", "--table-size", "100", "--tables", "1", "--out", oltp); o.code != cli.ExitOK {
		t.Fatalf("run: exit %d: %s", o.code, o.stderr)
	}
	dq := "sqlite://" + filepath.Join(dir, "d.db")
	dl := filepath.Join(dir, "docolap.json")
	if o := dbarena(t, ctx, nil, "prepare", "docolap", "--target", dq, "--events", "200"); o.code != cli.ExitOK {
		t.Fatalf("prepare docolap: exit %d: %s", o.code, o.stderr)
	}
	if o := dbarena(t, ctx, nil, "run", "docolap", "--target", dq, "--events", "200", "--tries", "1", "--query", "A", "--out", dl); o.code != cli.ExitOK {
		t.Fatalf("run docolap: exit %d: %s", o.code, o.stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"op of no run", []string{"compare", oltp, "--op", "Z"}, []string{"op Z", "oltp_read_write"}},
		{"op on tries", []string{"compare", dl, "--op", "Z"}, []string{"--op Z"}},
		{"vary bogus", []string{"compare", oltp, "--vary", "bogus"}, []string{"--vary bogus", "oltp_read_write"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := dbarena(t, ctx, nil, tc.args...)
			if o.code != cli.ExitUsage {
				t.Errorf("exit %d, want %d: stdout %q stderr %q", o.code, cli.ExitUsage, o.stdout, o.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("stderr %q lacks %q", o.stderr, w)
				}
			}
		})
	}
	// The good ones still work.
	if o := dbarena(t, ctx, nil, "compare", oltp, "--op", "oltp_read_write"); o.code != cli.ExitOK {
		t.Errorf("compare --op oltp_read_write: exit %d: %s", o.code, o.stderr)
	}
	if o := dbarena(t, ctx, nil, "compare", oltp, "--vary", "range-size"); o.code != cli.ExitOK {
		t.Errorf("compare --vary range-size: exit %d: %s", o.code, o.stderr)
	}
}

// A plan reports every problem at once: a workload's option values are
// checked even when another of its options is unknown.
func TestPlanListsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(p, []byte(`name: bad
duration: 1s
targets:
  - label: a
    url: sqlite://`+filepath.Join(dir, "a.db")+`
workloads:
  - name: oltp_read_write
    options: {tables: -1, nosuch: 3}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := dbarena(t, context.Background(), nil, "plan", "show", p)
	if o.code != cli.ExitUsage {
		t.Errorf("exit %d, want %d", o.code, cli.ExitUsage)
	}
	for _, w := range []string{`no option "nosuch"`, "--tables -1"} {
		if !strings.Contains(o.stderr, w) {
			t.Errorf("stderr %q lacks %q", o.stderr, w)
		}
	}
}

// A run whose data options differ from the prepared data's is told the
// options to pass, never one that is refused (an option's default that
// is out of its range, --days 0).
func TestDataMismatchHint(t *testing.T) {
	ctx := context.Background()
	sq := sqliteURL(t)
	if o := dbarena(t, ctx, nil, "prepare", "docolap", "--target", sq, "--events", "200"); o.code != cli.ExitOK {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	o := dbarena(t, ctx, nil, "run", "docolap", "--target", sq, "--days", "1", "--tries", "1")
	if o.code == cli.ExitOK {
		t.Fatalf("run with --days 1 on --events 200: exit 0")
	}
	for _, w := range []string{"--days 1", "pass --events 200", "leave --days out"} {
		if !strings.Contains(o.stderr, w) {
			t.Errorf("stderr %q lacks %q", o.stderr, w)
		}
	}
	if strings.Contains(o.stderr, "pass --days 0") {
		t.Errorf("stderr %q suggests --days 0, which is refused", o.stderr)
	}
}

// Pipelines run on PostgreSQL only: on SQLite and MariaDB a workload
// that asks for them is refused before any work, with exit 2 and no
// run header, where it used to fail once its workers started.
func TestPipelinesRefusedBeforeTheRun(t *testing.T) {
	ctx := context.Background()
	script := filepath.Join(t.TempDir(), "pipe.sql")
	if err := os.WriteFile(script, []byte("\\startpipeline\nSELECT 1;\n\\endpipeline\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{"sqlite": sqliteURL(t), "mysql": withPassword(testdb.MySQL(t))}
	for name, tg := range targets {
		for _, tc := range []struct {
			name string
			args []string
			want string
		}{
			{"tpce", []string{"run", "tpce", "--pipeline", "--time", "1s"}, "--pipeline"},
			{"script", []string{"run", "script", "--file", script, "--protocol", "prepared", "--time", "1s"}, "--file " + script},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				o := dbarena(t, ctx, nil, append(tc.args, "--target", tg)...)
				if o.code != cli.ExitUsage {
					t.Errorf("exit %d, want %d: %s", o.code, cli.ExitUsage, o.stderr)
				}
				if !strings.Contains(o.stderr, tc.want) || !strings.Contains(o.stderr, "PostgreSQL") {
					t.Errorf("stderr %q should name %s and say where pipelines run", o.stderr, tc.want)
				}
				if strings.Contains(o.stdout, "running ") {
					t.Errorf("refused after the run began: %s", o.stdout)
				}
			})
		}
	}
	if _, err := os.Stat(strings.TrimPrefix(targets["sqlite"], "sqlite://")); err == nil {
		t.Errorf("%s was created by a refused run", targets["sqlite"])
	}
}
