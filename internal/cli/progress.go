package cli

// Progress of long commands (prepare, check, plan run). On a terminal an
// mpb bar is redrawn in place; otherwise plain lines, one every few
// seconds, go to the log; with --quiet (State.Quiet) neither, and the
// command prints only its errors and its summary.

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/plan"
)

// plainEvery is how often a plain progress line is written at most.
const plainEvery = 5 * time.Second

// newBars is an mpb container drawing on st.Stdout as on a terminal.
// Where st.Stdout is the process's terminal mpb measures its width;
// elsewhere (a test's buffer) it draws 80 columns.
func newBars(st *State) *mpb.Progress {
	return mpb.New(mpb.WithOutput(st.Stdout), mpb.ForceTTY(), mpb.WithAutoRefresh())
}

// loadProgress shows a prepare's progress (load.LoadProgress): a bar of
// batches (and units, like warehouses) done with rows, rows/s and ETA on
// a terminal; a plain line every 5 s and one at the end otherwise.
type loadProgress struct {
	st *State

	// On a terminal: the bar, made at the first report (it needs the
	// total), and the last report, read by its decorators.
	bars *mpb.Progress
	bar  *mpb.Bar
	mu   sync.Mutex
	last load.LoadProgress

	// Plain lines: the time and batch count of the last one.
	lastLine    time.Duration
	lastBatches int
}

func newLoadProgress(st *State) *loadProgress { return &loadProgress{st: st} }

// update takes a report from the loaders.
func (p *loadProgress) update(lp load.LoadProgress) {
	switch {
	case p.st.Quiet:
	case p.st.Terminal:
		p.mu.Lock()
		p.last = lp
		p.mu.Unlock()
		if p.bar == nil {
			p.bars = newBars(p.st)
			p.bar = p.bars.AddBar(int64(lp.TotalBatches),
				mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return p.counts() })),
				mpb.AppendDecorators(decor.Percentage(decor.WC{W: 6}), decor.Any(func(decor.Statistics) string { return " " + p.rates() })),
			)
		}
		// The bar completes in finish, once the last report is in.
		if lp.Batches < lp.TotalBatches {
			p.bar.SetCurrent(int64(lp.Batches))
		}
	default:
		if (lp.Done && lp.Batches != p.lastBatches) || lp.Elapsed-p.lastLine >= plainEvery {
			p.lastLine, p.lastBatches = lp.Elapsed, lp.Batches
			line := fmt.Sprintf("loaded %d/%d batches%s, %d rows, %.0f rows/s", lp.Batches, lp.TotalBatches, units(lp), lp.Rows, rowRate(lp))
			if !lp.Done {
				line += ", ETA " + loadETA(lp)
			}
			fmt.Fprintln(p.st.Stdout, line)
		}
	}
}

// counts is "12/40 batches, 3/10 warehouses" of the last report.
func (p *loadProgress) counts() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("%d/%d batches%s", p.last.Batches, p.last.TotalBatches, units(p.last))
}

// rates is "120000 rows, 40000 rows/s, ETA 12s" of the last report.
func (p *loadProgress) rates() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := fmt.Sprintf("%d rows, %.0f rows/s", p.last.Rows, rowRate(p.last))
	if !p.last.Done {
		s += ", ETA " + loadETA(p.last)
	}
	return s
}

// finish draws the bar's last frame and leaves it on the screen; ok
// says whether the load finished (else the bar stops where it was).
func (p *loadProgress) finish(ok bool) {
	if p.bar == nil {
		return
	}
	p.mu.Lock()
	last := p.last
	p.mu.Unlock()
	switch {
	case ok && last.TotalBatches > 0 && last.Batches == last.TotalBatches:
		p.bar.SetCurrent(int64(last.Batches)) // completes it
	case ok:
		p.bar.SetTotal(-1, true)
	default:
		p.bar.Abort(false)
	}
	p.bars.Wait()
}

func rowRate(lp load.LoadProgress) float64 {
	if s := lp.Elapsed.Seconds(); s > 0 {
		return float64(lp.Rows) / s
	}
	return 0
}

// loadETA is the time left at the pace of the batches so far: "?" before
// the first batch is in.
func loadETA(lp load.LoadProgress) string {
	if lp.Batches == 0 || lp.TotalBatches == 0 {
		return "?"
	}
	frac := float64(lp.Batches) / float64(lp.TotalBatches)
	return (time.Duration(float64(lp.Elapsed)/frac) - lp.Elapsed).Round(time.Second).String()
}

// units is ", 3/10 warehouses" for workloads that load in units.
func units(lp load.LoadProgress) string {
	if lp.Unit == "" {
		return ""
	}
	return fmt.Sprintf(", %d/%d %s", lp.UnitsDone, lp.Units, lp.Unit)
}

// checkProgress shows that a check is running: a spinner with the time
// so far on a terminal (removed at the end) and, on any output, one line
// when it ends. A Checker that reports its checks one by one
// (workload.ReportCheck) adds how many are done of how many, and the last
// one done: on the spinner's line, and on plain lines at most every 5 s.
type checkProgress struct {
	st    *State
	start time.Time
	bars  *mpb.Progress
	bar   *mpb.Bar

	mu          sync.Mutex
	done, total int
	last        string
	lastLine    time.Time
}

// report is the workload.CheckProgress of the check.
func (p *checkProgress) report(done, total int, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total, p.last = done, total, name
	if p.st.Quiet || p.st.Terminal {
		return
	}
	if now := p.st.Now(); now.Sub(p.lastLine) >= 5*time.Second {
		p.lastLine = now
		fmt.Fprintf(p.st.Stdout, "checked %d/%d: %s\n", done, total, name)
	}
}

