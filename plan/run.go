package plan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/hostknob"
	textreport "github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
)

// Executor runs the plan's cells: it starts managed servers, prepares
// data, runs the workload and describes the result. SessionExecutor is
// the one dbarena uses. Run calls its methods from one goroutine, one at
// a time.
type Executor interface {
	// Prepare readies the data of c.Key before the key's first run in
	// this invocation: start a managed server, load the workload's
	// tables (or check that they are loaded). It is called once per key
	// that has runs left to do. An error fails every run of the key left
	// in this invocation, and Release is called at once.
	Prepare(ctx context.Context, c Cell) error
	// Run runs one repetition (from 1) of c and returns its result file,
	// complete, stalled (recorded as RunStalled) or marked failed. A run that fails returns its file with
	// status failed and the reason in Error when it has one (a managed
	// server that died: the tail of its log), or nil and the error. Run
	// must return promptly once ctx is canceled.
	Run(ctx context.Context, c Cell, rep int) (*result.File, error)
	// Release is called after the key's last run in this invocation, and
	// for every prepared key when the plan stops early: stop the managed
	// server. Its context is not canceled by an interruption (it has a
	// time limit of its own). An error is recorded as a warning.
	Release(ctx context.Context, key PrepareKey) error
}

// RunOptions control Run, Report and Inspect.
type RunOptions struct {
	// Dir is the results directory; empty means DefaultDir(p).
	Dir string
	// NoRetryFailed leaves runs that failed before as they are; by
	// default they run again.
	NoRetryFailed bool
	// Now is the clock for time stamps (default time.Now).
	Now func() time.Time
	// Log receives one line per run and per prepare (default: nothing).
	Log io.Writer
	// Tool is the dbarena version, shown in the HTML report.
	Tool string
	// Progress, when set, is told where the plan stands when a run
	// starts and when it ends (done or failed), on Run's goroutine.
	Progress func(Progress)
	// HostKnobs allows a plan's host knobs (os.vm.dirty_ratio …): the
	// kernel settings Run sets before each run of their targets and
	// restores after. Without it a plan that has some is refused
	// (ErrHostKnobs) before anything starts.
	HostKnobs bool
	// Host is where the host knobs are (default hostknob.Real, which
	// needs root).
	Host *hostknob.Host
}

// ErrHostKnobs is returned for a plan with host knobs run without
// RunOptions.HostKnobs.
var ErrHostKnobs = errors.New("the plan changes the host's kernel settings")

// HostKnobsFile holds, while a run's host knobs are set, the values they
// replaced: Run restores them from it when a run never ended.
const HostKnobsFile = "host-knobs.json"

func (o *RunOptions) host() hostknob.Host {
	if o.Host != nil {
		return *o.Host
	}
	return hostknob.Real
}

