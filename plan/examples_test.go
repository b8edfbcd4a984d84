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
