package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
)

// Every file or directory a command writes is checked before any work
// starts: an existing directory where a file goes, a missing parent, a
// parent that is a file. The error names the flag and its value, the exit
// code is a usage error, and the check leaves nothing behind.
func TestOutputPathsCheckedFirst(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	existingDir := filepath.Join(dir, "adir")
	if err := os.Mkdir(existingDir, 0o755); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(dir, "afile")
	if err := os.WriteFile(aFile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing", "x.out")
	underFile := filepath.Join(aFile, "x.out")
	res := writeResult(t, "r.json", "a", "1000", map[int]float64{1: 10, 4: 30})
	planFile := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(planFile, []byte("name: p\nduration: 5s\nthreads: 1\ntargets:\n  - label: a\n    url: "+sqliteURL(t)+"\nworkloads:\n  - name: oltp_point_select\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An unprepared target and a minute of run time: reaching either
	// would fail differently or take a minute.
	run := []string{"run", "oltp_point_select", "--time", "60s", "--target", sqliteURL(t)}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"run out is a directory", append(run, "--out", existingDir), "--out " + existingDir + ": "},
		{"run out parent missing", append(run, "--out", missing), "--out " + missing + ": "},
		{"run out parent is a file", append(run, "--out", underFile), "--out " + underFile + ": "},
		{"report output is a directory", []string{"report", res, "-o", existingDir}, "--output " + existingDir + ": "},
		{"report output parent missing", []string{"report", res, "-o", missing}, "--output " + missing + ": "},
		{"export output is a directory", []string{"export", res, "-o", existingDir}, "--output " + existingDir + ": "},
		{"export output parent missing", []string{"export", res, "-o", missing}, "--output " + missing + ": "},
		{"merge out is a directory", []string{"merge", res, "-o", existingDir}, "--out " + existingDir + ": "},
		{"merge out parent is a file", []string{"merge", res, "-o", underFile}, "--out " + underFile + ": "},
		{"plan out is a file", []string{"plan", "run", planFile, "-o", aFile}, "--out " + aFile + ": "},
		{"plan out parent missing", []string{"plan", "run", planFile, "-o", filepath.Join(dir, "missing", "results")}, "--out " + filepath.Join(dir, "missing", "results") + ": "},
		{"plan out parent is a file", []string{"plan", "run", planFile, "-o", underFile}, "--out " + underFile + ": "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := listDir(t, dir)
			o := dbarena(t, ctx, nil, tc.args...)
			if o.code != cli.ExitUsage || !strings.Contains(o.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", o.code, o.stderr, cli.ExitUsage, tc.want)
			}
			if strings.Contains(o.stdout, "running") || strings.Contains(o.stdout, "preparing") {
				t.Errorf("work started before the output was checked:\n%s", o.stdout)
			}
			if after := listDir(t, dir); after != before {
				t.Errorf("the check left files behind: %s, was %s", after, before)
			}
		})
	}
}

// listDir names every file under dir.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		names = append(names, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(names, " ")
}

// A command whose context ends (SIGINT, SIGTERM), whatever step it is at,
// exits with 130 and says it was interrupted.
func TestInterruptedAnywhere(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tg := sqliteURL(t)
	planFile := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(planFile, []byte("name: p\nduration: 5s\nthreads: 1\ntargets:\n  - label: a\n    url: "+tg+"\nworkloads:\n  - name: oltp_point_select\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"prepare", "oltp_point_select", "--target", tg},
		{"run", "oltp_point_select", "--target", tg},
		{"check", "oltp_point_select", "--target", tg},
		{"cleanup", "oltp_point_select", "--target", tg},
		{"plan", "run", planFile},
	} {
		t.Run(args[0], func(t *testing.T) {
			o := dbarena(t, ctx, nil, args...)
			if o.code != cli.ExitInterrupted || !strings.Contains(o.stderr, "interrupted") {
				t.Errorf("exit %d, stderr %q; want %d, interrupted", o.code, o.stderr, cli.ExitInterrupted)
			}
		})
	}
}
