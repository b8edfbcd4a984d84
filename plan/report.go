package plan

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/markdown"
	"github.com/dbarena/dbarena/report/htmlreport"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner/timing"
)

// Report writes the end artifacts of p's results directory from the runs
// done so far: compare.md (per workload, the compare tables of its metric,
// with its columns beside each target's value, and of p95 latency: one column per target, one row per thread count, the
// repetitions of a cell as a median with its 95% confidence interval),
// report.html (htmlreport over every complete result file) and summary.md
// (per workload the metric's table, then the failed runs with their
// errors). Run calls it at the end; it needs no executor.
func Report(p *Plan, opt RunOptions) error {
	o := opt.defaults(p)
	st, err := inspect(p, o.Dir, o.Now().UTC())
	if err != nil {
		return err
	}
	return report(p, st, o)
}

// section is one workload entry's inputs and tables.
type section struct {
	w      Workload
	inputs []compare.Input
	// tables by metric; err when a table could not be built
	main, p95 []*compare.Table
	mainErr   error
	notes     []string
	// group are the entries of a plan's group, in file order (w is the
	// first); nil for an entry with a table of its own.
	group []Workload
	// tries is the table of a workload run in the analytic timing model
	// (its run options' tries), in place of main and p95.
	tries    []*compare.TriesTable
	triesErr error
}

func report(p *Plan, st *State, o RunOptions) error {
	status := map[string]string{}
	for _, r := range st.Runs {
		status[r.File] = r.Status
	}
	// Labels: the target's, unless two entries run the same workload, in
	// which case the HTML report (grouping by workload name) needs the
	// entry in the label too.
	names := map[string]int{}
	for _, w := range p.Workloads {
		names[w.Name]++
	}
	var all []compare.Input
	var sections []*section
	groups := map[string]*section{}
	for _, w := range p.Workloads {
		s := &section{w: w}
		if w.Group != "" {
			if g, ok := groups[w.Group]; ok {
				s = g
			} else {
				s.group = []Workload{}
				groups[w.Group] = s
				sections = append(sections, s)
			}
			s.group = append(s.group, w)
		} else {
			sections = append(sections, s)
		}
		for _, t := range p.Targets {
			for _, c := range p.Cells {
				if c.Target.Label != t.Label || c.Workload.Label != w.Label {
					continue
				}
				for rep := 1; rep <= max(p.Repetitions, st.Repetitions); rep++ {
					name := c.FileName(rep)
					if status[name] != RunDone {
						continue
					}
					f, err := result.Read(filepath.Join(o.Dir, name))
					if err != nil {
						s.notes = append(s.notes, fmt.Sprintf("%s: %v", name, err))
						continue
					}
					in := compare.Input{Label: t.Label, Path: name, File: f}
					if s.group != nil {
						in.Label = resultLabel(t.Label, w.Label, true)
					}
					s.inputs = append(s.inputs, in)
					in.Label = resultLabel(t.Label, w.Label, names[w.Name] > 1)
					all = append(all, in)
				}
			}
		}
	}
	for _, s := range sections {
		w := s.w
		if len(s.inputs) > 0 && w.Run.Tries != nil {
			s.tries, s.triesErr = buildTriesTables(s.inputs, p, &s.notes)
		} else if len(s.inputs) > 0 {
			s.main, s.mainErr = buildTables(s.inputs, w.Metric, w.Columns, p, s, &s.notes)
			if !strings.EqualFold(w.Metric, "p95") {
				s.p95, _ = buildTables(s.inputs, "p95", nil, p, s, &s.notes)
			}
		}
	}

	var cmpMD bytes.Buffer
	fmt.Fprintf(&cmpMD, "# %s: compare tables\n\n", markdown.Escape(p.Name))
	writeIntro(&cmpMD, p, st)
	for _, s := range sections {
		writeSectionHeading(&cmpMD, s)
		if !writeTables(&cmpMD, s, s.main, s.mainErr) {
			continue
		}
		if len(s.p95) > 0 {
			cmpMD.WriteString("\n")
			compare.WriteMarkdown(&cmpMD, s.p95)
		}
	}
	if err := writeFileAtomic(filepath.Join(o.Dir, CompareFile), cmpMD.Bytes()); err != nil {
		return err
	}

	reportNote := ""
	if len(all) > 0 {
		var html bytes.Buffer
		// The HTML report groups by workload name: the first entry of a
		// name chooses its figure.
		metrics := map[string]string{}
		columns := map[string][]string{}
		for _, w := range p.Workloads {
			if _, ok := metrics[w.Name]; !ok {
				metrics[w.Name] = w.Metric
				columns[w.Name] = w.Columns
			}
		}
		// Relative as compare.md's metric tables; the entries of a
		// workload differ in the options the plan gave them, which the
		// report lists (Force).
		err := htmlreport.Write(&html, all, htmlreport.Options{Title: "dbarena plan: " + p.Name, Generated: o.Now(), Tool: o.Tool, Metrics: metrics, WorkloadColumns: columns,
			Change: p.Change, Average: p.Average, Baseline: p.Baseline, Notes: precisionNotes(st), Relative: p.Relative, Force: true})
		if err != nil {
			reportNote = fmt.Sprintf("%s could not be written: %v", ReportFile, err)
		} else if err := writeFileAtomic(filepath.Join(o.Dir, ReportFile), html.Bytes()); err != nil {
			return err
		}
	} else {
		reportNote = fmt.Sprintf("no run is complete yet: no %s", ReportFile)
	}

	var sum bytes.Buffer
	writeSummary(&sum, p, st, sections, reportNote)
	return writeFileAtomic(filepath.Join(o.Dir, SummaryFile), sum.Bytes())
}

