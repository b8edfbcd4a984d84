package cli_test

import (
	"bytes"
	"context"
	"io/fs"
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

// An output that is one of the command's inputs, however it is named
// (the same path, ./ relative, through a symlink, a hard link, a file of
// an input directory), is refused before any work starts: the input is
// left as it was.
func TestOutputIsAnInputRefused(t *testing.T) {
	ctx := context.Background()
	dir, other := t.TempDir(), t.TempDir()
	t.Chdir(dir)
	a := filepath.Join(dir, "a.json")
	b := filepath.Join(dir, "b.json")
	link := filepath.Join(other, "link.json")
	hard := filepath.Join(other, "hard.json")
	want, err := os.ReadFile(writeResult(t, "r.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000}))
	if err != nil {
		t.Fatal(err)
	}
	// setup makes the files afresh: a and b, link to a, hard a hard link
	// of a.
	setup := func(t *testing.T) {
		t.Helper()
		for _, p := range []string{a, b, link, hard} {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
		for _, p := range []string{a, b} {
			if err := os.WriteFile(p, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(a, link); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(a, hard); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		flag string
	}{
		{"report", []string{"report", a, "-o", a}, "--output " + a},
		{"report labelled", []string{"report", "x=" + a, "b=" + b, "-o", a}, "--output " + a},
		{"export", []string{"export", a, "-o", a}, "--output " + a},
		{"export relative", []string{"export", "a.json", "-o", "./a.json"}, "--output ./a.json"},
		{"export absolute and relative", []string{"export", a, "-o", "a.json"}, "--output a.json"},
		{"export symlink", []string{"export", a, "-o", link}, "--output " + link},
		{"export hard link", []string{"export", a, "-o", hard}, "--output " + hard},
		{"export directory", []string{"export", dir, "-o", a}, "--output " + a},
		{"report directory", []string{"report", ".", "-o", "b.json"}, "--output b.json"},
		{"merge", []string{"merge", a, b, "-o", a}, "--out " + a},
		{"merge second", []string{"merge", a, b, "-o", "./b.json"}, "--out ./b.json"},
		{"merge symlink", []string{"merge", a, b, "-o", link}, "--out " + link},
		{"merge input symlink", []string{"merge", link, b, "-o", hard}, "--out " + hard},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setup(t)
			o := dbarena(t, ctx, nil, tc.args...)
			if o.code != cli.ExitUsage || !strings.Contains(o.stderr, tc.flag+": ") || !strings.Contains(o.stderr, "input") {
				t.Errorf("exit %d, stderr %q; want exit %d, %q and the input it is", o.code, o.stderr, cli.ExitUsage, tc.flag)
			}
			for _, p := range []string{a, link, hard} {
				if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s was changed (%v)", p, err)
				}
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Fatalf("%s is no longer a symlink (%v)", link, err)
			}
		})
	}
}
