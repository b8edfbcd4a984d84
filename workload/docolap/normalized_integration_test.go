package docolap_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/docolap"
)

// answersOf is the rows and hash of each query the tries of run
// answered, by query name.
type answer struct {
	rows int64
	hash string
}

// triesAnswers runs w's queries by the analytic timing model, two tries
// each, on e and returns each query's answer, failing t when a query
// failed or its tries differ.
func triesAnswers(t *testing.T, e engine.Engine, w workload.Workload) map[string]answer {
	t.Helper()
	cfg := runner.DefaultConfig()
	tries := 2
	cfg.Tries = &tries
	run, err := runner.Run(context.Background(), e, w, cfg, nil)
	if err != nil {
		t.Fatalf("tries: %v", err)
	}
	out := map[string]answer{}
	for _, q := range run.Tries.Queries {
		rows, hash, differ, ok := q.Answer()
		if !ok || differ {
			t.Errorf("query %s: no answer, or its tries differ (ok %v, differ %v)", q.Name, ok, differ)
		}
		out[q.Name] = answer{rows, hash}
	}
	return out
}

// checkNormalized prepares the normalized form of the data set args
// make on e, whose JSON form is prepared already and answered jsonAnswers,
// beside it, and checks that its answers are the JSON form's and want
// (the direct computation's), query by query: the rows RunQuery returns
// and the rows and hash the tries record. Then it checks that each form
// asks for its own tables (a run of one form on a database holding only
// the other fails as not prepared, naming the missing table) and that
// cleanup --normalized drops the normalized tables only.
func checkNormalized(t *testing.T, e engine.Engine, args []string, want map[string][]docolap.Row, jsonAnswers map[string]answer) {
	ctx := context.Background()
	jw := parse(t, args...)
	nw := parse(t, append([]string{"--normalized"}, args...)...)
	st, err := load.Prepare(ctx, e, nw, load.PrepareConfig{LoadThreads: 2})
	if err != nil {
		t.Fatalf("prepare --normalized: %v", err)
	}
	t.Cleanup(func() { load.Cleanup(context.Background(), e, nw) })
	if st.Tables != 2 || st.Rows <= int64(len(want[docolap.QueryB])) {
		t.Errorf("prepare --normalized: %d tables, %d rows", st.Tables, st.Rows)
	}
	var events int64
	for _, r := range want[docolap.QueryB] {
		var n int64
		for _, c := range r[1] {
			n = 10*n + int64(c-'0')
		}
		events += n
	}
	if len(st.Sizes) == 2 && st.Sizes[0].Rows != events {
		t.Errorf("norm_events: %d rows, want %d", st.Sizes[0].Rows, events)
	}

	c, err := e.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range docolap.Queries() {
		got, err := nw.RunQuery(ctx, c, q.Name)
		if err != nil {
			t.Fatalf("normalized query %s: %v", q.Name, err)
		}
		if !slices.EqualFunc(got, want[q.Name], slices.Equal) {
			t.Errorf("normalized query %s: %d rows differ from the direct computation's %d\n got %v\nwant %v",
				q.Name, len(got), len(want[q.Name]), head(got), head(want[q.Name]))
		}
	}
	normAnswers := triesAnswers(t, e, nw)
	if len(normAnswers) != len(docolap.Queries()) {
		t.Errorf("normalized tries answered %d queries", len(normAnswers))
	}
	for name, a := range normAnswers {
		if a != jsonAnswers[name] {
			t.Errorf("query %s: normalized %d rows, hash %s; JSON %d rows, hash %s", name, a.rows, a.hash, jsonAnswers[name].rows, jsonAnswers[name].hash)
		}
		if wantHash := workload.HashRows(asText(want[name])); a.rows != int64(len(want[name])) || a.hash != wantHash {
			t.Errorf("query %s: normalized %d rows, hash %s; direct computation %d rows, hash %s", name, a.rows, a.hash, len(want[name]), wantHash)
		}
	}

	// Each form checks its own tables and its data options.
	for _, w := range []*docolap.Docolap{jw, nw} {
		if err := load.VerifyPrepared(ctx, c, e.Dialect(), w); err != nil {
			t.Errorf("verify normalized=%v: %v", w.Normalized(), err)
		}
	}
	other := parse(t, "--normalized", "--events", "3999", "--seed-data", "11")
	var oe *workload.OptionError
	if err := load.VerifyPrepared(ctx, c, e.Dialect(), other); !errors.As(err, &oe) || oe.Flag != "events" {
		t.Errorf("verify --normalized --events 3999: %v, want an option error on --events", err)
	}
	if probs, err := load.Check(ctx, e, nw); err != nil || len(probs) > 0 {
		t.Errorf("check --normalized: %v, %v", probs, err)
	}

	// Cleanup drops the form its options name, and only that: the JSON
	// form first, then the normalized one, each leaving the other ready
	// and asking for its own tables when run again.
	notPrepared := func(w *docolap.Docolap, table, flags string) {
		t.Helper()
		err := load.VerifyPrepared(ctx, c, e.Dialect(), w)
		var te *load.TableError
		if !errors.Is(err, load.ErrNotPrepared) || !errors.As(err, &te) || te.Table != table || !strings.HasSuffix(te.Hint, "with the same options: "+flags) {
			t.Errorf("verify normalized=%v: %v, want table %s not prepared, the hint naming %s", w.Normalized(), err, table, flags)
		}
	}
	cleanup := func(w *docolap.Docolap, want ...string) {
		t.Helper()
		cl, err := load.Cleanup(ctx, e, w)
		if err != nil {
			t.Fatalf("cleanup normalized=%v: %v", w.Normalized(), err)
		}
		if !slices.Equal(cl.Dropped, want) {
			t.Errorf("cleanup normalized=%v dropped %v, want %v", w.Normalized(), cl.Dropped, want)
		}
	}
	cleanup(jw, docolap.Table)
	notPrepared(jw, docolap.Table, "--events 4000 --seed-data 11")
	if err := load.VerifyPrepared(ctx, c, e.Dialect(), nw); err != nil {
		t.Errorf("the normalized form after the JSON form's cleanup: %v", err)
	}
	cleanup(nw, docolap.NormTable, docolap.NormCommitsTable)
	notPrepared(nw, docolap.NormTable, "--events 4000 --normalized=true --seed-data 11")
	for _, name := range []string{docolap.Table, docolap.NormTable, docolap.NormCommitsTable, load.MetaTable} {
		if ok, err := c.Catalog().TableExists(ctx, name); err != nil || ok {
			t.Errorf("%s exists (%v) after both cleanups", name, err)
		}
	}
}

