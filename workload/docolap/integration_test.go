package docolap_test

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
	"github.com/dbarena/dbarena/workload/docolap"
	// The implementation for MongoDB, for the mongodb case.
	_ "github.com/dbarena/dbarena/workload/docolap/mongo"
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

// TestSameAnswersEverywhere loads one small generated data set on every
// engine and runs every query on each: A, B, C and D′ return the rows
// computed directly from the generator's events, on every engine alike;
// D returns no rows. Then a worker runs each query once through Next,
// and the tries of the analytic timing model record the same answers.
// On the SQL engines the normalized form (--normalized) of the same
// events, prepared beside the JSON one, returns the same rows and hashes
// (checkNormalized); MongoDB refuses it (checkNormalizedRefused).
func TestSameAnswersEverywhere(t *testing.T) {
	args := []string{"--events", "4000", "--seed-data", "11"}
	want, err := docolap.Answers(parse(t, args...).Generator())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{docolap.QueryA, docolap.QueryB, docolap.QueryC, docolap.QueryD2} {
		if len(want[name]) == 0 {
			t.Fatalf("query %s: no rows in the direct computation", name)
		}
	}
	if len(want[docolap.QueryC]) != 10 {
		t.Fatalf("query C: %d rows, want 10", len(want[docolap.QueryC]))
	}
	for _, db := range targets {
		t.Run(db.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t, db.target(t))
			w := parse(t, args...)
			if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			t.Cleanup(func() { load.Cleanup(context.Background(), e, w) })
			impl, err := workload.ForFamily(w, e.Dialect())
			if err != nil {
				t.Fatal(err)
			}
			c, err := e.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, q := range docolap.Queries() {
				got, err := impl.Define().Answers.Answer(ctx, c, q.Name)
				if err != nil {
					t.Fatalf("query %s: %v", q.Name, err)
				}
				if q.Name == docolap.QueryD {
					if len(got) != 0 {
						t.Errorf("query D returned %d rows, want none (no PushEvent has payload.issue): %v", len(got), got[0])
					}
					continue
				}
				if !slices.EqualFunc(got, asText(want[q.Name]), slices.Equal) {
					t.Errorf("query %s: %d rows differ from the direct computation's %d\n got %v\nwant %v",
						q.Name, len(got), len(want[q.Name]), got[:min(len(got), 5)], head(want[q.Name]))
				}
			}
			wrun, err := impl.Open(ctx, workload.RunEnv{Engine: e.Dialect().Capabilities(), Dialect: e.Dialect()})
			if err != nil {
				t.Fatal(err)
			}
			k, err := wrun.NewWorker(ctx, c, workload.WorkerEnv{Queries: &workload.Queries{}})
			if err != nil {
				t.Fatal(err)
			}
			var ops []int
			for range docolap.Queries() {
				op, err := k.Next(ctx)
				if err != nil {
					t.Fatalf("next: %v", err)
				}
				ops = append(ops, op)
			}
			if !slices.Equal(ops, []int{0, 1, 2, 3, 4}) {
				t.Errorf("ops %v, want each query once in order", ops)
			}

			// The analytic timing model records each answer's rows and
			// hash: the direct computation's, on every engine.
			cfg := runner.DefaultConfig()
			tries := 2
			cfg.Tries = &tries
			run, err := runner.Run(ctx, e, w, cfg, nil)
			if err != nil {
				t.Fatalf("tries: %v", err)
			}
			answers := map[string]answer{}
			for _, q := range run.Tries.Queries {
				rows, hash, differ, ok := q.Answer()
				wantHash := workload.HashRows(asText(want[q.Name]))
				if !ok || differ || rows != int64(len(want[q.Name])) || hash != wantHash {
					t.Errorf("query %s: tries answered %d rows, hash %s (ok %v, tries differ %v); want %d rows, hash %s",
						q.Name, rows, hash, ok, differ, len(want[q.Name]), wantHash)
				}
				answers[q.Name] = answer{rows, hash}
			}

			// The normalized form of the same events, beside the JSON
			// one on SQL engines, answers alike; MongoDB refuses it.
			if e.Dialect().Family() == engine.FamilySQL {
				checkNormalized(t, e, args, want, answers)
			} else {
				checkNormalizedRefused(t, e, args)
			}
		})
	}
}

func asText(rows []docolap.Row) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return out
}

func head(rows []docolap.Row) []docolap.Row { return rows[:min(len(rows), 5)] }

// parse returns a new workload with args parsed.
func parse(t *testing.T, args ...string) *docolap.Docolap {
	t.Helper()
	w := docolap.New()
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	if errs := w.Define().Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	return w
}
