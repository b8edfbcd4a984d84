package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/workload/docolap"
)

// dump writes the events prepare loads to the file --out names, whole,
// and says what it wrote.
func TestDumpDocolap(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "events.copy")
	o := dbarena(t, ctx, nil, "dump", "docolap", "--events", "2500", "--seed-data", "3", "--out", out)
	if o.code != cli.ExitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	if !strings.Contains(o.stdout, "dumped 2500 rows") || !strings.Contains(o.stdout, out) {
		t.Errorf("stdout %q: want the rows and the file", o.stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(lines) != 2500 {
		t.Fatalf("%d lines, want 2500", len(lines))
	}
	g := docolap.NewGenerator(3, 2500)
	var want bytes.Buffer
	if _, err := docolap.DumpEvents(ctx, g, &want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want.Bytes()) {
		t.Fatal("the file differs from the events of --seed-data 3")
	}
	if id := string(lines[2499][:bytes.IndexByte(lines[2499], '\t')]); id != strconv.FormatInt(g.ID(2499), 10) {
		t.Errorf("last id %s, want %d", id, g.ID(2499))
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files, want the dump alone", len(entries))
	}

	// Standard output.
	o = dbarena(t, ctx, nil, "dump", "docolap", "--events", "10", "--seed-data", "3", "-o", "-")
	if o.code != cli.ExitOK || o.stdout != string(want.Bytes()[:len(o.stdout)]) || strings.Count(o.stdout, "\n") != 10 {
		t.Errorf("exit %d, stdout %.100q: want the first 10 lines", o.code, o.stdout)
	}
}

// dump's bad inputs are refused before anything is written, naming the
// flag and its value.
func TestDumpBadInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no workload", []string{"dump"}, []string{"dump needs a workload", "docolap"}},
		{"workload without dump", []string{"dump", "tpcc"}, []string{`"tpcc"`, "cannot dump", "docolap"}},
		{"no out", []string{"dump", "docolap", "--events", "10"}, []string{"--out"}},
		{"events 0", []string{"dump", "docolap", "--events", "0", "--out", filepath.Join(dir, "x")}, []string{"--events", "0"}},
		{"out a directory", []string{"dump", "docolap", "--events", "10", "--out", dir}, []string{"--out", dir, "directory"}},
		{"out in a missing directory", []string{"dump", "docolap", "--events", "10", "--out", filepath.Join(dir, "no", "x")}, []string{"--out", filepath.Join(dir, "no")}},
		{"unknown flag", []string{"dump", "docolap", "--warehouses", "3", "--out", filepath.Join(dir, "x")}, []string{"warehouses"}},
		{"not a data option", []string{"dump", "docolap", "--query", "A", "--out", filepath.Join(dir, "x")}, []string{"query"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := dbarena(t, ctx, nil, tc.args...)
			if o.code != cli.ExitUsage {
				t.Fatalf("exit %d, want %d (usage): %s", o.code, cli.ExitUsage, o.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("stderr %q lacks %q", o.stderr, w)
				}
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad inputs left %d files behind", len(entries))
	}
}
