package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbarena/dbarena/outfile"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
)

// The files of a results directory.
const (
	StateFile   = "plan.json"   // the expanded plan, the order and every run's status
	SourceFile  = "plan.yaml"   // a copy of the plan file, secrets replaced
	CompareFile = "compare.md"  // the compare tables, per workload
	ReportFile  = "report.html" // the HTML report of the whole experiment
	SummaryFile = "summary.md"  // the main tables and the failed runs
)

// StateVersion is the layout version of plan.json.
const StateVersion = 1

// Run statuses in plan.json.
const (
	RunPending = "pending"
	RunDone    = "done"
	RunFailed  = "failed"
	// RunStalled is a run that went to its end without making progress
	// (result.StatusStalled): its file is kept, and a resumed plan does
	// not run it again unless the file is removed.
	RunStalled = "stalled"
)

// Plan statuses in plan.json.
const (
	PlanRunning     = "running"
	PlanInterrupted = "interrupted"
	PlanComplete    = "complete" // every run done
	PlanFailed      = "failed"   // went to the end; some runs failed
	PlanPending     = "pending"  // never run
)

// ErrDifferentPlan is returned when a results directory holds the runs of
// another plan (other cells, or other settings for them).
var ErrDifferentPlan = errors.New("the results directory belongs to a different plan")

// State is plan.json: the expanded plan and where its execution stands.
// It is rewritten atomically after every run.
type State struct {
	SchemaVersion int    `json:"schema_version"`
	Name          string `json:"name"`
	Description   string `json:"description,omitempty"`
	// PlanFile is the plan file the directory was last run from.
	PlanFile    string      `json:"plan_file"`
	Seed        uint64      `json:"seed"`
	Repetitions int         `json:"repetitions"`
	Status      string      `json:"status"`
	CreatedAt   time.Time   `json:"created_at"`
	UpdatedAt   time.Time   `json:"updated_at"`
	Cells       []CellState `json:"cells"`
	// Runs are every cell's repetitions in execution order.
	Runs []RunState `json:"runs"`
	// Warnings are problems that failed no run (a managed server that
	// could not be stopped).
	Warnings []string `json:"warnings,omitempty"`
	// Precision is where the plan's repeat-until-precise stands after its
	// last round (absent without one): the rounds run, the widest
	// interval, why it stopped.
	Precision *result.Precision `json:"precision,omitempty"`
}

// CellState describes one cell in plan.json. Two plans are the same when
// their cells are (repetitions may differ).
type CellState struct {
	ID              string    `json:"id"`
	Target          string    `json:"target"`
	URL             string    `json:"url"` // redacted
	Managed         bool      `json:"managed,omitempty"`
	Knobs           []Setting `json:"knobs,omitempty"`
	Workload        string    `json:"workload"` // the entry's label
	WorkloadName    string    `json:"workload_name"`
	Options         []Setting `json:"options,omitempty"`
	Threads         int       `json:"threads"`
	DurationS       float64   `json:"duration_s"`
	WarmupS         float64   `json:"warmup_s"`
	ReportIntervalS float64   `json:"report_interval_s"`
	// RunOptions are the other run options (runner.Options) not at their
	// defaults, under their plan fields, in the list's order.
	RunOptions []Setting `json:"run_options,omitempty"`
	PrepareKey string    `json:"prepare_key"`
}