// CheckHostKnobs refuses p's host knobs unless o allows them and they
// can be set here (each a setting this kernel has, dbarena root); Run
// calls it before anything starts.
func CheckHostKnobs(p *Plan, o RunOptions) error {
	var all []hostknob.Setting
	var names []string
	for _, t := range p.Targets {
		for _, k := range t.HostKnobs {
			all = append(all, k)
			if !slices.Contains(names, k.Name) {
				names = append(names, k.Name)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	if !o.HostKnobs {
		return fmt.Errorf("%w (%s): allow it with --host-knobs; each is set before its target's runs and restored after", ErrHostKnobs, strings.Join(names, ", "))
	}
	return o.host().Check(all)
}

// Progress is where a plan's Run stands. Its counts are of the runs this
// Run does (a resumed plan's earlier runs are not among them).
type Progress struct {
	// Ended of Total runs ended; Failed of them failed.
	Ended, Failed, Total int
	// Left is the warm-up and measurement of the runs not ended: the
	// plan's own estimate of what remains, preparing data and starting
	// servers not included.
	Left time.Duration
	// Current is the run starting ("round 2/3 c1"), and CurrentTime its
	// warm-up and measurement; empty when the report is of a run that
	// ended.
	Current     string
	CurrentTime time.Duration
}

// ErrInterrupted is returned when the context was canceled: the runs done
// so far are recorded, the others are pending, and running the plan again
// resumes it.
var ErrInterrupted = errors.New("plan interrupted")

// ErrRunsFailed is returned when the plan went to the end but some runs
// failed; they are listed in summary.md and plan.json.
var ErrRunsFailed = errors.New("some runs failed")

// releaseTimeout bounds an Executor's Release after an interruption.
const releaseTimeout = 2 * time.Minute

// DefaultDir is the results directory of p when none is given:
// "<name>-results" next to the plan file.
func DefaultDir(p *Plan) string {
	return filepath.Join(filepath.Dir(p.Path), sanitize(p.Name)+"-results")
}

func (o *RunOptions) defaults(p *Plan) RunOptions {
	out := *o
	if out.Dir == "" {
		out.Dir = DefaultDir(p)
	}
	if out.Now == nil {
		out.Now = time.Now
	}
	if out.Log == nil {
		out.Log = io.Discard
	}
	return out
}

// Inspect is the state of p's runs in its results directory without
// running anything: what plan.json says, checked against the result files.
// A directory that does not exist yet gives every run pending.
func Inspect(p *Plan, opt RunOptions) (*State, error) {
	o := opt.defaults(p)
	return inspect(p, o.Dir, o.Now().UTC())
}

// Run executes p's runs in p.Order() through ex, writing every result file
// and plan.json into the results directory as it goes, and at the end the
// compare tables, the HTML report and the summary (see Report).
//
// A directory that already holds runs of p resumes: runs whose result file
// is complete are skipped, failed ones run again unless NoRetryFailed.
// A directory of a different plan is refused (ErrDifferentPlan) before
// anything runs, and so is a directory another Run is using.
//
// A failed run is recorded and the plan goes on. When ctx is canceled Run
// stops at once, releases what it prepared, records the state and returns
// ErrInterrupted; the run that was cut short stays pending. When runs
// failed, the error matches ErrRunsFailed. The State is returned in every
// case where one was read.
func Run(ctx context.Context, p *Plan, ex Executor, opt RunOptions) (*State, error) {
	o := opt.defaults(p)
	if err := CheckHostKnobs(p, o); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("plan: results directory: %w", err)
	}
	unlock, err := lockDir(o.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// A run killed while its host knobs were set left them so.
	if was, err := o.host().Recover(filepath.Join(o.Dir, HostKnobsFile)); err != nil {
		return nil, fmt.Errorf("plan: restoring the host's settings a killed run left changed: %w", err)
	} else if len(was) > 0 {
		var s []string
		for _, w := range was {
			s = append(s, w.Name+"="+w.Was)
		}
		fmt.Fprintf(o.Log, "restored the host's settings a run that did not end had changed: %s\n", strings.Join(s, ", "))
	}
	st, err := inspect(p, o.Dir, o.Now().UTC())
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(o.Dir, SourceFile), p.source); err != nil {
		return st, fmt.Errorf("plan: %w", err)
	}
	r := &execution{p: p, ex: ex, o: o, st: st, cells: map[string]Cell{}, prepared: map[PrepareKey]bool{}, broken: map[PrepareKey]error{},
		problems: map[string][]string{}}
	for _, c := range p.Cells {
		r.cells[c.ID] = c
	}
	return st, r.run(ctx)
}

type execution struct {
	p        *Plan
	ex       Executor
	o        RunOptions
	st       *State
	cells    map[string]Cell
	prepared map[PrepareKey]bool
	broken   map[PrepareKey]error
	// problems are the server monitor's problems logged last, by target
	// label: a target's monitor lives as long as the target is open, so
	// its next run's file repeats them.
	problems map[string][]string
}

func (r *execution) save() error {
	r.st.UpdatedAt = r.o.Now().UTC()
	if err := r.st.write(r.o.Dir); err != nil {
		return fmt.Errorf("plan: writing %s: %w", StateFile, err)
	}
	return nil
}

func (r *execution) logf(format string, args ...any) {
	fmt.Fprintf(r.o.Log, format+"\n", args...)
}

// pending are the runs to do, in order, and each key's last one (none
// while a repeat-until-precise may add rounds: its servers stay up until
// the rule says stop).
func (r *execution) pending() (todo []int, last map[PrepareKey]int) {
	last = map[PrepareKey]int{}
	for i, rs := range r.st.Runs {
		if rs.Status == RunDone || rs.Status == RunStalled || (rs.Status == RunFailed && r.o.NoRetryFailed) {
			continue
		}
		todo = append(todo, i)
		if r.p.Precision == nil {
			last[r.cells[rs.Cell].Key] = i
		}
	}
	return todo, last
}

func (r *execution) run(ctx context.Context) error {
	todo, last := r.pending()
	done, failed, _ := r.st.Counts()
	if done+failed > 0 {
		r.logf("resuming %s: %d of %d runs done, %d failed; %d to run", r.o.Dir, done, len(r.st.Runs), failed, len(todo))
	}
	r.st.Status = PlanRunning
	if err := r.save(); err != nil {
		return err
	}
	for {
		if stop, err := r.runAll(ctx, todo, last); stop {
			return err
		}
		more, err := r.anotherRound()
		if err != nil {
			r.releaseAll(ctx)
			return err
		}
		if !more {
			break
		}
		todo, last = r.pending()
	}
	r.releaseAll(ctx)
	done, failed, _ = r.st.Counts()
	r.st.Status = PlanComplete
	if failed > 0 {
		r.st.Status = PlanFailed
	}
	if err := r.save(); err != nil {
		return err
	}
	if err := report(r.p, r.st, r.o); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	r.logf("%s: %d runs done, %d failed; wrote %s, %s and %s", r.o.Dir, done, failed, CompareFile, ReportFile, SummaryFile)
	if failed > 0 {
		return fmt.Errorf("%w: %d of %d (see %s)", ErrRunsFailed, failed, len(r.st.Runs), filepath.Join(r.o.Dir, SummaryFile))
	}
	return nil
}

// anotherRound applies the plan's repeat-until-precise once every
// scheduled round has run: it adds the next round when some cell's
// interval is wider than asked and neither Max rounds nor the budget are
// spent, and records where the rule stands.
func (r *execution) anotherRound() (bool, error) {
	p := r.p.Precision
	if p == nil {
		return false, nil
	}
	rounds := r.st.Repetitions
	idx := map[string]int{}
	var ids []string
	var next, elapsed time.Duration
	metrics := map[string]bool{}
	for _, c := range r.p.Cells {
		if c.Workload.Run.Tries != nil {
			continue // the timing model's tries are its own repetitions
		}
		idx[c.ID] = len(ids)
		ids = append(ids, c.ID)
		next += c.runTime()
	}
	cells := make([][]float64, len(ids))
	for _, rs := range r.st.Runs {
		if rs.StartedAt != nil && rs.FinishedAt != nil {
			elapsed += rs.FinishedAt.Sub(*rs.StartedAt)
		}
		i, ok := idx[rs.Cell]
		if !ok || rs.Status != RunDone {
			continue
		}
		f, err := result.Read(filepath.Join(r.o.Dir, rs.File))
		if err != nil {
			return false, fmt.Errorf("plan: until_ci: %w", err)
		}
		m := r.cells[rs.Cell].Workload.Metric
		if m == "" {
			m = compare.Headline([]compare.Input{{File: f}})
		}
		metrics[m] = true
		for k := range f.Runs {
			if v, ok := compare.RunValue(&f.Runs[k], m); ok {
				cells[i] = append(cells[i], v)
			}
		}
	}
	if len(ids) == 0 {
		return false, nil
	}
	v := p.Check(rounds, cells, elapsed, next)
	metric := strings.Join(slices.Sorted(maps.Keys(metrics)), ", ")
	r.st.Precision = p.Outcome(metric, rounds, v)
	if v.Done {
		r.logf("%s", compare.PrecisionText(r.st.Precision))
		return false, r.save()
	}
	r.st.Precision.Stop = ""
	widest := "no interval yet (it needs " + strconv.Itoa(compare.MinRounds) + " rounds)"
	if !math.IsInf(v.Widest, 0) {
		widest = fmt.Sprintf("±%.1f%% (%s)", 100*v.Widest, ids[v.Cell])
	}
	r.logf("until_ci ±%g%%: round %d done, the widest interval %s; round %d follows", 100*p.Width, rounds, widest, rounds+1)
	r.st.addRound(r.p, rounds+1)
	return true, r.save()
}

// runAll does the runs todo, releasing each key after last[key]; stop is
// true when the plan must stop, with the error to return.
func (r *execution) runAll(ctx context.Context, todo []int, last map[PrepareKey]int) (stop bool, err error) {
	prog := Progress{Total: len(todo)}
	for _, i := range todo {
		prog.Left += r.cells[r.st.Runs[i].Cell].runTime()
	}
	tell := func(current string, c Cell) {
		if r.o.Progress != nil {
			p := prog
			if current != "" {
				p.Current, p.CurrentTime = current, c.runTime()
			}
			r.o.Progress(p)
		}
	}
	for n, i := range todo {
		if ctx.Err() != nil {
			return true, r.interrupted(ctx)
		}
		rs := &r.st.Runs[i]
		c := r.cells[rs.Cell]
		round := fmt.Sprintf("round %d/%d", rs.Rep, r.p.Repetitions)
		if r.p.Precision != nil {
			round = fmt.Sprintf("round %d of at most %d", rs.Rep, r.p.Precision.Max)
		}
		prefix := fmt.Sprintf("[%d/%d] %s %s", n+1, len(todo), round, c.ID)
		tell(round+" "+c.ID, c)
		// failed records that the run failed without running.
		failed := func(msg string) error {
			now := r.o.Now().UTC()
			rs.Status, rs.Error = RunFailed, msg
			rs.StartedAt, rs.FinishedAt = &now, &now
			r.logf("%s: failed: %s", prefix, firstLine(rs.Error))
			if err := r.save(); err != nil {
				return err
			}
			prog.Ended, prog.Failed, prog.Left = prog.Ended+1, prog.Failed+1, prog.Left-c.runTime()
			tell("", c)
			return nil
		}
		// The run's result file is the plan's while it runs: another
		// dbarena writing it (run --out, recover) holds its lock.
		lock, err := result.LockOutput(filepath.Join(r.o.Dir, rs.File))
		if err != nil {
			if err := failed(err.Error()); err != nil {
				return true, err
			}
			if last[c.Key] == i && r.prepared[c.Key] {
				r.release(ctx, c.Key)
				if err := r.save(); err != nil {
					return true, err
				}
			}
			continue
		}
		if !r.prepared[c.Key] && r.broken[c.Key] == nil {
			r.logf("%s: preparing %s", prefix, c.Key)
			if err := r.ex.Prepare(ctx, c); err != nil {
				if ctx.Err() != nil {
					lock.Release()
					r.prepared[c.Key] = true // let Release clean up what was started
					return true, r.interrupted(ctx)
				}
				r.broken[c.Key] = err
				r.release(ctx, c.Key)
			} else {
				r.prepared[c.Key] = true
			}
		}
		if err := r.broken[c.Key]; err != nil {
			lock.Release()
			if err := failed("prepare " + c.Key.String() + ": " + r.scrub(c, err.Error())); err != nil {
				return true, err
			}
			continue
		}
		stop, err := r.runOne(ctx, c, rs, prefix)
		lock.Release()
		if stop {
			return true, err
		}
		prog.Ended, prog.Left = prog.Ended+1, prog.Left-c.runTime()
		if rs.Status != RunDone {
			prog.Failed++
		}
		tell("", c)
		if last[c.Key] == i && r.prepared[c.Key] {
			r.release(ctx, c.Key)
			if err := r.save(); err != nil {
				return true, err
			}
		}
	}
	return false, nil
}

// setHostKnobs sets c's host knobs, saving the values they replace.
func (r *execution) setHostKnobs(c Cell, prefix string) (*hostknob.Applied, error) {
	if len(c.Target.HostKnobs) == 0 {
		return nil, nil
	}
	a, err := r.o.host().Apply(c.Target.HostKnobs, filepath.Join(r.o.Dir, HostKnobsFile))
	if err != nil {
		return nil, err
	}
	was := map[string]string{}
	for _, o := range a.Was {
		was[o.Name] = o.Was
	}
	var s []string
	for _, k := range a.Now {
		s = append(s, fmt.Sprintf("%s=%s (was %s)", k.Name, k.Value, was[k.Name]))
	}
	r.logf("%s: host settings %s", prefix, strings.Join(s, ", "))
	return a, nil
}

// recordHostKnobs writes the host knobs a run had into its file: among
// the knobs asked for and, as read back, among the settings.
func recordHostKnobs(f *result.File, asked []hostknob.Setting, a *hostknob.Applied) {
	if f.Target.Knobs == nil {
		f.Target.Knobs = map[string]string{}
	}
	if f.Target.Settings == nil {
		f.Target.Settings = map[string]string{}
	}
	for _, k := range asked {
		f.Target.Knobs[k.Name] = k.Value
	}
	for _, k := range a.Now {
		f.Target.Settings[k.Name] = k.Value
	}
}

// runOne runs one repetition and records it. stop is true when the plan
// must stop (interrupted, or the directory cannot be written).
func (r *execution) runOne(ctx context.Context, c Cell, rs *RunState, prefix string) (stop bool, err error) {
	if c.Workload.Run.Tries != nil {
		r.logf("%s: running %s on %s, %s", prefix, c.Workload.Label, c.Target.Label, triesHeading(c.Workload.Run))
	} else {
		r.logf("%s: running %s on %s, %d threads, %s (warm-up %s)", prefix, c.Workload.Label, c.Target.Label, c.Threads, c.Workload.Run.Limit(), c.Workload.Run.Warmup)
	}
	start := r.o.Now().UTC()
	prevStatus, prevStart := rs.Status, rs.StartedAt
	rs.StartedAt, rs.FinishedAt = &start, nil
	rs.Attempts++
	var f *result.File
	var runErr error
	applied, err := r.setHostKnobs(c, prefix)
	if err != nil {
		runErr = err
	} else {
		f, runErr = r.ex.Run(ctx, c, rs.Rep)
	}
	if applied != nil {
		if err := applied.Restore(); err != nil {
			// The host is not as it was: stop rather than run on it.
			r.releaseAll(ctx)
			return true, fmt.Errorf("plan: %w", err)
		}
		if f != nil {
			recordHostKnobs(f, c.Target.HostKnobs, applied)
		}
	}
	end := r.o.Now().UTC()
	completed := runErr == nil && f != nil && f.Status == result.StatusComplete
	stalled := runErr == nil && f != nil && f.Status == result.StatusStalled
	if ctx.Err() != nil && !completed {
		// Cut short: not a failure of the cell.
		rs.Status, rs.StartedAt = prevStatus, prevStart
		rs.Attempts--
		return true, r.interrupted(ctx)
	}
	rs.FinishedAt = &end
	var msg string
	switch {
	case completed:
	case runErr != nil:
		msg = runErr.Error()
	case f == nil:
		msg = "the executor returned no result"
	case f.Error != "":
		msg = f.Error
	default:
		msg = "the run's status is " + f.Status
	}
	if f != nil {
		if !completed && !stalled {
			f.Status = result.StatusFailed
			if f.Error == "" {
				f.Error = msg
			}
			f.Error = r.scrub(c, f.Error)
		}
		if err := result.Write(filepath.Join(r.o.Dir, rs.File), f); err != nil {
			rs.Status, rs.Error = RunFailed, r.scrub(c, err.Error())
			_ = r.save()
			r.releaseAll(ctx)
			return true, fmt.Errorf("plan: %w", err)
		}
	} else {
		// A result file left by an earlier attempt would say otherwise.
		os.Remove(filepath.Join(r.o.Dir, rs.File))
	}
	took := end.Sub(start).Round(time.Second)
	switch {
	case completed:
		rs.Status, rs.Error = RunDone, ""
		r.logf("%s: done in %s%s", prefix, took, headline(f, c.Threads))
	case stalled:
		rs.Status, rs.Error = RunStalled, r.scrub(c, msg)
		r.logf("%s: stalled after %s: %s", prefix, took, firstLine(rs.Error))
	default:
		rs.Status, rs.Error = RunFailed, r.scrub(c, msg)
		r.logf("%s: failed after %s: %s", prefix, took, firstLine(rs.Error))
	}
	if f != nil {
		r.logProblems(c.Target.Label, f.Target.Monitor)
	}
	if err := r.save(); err != nil {
		r.releaseAll(ctx)
		return true, err
	}
	return false, nil
}

// logProblems writes the server monitor's problems of a run on target
// as warnings under its line (textreport.MonitorProblems, as `dbarena run`
// ends with them), but those the target's previous run reported word for
// word.
func (r *execution) logProblems(target string, m *result.Monitor) {
	if m == nil {
		return
	}
	var fresh []string
	for _, p := range m.Problems {
		if !slices.Contains(r.problems[target], p) {
			fresh = append(fresh, p)
		}
	}
	r.problems[target] = m.Problems
	if len(fresh) == 0 {
		return
	}
	var b strings.Builder
	textreport.MonitorProblems(&b, &result.Monitor{Problems: fresh})
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		r.logf("    %s", l)
	}
}

// headline is ", 1234.5 tps" for the run of f at threads.
func headline(f *result.File, threads int) string {
	for _, run := range f.Runs {
		if run.Tries != nil {
			return ": " + triesLine(run.Tries)
		}
		if run.Threads == threads {
			return fmt.Sprintf(": %.1f tps, p95 %.2f ms", run.TPS, run.LatencyMS.P95)
		}
	}
	return ""
}

func (r *execution) scrub(c Cell, msg string) string { return scrubPassword(msg, c.Target.URL) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// release calls the executor's Release for key on a context that outlives
// an interruption, recording an error as a warning.
func (r *execution) release(ctx context.Context, key PrepareKey) {
	delete(r.prepared, key)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if err := r.ex.Release(rctx, key); err != nil {
		w := fmt.Sprintf("release %s: %s", key, err)
		if c, ok := r.cellOf(key); ok {
			w = r.scrub(c, w)
		}
		r.st.Warnings = append(r.st.Warnings, w)
		r.logf("warning: %s", w)
	}
}

func (r *execution) cellOf(key PrepareKey) (Cell, bool) {
	for _, c := range r.p.Cells {
		if c.Key == key {
			return c, true
		}
	}
	return Cell{}, false
}

// releaseAll releases every prepared key, in the plan's cell order.
func (r *execution) releaseAll(ctx context.Context) {
	for _, c := range r.p.Cells {
		if r.prepared[c.Key] {
			r.release(ctx, c.Key)
		}
	}
}

func (r *execution) interrupted(ctx context.Context) error {
	r.releaseAll(ctx)
	r.st.Status = PlanInterrupted
	done, _, _ := r.st.Counts()
	if err := r.save(); err != nil {
		return errors.Join(fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(ctx)), err)
	}
	r.logf("interrupted: %d of %d runs done; run the plan again to resume", done, len(r.st.Runs))
	return fmt.Errorf("%w (%d of %d runs done): %w", ErrInterrupted, done, len(r.st.Runs), context.Cause(ctx))
}