// counts is ": 3/12 checks done (the last: …)" once the Checker reported.
func (p *checkProgress) counts() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.total == 0 {
		return ""
	}
	return fmt.Sprintf(": %d/%d checks done (the last: %s)", p.done, p.total, p.last)
}

// startCheck shows what is being checked ("tpcc on sqlite:///t.db").
func startCheck(st *State, what string) *checkProgress {
	p := &checkProgress{st: st, start: st.Now()}
	p.lastLine = p.start
	switch {
	case st.Quiet:
	case st.Terminal:
		p.bars = newBars(st)
		p.bar = p.bars.New(0, mpb.NopStyle(),
			mpb.PrependDecorators(decor.Spinner(nil), decor.Any(func(decor.Statistics) string {
				return " checking " + what + " " + st.Now().Sub(p.start).Round(time.Second).String() + p.counts()
			})),
			mpb.BarRemoveOnComplete(),
		)
	default:
		fmt.Fprintf(st.Stdout, "checking %s\n", what)
	}
	return p
}

// finish removes the spinner and, when the check ran to its end (ok),
// says how long it took.
func (p *checkProgress) finish(ok bool) {
	if p.bar != nil {
		p.bar.SetTotal(-1, true)
		p.bars.Wait()
	}
	if ok && !p.st.Quiet {
		fmt.Fprintf(p.st.Stdout, "checked in %s\n", p.st.Now().Sub(p.start).Round(time.Millisecond))
	}
}

// planProgress shows a plan's runs ended of those to do and the time its
// remaining runs' warm-ups and measurements take (plan.Progress): on a
// terminal a bar under the plan's log lines, which it prints above
// itself; otherwise a line after each run.
type planProgress struct {
	st   *State
	name string

	bars *mpb.Progress
	bar  *mpb.Bar
	mu   sync.Mutex
	last plan.Progress
	// started is when the last report's current run started.
	started time.Time
}

func newPlanProgress(st *State, name string) *planProgress {
	return &planProgress{st: st, name: name}
}

// log is where the plan's lines go: above the bar on a terminal, nowhere
// with --quiet.
func (p *planProgress) log() io.Writer {
	switch {
	case p.st.Quiet:
		return io.Discard
	case p.st.Terminal:
		return lineWriter{p}
	}
	return p.st.Stdout
}

// lineWriter writes above the plan's bar once it is drawn, before that
// straight to the output.
type lineWriter struct{ p *planProgress }

func (w lineWriter) Write(b []byte) (int, error) {
	if w.p.bars == nil {
		return w.p.st.Stdout.Write(b)
	}
	return w.p.bars.Write(b)
}

// update takes a report from plan.Run.
func (p *planProgress) update(pr plan.Progress) {
	switch {
	case p.st.Quiet:
	case p.st.Terminal:
		p.mu.Lock()
		p.last, p.started = pr, p.st.Now()
		p.mu.Unlock()
		if p.bar == nil {
			p.bars = newBars(p.st)
			p.bar = p.bars.AddBar(int64(pr.Total),
				mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return p.counts() })),
				mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return p.eta() })),
			)
		}
		if pr.Ended < pr.Total {
			p.bar.SetCurrent(int64(pr.Ended))
		}
	default:
		if pr.Current == "" {
			line := "progress: " + planCounts(pr)
			if pr.Ended < pr.Total {
				line += ", ETA " + pr.Left.Round(time.Second).String()
			}
			fmt.Fprintln(p.st.Stdout, line)
		}
	}
}

func (p *planProgress) counts() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return "plan " + p.name + ": " + planCounts(p.last)
}

// measuring says the current run's measurement (its warm-up first)
// starts now, its data prepared: the ETA counts down from here.
func (p *planProgress) measuring() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started = p.st.Now()
}

// eta is "round 2/3 c1, ETA 4m10s": the run going on and the time left,
// which counts down during a run by as much as the run takes; nothing
// once every run ended.
func (p *planProgress) eta() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last.Ended == p.last.Total {
		return ""
	}
	left := p.last.Left
	if p.last.Current == "" {
		return "ETA " + left.Round(time.Second).String()
	}
	left -= min(p.st.Now().Sub(p.started), p.last.CurrentTime)
	return p.last.Current + ", ETA " + left.Round(time.Second).String()
}

// planCounts is "3/12 runs, 1 failed".
func planCounts(pr plan.Progress) string {
	s := fmt.Sprintf("%d/%d runs", pr.Ended, pr.Total)
	if pr.Failed > 0 {
		s += fmt.Sprintf(", %d failed", pr.Failed)
	}
	return s
}

// finish draws the bar's last frame, with the lines written above it.
func (p *planProgress) finish() {
	if p.bar == nil {
		return
	}
	p.mu.Lock()
	last := p.last
	p.mu.Unlock()
	if last.Total > 0 && last.Ended == last.Total {
		p.bar.SetCurrent(int64(last.Total)) // completes it
	} else {
		p.bar.Abort(false)
	}
	p.bars.Wait()
}

// addQuiet registers --quiet on a command that shows progress.
func addQuiet(fs *pflag.FlagSet, quiet *bool) {
	fs.BoolVarP(quiet, "quiet", "q", false, "show no progress: print only errors and the summary")
}

// quietly is st with Quiet set when quiet is.
func quietly(st *State, quiet bool) *State {
	if !quiet {
		return st
	}
	q := *st
	q.Quiet = true
	return &q
}
