package plan_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/plan"
)

// TestExamples: every plan in examples/ loads and validates, starts with
// a comment header, and states how long its runs take.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../examples/*.yaml")
	if err != nil || len(files) < 3 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var managed int
			p, err := plan.Load(f, plan.Options{ValidateTarget: func(raw string) error {
				if strings.HasPrefix(raw, plan.ManagedPrefix) {
					managed++
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if managed == 0 {
				t.Error("no managed target")
			}
			src := readFile(t, f)
			if !strings.HasPrefix(src, "# ") {
				t.Error("no comment header")
			}
			want := "# Time: " + p.Estimate().String() + " of warm-up and measurement"
			if !strings.Contains(src, want) {
				t.Errorf("the header does not say %q", want)
			}
		})
	}
}

// TestStudyCopiesMatchExamples: each small-scale study plan of
// testdata/studies reads its results as its example does: the same
// change convention (but for a knob matrix), and per workload the same
// metric and columns.
func TestStudyCopiesMatchExamples(t *testing.T) {
	copies, err := filepath.Glob("testdata/studies/*.yaml")
	if err != nil || len(copies) == 0 {
		t.Fatalf("study plans: %v %v", copies, err)
	}
	for _, c := range copies {
		t.Run(filepath.Base(c), func(t *testing.T) {
			small, err := plan.Load(c, plan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			full, err := plan.Load(filepath.Join("..", "examples", filepath.Base(c)), plan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// The knob study's example is a matrix against one baseline;
			// its copy turns one knob after another (vs-previous).
			if len(small.Targets) == len(full.Targets) && small.Change != full.Change {
				t.Errorf("change %q, the example's %q", small.Change, full.Change)
			}
			for _, w := range small.Workloads {
				var found bool
				for _, fw := range full.Workloads {
					if fw.Label != w.Label {
						continue
					}
					found = true
					if fw.Metric != w.Metric || strings.Join(fw.Columns, ",") != strings.Join(w.Columns, ",") {
						t.Errorf("%s: metric %q, columns %q; the example's %q, %q", w.Label, w.Metric, w.Columns, fw.Metric, fw.Columns)
					}
				}
				if !found {
					t.Errorf("the example has no workload %s", w.Label)
				}
			}
		})
	}
}