// RunState is one repetition of one cell.
type RunState struct {
	Cell string `json:"cell"`
	// Rep is the repetition, from 1, and the round it runs in.
	Rep    int    `json:"rep"`
	File   string `json:"file"`
	Status string `json:"status"`
	// Error is why the run failed (the last attempt).
	Error string `json:"error,omitempty"`
	// Attempts counts the times the run was started.
	Attempts   int        `json:"attempts,omitempty"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
}

// Counts is how many runs are in each status; failed counts the
// stalled ones too.
func (s *State) Counts() (done, failed, pending int) {
	for _, r := range s.Runs {
		switch r.Status {
		case RunDone:
			done++
		case RunFailed, RunStalled:
			failed++
		default:
			pending++
		}
	}
	return
}

func cellState(c Cell) CellState {
	return CellState{
		ID:              c.ID,
		Target:          c.Target.Label,
		URL:             c.Target.Redacted,
		Managed:         c.Target.Managed,
		Knobs:           c.Target.Knobs,
		Workload:        c.Workload.Label,
		WorkloadName:    c.Workload.Name,
		Options:         c.Workload.Options,
		Threads:         c.Threads,
		DurationS:       c.Workload.Run.Duration.Seconds(),
		WarmupS:         c.Workload.Run.Warmup.Seconds(),
		ReportIntervalS: c.Workload.Run.ReportInterval.Seconds(),
		RunOptions:      runOptions(c.Config()), // the cell's rate, when it sweeps rates
		PrepareKey:      c.Key.String(),
	}
}

// runOptions are cfg's run options that are not at their defaults, but
// for those CellState has fields of its own.
func runOptions(cfg runner.Config) []Setting {
	def := runner.DefaultConfig()
	var out []Setting
	for _, o := range runner.Options() {
		switch o.Field {
		case "duration", "warmup", "report_interval":
			continue
		}
		if v := o.Value(&cfg).String(); v != o.Value(&def).String() {
			out = append(out, Setting{Name: o.Field, Value: v})
		}
	}
	return out
}

// newState is the state of p before anything ran.
func newState(p *Plan, now time.Time) *State {
	st := &State{
		SchemaVersion: StateVersion,
		Name:          p.Name,
		Description:   p.Description,
		PlanFile:      p.Path,
		Seed:          p.Seed,
		Repetitions:   p.Repetitions,
		Status:        PlanPending,
		CreatedAt:     now,
		UpdatedAt:     now,
	}
	if abs, err := filepath.Abs(p.Path); err == nil {
		st.PlanFile = abs
	}
	for _, c := range p.Cells {
		st.Cells = append(st.Cells, cellState(c))
	}
	for _, s := range p.Order() {
		c := p.Cells[s.Cell]
		st.Runs = append(st.Runs, RunState{Cell: c.ID, Rep: s.Rep, File: c.FileName(s.Rep), Status: RunPending})
	}
	return st
}

// addRound appends round rep of p's cells, pending, in the order
// Order would give it.
func (st *State) addRound(p *Plan, rep int) {
	for _, s := range appendRound(nil, len(p.Cells), p.Seed, rep) {
		c := p.Cells[s.Cell]
		st.Runs = append(st.Runs, RunState{Cell: c.ID, Rep: rep, File: c.FileName(rep), Status: RunPending})
	}
	st.Repetitions = rep
}

// readState reads dir's plan.json; nil without error when there is none.
func readState(dir string) (*State, error) {
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: not a plan state file: %v", filepath.Join(dir, StateFile), err)
	}
	if st.SchemaVersion < 1 || st.SchemaVersion > StateVersion {
		return nil, fmt.Errorf("%s: schema_version %d (this build reads 1..%d)", filepath.Join(dir, StateFile), st.SchemaVersion, StateVersion)
	}
	return &st, nil
}

func (s *State) write(dir string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, StateFile), append(b, '\n'))
}

// sameCells compares the cells of a directory's state with the plan's and
// says how they differ, or "" when they are the same.
func sameCells(old *State, cur *State) string {
	var diffs []string
	if old.Seed != cur.Seed {
		diffs = append(diffs, fmt.Sprintf("seed %d, the directory's %d", cur.Seed, old.Seed))
	}
	oldBy := map[string]CellState{}
	for _, c := range old.Cells {
		oldBy[c.ID] = c
	}
	curBy := map[string]bool{}
	var added, changed []string
	for _, c := range cur.Cells {
		curBy[c.ID] = true
		o, ok := oldBy[c.ID]
		if !ok {
			added = append(added, c.ID)
			continue
		}
		if d := cellDiff(o, c); d != "" {
			changed = append(changed, c.ID+" ("+d+")")
		}
	}
	var removed []string
	for _, c := range old.Cells {
		if !curBy[c.ID] {
			removed = append(removed, c.ID)
		}
	}
	if len(added) > 0 {
		diffs = append(diffs, "cells not in the directory: "+abbreviate(added))
	}
	if len(removed) > 0 {
		diffs = append(diffs, "cells only in the directory: "+abbreviate(removed))
	}
	if len(changed) > 0 {
		diffs = append(diffs, "cells changed: "+abbreviate(changed))
	}
	return strings.Join(diffs, "; ")
}

func cellDiff(a, b CellState) string {
	var d []string
	cmp := func(name string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			d = append(d, fmt.Sprintf("%s %v, was %v", name, y, x))
		}
	}
	cmp("target", a.Target, b.Target)
	cmp("url", a.URL, b.URL)
	cmp("workload", a.WorkloadName, b.WorkloadName)
	// Options given at their defaults or left out are the same.
	cmp("prepare key", a.PrepareKey, b.PrepareKey)
	cmp("threads", a.Threads, b.Threads)
	cmp("duration", seconds(a.DurationS), seconds(b.DurationS))
	cmp("warmup", seconds(a.WarmupS), seconds(b.WarmupS))
	cmp("report_interval", seconds(a.ReportIntervalS), seconds(b.ReportIntervalS))
	cmp("run options", a.RunOptions, b.RunOptions)
	return strings.Join(d, ", ")
}

func seconds(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond)
}

func abbreviate(xs []string) string {
	const max = 5
	if len(xs) <= max {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:max], ", "), len(xs)-max)
}

// inspect is the state of p's runs in dir: plan.json's statuses checked
// against the result files. A run is done exactly when its result file
// is there and complete; a done run whose file is gone is pending again.
// A directory with another plan's runs is refused with ErrDifferentPlan,
// one with files but no plan.json with an error.
func inspect(p *Plan, dir string, now time.Time) (*State, error) {
	st := newState(p, now)
	old, err := readState(dir)
	if err != nil {
		return nil, err
	}
	if old == nil {
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") {
				return nil, fmt.Errorf("%s holds files but no %s: not a plan's results directory (choose another with -o)", dir, StateFile)
			}
		}
	} else {
		if d := sameCells(old, st); d != "" {
			return nil, fmt.Errorf("%w: %s was made by %s, and this plan differs: %s (give another directory with -o)",
				ErrDifferentPlan, dir, planFileName(old), d)
		}
		st.CreatedAt, st.UpdatedAt, st.Status, st.Warnings = old.CreatedAt, old.UpdatedAt, old.Status, old.Warnings
		if p.Precision != nil {
			// The rounds a repeat-until-precise added, kept.
			st.Precision = old.Precision
			have := st.Repetitions
			for _, r := range old.Runs {
				have = max(have, r.Rep)
			}
			for rep := st.Repetitions + 1; rep <= min(have, p.Precision.Max); rep++ {
				st.addRound(p, rep)
			}
		}
		type key struct {
			cell string
			rep  int
		}
		prev := map[key]RunState{}
		for _, r := range old.Runs {
			prev[key{r.Cell, r.Rep}] = r
		}
		for i := range st.Runs {
			if o, ok := prev[key{st.Runs[i].Cell, st.Runs[i].Rep}]; ok {
				st.Runs[i].Status, st.Runs[i].Error, st.Runs[i].Attempts = o.Status, o.Error, o.Attempts
				st.Runs[i].StartedAt, st.Runs[i].FinishedAt = o.StartedAt, o.FinishedAt
			}
		}
	}
	for i := range st.Runs {
		r := &st.Runs[i]
		status := fileStatus(filepath.Join(dir, r.File))
		switch {
		case status == result.StatusComplete:
			r.Status, r.Error = RunDone, ""
		case r.Status == RunStalled && status == result.StatusStalled:
		case r.Status == RunDone || r.Status == RunStalled:
			r.Status, r.Error = RunPending, ""
		case r.Status != RunFailed:
			r.Status = RunPending
		}
	}
	return st, nil
}

func planFileName(st *State) string {
	if st.PlanFile == "" {
		return "another plan"
	}
	return st.PlanFile
}

// fileStatus is the status of the result file at path, "" when it
// cannot be read.
func fileStatus(path string) string {
	f, err := result.Read(path)
	if err != nil {
		return ""
	}
	return f.Status
}

// writeFileAtomic writes data to path as package outfile writes every
// output: a regular file through a temporary file in its directory,
// renamed over it once complete.
func writeFileAtomic(path string, data []byte) error {
	return outfile.WriteFile(context.Background(), "", path, 0o644, data)
}
