package oltp

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/oltp/internal/oltptest"
)

func variantByName(t *testing.T, name string) *variant {
	t.Helper()
	for _, v := range variants {
		if v.name == name {
			return v
		}
	}
	t.Fatalf("no variant %q", name)
	return nil
}

func TestRegistered(t *testing.T) {
	want := []string{"oltp_delete", "oltp_insert", "oltp_point_select", "oltp_read_only", "oltp_read_write",
		"oltp_read_write_pct", "oltp_update_index", "oltp_update_non_index", "oltp_write_only"}
	for _, name := range want {
		m, ok := workload.Lookup(name)
		if !ok {
			t.Errorf("%s not registered", name)
			continue
		}
		w := m.New()
		if w.Define().Meta.Name != name || m.Version == "" || m.Description == "" {
			t.Errorf("%s: bad meta %+v", name, w.Define().Meta)
		}
		ops := w.Define().Ops
		if name == "oltp_read_write_pct" {
			if len(ops) != 2 || ops[0].Name != "point_select" || ops[1].Name != "update_index" {
				t.Errorf("%s ops = %v", name, ops)
			}
		} else if len(ops) != 1 || ops[0].Name != name {
			t.Errorf("%s ops = %v", name, ops)
		}
		if errs := w.Define().Validate(); len(errs) != 0 {
			t.Errorf("%s defaults invalid: %v", name, errs)
		}
	}
}

