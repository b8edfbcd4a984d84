package workload_test

import (
	"maps"
	"testing"

	"github.com/dbarena/dbarena/workload"
)

// newSized declares two options, one of which defines its data, and a
// data option it lacks.
func newSized() *sqlOnly {
	w := newSQLOnly("sized")
	w.fs.Int("rows", 100, "rows")
	w.fs.Int("mix", 1, "mix")
	w.dataOptions = []string{"rows", "gone"}
	return w
}

// DataOptionValues holds the current values of the declared data options
// that exist, answers for a family implementation with its base's, and is
// empty for a workload that declares none.
func TestDataOptionValues(t *testing.T) {
	w := newSized()
	impl := &docs{base: w}
	if err := w.fs.Parse([]string{"--rows", "7", "--mix", "3"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"rows": "7"}
	if got := workload.DataOptionValues(w); !maps.Equal(got, want) {
		t.Errorf("DataOptionValues = %v, want %v", got, want)
	}
	if got := workload.DataOptionValues(impl); !maps.Equal(got, want) {
		t.Errorf("DataOptionValues of a family implementation built before the options were parsed = %v, want %v", got, want)
	}
	if got := workload.DataOptionValues(newSQLOnly("plain")); got == nil || len(got) != 0 {
		t.Errorf("DataOptionValues without data options = %#v, want an empty map", got)
	}
}
