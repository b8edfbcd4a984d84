package plan

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/hostknob"
	"github.com/dbarena/dbarena/metric"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/session"
	"github.com/dbarena/dbarena/threshold"
	"github.com/dbarena/dbarena/workload"
)

// ManagedPrefix starts the URL of a managed server: a local, throw-away
// server dbarena starts itself with the settings in the URL's query
// ("managed:postgres?shared_buffers=1GB"). Package server parses the
// rest; a plan only appends knobs to the query.
const ManagedPrefix = "managed:"

// Plan is a validated, expanded experiment: every target (knob matrices
// expanded), every workload, and the cells they make.
type Plan struct {
	// Name names the experiment and, by default, its results directory.
	Name        string
	Description string
	// Path is the plan file; relative paths in it are relative to its
	// directory.
	Path string
	// Seed seeds the order of the runs and every run's workers.
	Seed uint64
	// Repetitions is how many times every cell runs (rounds); with
	// Precision, the rounds run before the rule is first looked at.
	Repetitions int
	// Precision, when set (repetitions: {until_ci: 2%, min, max,
	// budget}), repeats the rounds until every cell's interval is within
	// its width (compare.Precision), Max rounds or the budget.
	Precision *compare.Precision
	// Baseline is the label of the target the compare tables measure the
	// others against (empty: the first).
	Baseline string
	// Change is the compare tables' convention for a change
	// (compare.Changes; empty: vs-baseline).
	Change string
	// Average is the convention of the compare tables' average row
	// (compare.Averages; empty: change-of-means).
	Average string
	// Relative divides the values of every metric table by the
	// baseline's at its lowest thread count (compare --relative), as the
	// studies that report relative throughput do.
	Relative  bool
	Targets   []Target
	Workloads []Workload
	// Cells are every (target, workload, threads), target by target in
	// the order of the file, then workload by workload, then by thread
	// count.
	Cells []Cell
	// source is the plan file with any password in a URL replaced.
	source []byte
}

// Target is one database under test after knob expansion.
type Target struct {
	// Label names the target in file names, tables and reports; unique
	// in the plan. A knob matrix suffixes its target's label with the
	// knobs: "pg-shared_buffers=1GB-max_wal_size=16GB".
	Label string
	// URL is the target's URL as the executor needs it, password
	// included when the file gave one; knobs are appended to a managed
	// URL's query. Never print it: use Redacted.
	URL string
	// Redacted is URL without password, safe to print and store.
	Redacted string
	// PasswordFile is the absolute path of a file holding the password,
	// or empty.
	PasswordFile string
	// Managed is true for a "managed:" URL.
	Managed bool
	// Base is the label in the plan file this target was expanded from
	// (Label itself when there are no knobs).
	Base string
	// Knobs are the settings this target's knob combination added to its
	// URL, in the order of the matrix.
	Knobs []Setting
	// ProvisionedIOPS is the IOPS the target's data disk was provisioned
	// with (provisioned_iops), for disk_iops_pct; 0 unknown.
	ProvisionedIOPS float64
	// HostKnobs are the knobs of Knobs that are the host's kernel
	// settings (os.vm.dirty_ratio …, package hostknob), not in URL: Run
	// sets them before each of the target's runs and restores them after.
	HostKnobs []hostknob.Setting
}

// Setting is one name and value: a workload option or a server knob.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Workload is one workload entry of the plan: a registered workload with
// its options and its run settings.
type Workload struct {
	// Label names the entry in file names and tables: its workload name
	// unless the file gives one (needed when a workload appears twice).
	Label string
	// Name is the registered workload (workload.Lookup).
	Name string
	// Options are the options the file sets, under their canonical flag
	// names, in the file's order; every other option has its default.
	Options []Setting
	Threads []int
	// Rates are the arrival rates of a sweep of the open model (`rate:` a
	// list): one cell per rate and thread count. Empty, the cells take
	// Run's rate, if any.
	Rates []float64
	// Run holds the run options (runner.Options: duration, warmup,
	// report_interval, max_errors, …): the entry's own, else the plan's,
	// else runner.DefaultConfig's; its Threads and Seed are the cell's to
	// set (see Cell.Config).
	Run runner.Config
	// Metric is what the compare tables show: tps, qps, p95, NOPM …
	// (compare.Options.Metric).
	Metric string
	// Columns are the figures the metric's tables show beside each
	// target's value (compare.Options.Columns: server_cpu_pct,
	// host_iowait_pct, disk_iops …): the entry's own, else the plan's.
	Columns []string
	// Targets are the labels (as the file gives them, before knob
	// expansion) of the targets the entry runs on; empty: every target.
	Targets []string
	// Group names the compare table the entry shares with the other
	// entries of the same group: one column per target and entry
	// ("pg/client-dbt5"), so entries that differ in options (modes,
	// index sets) sit side by side; empty: the entry's own table.
	Group string
}

// RunsOn tells whether the entry runs on t (see Targets).
func (w Workload) RunsOn(t Target) bool {
	return len(w.Targets) == 0 || slices.Contains(w.Targets, t.Base)
}

// Args are the workload's options as they are written on a command line
// ("--warehouses=10"), as the summary shows them (New sets them).
func (w Workload) Args() []string {
	out := make([]string, len(w.Options))
	for i, o := range w.Options {
		out[i] = "--" + o.Name + "=" + o.Value
	}
	return out
}

// Cell is one (target, workload, threads): what one run measures. Each
// cell runs once per repetition.
type Cell struct {
	// ID is the cell's name in file names: "<target>__<workload>__t<threads>",
	// sanitised to letters, digits and ._+=-, unique in the plan.
	ID       string
	Target   Target
	Workload Workload
	Threads  int
	// Rate is the cell's arrival rate when the workload sweeps rates
	// (Workload.Rates), else nil.
	Rate *float64
	// Seed is the run's seed (the plan's).
	Seed uint64
	// Key is the prepared data this cell needs.
	Key PrepareKey
}

// PrepareKey names one prepared data set: a target, a workload and the
// options that define its data (Spec.DataOptions; every option of a
// workload that does not say which do). Cells with the same key share
// one prepare.
type PrepareKey struct {
	Target   string // target label
	Workload string // workload name
	// Options are the data's options that are not at their defaults, as
	// flags sorted by name: "--table-size=10000 --tables=4".
	Options string
}