// buildTables is compare.Build for one section, without a baseline that
// has no runs (noted). A group's baseline is the plan's baseline target
// (else the first target) with the group's first entry; only its metric
// table is relative under the plan's relative.
func buildTables(inputs []compare.Input, metric string, columns []string, p *Plan, s *section, notes *[]string) ([]*compare.Table, error) {
	baseline := p.Baseline
	if s.group != nil {
		t := p.Baseline
		if t == "" {
			for _, tg := range p.Targets {
				if s.w.RunsOn(tg) {
					t = tg.Label
					break
				}
			}
		}
		baseline = resultLabel(t, s.w.Label, true)
	}
	opt := compare.Options{Metric: metric, Columns: columns, Baseline: baseline, Change: p.Change, Average: p.Average,
		Relative: p.Relative && strings.EqualFold(metric, s.w.Metric), Vary: s.varied()}
	if baseline != "" && !slices.ContainsFunc(inputs, func(in compare.Input) bool { return in.Label == baseline }) {
		opt.Baseline = ""
		note := fmt.Sprintf("the baseline %s has no complete runs: the changes are against the first column", baseline)
		if !slices.Contains(*notes, note) {
			*notes = append(*notes, note)
		}
	}
	return compare.Build(inputs, opt)
}

// precisionNotes is the report's line on the plan's repeat until
// precise, none without one.
func precisionNotes(st *State) []string {
	if st == nil || st.Precision == nil {
		return nil
	}
	return []string{compare.PrecisionText(st.Precision)}
}

func writeIntro(b *bytes.Buffer, p *Plan, st *State) {
	if p.Description != "" {
		b.WriteString(markdown.Escape(p.Description) + "\n\n")
	}
	reps := fmt.Sprintf("%d repetitions of every cell", p.Repetitions)
	if p.Precision != nil {
		reps = fmt.Sprintf("Every cell repeated until its 95%% interval was within ±%g%% of its median (%d to %d rounds", 100*p.Precision.Width, max(p.Precision.Min, compare.MinRounds), p.Precision.Max)
		if p.Precision.Budget > 0 {
			reps += ", budget " + p.Precision.Budget.String()
		}
		reps += ")"
		if st != nil && st.Precision != nil {
			reps += ": " + markdown.Escape(compare.PrecisionText(st.Precision))
		}
	}
	fmt.Fprintf(b, "%s, in interleaved rounds (seed %d). A cell with several runs shows their median and its 95%% confidence interval; a change marked ~ is not significant (Mann-Whitney U test, p ≥ 0.05).\n",
		reps, p.Seed)
}

