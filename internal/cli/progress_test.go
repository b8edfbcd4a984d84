package cli

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/plan"
)

// syncBuffer is a bytes.Buffer that mpb's goroutine and the test may
// write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fakeClock advances by step at each reading.
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

func progressState(terminal, quiet bool) (*State, *syncBuffer) {
	out := &syncBuffer{}
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), step: 1700 * time.Millisecond}
	return &State{Stdout: out, Stderr: out, Now: clock.now, Terminal: terminal, Quiet: quiet}, out
}

// loadReports is a prepare of 40 batches in 10 warehouses, reported
// every second for 12 s, then its end.
func loadReports() []load.LoadProgress {
	var lps []load.LoadProgress
	for s := 1; s <= 12; s++ {
		b := s * 3
		lps = append(lps, load.LoadProgress{Rows: int64(b) * 1000, Batches: b, TotalBatches: 40, Unit: "warehouses", UnitsDone: b / 4, Units: 10,
			Elapsed: time.Duration(s) * time.Second})
	}
	return append(lps, load.LoadProgress{Rows: 40000, Batches: 40, TotalBatches: 40, Unit: "warehouses", UnitsDone: 10, Units: 10,
		Elapsed: 13 * time.Second, Done: true})
}

// Not on a terminal, a prepare writes a line every 5 s with its ETA and
// one at the end.
func TestLoadProgressPlain(t *testing.T) {
	st, out := progressState(false, false)
	p := newLoadProgress(st)
	for _, lp := range loadReports() {
		p.update(lp)
	}
	p.finish(true)
	want := "loaded 15/40 batches, 3/10 warehouses, 15000 rows, 3000 rows/s, ETA 8s\n" +
		"loaded 30/40 batches, 7/10 warehouses, 30000 rows, 3000 rows/s, ETA 3s\n" +
		"loaded 40/40 batches, 10/10 warehouses, 40000 rows, 3077 rows/s\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The workloads that load no units leave them out.
func TestLoadProgressPlainNoUnits(t *testing.T) {
	st, out := progressState(false, false)
	p := newLoadProgress(st)
	p.update(load.LoadProgress{Rows: 0, Batches: 0, TotalBatches: 4, Elapsed: 5 * time.Second})
	p.update(load.LoadProgress{Rows: 800, Batches: 4, TotalBatches: 4, Elapsed: 8 * time.Second, Done: true})
	want := "loaded 0/4 batches, 0 rows, 0 rows/s, ETA ?\nloaded 4/4 batches, 800 rows, 100 rows/s\n"
	if got := out.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// lastFrame is what a terminal shows at the end of out: the text after
// the last cursor-up-and-erase, lines trimmed.
func lastFrame(out string) string {
	const erase = "A\x1b[J"
	if i := strings.LastIndex(out, erase); i >= 0 {
		out = out[i+len(erase):]
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// On a terminal a prepare draws an mpb bar; its last frame has the
// counts, the rows and the rate, and no ETA.
func TestLoadProgressTerminal(t *testing.T) {
	st, out := progressState(true, false)
	p := newLoadProgress(st)
	for _, lp := range loadReports() {
		p.update(lp)
	}
	p.finish(true)
	frame := lastFrame(out.String())
	if !regexp.MustCompile(`^40/40 batches, 10/10 warehouses \[=+\]\s+100 % 40000 rows, 3077 rows/s\n$`).MatchString(frame) {
		t.Errorf("last frame %q (all of it %q)", frame, out.String())
	}
}

// A load that ends before the first report draws a full bar all the same.
func TestLoadProgressTerminalOneReport(t *testing.T) {
	st, out := progressState(true, false)
	p := newLoadProgress(st)
	lps := loadReports()
	p.update(lps[len(lps)-1])
	p.finish(true)
	frame := lastFrame(out.String())
	if !regexp.MustCompile(`^40/40 batches, 10/10 warehouses \[=+\]\s+100 % 40000 rows, 3077 rows/s\n$`).MatchString(frame) {
		t.Errorf("last frame %q", frame)
	}
}

// A prepare that fails leaves the bar where it was.
func TestLoadProgressTerminalAborted(t *testing.T) {
	st, out := progressState(true, false)
	p := newLoadProgress(st)
	p.update(loadReports()[4])
	p.finish(false)
	if frame := lastFrame(out.String()); !strings.HasPrefix(frame, "15/40 batches, 3/10 warehouses [") || !strings.Contains(frame, "15000 rows, 3000 rows/s, ETA 8s") {
		t.Errorf("last frame %q", frame)
	}
}

// --quiet: no progress, on a terminal or not.
func TestLoadProgressQuiet(t *testing.T) {
	for _, terminal := range []bool{false, true} {
		st, out := progressState(terminal, true)
		p := newLoadProgress(st)
		for _, lp := range loadReports() {
			p.update(lp)
		}
		p.finish(true)
		if out.String() != "" {
			t.Errorf("terminal %v: %q", terminal, out.String())
		}
	}
}

// A check says what it checks and, at its end, how long it took; on a
// terminal a spinner shows meanwhile and is gone at the end.
func TestCheckProgress(t *testing.T) {
	st, out := progressState(false, false)
	startCheck(st, "tpcc on sqlite:///t.db").finish(true)
	if got, want := out.String(), "checking tpcc on sqlite:///t.db\nchecked in 1.7s\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	st, out = progressState(false, false)
	startCheck(st, "tpcc on sqlite:///t.db").finish(false)
	if got, want := out.String(), "checking tpcc on sqlite:///t.db\n"; got != want {
		t.Errorf("a check that failed to run: got %q, want %q", got, want)
	}

	st, out = progressState(true, false)
	p := startCheck(st, "tpcc on sqlite:///t.db")
	p.finish(true)
	// The spinner's line is erased; the clock is read by its frames too.
	if all, frame := out.String(), lastFrame(out.String()); !strings.Contains(all, " checking tpcc on sqlite:///t.db ") ||
		!regexp.MustCompile(`^checked in \d+\.\ds\n$`).MatchString(frame) {
		t.Errorf("terminal: last frame %q (all of it %q)", frame, all)
	}

	for _, terminal := range []bool{false, true} {
		st, out := progressState(terminal, true)
		startCheck(st, "tpcc on sqlite:///t.db").finish(true)
		if out.String() != "" {
			t.Errorf("quiet, terminal %v: %q", terminal, out.String())
		}
	}
}

// A Checker that reports its checks one by one adds a plain line at most
// every 5 s; --quiet prints none.
func TestCheckProgressCounts(t *testing.T) {
	st, out := progressState(false, false) // the clock moves 1.7 s a read
	p := startCheck(st, "tpce on sqlite:///t.db")
	for i, name := range []string{"a", "b", "c", "d"} {
		p.report(i+1, 4, name)
	}
	p.finish(true)
	if got, want := out.String(), "checking tpce on sqlite:///t.db\nchecked 3/4: c\nchecked in 8.5s\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := p.counts(); got != ": 4/4 checks done (the last: d)" {
		t.Errorf("counts %q", got)
	}
	st, out = progressState(false, true)
	p = startCheck(st, "tpce on sqlite:///t.db")
	p.report(1, 4, "a")
	p.report(4, 4, "d")
	p.finish(true)
	if out.String() != "" {
		t.Errorf("quiet: %q", out.String())
	}
}

// planReports is a plan of 3 runs of 1m each, the second failing, as
// plan.Run reports it, with the plan's log lines between.
func drivePlan(p *planProgress) {
	log := p.log()
	pr := plan.Progress{Total: 3, Left: 3 * time.Minute}
	for i := 1; i <= 3; i++ {
		pr.Current = fmt.Sprintf("round %d/1 c%d", i, i)
		p.update(pr)
		fmt.Fprintf(log, "[%d/3] round %d/1 c%d: done\n", i, i, i)
		pr.Current, pr.Ended, pr.Left = "", i, pr.Left-time.Minute
		if i == 2 {
			pr.Failed++
		}
		p.update(pr)
	}
	fmt.Fprintln(log, "results: 2 runs done, 1 failed")
}

// Not on a terminal, a plan writes a progress line after each run.
func TestPlanProgressPlain(t *testing.T) {
	st, out := progressState(false, false)
	p := newPlanProgress(st, "exp")
	drivePlan(p)
	p.finish()
	want := "[1/3] round 1/1 c1: done\nprogress: 1/3 runs, ETA 2m0s\n" +
		"[2/3] round 2/1 c2: done\nprogress: 2/3 runs, 1 failed, ETA 1m0s\n" +
		"[3/3] round 3/1 c3: done\nprogress: 3/3 runs, 1 failed\n" +
		"results: 2 runs done, 1 failed\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// On a terminal the plan's lines are printed above its bar, whose last
// frame has the counts.
func TestPlanProgressTerminal(t *testing.T) {
	st, out := progressState(true, false)
	p := newPlanProgress(st, "exp")
	drivePlan(p)
	p.finish()
	all := out.String()
	for i := 1; i <= 3; i++ {
		if line := fmt.Sprintf("[%d/3] round %d/1 c%d: done\n", i, i, i); strings.Count(all, line) != 1 {
			t.Errorf("%q printed %d times in %q", line, strings.Count(all, line), all)
		}
	}
	// The last frame: the bar, under the lines not drawn before.
	frame := lastFrame(all)
	if !regexp.MustCompile(`(^|\n)plan exp: 3/3 runs, 1 failed \[=+\]\n$`).MatchString(frame) {
		t.Errorf("last frame %q (all of it %q)", frame, all)
	}
	if !strings.Contains(all, "results: 2 runs done, 1 failed\n") {
		t.Errorf("the plan's last line is missing: %q", all)
	}
}

// --quiet: neither the plan's lines nor its progress.
func TestPlanProgressQuiet(t *testing.T) {
	for _, terminal := range []bool{false, true} {
		st, out := progressState(terminal, true)
		p := newPlanProgress(st, "exp")
		drivePlan(p)
		p.finish()
		if out.String() != "" {
			t.Errorf("terminal %v: %q", terminal, out.String())
		}
	}
}

// The bar's ETA counts down during a run, by at most the run's warm-up
// and measurement.
func TestPlanETA(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	p := newPlanProgress(&State{Now: func() time.Time { return now }}, "exp")
	p.last, p.started = plan.Progress{Ended: 1, Total: 3, Left: 2 * time.Minute, Current: "round 2/3 c1", CurrentTime: time.Minute}, start
	for _, tc := range []struct {
		after time.Duration
		want  string
	}{
		{0, "round 2/3 c1, ETA 2m0s"},
		{1700 * time.Millisecond, "round 2/3 c1, ETA 1m58s"},
		{50 * time.Second, "round 2/3 c1, ETA 1m10s"},
		{5 * time.Minute, "round 2/3 c1, ETA 1m0s"},
	} {
		now = start.Add(tc.after)
		if got := p.eta(); got != tc.want {
			t.Errorf("after %s: %q, want %q", tc.after, got, tc.want)
		}
	}
	// A run whose data took 2 minutes to prepare counts down from the
	// start of its measurement.
	start = start.Add(2 * time.Minute)
	now = start
	p.measuring()
	now = start.Add(10 * time.Second)
	if got := p.eta(); got != "round 2/3 c1, ETA 1m50s" {
		t.Errorf("after preparing: %q", got)
	}
	p.last = plan.Progress{Ended: 2, Total: 3, Left: time.Minute}
	if got := p.eta(); got != "ETA 1m0s" {
		t.Errorf("between runs: %q", got)
	}
	p.last = plan.Progress{Ended: 3, Total: 3}
	if got := p.eta(); got != "" {
		t.Errorf("at the end: %q", got)
	}
}