// checkNormalizedRefused checks that --normalized is refused on e, a
// MongoDB engine, as an option error naming the flag, before any work:
// prepare, run and cleanup create and drop nothing.
func checkNormalizedRefused(t *testing.T, e engine.Engine, args []string) {
	ctx := context.Background()
	nw := parse(t, append([]string{"--normalized"}, args...)...)
	refused := func(what string, err error) {
		t.Helper()
		var oe *workload.OptionError
		if !errors.As(err, &oe) || oe.Flag != "normalized" || oe.Value != "true" {
			t.Errorf("%s --normalized on MongoDB: %v, want an option error on --normalized", what, err)
		}
	}
	_, err := load.Prepare(ctx, e, nw, load.PrepareConfig{LoadThreads: 2})
	refused("prepare", err)
	cfg := runner.DefaultConfig()
	tries := 1
	cfg.Tries = &tries
	_, err = runner.Run(ctx, e, nw, cfg, nil)
	refused("run", err)
	_, err = load.Cleanup(ctx, e, nw)
	refused("cleanup", err)
	c, err := e.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, name := range []string{docolap.NormTable, docolap.NormCommitsTable} {
		if ok, err := c.Catalog().TableExists(ctx, name); err != nil || ok {
			t.Errorf("%s exists (%v) after --normalized was refused", name, err)
		}
	}
	// The JSON form prepared before is still there.
	if err := load.VerifyPrepared(ctx, c, e.Dialect(), parse(t, args...)); err != nil {
		t.Errorf("the JSON form after --normalized was refused: %v", err)
	}
}
