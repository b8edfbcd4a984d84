package workload_test

import (
	"maps"
	"testing"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/workload"
)

// sized declares two options, one of which defines its data.
type sized struct {
	sqlOnly
	fs *pflag.FlagSet
}

func newSized() *sized {
	w := &sized{sqlOnly: sqlOnly{name: "sized"}, fs: pflag.NewFlagSet("sized", pflag.ContinueOnError)}
	w.fs.Int("rows", 100, "rows")
	w.fs.Int("mix", 1, "mix")
	return w
}

func (w *sized) Flags() *pflag.FlagSet { return w.fs }
func (w *sized) DataOptions() []string { return []string{"rows", "gone"} }

// DataOptionValues holds the current values of the declared data options
// that exist, answers for a family implementation with its base's, and is
// empty for a workload that declares none.
func TestDataOptionValues(t *testing.T) {
	w := newSized()
	if err := w.fs.Parse([]string{"--rows", "7", "--mix", "3"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"rows": "7"}
	if got := workload.DataOptionValues(w); !maps.Equal(got, want) {
		t.Errorf("DataOptionValues = %v, want %v", got, want)
	}
	if got := workload.DataOptionValues(&docs{base: w}); !maps.Equal(got, want) {
		t.Errorf("DataOptionValues of a family implementation = %v, want %v", got, want)
	}
	if got := workload.DataOptionValues(&sqlOnly{name: "plain"}); got == nil || len(got) != 0 {
		t.Errorf("DataOptionValues without DataOptioner = %#v, want an empty map", got)
	}
}
