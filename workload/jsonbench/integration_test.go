package jsonbench_test

import (
	"context"
	"slices"
	"testing"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/jsonbench"
	// The implementation for MongoDB, for the mongodb case.
	_ "github.com/dbarena/dbarena/workload/jsonbench/mongo"
)

var targets = []struct {
	name   string
	target func(t *testing.T) engine.Target
}{
	{"sqlite", func(t *testing.T) engine.Target { return testdb.SQLite(t) }},
	{"postgres", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) }},
	{"mysql", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.MySQL(t)) }},
	{"mongodb", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Mongo(t)) }},
}

// TestSameAnswersEverywhere loads one generated data set of 20,000
// events on SQLite, PostgreSQL, MariaDB and MongoDB and runs Q1–Q5 on
// each: every engine returns the rows computed directly from the
// generator's events (Answers), so all four return identical answers.
// The analytic timing model's tries record the same rows and hashes and
// the table's size on disk, which prepare reports too.
func TestSameAnswersEverywhere(t *testing.T) {
	args := []string{"--docs", "20000", "--seed-data", "5"}
	want, err := jsonbench.Answers(parse(t, args...).Generator())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range jsonbench.Queries() {
		if len(want[q.Name]) == 0 {
			t.Fatalf("query %s: no rows in the direct computation", q.Name)
		}
	}
	if len(want[jsonbench.Q1]) < 12 || len(want[jsonbench.Q4]) != 3 || len(want[jsonbench.Q5]) != 3 {
		t.Fatalf("direct computation: %d rows of Q1, %d of Q4, %d of Q5", len(want[jsonbench.Q1]), len(want[jsonbench.Q4]), len(want[jsonbench.Q5]))
	}
	for _, db := range targets {
		t.Run(db.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t, db.target(t))
			w := parse(t, args...)
			stats, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: 2})
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			t.Cleanup(func() { load.Cleanup(context.Background(), e, w) })
			if len(stats.Sizes) != 1 || stats.Sizes[0].Total <= 0 || stats.Sizes[0].Indexes <= 0 || stats.Sizes[0].Rows != 20000 {
				t.Errorf("sizes after prepare: %+v (err %v)", stats.Sizes, stats.SizeErr)
			}
			impl, err := workload.ForFamily(w, e.Dialect())
			if err != nil {
				t.Fatal(err)
			}
			c, err := e.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, q := range jsonbench.Queries() {
				got, err := impl.Define().Answers.Answer(ctx, c, q.Name)
				if err != nil {
					t.Fatalf("query %s: %v", q.Name, err)
				}
				if !slices.EqualFunc(got, asText(want[q.Name]), slices.Equal) {
					t.Errorf("query %s: %d rows differ from the direct computation's %d\n got %v\nwant %v",
						q.Name, len(got), len(want[q.Name]), got[:min(len(got), 5)], want[q.Name][:min(len(want[q.Name]), 5)])
				}
			}

			cfg := runner.DefaultConfig()
			tries := 2
			cfg.Tries = &tries
			run, err := runner.Run(ctx, e, w, cfg, nil)
			if err != nil {
				t.Fatalf("tries: %v", err)
			}
			if len(run.Tries.Queries) != 5 {
				t.Fatalf("tries ran %d queries, want 5", len(run.Tries.Queries))
			}
			if st := run.Tries.Storage; len(st) != 1 || st[0].Table != jsonbench.Table || st[0].TotalBytes <= 0 || st[0].IndexBytes <= 0 {
				t.Errorf("storage recorded with the tries: %+v", st)
			}
			for _, q := range run.Tries.Queries {
				rows, hash, differ, ok := q.Answer()
				wantHash := workload.HashRows(asText(want[q.Name]))
				if !ok || differ || rows != int64(len(want[q.Name])) || hash != wantHash {
					t.Errorf("query %s: tries answered %d rows, hash %s (ok %v, tries differ %v); want %d rows, hash %s",
						q.Name, rows, hash, ok, differ, len(want[q.Name]), wantHash)
				}
			}
		})
	}
}

func asText(rows []jsonbench.Row) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return out
}

// parse returns a new workload with args parsed.
func parse(t *testing.T, args ...string) *jsonbench.JSONBench {
	t.Helper()
	w := jsonbench.New()
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	if errs := w.Define().Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	return w
}