func writeSectionHeading(b *bytes.Buffer, s *section) {
	fmt.Fprintf(b, "\n## %s\n\n", markdown.Escape(s.title()))
	if s.group != nil {
		b.WriteString("Columns are target/entry:\n\n")
		for _, w := range s.group {
			fmt.Fprintf(b, "- %s: %s.\n", markdown.Escape(w.Label), entryWhat(w))
		}
		b.WriteString("\n")
	} else {
		fmt.Fprintf(b, "%s.\n\n", entryWhat(s.w))
	}
	for _, n := range s.notes {
		b.WriteString("- " + markdown.Escape(n) + "\n")
	}
	if len(s.notes) > 0 {
		b.WriteString("\n")
	}
}

// varied are the options whose values differ between a group's entries
// (an option some entries leave out counts): the comparison is about
// them.
func (s *section) varied() []string {
	values := map[string]map[string]bool{}
	for _, w := range s.group {
		for _, o := range w.Options {
			if values[o.Name] == nil {
				values[o.Name] = map[string]bool{}
			}
			values[o.Name][o.Value] = true
		}
	}
	// The run options a result file records among the workload's
	// (runner.OptionValues): entries of a group that set them apart are
	// compared across them too.
	for _, w := range s.group {
		if values["isolation"] == nil {
			values["isolation"] = map[string]bool{}
		}
		values["isolation"][w.Run.Isolation] = true
	}
	var out []string
	for name, vs := range values {
		if name == "isolation" {
			if len(vs) > 1 {
				out = append(out, name)
			}
			continue
		}
		set := 0
		for _, w := range s.group {
			if slices.ContainsFunc(w.Options, func(o Setting) bool { return o.Name == name }) {
				set++
			}
		}
		if len(vs) > 1 || set < len(s.group) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// title is the section's heading: its group, else its entry's label.
func (s *section) title() string {
	if s.group != nil {
		return s.w.Group
	}
	return s.w.Label
}

// entryWhat says what an entry runs: its workload and options, isolation,
// and how it is timed.
func entryWhat(w Workload) string {
	what := "`" + w.Name + "`"
	if len(w.Options) > 0 {
		what += " with " + markdown.Escape(strings.Join(w.Args(), " "))
	}
	if w.Run.Isolation != "" {
		what += " at isolation " + markdown.Escape(w.Run.Isolation)
	}
	if len(w.Targets) > 0 {
		what += " on " + markdown.Escape(strings.Join(w.Targets, ", "))
	}
	if w.Run.Tries != nil {
		return fmt.Sprintf("%s; %s", what, triesHeading(w.Run))
	}
	return fmt.Sprintf("%s; %s measured after %s of warm-up; threads %s%s", what, w.Run.Limit(), w.Run.Warmup, joinInts(w.Threads), ratesNote(w))
}

// writeTables writes the tables or why there are none, and tells whether
// there were.
func writeTables(b *bytes.Buffer, s *section, tables []*compare.Table, err error) bool {
	switch {
	case len(s.inputs) == 0:
		b.WriteString("_No complete runs yet._\n")
		return false
	case err != nil:
		b.WriteString("_No table: " + markdown.Escape(err.Error()) + "_\n")
		return false
	case s.w.Run.Tries != nil:
		return writeTriesTables(b, s)
	}
	compare.WriteMarkdown(b, tables)
	return true
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

func writeSummary(b *bytes.Buffer, p *Plan, st *State, sections []*section, reportNote string) {
	fmt.Fprintf(b, "# %s: summary\n\n", markdown.Escape(p.Name))
	if p.Description != "" {
		b.WriteString(markdown.Escape(p.Description) + "\n\n")
	}
	done, failed, pending := st.Counts()
	b.WriteString("| | |\n|---|---|\n")
	fmt.Fprintf(b, "| status | %s |\n", st.Status)
	fmt.Fprintf(b, "| runs | %d: %d done, %d failed, %d pending |\n", len(st.Runs), done, failed, pending)
	limited := ""
	if slices.ContainsFunc(p.Workloads, func(w Workload) bool { return len(w.Targets) > 0 }) {
		limited = ", each on the targets it names,"
	}
	fmt.Fprintf(b, "| cells | %d (%s × %s%s × their thread counts) |\n", len(p.Cells), plural(len(p.Targets), "target"), plural(len(p.Workloads), "workload"), limited)
	fmt.Fprintf(b, "| repetitions | %d, in interleaved rounds, seed %d |\n", max(p.Repetitions, st.Repetitions), p.Seed)
	fmt.Fprintf(b, "| measured time | %s (warm-ups included) |\n", p.Estimate())
	if first, last := span(st); !first.IsZero() {
		fmt.Fprintf(b, "| ran | %s to %s |\n", first.Format(time.RFC3339), last.Format(time.RFC3339))
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "Every table in %s, with p95 latency; charts in %s.\n", CompareFile, ReportFile)
	if reportNote != "" {
		b.WriteString("\n" + markdown.Escape(reportNote) + ".\n")
	}
	for _, s := range sections {
		writeSectionHeading(b, s)
		writeTables(b, s, s.main, s.mainErr)
	}
	var fails []RunState
	for _, r := range st.Runs {
		if r.Status == RunFailed || r.Status == RunStalled {
			fails = append(fails, r)
		}
	}
	if len(st.Warnings) > 0 {
		b.WriteString("\n## Warnings\n\n")
		for _, w := range st.Warnings {
			b.WriteString("- " + markdown.Escape(w) + "\n")
		}
	}
	b.WriteString("\n## Failed runs\n\n")
	if len(fails) == 0 {
		b.WriteString("None.\n")
		return
	}
	b.WriteString("| cell | repetition | attempts | error |\n|---|---:|---:|---|\n")
	for _, r := range fails {
		fmt.Fprintf(b, "| %s | %d | %d | %s |\n", markdown.Escape(r.Cell), r.Rep, r.Attempts, markdown.Escape(firstLine(r.Error)))
	}
	for _, r := range fails {
		if !strings.Contains(r.Error, "\n") {
			continue
		}
		fmt.Fprintf(b, "\n%s, repetition %d:\n\n", markdown.Escape(r.Cell), r.Rep)
		fence := "```"
		for strings.Contains(r.Error, fence) {
			fence += "`"
		}
		b.WriteString(fence + "\n" + r.Error + "\n" + fence + "\n")
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// span is the first start and last end of the runs.
func span(st *State) (first, last time.Time) {
	for _, r := range st.Runs {
		if r.StartedAt != nil && (first.IsZero() || r.StartedAt.Before(first)) {
			first = *r.StartedAt
		}
		if r.FinishedAt != nil && r.FinishedAt.After(last) {
			last = *r.FinishedAt
		}
	}
	return first, last
}

// ratesNote names a workload's arrival rates for its section's header:
// "; arrival rates 100, 200/s (poisson)", or "" in the closed model.
func ratesNote(w Workload) string {
	rates := w.Rates
	if len(rates) == 0 && w.Run.Rate.TPS != nil {
		rates = []float64{*w.Run.Rate.TPS}
	}
	if len(rates) == 0 && len(w.Run.Rate.Stages) == 0 {
		return ""
	}
	arrival := w.Run.Rate.Arrival
	if arrival == "" {
		arrival = timing.ArrivalPoisson
	}
	if len(w.Run.Rate.Stages) > 0 {
		return fmt.Sprintf("; arrival rate stages %s (%s)", markdown.Escape(timing.FormatStages(w.Run.Rate.Stages)), arrival)
	}
	parts := make([]string, len(rates))
	for i, r := range rates {
		parts[i] = strconv.FormatFloat(r, 'g', -1, 64)
	}
	return fmt.Sprintf("; arrival rates %s/s (%s)", strings.Join(parts, ", "), arrival)
}
