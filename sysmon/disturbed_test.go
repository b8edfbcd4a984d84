package sysmon

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/result"
)

func TestLimitsCauses(t *testing.T) {
	l := DefaultLimits()
	for _, tc := range []struct {
		name  string
		iv    Interval
		cores float64
		want  []string
	}{
		{"quiet", Interval{"host_other_cpu_pct": 3, "host_steal_pct": 0.5, "client_cpu_pct": 40}, 2, nil},
		{"at the limits", Interval{"host_other_cpu_pct": 25, "host_steal_pct": 5, "client_cpu_pct": 180}, 2, nil},
		{"all three", Interval{"host_other_cpu_pct": 61, "host_steal_pct": 9, "client_cpu_pct": 195}, 2, []string{"other", "steal", "client"}},
		// An embedded engine's CPU is the database's: not judged.
		{"embedded", Interval{"client_cpu_pct": 199}, 0, nil},
		{"absent metrics", Interval{"server_cpu_pct": 150}, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := l.Causes(tc.iv, tc.cores); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Causes = %v, want %v", got, tc.want)
			}
		})
	}
	if got := (Limits{}).Causes(Interval{"host_other_cpu_pct": 99, "host_steal_pct": 99}, 2); got != nil {
		t.Errorf("zero limits: %v", got)
	}
}

// Judge flags a cause above its limit in Share% of the measured
// intervals that have its metric; the figures are worked out by hand.
func TestLimitsJudge(t *testing.T) {
	l := DefaultLimits()
	other := func(vs ...float64) []Interval {
		out := make([]Interval, len(vs))
		for i, v := range vs {
			out[i] = Interval{"host_other_cpu_pct": v, "interval_s": 1}
		}
		return out
	}
	// 9 of 10 above 25%: mean of those (60·8 + 70)/9 = 61.11, max 70.
	got := l.Judge(other(60, 60, 60, 60, 60, 60, 60, 60, 70, 2), 2)
	want := []result.Disturbance{{Cause: "other", Metric: "host_other_cpu_pct", Limit: 25, Intervals: 9, Measured: 10, Mean: 61.111, Max: 70,
		Text: "processes other than dbarena and the server used 61% of the host's CPU (mean; up to 70%) in 9 of 10 measured intervals, above the limit of 25% (--disturbed-other)"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Judge =\n%+v\nwant\n%+v", got, want)
	}
	// One of 20 (5%) is under the 10% share; two of 20 is 10%: flagged.
	if got := l.Judge(other(append(make([]float64, 19), 90)...), 2); got != nil {
		t.Errorf("one interval of 20: %+v", got)
	}
	if got := l.Judge(other(append(make([]float64, 18), 90, 90)...), 2); len(got) != 1 || got[0].Intervals != 2 || got[0].Measured != 20 {
		t.Errorf("two intervals of 20: %+v", got)
	}
	// Intervals without the metric are not counted.
	ivs := append(other(40), Interval{"interval_s": 1}, Interval{"interval_s": 1})
	if got := l.Judge(ivs, 2); len(got) != 1 || got[0].Measured != 1 {
		t.Errorf("with intervals lacking the metric: %+v", got)
	}
	if got := l.Judge(nil, 2); got != nil {
		t.Errorf("no intervals: %+v", got)
	}
	// dbarena at 1.9 of its 2 cores (limit 90%: 180% of one core), and
	// steal.
	got = l.Judge([]Interval{{"client_cpu_pct": 190, "host_steal_pct": 7.5}, {"client_cpu_pct": 190, "host_steal_pct": 0}}, 2)
	if len(got) != 2 || got[0].Cause != "steal" || got[1].Cause != "client" || got[1].Limit != 180 {
		t.Fatalf("steal and client: %+v", got)
	}
	for i, w := range []string{
		"the hypervisor stole 7.5% of the host's CPU (mean; up to 7.5%) in 1 of 2 measured intervals, above the limit of 5% (--disturbed-steal)",
		"dbarena itself used 1.90 of the 2 cores it drives the workers with (mean; up to 1.90) in 2 of 2 measured intervals, above the limit of 90% (--disturbed-client)",
	} {
		if !strings.HasPrefix(got[i].Text, w) {
			t.Errorf("text %q, want it to start %q", got[i].Text, w)
		}
	}
	if got := result.DisturbedWarning(want[0]); !strings.HasPrefix(got, "disturbed: processes other than dbarena") {
		t.Errorf("warning %q", got)
	}
}