// String is "target/workload [options]".
func (k PrepareKey) String() string {
	s := k.Target + "/" + k.Workload
	if k.Options != "" {
		s += " " + k.Options
	}
	return s
}

// FileName is the result file of one repetition (from 1) of the cell:
// "<cell ID>__r<rep>.json".
func (c Cell) FileName(rep int) string { return fmt.Sprintf("%s__r%d.json", c.ID, rep) }

// Options are what Load needs from its caller.
type Options struct {
	// ValidateTarget, when set, is called with every target's URL (knobs
	// appended) and its error reported against the target's url field.
	// The CLI passes a function that parses managed: URLs (package
	// server) and checks that the engine of a plain URL is known.
	// Without it, managed URLs are only checked for their prefix; plain
	// URLs are always parsed with engine.ParseTarget.
	ValidateTarget func(raw string) error
	// Vars override the defaults of the plan's variables (vars:), each
	// value read as YAML: the CLI's --var name=value.
	Vars map[string]string
}

// Load reads, decodes and validates the plan file at path. Workloads are
// looked up in the workload registry, so the caller must have registered
// them (import workload/all). Every problem is reported at once, in a
// *Error naming the file, line, column and field of each.
func Load(path string, opt Options) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	return Parse(path, data, opt)
}

// Parse is Load on a file's bytes; path names the file in messages and
// anchors relative paths.
func Parse(path string, data []byte, opt Options) (*Plan, error) {
	d := &decoder{}
	body := d.parseYAML(data)
	var p *Plan
	if body != nil {
		p = d.plan(body, path, opt)
		d.checkVarsUsed()
	}
	if len(d.probs) > 0 {
		slices.SortStableFunc(d.probs, func(a, b Problem) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
		})
		return nil, &Error{Path: path, Problems: d.probs}
	}
	p.source = redactSource(data, p.Targets)
	return p, nil
}

// Known fields, in the order the documentation gives them; the run
// options (runner.Options) follow threads.
var (
	planFields     = slices.Concat([]string{"name", "description", "vars", "seed", "repetitions", "threads"}, runFields(), []string{"baseline", "change", "average", "relative", "columns", "knobs", "knob_sequence", "knob_labels", "targets", "workloads"})
	targetFields   = []string{"label", "url", "password_file", "provisioned_iops", "knobs", "knob_sequence"}
	workloadFields = slices.Concat([]string{"name", "label", "options", "threads"}, runFields(), []string{"metric", "columns", "targets", "group"})
)

// runFields are the plan fields of the run options.
func runFields() []string {
	var out []string
	for _, o := range runner.Options() {
		out = append(out, o.Field)
	}
	return out
}

// runSettings are the settings a workload entry inherits from the plan.
type runSettings struct {
	threads    []int
	hasThreads bool
	// rates is `rate:` given as a list (a sweep of arrival rates).
	rates []float64
	// opts are the run options given, parsed already, in file order;
	// given names every run option's field given, valid or not.
	opts  []runValue
	given []string
}

// runValue is one run option given in the file.
type runValue struct {
	opt  runner.Option
	text string // as the option's Set takes it
	node ast.Node
	path string
}

// get returns the run option with the plan field name, if given.
func (rs *runSettings) get(field string) (runValue, bool) {
	for _, v := range rs.opts {
		if v.opt.Field == field {
			return v, true
		}
	}
	return runValue{}, false
}

// knobMatrix is an ordered matrix of settings, or a sequence of steps
// (knob_sequence) when steps is set: each step keeps the knobs of the
// steps before it and adds (or changes) its own.
type knobMatrix struct {
	names  []string // every knob named, in order of appearance
	values [][]string
	steps  [][]Setting
	node   ast.Node
}

type rawTarget struct {
	label, url, passwordFile string
	provisionedIOPS          float64
	knobs                    *knobMatrix
	node, labelN, urlN       ast.Node
	path                     string
}

// columnValue is one name of a columns field.
type columnValue struct {
	name string
	node ast.Node
	path string
}

type rawWorkload struct {
	w  Workload
	rs runSettings
	// columns are the entry's columns field (hasColumns: given);
	// own are the workload's own metrics (known: the workload was found).
	columns               []columnValue
	hasColumns, known     bool
	own                   []string
	node, labelN, metricN ast.Node
	targetsN              ast.Node
	targetNodes           []ast.Node
	// coldN is where the entry's cold mode was given (its own or the
	// plan's), at coldPath.
	coldN                  ast.Node
	coldPath               string
	path                   string
	optionKey              string
	hasLabel, hasOptionErr bool
	// thresholds is what the entry's thresholds may name (its workload's
	// ops and metrics), nil when the workload or its options are bad.
	thresholds *threshold.Context
}

var labelRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+=,:-]*$`)

func (d *decoder) plan(body ast.Node, path string, opt Options) *Plan {
	p := &Plan{Path: path, Seed: 1, Repetitions: 1}
	var rs runSettings
	var knobs *knobMatrix
	abbrev := map[string]string{}
	abbrevN := map[string]ast.Node{}
	var targets []rawTarget
	var workloads []rawWorkload
	var baselineN, changeN, sequenceN ast.Node
	var targetsN, workloadsN ast.Node
	var columns []columnValue
	d.declareVars(body, opt.Vars)
	d.fields(body, "", planFields, func(f field, fp string) {
		switch f.key {
		case "vars": // read first, by declareVars
		case "name":
			if s, ok := d.str(f.value, fp); ok {
				if !labelRE.MatchString(s) {
					d.errorf(f.value, fp, "%q: want letters, digits and ._+=,:- (it names the results directory)", s)
				}
				p.Name = s
			}
		case "description":
			p.Description, _ = d.str(f.value, fp)
		case "seed":
			p.Seed, _ = d.uinteger(f.value, fp)
		case "repetitions":
			if _, isMap := d.resolve(f.value).(*ast.MappingNode); isMap {
				p.Precision = d.precision(f.value, fp)
				if p.Precision != nil {
					p.Repetitions = max(p.Precision.Min, compare.MinRounds)
				}
				return
			}
			if n, ok := d.integer(f.value, fp); ok {
				if n < 1 {
					d.errorf(f.value, fp, "%d: must be at least 1", n)
				} else if n > 1000 {
					d.errorf(f.value, fp, "%d: at most 1000", n)
				} else {
					p.Repetitions = int(n)
				}
			}
		case "baseline":
			p.Baseline, _ = d.str(f.value, fp)
			baselineN = f.value
		case "change":
			if s, ok := d.str(f.value, fp); ok {
				if err := compare.CheckChange(s); err != nil {
					d.errorf(f.value, fp, "%q: want %s", s, strings.Join(compare.Changes, ", "))
				}
				p.Change = s
				changeN = f.value
			}
		case "average":
			if s, ok := d.str(f.value, fp); ok {
				if err := compare.CheckAverage(s); err != nil {
					d.errorf(f.value, fp, "%q: want %s", s, strings.Join(compare.Averages, ", "))
				}
				p.Average = s
			}
		case "columns":
			columns = d.columns(f.value, fp)
		case "relative":
			if v, ok := d.scalar(f.value, fp); ok {
				b, err := strconv.ParseBool(v)
				if err != nil {
					d.errorf(f.value, fp, "%q: want true or false", v)
				}
				p.Relative = b
			}
		case "knobs", "knob_sequence":
			if knobs != nil {
				d.errorf(f.keyN, fp, "the plan has knobs and a knob_sequence: give one (a matrix, or one knob after another)")
				return
			}
			if f.key == "knobs" {
				knobs = d.knobs(f.value, fp)
			} else {
				knobs = d.knobSequence(f.value, fp)
				sequenceN = f.keyN
			}
		case "knob_labels":
			fs, _ := d.mapping(f.value, fp)
			for _, kf := range fs {
				if s, ok := d.str(kf.value, join(fp, kf.key)); ok {
					if !labelRE.MatchString(s) {
						d.errorf(kf.value, join(fp, kf.key), "%q: want letters, digits and ._+=,:-", s)
					}
					abbrev[kf.key], abbrevN[kf.key] = s, kf.keyN
				}
			}
		case "targets":
			targetsN = f.value
			items, ok := d.list(f.value, fp)
			if !ok {
				return
			}
			for i, it := range items {
				targets = append(targets, d.target(it, fmt.Sprintf("%s[%d]", fp, i), path))
			}
		case "workloads":
			workloadsN = f.value
			items, ok := d.list(f.value, fp)
			if !ok {
				return
			}
			for i, it := range items {
				workloads = append(workloads, d.workload(it, fmt.Sprintf("%s[%d]", fp, i)))
			}
		default:
			d.runSetting(&rs, f, fp)
		}
	})
	if p.Name == "" {
		base := filepath.Base(path)
		p.Name = sanitize(strings.TrimSuffix(base, filepath.Ext(base)))
	}
	if targetsN == nil {
		d.errorf(body, "targets", "required: at least one target")
	} else if len(targets) == 0 && !hasProblemAt(d, "targets") {
		d.errorf(targetsN, "targets", "empty: give at least one target")
	}
	if workloadsN == nil {
		d.errorf(body, "workloads", "required: at least one workload")
	} else if len(workloads) == 0 && !hasProblemAt(d, "workloads") {
		d.errorf(workloadsN, "workloads", "empty: give at least one workload")
	}
	for k := range abbrev {
		used := knobs != nil && contains(knobs.names, k)
		for _, t := range targets {
			used = used || (t.knobs != nil && contains(t.knobs.names, k))
		}
		if !used {
			d.errorf(abbrevN[k], "knob_labels."+k, "no knob %q in the plan", k)
		}
	}

	// Workloads: inherit the plan's settings, check labels.
	wlabels := map[string]int{}
	seen := map[Problem]bool{} // a plan-level value's problem, reported once
	for i := range workloads {
		rw := &workloads[i]
		w := &rw.w
		if !rw.rs.hasThreads {
			w.Threads = rs.threads
			if !rs.hasThreads && triesGiven(&rs, &rw.rs) {
				w.Threads = []int{1} // the timing model's one connection
			} else if !rs.hasThreads && rw.node != nil {
				d.errorf(rw.node, rw.path+".threads", "required: give threads here or at the top level")
			}
		}
		w.Rates = rw.rs.rates
		if !contains(rw.rs.given, "rate") {
			w.Rates = rs.rates // the entry's own rate, list or not, overrides the plan's
		}
		d.runConfig(rw, &rs, seen)
		d.checkThresholds(rw, &rs, seen)
		if w.Metric == "" {
			w.Metric = "tps"
		}
		cols := columns
		if rw.hasColumns {
			cols = rw.columns
		}
		d.checkColumns(rw, cols, seen)
		if w.Run.ReportInterval > w.Run.Duration && w.Run.Duration > 0 {
			d.errorf(rw.node, rw.path, "report_interval %s is longer than the duration %s", w.Run.ReportInterval, w.Run.Duration)
		}
		if w.Label == "" {
			continue // name missing: already reported
		}
		if j, dup := wlabels[w.Label]; dup {
			what := "label"
			if !rw.hasLabel {
				what = "workload " + w.Name + " (give the entries distinct labels)"
			}
			d.errorf(firstNode(rw.labelN, rw.node), rw.path, "%s %q is also workloads[%d]'s", what, w.Label, j)
			continue
		}
		wlabels[w.Label] = i
		p.Workloads = append(p.Workloads, *w)
	}

	// Targets: expand knob matrices, check labels and URLs.
	tlabels := map[string]string{}
	for _, rt := range targets {
		if rt.label == "" || rt.url == "" {
			continue // reported
		}
		managed := strings.HasPrefix(rt.url, ManagedPrefix)
		m := rt.knobs
		if m == nil {
			m = knobs
		}
		if m != nil && len(m.names) > 0 && !managed {
			where := "the plan's knobs apply to every target: give the managed targets knobs of their own instead"
			if rt.knobs != nil {
				where = "knobs are server settings dbarena applies to the servers it starts"
			}
			d.errorf(rt.urlN, rt.path, "target %q is not a managed server (%s…) but has knobs %s; %s",
				rt.label, ManagedPrefix, strings.Join(m.names, ", "), where)
			continue
		}
		if managed && rt.passwordFile != "" {
			d.errorf(rt.node, rt.path+".password_file", "target %q is a managed server: dbarena makes its credentials", rt.label)
		}
		var base url.Values
		if managed {
			if i := strings.IndexByte(rt.url, '?'); i >= 0 {
				base, _ = url.ParseQuery(rt.url[i+1:])
			}
			if m != nil {
				for _, k := range m.names {
					if base.Has(k) {
						d.errorf(rt.urlN, rt.path+".url", "%s is set in the URL and in the knobs: set it in one place", k)
					}
				}
			}
		}
		short := func(k Setting) string {
			name := k.Name
			if a, ok := abbrev[k.Name]; ok {
				name = a
			}
			return "-" + name + "=" + k.Value
		}
		for step, combo := range combinations(m) {
			t := Target{Label: rt.label, URL: rt.url, PasswordFile: rt.passwordFile, ProvisionedIOPS: rt.provisionedIOPS, Managed: managed, Base: rt.label, Knobs: combo}
			for _, k := range combo {
				if hostknob.IsHostKnob(k.Name) {
					// The host's, set around each of the target's runs.
					t.HostKnobs = append(t.HostKnobs, hostknob.Setting{Name: k.Name, Value: k.Value})
					continue
				}
				sep := "&"
				if !strings.Contains(t.URL, "?") {
					sep = "?"
				}
				t.URL += sep + url.QueryEscape(k.Name) + "=" + url.QueryEscape(k.Value)
			}
			if m != nil && m.steps != nil {
				// A sequence's step: its number and what it adds.
				t.Label += "-" + strconv.Itoa(step)
				for _, k := range m.steps[step] {
					t.Label += short(k)
				}
			} else {
				for _, k := range combo {
					t.Label += short(k)
				}
			}
			t.Redacted = d.checkURL(rt, t.URL, opt)
			if prev, dup := tlabels[t.Label]; dup {
				d.errorf(firstNode(rt.labelN, rt.node), rt.path+".label", "label %q is also %s's", t.Label, prev)
				continue
			}
			tlabels[t.Label] = rt.path
			p.Targets = append(p.Targets, t)
		}
	}
	// Entries that run on some targets only name them as the file does.
	bases := map[string]bool{}
	var baseList []string
	for _, rt := range targets {
		if rt.label != "" && !bases[rt.label] {
			bases[rt.label] = true
			baseList = append(baseList, rt.label)
		}
	}
	for _, rw := range workloads {
		for i, l := range rw.w.Targets {
			if !bases[l] && len(bases) > 0 {
				d.errorf(rw.targetNodes[i], fmt.Sprintf("%s.targets[%d]", rw.path, i), "%q is not a target label (labels: %s)", l, strings.Join(baseList, ", "))
			}
		}
	}
	groups := map[string]string{}
	for _, rw := range workloads {
		if g := rw.w.Group; g != "" && rw.w.Name != "" {
			if name, ok := groups[g]; ok && name != rw.w.Name {
				d.errorf(rw.node, rw.path+".group", "group %q holds workload %s: one group's entries run the same workload (here %s) so their figures compare", g, name, rw.w.Name)
			}
			groups[g] = rw.w.Name
		}
	}
	if sequenceN != nil && changeN == nil && baselineN == nil {
		// One knob after another: each step against the one before.
		p.Change = compare.ChangeVsPrevious
	}
	if p.Change == compare.ChangeVsPrevious && p.Baseline != "" {
		d.errorf(changeN, "change", "vs-previous compares each target with the one before it: it takes no baseline (%q)", p.Baseline)
	}
	if p.Baseline != "" && len(tlabels) > 0 {
		if _, ok := tlabels[p.Baseline]; !ok {
			labels := make([]string, len(p.Targets))
			for i, t := range p.Targets {
				labels[i] = t.Label
			}
			d.errorf(baselineN, "baseline", "%q is not a target label (labels: %s)", p.Baseline, strings.Join(labels, ", "))
		}
	}
	if len(d.probs) > 0 {
		return nil
	}

	// Cells.
	ids := map[string]string{}
	for _, t := range p.Targets {
		for i, w := range p.Workloads {
			if !w.RunsOn(t) {
				continue
			}
			if w.Run.Tries != nil {
				// A managed server can be restarted; whether this host
				// may drop its page cache is the runner's to check
				// (session.CheckDropCaches), not the file's.
				if err := session.CheckRestartable(w.Run.ColdMode, fmt.Sprintf("%q (%s)", t.Label, t.Redacted), t.Managed); err != nil {
					var oe *workload.OptionError
					errors.As(err, &oe)
					d.errorf(workloads[i].coldN, workloads[i].coldPath, "%s: %s", oe.Value, oe.Err)
					continue
				}
			}
			rates := []*float64{nil}
			if len(w.Rates) > 0 {
				rates = make([]*float64, len(w.Rates))
				for k := range w.Rates {
					rates[k] = &w.Rates[k]
				}
			}
			for _, n := range w.Threads {
				for _, rate := range rates {
					c := Cell{
						ID:       fmt.Sprintf("%s__%s__t%d", sanitize(t.Label), sanitize(w.Label), n),
						Target:   t,
						Workload: w,
						Threads:  n,
						Rate:     rate,
						Seed:     p.Seed,
						Key:      PrepareKey{Target: t.Label, Workload: w.Name, Options: workloads[i].optionKey},
					}
					what := fmt.Sprintf("target %q, workload %q, %d threads", t.Label, w.Label, n)
					if rate != nil {
						c.ID += "__r" + strconv.FormatFloat(*rate, 'g', -1, 64)
						what += fmt.Sprintf(", %g/s", *rate)
					}
					if prev, dup := ids[c.ID]; dup {
						d.errorf(body, "", "%s and %s have the same file name %s: make the labels differ in letters or digits", prev, what, c.ID)
						continue
					}
					ids[c.ID] = what
					p.Cells = append(p.Cells, c)
				}
			}
		}
	}
	return p
}

func firstNode(ns ...ast.Node) ast.Node {
	for _, n := range ns {
		if n != nil {
			return n
		}
	}
	return nil
}

func hasProblemAt(d *decoder, prefix string) bool {
	for _, p := range d.probs {
		if strings.HasPrefix(p.Field, prefix) {
			return true
		}
	}
	return false
}

// runSetting decodes the settings both the plan and a workload may set.
func (d *decoder) runSetting(rs *runSettings, f field, fp string) {
	switch f.key {
	case "threads":
		rs.hasThreads = true // given: a bad value is reported, not "required"
		items, ok := d.list(f.value, fp)
		if !ok {
			return
		}
		seen := map[int64]bool{}
		for i, it := range items {
			ip := fmt.Sprintf("%s[%d]", fp, i)
			n, ok := d.integer(it, ip)
			switch {
			case !ok:
			case n < 1:
				d.errorf(it, ip, "%d: must be at least 1", n)
			case n > 100000:
				d.errorf(it, ip, "%d: at most 100000", n)
			case seen[n]:
				d.errorf(it, ip, "%d is in the list twice", n)
			default:
				seen[n] = true
				rs.threads = append(rs.threads, int(n))
			}
		}
		if len(items) == 0 {
			d.errorf(f.value, fp, "empty: give at least one thread count")
		}
	case "rate":
		if _, ok := d.resolve(f.value).(*ast.SequenceNode); !ok {
			d.runOption(rs, f, fp) // one rate
			return
		}
		// A sweep of arrival rates, one cell each, like threads.
		rs.given = append(rs.given, f.key)
		items, _ := d.list(f.value, fp)
		if len(items) == 0 {
			d.errorf(f.value, fp, "empty: give at least one rate")
		}
		seen := map[float64]bool{}
		for i, it := range items {
			ip := fmt.Sprintf("%s[%d]", fp, i)
			text, ok := d.scalar(it, ip)
			if !ok {
				continue
			}
			r, err := strconv.ParseFloat(text, 64)
			switch {
			case err != nil || math.IsNaN(r) || math.IsInf(r, 0):
				d.errorf(it, ip, "%q: want a number of transactions per second", text)
			case r <= 0:
				d.errorf(it, ip, "%v: must be a positive number of transactions per second", r)
			case seen[r]:
				d.errorf(it, ip, "%v is in the list twice", r)
			default:
				seen[r] = true
				rs.rates = append(rs.rates, r)
			}
		}
		if len(rs.rates) > 0 {
			// The run options are checked with the first; each cell
			// sets its own (Cell.Config).
			o, _ := runner.LookupOption("rate")
			rs.opts = append(rs.opts, runValue{opt: o, text: strconv.FormatFloat(rs.rates[0], 'g', -1, 64), node: f.value, path: fp})
		}
	default:
		d.runOption(rs, f, fp)
	}
}

// runOption decodes a run option (runner.Options) other than threads;
// any other field is the caller's.
func (d *decoder) runOption(rs *runSettings, f field, fp string) {
	o, ok := runner.LookupOption(f.key)
	if !ok {
		return // not a run setting: the caller's field
	}
	rs.given = append(rs.given, f.key)
	text, ok := d.optionText(o, f.value, fp)
	if !ok {
		return
	}
	var scratch runner.Config
	if err := o.Value(&scratch).Set(text); err != nil {
		d.errorf(f.value, fp, "%v", err)
		return
	}
	rs.opts = append(rs.opts, runValue{opt: o, text: text, node: f.value, path: fp})
}

// optionText reads a run option's value as its flag takes it, with the
// plan's types: durations as "90s" or seconds, integers, booleans.
func (d *decoder) optionText(o runner.Option, n ast.Node, fp string) (string, bool) {
	switch o.Value(&runner.Config{}).Type() {
	case "duration":
		v, ok := d.duration(n, fp)
		return v.String(), ok
	case "int":
		v, ok := d.integer(n, fp)
		return strconv.FormatInt(v, 10), ok
	case "list":
		return d.scalarOrList(n, fp)
	case "bool":
		if b, ok := d.resolve(n).(*ast.BoolNode); ok {
			return strconv.FormatBool(b.Value), true
		}
		d.errorf(n, fp, "want true or false, got %s", describe(d.resolve(n)))
		return "", false
	}
	return d.scalar(n, fp)
}

// runConfig sets rw's run options: runner.DefaultConfig, then the plan's
// settings, then the entry's, and validates them as the flags are
// (runner.Config.Validate), each problem at the value that caused it.
func (d *decoder) runConfig(rw *rawWorkload, plan *runSettings, seen map[Problem]bool) {
	cfg := runner.DefaultConfig()
	cfg.Duration = 0 // required
	where := map[string]runValue{}
	for _, rs := range []*runSettings{plan, &rw.rs} {
		for _, v := range rs.opts {
			_ = v.opt.Value(&cfg).Set(v.text) // parsed when decoded
			where[v.opt.Flag] = v
		}
	}
	// The analytic timing model (tries) runs until its tries are done:
	// it needs no duration.
	// Nor does a run that ends after a number of transactions (events):
	// without a duration, it has no limit in time.
	if cfg.Tries == nil && cfg.Events == nil && !contains(plan.given, "duration") && !contains(rw.rs.given, "duration") && rw.node != nil {
		d.errorf(rw.node, rw.path+".duration", "required: give duration here or at the top level (or events)")
	}
	cfg.Threads = 1 // threads are checked where they are decoded
	for _, err := range cfg.Validate() {
		var oe *workload.OptionError
		if !errors.As(err, &oe) {
			d.errorf(rw.node, rw.path, "%v", err)
			continue
		}
		v, ok := where[oe.Flag]
		if !ok {
			continue // a default, or the missing duration: reported
		}
		line, col := pos(v.node)
		p := Problem{Line: line, Column: col, Field: v.path, Msg: oe.Value + ": " + oe.Err}
		if !seen[p] {
			seen[p] = true
			d.probs = append(d.probs, p)
		}
	}
	if cfg.Duration == 0 && cfg.Events == nil {
		cfg.Duration = runner.DefaultConfig().Duration // unused by tries; valid
	}
	d.checkTriesThreads(rw, cfg)
	if v, ok := where["cold"]; ok {
		rw.coldN, rw.coldPath = v.node, v.path
	}
	rw.w.Run = cfg
}

var knobNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// knobs decodes a matrix: setting name → list of values.
func (d *decoder) knobs(n ast.Node, fp string) *knobMatrix {
	m := &knobMatrix{node: n}
	fs, _ := d.mapping(n, fp)
	for _, f := range fs {
		kp := join(fp, f.key)
		if !knobNameRE.MatchString(f.key) {
			d.errorf(f.keyN, kp, "%q: a setting's name is letters, digits, _ . and -", f.key)
			continue
		}
		items, ok := d.list(f.value, kp)
		if !ok {
			continue
		}
		if len(items) == 0 {
			d.errorf(f.value, kp, "empty: give at least one value")
			continue
		}
		var vs []string
		for i, it := range items {
			ip := fmt.Sprintf("%s[%d]", kp, i)
			v, ok := d.scalar(it, ip)
			switch {
			case !ok:
			case v == "":
				d.errorf(it, ip, "empty value")
			case contains(vs, v):
				d.errorf(it, ip, "%q is in the list twice", v)
			default:
				vs = append(vs, v)
			}
		}
		if hostknob.IsHostKnob(f.key) {
			if err := hostknob.CheckName(f.key); err != nil {
				d.errorf(f.keyN, kp, "%v", err)
			}
		}
		m.names = append(m.names, f.key)
		m.values = append(m.values, vs)
	}
	return m
}

// precision decodes repetitions: {until_ci: 2%, min: 5, max: 30,
// budget: 1h}.
func (d *decoder) precision(n ast.Node, fp string) *compare.Precision {
	p := &compare.Precision{Min: compare.DefaultPrecisionMin, Max: compare.DefaultPrecisionMax}
	ok := true
	var untilN ast.Node
	d.fields(n, fp, []string{"until_ci", "min", "max", "budget"}, func(f field, kp string) {
		switch f.key {
		case "until_ci":
			untilN = f.value
			if s, good := d.scalar(f.value, kp); good {
				w, err := compare.ParseWidth(kp, s)
				if err != nil {
					d.errorf(f.value, kp, "%q: want a width such as 2%% (every cell's interval within ±2%% of its median)", s)
					ok = false
					return
				}
				p.Width = w
			}
		case "min", "max":
			v, good := d.integer(f.value, kp)
			if !good {
				ok = false
				return
			}
			if v < 1 || v > 1000 {
				d.errorf(f.value, kp, "%d: from 1 to 1000", v)
				ok = false
				return
			}
			if f.key == "min" {
				p.Min = int(v)
			} else {
				p.Max = int(v)
			}
		case "budget":
			v, good := d.duration(f.value, kp)
			if !good {
				ok = false
				return
			}
			if v <= 0 {
				d.errorf(f.value, kp, "%s: must be positive", v)
				ok = false
				return
			}
			p.Budget = v
		}
	})
	if untilN == nil {
		d.errorf(n, join(fp, "until_ci"), "required: the width of every cell's interval, such as 2%% (or give repetitions a number)")
		return nil
	}
	if !ok {
		return nil
	}
	if p.Max < p.Min {
		d.errorf(n, join(fp, "max"), "%d: below min %d", p.Max, p.Min)
		return nil
	}
	if p.Max < compare.MinRounds {
		d.errorf(n, join(fp, "max"), "%d: a median's 95%% interval needs %d rounds at least", p.Max, compare.MinRounds)
		return nil
	}
	return p
}

// knobSequence decodes a knob_sequence: a list of steps, each a mapping
// of the settings it adds to the steps before it; the first may be
// empty (the server's defaults).
func (d *decoder) knobSequence(n ast.Node, fp string) *knobMatrix {
	m := &knobMatrix{node: n, steps: [][]Setting{}}
	items, ok := d.list(n, fp)
	if !ok {
		return m
	}
	if len(items) < 2 {
		d.errorf(n, fp, "%d step: give at least two, each adding knobs to the one before", len(items))
	}
	for i, it := range items {
		ip := fmt.Sprintf("%s[%d]", fp, i)
		fs, ok := d.mapping(it, ip)
		if !ok {
			continue
		}
		if len(fs) == 0 && i > 0 {
			d.errorf(it, ip, "empty: only the first step may add no knob (the server's defaults)")
		}
		var step []Setting
		for _, f := range fs {
			kp := join(ip, f.key)
			if !knobNameRE.MatchString(f.key) {
				d.errorf(f.keyN, kp, "%q: a setting's name is letters, digits, _ . and -", f.key)
				continue
			}
			v, ok := d.scalar(f.value, kp)
			switch {
			case !ok:
				continue
			case v == "":
				d.errorf(f.value, kp, "empty value")
				continue
			}
			if hostknob.IsHostKnob(f.key) {
				if err := hostknob.CheckName(f.key); err != nil {
					d.errorf(f.keyN, kp, "%v", err)
				}
			}
			step = append(step, Setting{f.key, v})
			if !contains(m.names, f.key) {
				m.names = append(m.names, f.key)
			}
		}
		m.steps = append(m.steps, step)
	}
	return m
}

// combinations is the cartesian product of a matrix, its first setting
// varying slowest; one empty combination without a matrix. A sequence's
// are its steps, each with the settings of the steps before it.
func combinations(m *knobMatrix) [][]Setting {
	out := [][]Setting{nil}
	if m == nil {
		return out
	}
	if m.steps != nil {
		out = out[:0]
		var cur []Setting
		for _, step := range m.steps {
			for _, s := range step {
				if i := slices.IndexFunc(cur, func(c Setting) bool { return c.Name == s.Name }); i >= 0 {
					cur[i] = s
				} else {
					cur = append(cur, s)
				}
			}
			out = append(out, slices.Clone(cur))
		}
		return out
	}
	for i, name := range m.names {
		var next [][]Setting
		for _, prefix := range out {
			for _, v := range m.values[i] {
				next = append(next, append(slices.Clone(prefix), Setting{name, v}))
			}
		}
		out = next
	}
	return out
}

func (d *decoder) target(n ast.Node, tp, planPath string) rawTarget {
	rt := rawTarget{node: n, path: tp}
	d.fields(n, tp, targetFields, func(f field, fp string) {
		switch f.key {
		case "label":
			rt.labelN = f.value
			if s, ok := d.str(f.value, fp); ok {
				if !labelRE.MatchString(s) {
					d.errorf(f.value, fp, "%q: want letters, digits and ._+=,:-, starting with a letter or digit", s)
					return
				}
				rt.label = s
			}
		case "url":
			rt.urlN = f.value
			if s, ok := d.str(f.value, fp); ok {
				if strings.TrimSpace(s) == "" {
					d.errorf(f.value, fp, "empty")
					return
				}
				rt.url = s
			}
		case "password_file":
			if s, ok := d.str(f.value, fp); ok {
				if !filepath.IsAbs(s) {
					s = filepath.Join(filepath.Dir(planPath), s)
				}
				if abs, err := filepath.Abs(s); err == nil {
					s = abs
				}
				rt.passwordFile = s
			}
		case "provisioned_iops":
			if s, ok := d.scalar(f.value, fp); ok {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil || !(v > 0) || math.IsInf(v, 0) {
					d.errorf(f.value, fp, "%q: want a positive number of IOPS", s)
					return
				}
				rt.provisionedIOPS = v
			}
		case "knobs", "knob_sequence":
			if rt.knobs != nil {
				d.errorf(f.keyN, fp, "target has knobs and a knob_sequence: give one (a matrix, or one knob after another)")
				return
			}
			if f.key == "knobs" {
				rt.knobs = d.knobs(f.value, fp)
			} else {
				rt.knobs = d.knobSequence(f.value, fp)
			}
		}
	})
	if _, isMap := d.resolve(n).(*ast.MappingNode); isMap || rt.labelN != nil || rt.urlN != nil {
		if rt.labelN == nil {
			d.errorf(n, tp+".label", "required")
		}
		if rt.urlN == nil {
			d.errorf(n, tp+".url", "required")
		}
	}
	return rt
}

// checkURL validates one expanded target URL and returns it redacted.
func (d *decoder) checkURL(rt rawTarget, raw string, opt Options) string {
	fp := rt.path + ".url"
	redacted := redactURL(raw)
	if strings.HasPrefix(raw, ManagedPrefix) {
		if strings.TrimPrefix(raw, ManagedPrefix) == "" {
			d.errorf(rt.urlN, fp, "%q: name the server after %s (managed:postgres, managed:mariadb …)", raw, ManagedPrefix)
			return redacted
		}
	} else {
		t, err := engine.ParseTarget(raw, rt.passwordFile, nil)
		if err != nil {
			d.errorf(rt.urlN, fp, "%v", err)
			return redacted
		}
		redacted = t.Redacted()
	}
	if opt.ValidateTarget != nil {
		if err := opt.ValidateTarget(raw); err != nil {
			d.errorf(rt.urlN, fp, "%s: %s", redacted, scrubPassword(err.Error(), raw))
		}
	}
	return redacted
}

func (d *decoder) workload(n ast.Node, wp string) rawWorkload {
	rw := rawWorkload{node: n, path: wp}
	var optsN ast.Node
	var opts []field
	var nameN ast.Node
	d.fields(n, wp, workloadFields, func(f field, fp string) {
		switch f.key {
		case "name":
			nameN = f.value
			rw.w.Name, _ = d.str(f.value, fp)
		case "label":
			rw.labelN = f.value
			if s, ok := d.str(f.value, fp); ok {
				if !labelRE.MatchString(s) {
					d.errorf(f.value, fp, "%q: want letters, digits and ._+=,:-, starting with a letter or digit", s)
					return
				}
				rw.w.Label, rw.hasLabel = s, true
			}
		case "options":
			optsN = f.value
			opts, _ = d.mapping(f.value, fp)
		case "columns":
			rw.columns, rw.hasColumns = d.columns(f.value, fp), true
		case "targets":
			rw.targetsN = f.value
			items, _ := d.list(f.value, fp)
			for i, it := range items {
				if l, ok := d.str(it, fmt.Sprintf("%s[%d]", fp, i)); ok {
					if slices.Contains(rw.w.Targets, l) {
						d.errorf(it, fmt.Sprintf("%s[%d]", fp, i), "%q is listed twice", l)
						continue
					}
					rw.w.Targets = append(rw.w.Targets, l)
					rw.targetNodes = append(rw.targetNodes, it)
				}
			}
			if items != nil && len(items) == 0 {
				d.errorf(f.value, fp, "empty: list the labels of the targets the entry runs on, or leave targets out")
			}
		case "group":
			if s, ok := d.str(f.value, fp); ok {
				if !labelRE.MatchString(s) {
					d.errorf(f.value, fp, "%q: want letters, digits and ._+=,:-, starting with a letter or digit", s)
					return
				}
				rw.w.Group = s
			}
		case "metric":
			rw.metricN = f.value
			if s, ok := d.str(f.value, fp); ok {
				if strings.TrimSpace(s) == "" || strings.ContainsAny(s, "\t\n") {
					d.errorf(f.value, fp, "%q: not a metric (tps, qps, p95, cpu, or a workload's metric such as NOPM)", s)
				}
				rw.w.Metric = s
			}
		default:
			d.runSetting(&rw.rs, f, fp)
		}
	})
	rw.w.Threads = rw.rs.threads
	if nameN == nil {
		d.errorf(n, wp+".name", "required: a workload name (dbarena list shows them)")
		return rw
	}
	if rw.w.Name == "" {
		return rw
	}
	m, ok := workload.Lookup(rw.w.Name)
	if !ok {
		var names []string
		for _, m := range workload.All() {
			names = append(names, m.Name)
		}
		d.errorf(nameN, wp+".name", "%q: no such workload (known: %s)", rw.w.Name, strings.Join(names, ", "))
		return rw
	}
	if !rw.hasLabel {
		rw.w.Label = rw.w.Name
	}
	wl := m.New()
	fs := wl.Define().Options
	bad := false
	for _, f := range opts {
		op := join(wp+".options", f.key)
		v, ok := d.scalarOrList(f.value, op)
		if !ok {
			bad = true
			continue
		}
		flag := fs.Lookup(f.key)
		if flag == nil && isRunFlag(f.key) {
			d.errorf(f.keyN, op, "%s is a run option, not %s's: give it as the entry's (or the plan's) field %s", f.key, rw.w.Name, runField(f.key))
			bad = true
			continue
		}
		if flag == nil {
			var names []string
			fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
			d.errorf(f.keyN, op, "%s has no option %q (options: %s)", rw.w.Name, f.key, strings.Join(names, ", "))
			bad = true
			continue
		}
		if err := fs.Set(flag.Name, v); err != nil {
			d.errorf(f.value, op, "%v", err)
			bad = true
			// A failed Set may leave a value (pflag's integers keep 0):
			// the default goes back, so that Validate below judges only
			// the values that were given.
			_ = flag.Value.Set(flag.DefValue)
			continue
		}
		for _, o := range rw.w.Options {
			if o.Name == flag.Name {
				d.errorf(f.keyN, op, "--%s is also given as %q", flag.Name, o.Value)
				bad = true
			}
		}
		rw.w.Options = append(rw.w.Options, Setting{Name: flag.Name, Value: flag.Value.String()})
	}
	// The values that were set are checked even when others were not,
	// so that the plan's every problem is reported at once.
	spec := wl.Define()
	if spec.Validate != nil {
		for _, err := range spec.Validate() {
			d.errorf(firstNode(optsN, n), wp+".options", "%v", err)
		}
	}
	if !bad {
		d.checkMetric(&rw, wl, wp)
		c := threshold.ContextOf(wl)
		rw.thresholds = &c
	}
	rw.own, rw.known = spec.Metrics, true
	// The key: every option that defines the data (all of them when the
	// workload does not say which do, Spec.DataOptions) and is not
	// at its default, sorted, so that "tables: 8" and leaving the
	// default 8 share prepared data, and so do entries that differ only
	// in how they run (a mode, a mix).
	data := spec.DataOptions
	var args []string
	fs.VisitAll(func(f *pflag.Flag) {
		if data != nil && !slices.Contains(data, f.Name) {
			return
		}
		if v := f.Value.String(); v != f.DefValue {
			args = append(args, "--"+f.Name+"="+v)
		}
	})
	rw.optionKey = strings.Join(args, " ")
	return rw
}

// isRunFlag tells whether name is a run option's flag or field
// (runner.Options).
func isRunFlag(name string) bool { return runField(name) != "" }

// runField is the plan field of the run option whose flag or field is
// name, or "".
func runField(name string) string {
	for _, o := range runner.Options() {
		if o.Flag == name || o.Field == name {
			return o.Field
		}
	}
	return ""
}

// scalarOrList is an option's value: a scalar, or a list joined with
// commas (pflag's list flags).
func (d *decoder) scalarOrList(n ast.Node, path string) (string, bool) {
	if seq, ok := d.resolve(n).(*ast.SequenceNode); ok {
		var parts []string
		for i, it := range seq.Values {
			s, ok := d.scalar(it, fmt.Sprintf("%s[%d]", path, i))
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ","), true
	}
	return d.scalar(n, path)
}

// sanitize keeps letters, digits and ._+=- and replaces anything else
// with _, for file names.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '.' || c == '_' || c == '+' || c == '=' || c == '-':
		default:
			b[i] = '_'
		}
	}
	out := string(b)
	if out == "" || out[0] == '.' {
		out = "_" + out
	}
	return out
}

// Config is the run configuration of one repetition of c (the clock and
// the server sampler are the executor's to set).
func (c Cell) Config() runner.Config {
	cfg := c.Workload.Run
	cfg.Threads, cfg.Seed = c.Threads, c.Seed
	if c.Rate != nil {
		r := *c.Rate
		cfg.Rate.TPS = &r
	}
	return cfg
}

// checkMetric refuses, before anything runs, a metric that is neither a
// figure of every run (metric.RunMetrics) nor one the workload reports
// with these options.
func (d *decoder) checkMetric(rw *rawWorkload, wl workload.Workload, wp string) {
	if rw.metricN == nil || strings.TrimSpace(rw.w.Metric) == "" || strings.ContainsAny(rw.w.Metric, "\t\n") {
		return
	}
	if _, ok := metric.LookupRunMetric(rw.w.Metric); ok {
		return
	}
	own := wl.Define().Metrics
	if slices.ContainsFunc(own, func(n string) bool { return strings.EqualFold(n, rw.w.Metric) }) {
		return
	}
	what := rw.w.Name + " reports no figure of its own"
	if len(own) > 0 {
		what = rw.w.Name + "'s own are " + strings.Join(own, ", ")
	}
	d.errorf(rw.metricN, wp+".metric", "%q: no such metric (%s; every run has tps, qps, p50 … p999, errors, retries, retry_pct and the server's metrics such as server_cpu_pct)", rw.w.Metric, what)
}

// columns decodes a columns field: a list of metric names (or one), each
// once.
func (d *decoder) columns(n ast.Node, fp string) []columnValue {
	items, ok := d.list(n, fp)
	if !ok {
		return nil
	}
	var out []columnValue
	seen := map[string]bool{}
	for i, it := range items {
		ip := fmt.Sprintf("%s[%d]", fp, i)
		s, ok := d.str(it, ip)
		switch {
		case !ok:
		case strings.TrimSpace(s) == "" || strings.ContainsAny(s, "\t\n"):
			d.errorf(it, ip, "%q: not a metric (server_cpu_pct, host_iowait_pct, disk_iops, p95, or a workload's metric such as NOPM)", s)
		default:
			key := strings.ToLower(strings.TrimSpace(s))
			if m, ok := metric.LookupRunMetric(s); ok {
				key = m.Name
			}
			if seen[key] {
				d.errorf(it, ip, "%q is in the list twice", s)
				continue
			}
			seen[key] = true
			out = append(out, columnValue{name: s, node: it, path: ip})
		}
	}
	return out
}

// checkColumns refuses, before anything runs, a column that is neither a
// figure of every run (metric.RunMetrics) nor one rw's workload reports,
// and sets the entry's Columns. A plan-level column's problem is
// reported once (seen).
func (d *decoder) checkColumns(rw *rawWorkload, cols []columnValue, seen map[Problem]bool) {
	rw.w.Columns = nil
	for _, c := range cols {
		rw.w.Columns = append(rw.w.Columns, c.name)
		if !rw.known {
			continue // the workload is unknown: reported
		}
		if _, ok := metric.LookupRunMetric(c.name); ok {
			continue
		}
		if slices.ContainsFunc(rw.own, func(n string) bool { return strings.EqualFold(n, c.name) }) {
			continue
		}
		what := rw.w.Name + " reports no figure of its own"
		if len(rw.own) > 0 {
			what = rw.w.Name + "'s own are " + strings.Join(rw.own, ", ")
		}
		line, col := pos(c.node)
		p := Problem{Line: line, Column: col, Field: c.path,
			Msg: fmt.Sprintf("%q: no such metric (%s; every run has tps, qps, p50 … p999, errors, retries, retry_pct and the server's metrics such as server_cpu_pct, host_iowait_pct, disk_iops)", c.name, what)}
		if !seen[p] {
			seen[p] = true
			d.probs = append(d.probs, p)
		}
	}
}
