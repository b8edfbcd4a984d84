package docolap_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/docolap"
	"github.com/dbarena/dbarena/workload/schema"
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
		if err := w.Flags().Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		errs := w.Validate()
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
	if err := w.Flags().Parse([]string{"--days", "2", "--query", "d2, a"}); err != nil {
		t.Fatal(err)
	}
	if errs := w.Validate(); len(errs) > 0 {
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
	if err := w.Flags().Parse([]string{"--events", "12345"}); err != nil {
		t.Fatal(err)
	}
	tables := w.Tables(nil)
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
