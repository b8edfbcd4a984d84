package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/internal/cli"
)

// prepare and check show their progress in plain lines when not on a
// terminal; with --quiet only their summaries remain.
func TestPrepareCheckQuiet(t *testing.T) {
	ctx := context.Background()
	u := sqliteURL(t)
	o := dbarena(t, ctx, nil, "prepare", "oltp_read_only", "--tables", "2", "--table-size", "500", "--target", u)
	if o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	for _, re := range []string{`(?m)^preparing oltp_read_only on \S+ with 4 loaders$`, `(?m)^loaded (\d+)/(\d+) batches, 1000 rows, \d+ rows/s$`, `(?m)^prepared 2 tables, 1000 rows`} {
		if !regexp.MustCompile(re).MatchString(o.stdout) {
			t.Errorf("prepare's output lacks %s:\n%s", re, o.stdout)
		}
	}
	o = dbarena(t, ctx, nil, "check", "oltp_read_only", "--tables", "2", "--table-size", "500", "--target", u)
	if o.code != 0 || !regexp.MustCompile(`^checking oltp_read_only on \S+\nchecked in \d+(\.\d+)?m?s\ncheck oltp_read_only on \S+: ok\n$`).MatchString(o.stdout) {
		t.Errorf("check: exit %d:\n%s%s", o.code, o.stdout, o.stderr)
	}

	u = sqliteURL(t)
	o = dbarena(t, ctx, nil, "prepare", "oltp_read_only", "--tables", "2", "--table-size", "500", "--target", u, "--quiet")
	if o.code != 0 {
		t.Fatalf("prepare --quiet: exit %d: %s", o.code, o.stderr)
	}
	if strings.Contains(o.stdout, "preparing") || strings.Contains(o.stdout, "loaded") || !strings.HasPrefix(o.stdout, "prepared 2 tables, 1000 rows") {
		t.Errorf("prepare --quiet:\n%s", o.stdout)
	}
	o = dbarena(t, ctx, nil, "check", "oltp_read_only", "--tables", "2", "--table-size", "500", "--target", u, "-q")
	if o.code != 0 || !regexp.MustCompile(`^check oltp_read_only on \S+: ok\n$`).MatchString(o.stdout) {
		t.Errorf("check -q: exit %d:\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// A plan not on a terminal writes a progress line after each run; with
// --quiet it prints its summary line only.
func TestPlanProgressLines(t *testing.T) {
	dir := t.TempDir()
	src := "name: lines\nduration: 1s\nwarmup: 0s\nthreads: [1, 2]\nreport_interval: 500ms\ntargets:\n  - label: lite\n    url: sqlite://" + filepath.Join(dir, "p.db") +
		"\nworkloads:\n  - name: oltp_point_select\n    options: {tables: 1, table_size: 200}\n"
	file := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o := dbarena(t, context.Background(), nil, "plan", "run", file, "-o", filepath.Join(dir, "out"))
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	var got []string
	for _, l := range strings.Split(o.stdout, "\n") {
		if strings.HasPrefix(l, "progress: ") {
			got = append(got, l)
		}
	}
	if want := []string{"progress: 1/2 runs, ETA 1s", "progress: 2/2 runs"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress lines %q, want %q in:\n%s", got, want, o.stdout)
	}

	o = dbarena(t, context.Background(), nil, "plan", "run", file, "-o", filepath.Join(dir, "quiet"), "--quiet")
	if want := "plan lines: 2 runs done, 0 failed; results in " + filepath.Join(dir, "quiet") + "\n"; o.code != 0 || o.stdout != want {
		t.Errorf("--quiet: exit %d, stdout %q, want %q; stderr %s", o.code, o.stdout, want, o.stderr)
	}
}

// On a terminal, prepare's bar ends with every batch in, between its
// first line and its summary; check's spinner is gone at the end.
func TestPrepareCheckOnTerminal(t *testing.T) {
	u := sqliteURL(t)
	home := t.TempDir()
	term := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		st := &cli.State{Stdout: &out, Stderr: &errb, Terminal: true, Now: time.Now, Version: "test", Commit: "none",
			Getenv: func(k string) string {
				if k == "DBARENA_HOME" {
					return home
				}
				return ""
			}}
		code := cli.Main(context.Background(), st, args)
		return code, out.String(), errb.String()
	}
	code, out, errs := term("prepare", "oltp_read_only", "--tables", "2", "--table-size", "500", "--target", u)
	if code != 0 {
		t.Fatalf("prepare: exit %d: %s", code, errs)
	}
	if !regexp.MustCompile(`(?s)^preparing oltp_read_only on \S+ with 4 loaders\n(.*(\n|\x1b\[J))?(\d+)/(\d+) batches \[=+\]\s+100 % 1000 rows, \d+ rows/s *\nprepared 2 tables, 1000 rows`).MatchString(out) {
		t.Errorf("prepare on a terminal:\n%q", out)
	}
	code, out, errs = term("check", "oltp_read_only", "--tables", "2", "--table-size", "500", "--target", u)
	if code != 0 || !regexp.MustCompile(`\x1b\[Jchecked in \S+\ncheck oltp_read_only on \S+: ok\n$`).MatchString(out) {
		t.Errorf("check on a terminal: exit %d:\n%q\n%s", code, out, errs)
	}
}