func TestDefaults(t *testing.T) {
	m, _ := workload.Lookup("oltp_read_write_pct")
	got := workload.OptionValues(m.New())
	want := map[string]string{
		"tables": "1", "table-size": "10000", "range-size": "100", "point-selects": "10",
		"simple-ranges": "1", "sum-ranges": "1", "order-ranges": "1", "distinct-ranges": "1",
		"index-updates": "1", "non-index-updates": "1", "delete-inserts": "1",
		"range-selects": "true", "skip-trx": "false", "auto-inc": "true", "create-secondary": "true",
		"rand-type": "special", "rand-spec-iter": "12", "rand-spec-pct": "1", "rand-spec-res": "75",
		"rand-pareto-h": "0.2", "rand-zipfian-exp": "0.8", "seed-data": "0",
		"read-percent": "80", "write-percent": "20",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("--%s default = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("options = %v, want exactly %v", got, want)
	}
	m, _ = workload.Lookup("oltp_read_write")
	if _, ok := workload.OptionValues(m.New())["read-percent"]; ok {
		t.Error("--read-percent offered outside oltp_read_write_pct")
	}
}

func TestUnderscoreFlags(t *testing.T) {
	m, _ := workload.Lookup("oltp_read_only")
	w := m.New()
	if err := w.Define().Options.Parse([]string{"--table_size=5", "--point_selects", "3", "--range-size=2"}); err != nil {
		t.Fatal(err)
	}
	o := w.(*Test).opts
	if o.tableSize != 5 || o.pointSelects != 3 || o.rangeSize != 2 {
		t.Fatalf("parsed %+v", o)
	}
}

func TestValidateEachBadValue(t *testing.T) {
	cases := []struct {
		test string
		args []string
		flag string
	}{
		{"oltp_read_write", []string{"--tables=0"}, "tables"},
		{"oltp_read_write", []string{"--table-size=0"}, "table-size"},
		{"oltp_read_write", []string{"--table-size=3000000000"}, "table-size"},
		{"oltp_read_write", []string{"--range-size=0"}, "range-size"},
		{"oltp_read_write", []string{"--table-size=50"}, "range-size"}, // default range 100 > 50
		{"oltp_read_write", []string{"--point-selects=-1"}, "point-selects"},
		{"oltp_read_write", []string{"--simple-ranges=-1"}, "simple-ranges"},
		{"oltp_read_write", []string{"--sum-ranges=-1"}, "sum-ranges"},
		{"oltp_read_write", []string{"--order-ranges=-1"}, "order-ranges"},
		{"oltp_read_write", []string{"--distinct-ranges=-1"}, "distinct-ranges"},
		{"oltp_read_write", []string{"--index-updates=-1"}, "index-updates"},
		{"oltp_read_write", []string{"--non-index-updates=-1"}, "non-index-updates"},
		{"oltp_read_write", []string{"--delete-inserts=-1"}, "delete-inserts"},
		{"oltp_read_write", []string{"--rand-type=normal"}, "rand-type"},
		{"oltp_read_write", []string{"--rand-spec-iter=0"}, "rand-spec-iter"},
		{"oltp_read_write", []string{"--rand-spec-pct=101"}, "rand-spec-pct"},
		{"oltp_read_write", []string{"--rand-spec-pct=-1"}, "rand-spec-pct"},
		{"oltp_read_write", []string{"--rand-spec-res=101"}, "rand-spec-res"},
		{"oltp_read_write", []string{"--rand-pareto-h=0"}, "rand-pareto-h"},
		{"oltp_read_write", []string{"--rand-pareto-h=1"}, "rand-pareto-h"},
		{"oltp_read_write", []string{"--rand-zipfian-exp=-0.5"}, "rand-zipfian-exp"},
		{"oltp_read_write_pct", []string{"--read-percent=101", "--write-percent=-1"}, "read-percent"},
		{"oltp_read_write_pct", []string{"--read-percent=101", "--write-percent=-1"}, "write-percent"},
		{"oltp_read_write_pct", []string{"--read-percent=70", "--write-percent=20"}, "write-percent"},
	}
	for _, c := range cases {
		t.Run(c.test+"/"+strings.Join(c.args, ","), func(t *testing.T) {
			m, _ := workload.Lookup(c.test)
			w := m.New()
			if err := w.Define().Options.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			errs := w.Define().Validate()
			found := false
			for _, err := range errs {
				var oe *workload.OptionError
				if !errors.As(err, &oe) {
					t.Errorf("error %v is not an *OptionError", err)
					continue
				}
				if oe.Flag == c.flag {
					found = true
					if !strings.Contains(err.Error(), "--"+c.flag) || oe.Value == "" {
						t.Errorf("error %q does not name the flag and value", err)
					}
				}
			}
			if !found {
				t.Errorf("no error for --%s, got %v", c.flag, errs)
			}
		})
	}
}

func TestValidateReportsAllAtOnce(t *testing.T) {
	m, _ := workload.Lookup("oltp_read_write")
	w := m.New()
	if err := w.Define().Options.Parse([]string{"--tables=0", "--table-size=-3", "--range-size=0", "--point-selects=-1", "--rand-type=x", "--rand-pareto-h=2"}); err != nil {
		t.Fatal(err)
	}
	errs := w.Define().Validate()
	if len(errs) != 6 {
		t.Fatalf("got %d errors, want 6: %v", len(errs), errs)
	}
}

func TestRangeSizeOnlyCheckedWhereUsed(t *testing.T) {
	for _, name := range []string{"oltp_point_select", "oltp_write_only", "oltp_insert", "oltp_read_write_pct"} {
		m, _ := workload.Lookup(name)
		w := m.New()
		_ = w.Define().Options.Parse([]string{"--table-size=10"})
		if errs := w.Define().Validate(); len(errs) != 0 {
			t.Errorf("%s --table-size=10: %v", name, errs)
		}
	}
	m, _ := workload.Lookup("oltp_read_only")
	w := m.New()
	_ = w.Define().Options.Parse([]string{"--table-size=10", "--range-selects=false"})
	if errs := w.Define().Validate(); len(errs) != 0 {
		t.Errorf("oltp_read_only without ranges: %v", errs)
	}
}

func TestCounts(t *testing.T) {
	o := &options{pointSelects: 10, simpleRanges: 1, sumRanges: 1, orderRanges: 1, distinctRanges: 1,
		indexUpdates: 1, nonIndexUpdates: 1, deleteInserts: 1, rangeSelects: true}
	rw := variantByName(t, "oltp_read_write").counts(o)
	if rw != (GroupCounts{10, 1, 1, 1, 1, 1, 1, 1}) {
		t.Errorf("read_write counts %+v", rw)
	}
	ps := variantByName(t, "oltp_point_select").counts(o)
	if ps != (GroupCounts{Points: 1}) {
		t.Errorf("point_select counts %+v", ps)
	}
}

// Every test accepts all of sysbench's oltp_common options (a sysbench
// command line works unchanged), but the ones it does not use are hidden:
// `dbarena list` and --help show only what changes the test.
func TestOptionsATestUses(t *testing.T) {
	common := []string{"tables", "table-size", "auto-inc", "create-secondary", "seed-data", "rand-type", "rand-spec-iter",
		"rand-spec-pct", "rand-spec-res", "rand-pareto-h", "rand-zipfian-exp"}
	ranges := []string{"range-size", "range-selects", "simple-ranges", "sum-ranges", "order-ranges", "distinct-ranges"}
	all := append(append(append([]string{}, common...), ranges...), "point-selects", "index-updates", "non-index-updates", "delete-inserts", "skip-trx")
	for name, uses := range map[string][]string{
		"oltp_point_select":     common,
		"oltp_read_only":        append(append([]string{"point-selects", "skip-trx"}, common...), ranges...),
		"oltp_read_write":       all,
		"oltp_write_only":       append([]string{"index-updates", "non-index-updates", "delete-inserts", "skip-trx"}, common...),
		"oltp_update_index":     append([]string{"index-updates"}, common...),
		"oltp_update_non_index": append([]string{"non-index-updates"}, common...),
		"oltp_insert":           common,
		"oltp_delete":           common,
		"oltp_read_write_pct":   append([]string{"skip-trx", "read-percent", "write-percent"}, common...),
	} {
		t.Run("workload="+name, func(t *testing.T) {
			m, _ := workload.Lookup(name)
			fs := m.New().Define().Options
			var shown, hidden []string
			fs.VisitAll(func(f *pflag.Flag) {
				if f.Hidden {
					hidden = append(hidden, f.Name)
				} else {
					shown = append(shown, f.Name)
				}
			})
			slices.Sort(shown)
			want := slices.Sorted(slices.Values(uses))
			if !slices.Equal(shown, want) {
				t.Errorf("shown options %v, want %v", shown, want)
			}
			for _, f := range all {
				if fs.Lookup(f) == nil {
					t.Errorf("--%s is not accepted", f)
				}
			}
			if err := fs.Parse([]string{"--point-selects=3", "--range-size=5", "--skip-trx=false"}); err != nil {
				t.Errorf("a sysbench option the test ignores is refused: %v", err)
			}
		})
	}
}

// Every test's Spec.Metrics name what its Run reports: nothing, sysbench's
// figures being the runner's own.
func TestMetricNames(t *testing.T) {
	for _, name := range Names() {
		t.Run("workload="+name, func(t *testing.T) {
			oltptest.CheckMetrics(t, newTest(t, name), workload.RunEnv{Shard: workload.Shard{Index: 0, Count: 1}, Now: time.Now})
		})
	}
}
