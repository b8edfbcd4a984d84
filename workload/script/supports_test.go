package script_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/workload"
)

// The capabilities of the SQL engines, as their dialects state them in
// the parts the scripts ask about.
var (
	sqliteCaps   = engine.Capabilities{Kind: engine.KindSQLite, Family: engine.FamilySQL, Transactions: true, TextResults: true}
	mysqlCaps    = engine.Capabilities{Kind: engine.KindMySQL, Family: engine.FamilySQL, Transactions: true, Procedures: true, TextResults: true}
	postgresCaps = engine.Capabilities{Kind: engine.KindPostgres, Family: engine.FamilySQL, Transactions: true, Procedures: true,
		Pipelines: true, TextResults: true, MultiResults: true}
)

// writeScript writes src to a file of t's own and returns its path.
func writeScript(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSupportsPipelines: Spec.Supports refuses a script with a pipeline
// on engines without pipelines (SQLite, MySQL), before any work, with an
// option error naming --file and its value and where the pipeline
// starts; on PostgreSQL it refuses nothing. Scripts without a pipeline
// are not refused anywhere.
func TestSupportsPipelines(t *testing.T) {
	pipe := writeScript(t, "pipe.sql", "SELECT 1;\n  \\startpipeline\nSELECT 1;\n\\endpipeline\n")
	w := parse(t, "--file", pipe+"@2", "--builtin", "select-only", "--protocol", "prepared")
	supports := w.Define().Supports
	if supports == nil {
		t.Fatal("no Spec.Supports")
	}
	for _, c := range []struct {
		name string
		caps engine.Capabilities
	}{{"sqlite", sqliteCaps}, {"mysql", mysqlCaps}} {
		t.Run("engine="+c.name, func(t *testing.T) {
			errs := supports(c.caps)
			if len(errs) != 1 {
				t.Fatalf("Supports = %v, want one error, for the pipeline", errs)
			}
			var oe *workload.OptionError
			if !errors.As(errs[0], &oe) || oe.Flag != "file" || oe.Value != pipe+"@2" {
				t.Fatalf("Supports = %#v, want an option error for --file %s@2", errs[0], pipe)
			}
			for _, want := range []string{"--file " + pipe + "@2: ", pipe + ":2:3: \\startpipeline", c.name + " connections", "PostgreSQL only"} {
				if !strings.Contains(errs[0].Error(), want) {
					t.Errorf("%q does not say %q", errs[0], want)
				}
			}
		})
	}
	t.Run("engine=postgres", func(t *testing.T) {
		if errs := supports(postgresCaps); len(errs) != 0 {
			t.Errorf("Supports = %v, want none", errs)
		}
	})
	t.Run("no pipeline", func(t *testing.T) {
		plain := writeScript(t, "plain.sql", "SELECT 1;\n")
		w := parse(t, "--file", plain, "--builtin", "tpcb-like")
		for _, caps := range []engine.Capabilities{sqliteCaps, mysqlCaps, postgresCaps} {
			if errs := w.Define().Supports(caps); len(errs) != 0 {
				t.Errorf("%s: Supports = %v, want none", caps.Kind, errs)
			}
		}
	})
	// Opening a run on such an engine refuses the script too.
	if _, err := w.Open(context.Background(), workload.RunEnv{Engine: sqliteCaps, Now: time.Now}); err == nil || !strings.Contains(err.Error(), "\\startpipeline") {
		t.Errorf("Open on SQLite = %v, want the pipeline refused", err)
	}
	if _, err := w.Open(context.Background(), workload.RunEnv{Engine: postgresCaps, Now: time.Now}); err != nil {
		t.Errorf("Open on PostgreSQL = %v", err)
	}
}

// TestSupportsStoredResults: \gset and \aset need an engine whose
// connections return rows as text with their columns' names.
func TestSupportsStoredResults(t *testing.T) {
	gset := writeScript(t, "gset.sql", "SELECT 1 AS one \\gset\n")
	w := parse(t, "--file", gset)
	errs := w.Define().Supports(engine.Capabilities{Kind: "textless", Family: engine.FamilySQL, Transactions: true})
	var oe *workload.OptionError
	if len(errs) != 1 || !errors.As(errs[0], &oe) || oe.Flag != "file" || oe.Value != gset || !strings.Contains(errs[0].Error(), gset+":1:1: \\gset needs query results") {
		t.Errorf("Supports without text results = %v, want an option error for --file %s's \\gset", errs, gset)
	}
	for _, caps := range []engine.Capabilities{sqliteCaps, mysqlCaps, postgresCaps} {
		if errs := w.Define().Supports(caps); len(errs) != 0 {
			t.Errorf("%s: Supports = %v, want none", caps.Kind, errs)
		}
	}
}

// Spec.Metrics name what the Run reports: nothing, the workload having
// no figures of its own.
func TestMetricNames(t *testing.T) {
	w := parse(t, "--builtin", "tpcb-like@2", "--builtin", "select-only")
	spec := w.Define()
	run, err := w.Open(context.Background(), workload.RunEnv{Engine: postgresCaps, Shard: workload.Shard{Index: 0, Count: 1}, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	s := workload.Span{Length: time.Minute, Final: true}
	for _, op := range spec.Ops {
		h := histogram.New()
		h.RecordValue(1000)
		s.Ops = append(s.Ops, workload.OpSpan{Name: op.Name, Count: 1, Hist: h})
	}
	var got []string
	if run.Metrics != nil {
		for _, m := range run.Metrics(s) {
			got = append(got, m.Name)
		}
	}
	if spec.Counters != nil || !slices.Equal(got, spec.Metrics) {
		t.Errorf("Run.Metrics reports %q, Spec.Metrics names %q (counters %v)", got, spec.Metrics, spec.Counters)
	}
}
