package docolap_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/docolap"
)

// TestBadOptions checks that bad options are refused, each naming its
// flag and value, all at once.
func TestBadOptions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // "flag value" of each error
	}{
		{[]string{"--events", "0"}, []string{"events 0"}},
		{[]string{"--events", "-5"}, []string{"events -5"}},
		{[]string{"--days", "0"}, []string{"days 0"}},
		{[]string{"--days", "4000"}, []string{"days 4000"}},
		{[]string{"--events", "10", "--days", "2"}, []string{"days 2"}},
		{[]string{"--query", "A,E"}, []string{"query A,E"}},
		{[]string{"--events", "0", "--query", "x"}, []string{"events 0", "query x"}},
	} {
		w := docolap.New()
		if err := w.Define().Options.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		errs := w.Define().Validate()
		if len(errs) != len(tc.want) {
			t.Errorf("%v: %v, want %d errors", tc.args, errs, len(tc.want))
			continue
		}
		for i, err := range errs {
			var oe *workload.OptionError
			if !errors.As(err, &oe) || oe.Flag+" "+oe.Value != tc.want[i] {
				t.Errorf("%v: %v, want an option error on %s", tc.args, err, tc.want[i])
			}
		}
	}
	w := docolap.New()
	if err := w.Define().Options.Parse([]string{"--days", "2", "--query", "d2, a"}); err != nil {
		t.Fatal(err)
	}
	if errs := w.Define().Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := w.Events(); got != docolap.EventsForDays(2) {
		t.Errorf("--days 2: %d events", got)
	}
	qs, _ := w.QueryList()
	if len(qs) != 2 || qs[0].Name != "D2" || qs[1].Name != "A" {
		t.Errorf("--query d2, a: %v", qs)
	}
}

// TestTables checks the declaration: valid, one table of an id and a
// JSON document, the study's five path indexes, batches covering every
// event once with ids increasing.
func TestTables(t *testing.T) {
	w := docolap.New()
	if err := w.Define().Options.Parse([]string{"--events", "12345"}); err != nil {
		t.Fatal(err)
	}
	tables := w.Define().Tables(nil)
	if len(tables) != 1 {
		t.Fatalf("%d tables", len(tables))
	}
	tb := tables[0].Resolve()
	if errs := schema.Validate([]*schema.Table{tb.Schema}); len(errs) > 0 {
		t.Fatal(errs)
	}
	var paths []string
	for _, x := range tb.Schema.Indexes {
		paths = append(paths, x.Keys[0].PathName())
	}
	if got := strings.Join(paths, " "); got != "repo.name payload.action type actor.login payload.issue.comments" {
		t.Errorf("indexes on %s", got)
	}
	var n, last int64
	for b := range tb.Batches {
		src := tb.Rows(b)
		for src.Next() {
			v, _ := src.Values()
			id := v[0].(int64)
			if id <= last {
				t.Fatalf("batch %d: id %d after %d", b, id, last)
			}
			last = id
			n++
		}
	}
	if n != 12345 {
		t.Errorf("%d rows, want 12345", n)
	}
}

// TestAnswers checks the direct computation on its own: B counts every
// event once over the 14 types, C is the 10 busiest actors with the bots
// ahead, A counts opened issues only, D is empty and D2's averages are
// above two, each list in its order.
func TestAnswers(t *testing.T) {
	const n = 20000
	a, err := docolap.Answers(docolap.NewGenerator(3, n))
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) float64 {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	sorted := func(name string, rows []docolap.Row) {
		for i := 1; i < len(rows); i++ {
			x, y := num(rows[i-1][1]), num(rows[i][1])
			if x < y || x == y && rows[i-1][0] >= rows[i][0] {
				t.Errorf("%s: row %d %v after %v", name, i, rows[i], rows[i-1])
			}
		}
	}
	for name, rows := range a {
		sorted(name, rows)
	}
	total := 0.0
	for _, r := range a[docolap.QueryB] {
		total += num(r[1])
	}
	if len(a[docolap.QueryB]) != 14 || total != n {
		t.Errorf("B: %d types, %.0f events", len(a[docolap.QueryB]), total)
	}
	if c := a[docolap.QueryC]; len(c) != 10 || c[0][0] != docolap.BotLogins()[0] {
		t.Errorf("C: %v", c)
	}
	opened := 0.0
	for _, r := range a[docolap.QueryA] {
		opened += num(r[1])
	}
	if share := opened / n; share < 0.02 || share > 0.06 {
		t.Errorf("A: %.1f %% of the events are opened issues", 100*share)
	}
	if len(a[docolap.QueryD]) != 0 {
		t.Errorf("D: %d rows", len(a[docolap.QueryD]))
	}
	if len(a[docolap.QueryD2]) == 0 {
		t.Error("D2: no rows")
	}
	for _, r := range a[docolap.QueryD2] {
		if num(r[1]) <= 2 {
			t.Errorf("D2: %v", r)
		}
	}
}

// The queries report no figures of their own: the analytic timing model
// and the runner time them.
func TestNoMetrics(t *testing.T) {
	w := docolap.New()
	r, err := w.Open(context.Background(), workload.RunEnv{})
	if err != nil {
		t.Fatal(err)
	}
	if m := w.Define().Metrics; len(m) != 0 || r.Metrics != nil {
		t.Errorf("Spec.Metrics %v, Run.Metrics set: %v", m, r.Metrics != nil)
	}
}
