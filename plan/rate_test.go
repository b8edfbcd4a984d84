package plan_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/plan"
)

// `rate:` sets a cell's arrival rate; a list of rates is a sweep axis
// like threads: one cell per rate and thread count, each with its rate.
// An entry's own rate overrides the plan's list.
func TestRateAxis(t *testing.T) {
	p := parse(t, `
duration: 10s
threads: [4, 8]
rate: [100, 400]
arrival: uniform
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: oltp_point_select
  - name: oltp_read_only
    rate: 50
`)
	var got []string
	for _, c := range p.Cells {
		cfg := c.Config()
		rate := "closed"
		if cfg.Rate.TPS != nil {
			rate = strconv.FormatFloat(*cfg.Rate.TPS, 'g', -1, 64)
		}
		got = append(got, c.ID+" "+rate+" "+cfg.Rate.Arrival)
	}
	want := []string{
		"pg__oltp_point_select__t4__r100 100 uniform", "pg__oltp_point_select__t4__r400 400 uniform",
		"pg__oltp_point_select__t8__r100 100 uniform", "pg__oltp_point_select__t8__r400 400 uniform",
		"pg__oltp_read_only__t4 50 uniform", "pg__oltp_read_only__t8 50 uniform",
	}
	if !slices.Equal(got, want) {
		t.Errorf("cells\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Bad rates are refused at their place, every one at once.
func TestRateAxisProblems(t *testing.T) {
	pe := problems(t, `
duration: 10s
threads: [1]
rate: [100, 0, fast, 100]
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: oltp_point_select
    max_queue: -1
`, plan.Options{})
	msg := pe.Error()
	for _, want := range []string{"rate[1]: 0: must be a positive", `rate[2]: "fast": want a number`, "rate[3]: 100 is in the list twice", "max_queue", "-1: must not be negative"} {
		if !strings.Contains(msg, want) {
			t.Errorf("problems lack %q:\n%s", want, msg)
		}
	}
}

// The compare tables' section names the arrival rates it swept.
func TestRatesNote(t *testing.T) {
	p := parse(t, `
duration: 10s
threads: [4]
rate: [100, 400]
targets:
  - {label: pg, url: "postgres://bench@127.0.0.1/bench"}
workloads:
  - name: oltp_point_select
`)
	if got, want := plan.RatesNote(p.Workloads[0]), "; arrival rates 100, 400/s (poisson)"; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
}
