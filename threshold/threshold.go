// Package threshold turns a run's figures into pass/fail criteria, as
// k6's thresholds do: `p99<50ms`, `tps>1000`, `errors<0.1%`,
// `op:new_order p90<5ms`, `NOPM>1000`. Parse checks an expression
// against the metrics every run has (metric.RunMetrics, with their
// names and aliases) and the workload's own (its ops and the figures
// its Spec.Metrics names); Evaluate judges a finished run; Watch
// stops a run early (--abort-on-fail) when a criterion can no longer
// hold, which only upper bounds on what only grows can tell: counts
// (transactions, queries, errors, retries, rollbacks, reconnects …) and
// the max latency.
// Percentiles, rates and percentages are judged at the end: a run
// failing them halfway can still pass.
package threshold

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/metric"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/workload"
)

// Flag is the flag, and Field the plan field, thresholds are given by.
const (
	Flag  = "threshold"
	Field = "thresholds"
)

// ErrFailed is wrapped by the error of a run or command whose thresholds
// did not all hold; the CLI maps it to its own exit code.
var ErrFailed = errors.New("thresholds failed")

// Threshold is one parsed criterion.
type Threshold struct {
	// Expr is the expression as written.
	Expr string
	// Op is the operation it is about, "" for the whole run.
	Op string
	// Metric is the metric's name: a metric.RunMetric's, or the
	// workload's own as it reports it.
	Metric string
	// Cmp is "<", "<=", ">" or ">=".
	Cmp string
	// Limit is in the metric's unit: ms for latencies, percent when
	// Percent.
	Limit float64
	// Percent makes a count a percentage: errors of all attempts
	// (transactions + errors), retries of committed transactions (the
	// result file's retry_pct), rollbacks of transactions.
	Percent bool

	run      *metric.RunMetric // nil for a workload metric or a percentile
	workload bool
	// pct is the percentile of a pNN metric that is not among the run's
	// summary figures (p90, p75, p99.99), read from the histograms.
	pct float64
}

// percentileRE is a latency percentile: p90, p99.99.
var percentileRE = regexp.MustCompile(`^p([0-9]{1,2}(\.[0-9]+)?)$`)

// Context is what a threshold may name besides the metrics every run
// has: the workload's operations and its own metrics.
type Context struct {
	Workload string
	Ops      []string
	Metrics  []string
}

// ContextOf is the context of w with its options as parsed: its ops and
// the figures of its own it reports (Spec.Metrics).
func ContextOf(w workload.Workload) Context {
	spec := w.Define()
	c := Context{Workload: spec.Meta.Name, Metrics: spec.Metrics}
	for _, o := range spec.Ops {
		c.Ops = append(c.Ops, o.Name)
	}
	return c
}

// percentable are the counts a "%" limit makes percentages of.
var percentable = []string{"errors", "retries", "rollbacks"}

// Parse reads one expression, `[op:NAME ]METRIC CMP LIMIT`, against c.
// Its error names what is wrong: the metric unknown, the operator, the
// limit or its unit, the operation.
func Parse(expr string, c Context) (Threshold, error) {
	t := Threshold{Expr: expr}
	s := strings.TrimSpace(expr)
	if s == "" {
		return t, errors.New("empty: want METRIC<LIMIT, e.g. p99<50ms")
	}
	if rest, ok := strings.CutPrefix(s, "op:"); ok {
		name, after, found := strings.Cut(rest, " ")
		if !found || strings.TrimSpace(after) == "" {
			return t, errors.New("op:NAME must be followed by a space and a criterion, e.g. op:new_order p90<5ms")
		}
		if !slices.Contains(c.Ops, name) {
			return t, fmt.Errorf("op %q: %s has no such operation (it has %s)", name, orWorkload(c.Workload), strings.Join(c.Ops, ", "))
		}
		t.Op, s = name, strings.TrimSpace(after)
	}
	i := strings.IndexAny(s, "<>=!")
	if i < 0 {
		return t, errors.New("no operator: want <, <=, > or >= between the metric and the limit, e.g. p99<50ms")
	}
	name := strings.TrimSpace(s[:i])
	j := i
	for j < len(s) && strings.ContainsRune("<>=!", rune(s[j])) {
		j++
	}
	t.Cmp = s[i:j]
	switch t.Cmp {
	case "<", "<=", ">", ">=":
	default:
		return t, fmt.Errorf("bad operator %q: want <, <=, > or >=", t.Cmp)
	}
	limit := strings.TrimSpace(s[j:])
	if name == "" {
		return t, errors.New("no metric before the operator")
	}
	if limit == "" {
		return t, errors.New("no limit after the operator")
	}
	if m, ok := metric.LookupRunMetric(name); ok {
		t.Metric, t.run = m.Name, &m
		if t.Op != "" && m.OpValue == nil {
			return t, fmt.Errorf("%s has no value per operation: use it without op:", m.Name)
		}
	} else if m := percentileRE.FindStringSubmatch(strings.ToLower(name)); m != nil {
		p, _ := strconv.ParseFloat(m[1], 64)
		if p <= 0 {
			return t, fmt.Errorf("unknown metric %q: a percentile is above 0", name)
		}
		t.Metric, t.pct = strings.ToLower(name), p
	} else if k := slices.IndexFunc(c.Metrics, func(n string) bool { return strings.EqualFold(n, name) }); k >= 0 {
		t.Metric, t.workload = c.Metrics[k], true
		if t.Op != "" {
			return t, fmt.Errorf("%s is the workload's own figure for the whole run: use it without op:", t.Metric)
		}
	} else {
		return t, fmt.Errorf("unknown metric %q: want one of the run's (tps, p99, errors … as compare --metric takes them)%s", name, workloadMetrics(c))
	}
	v, err := t.parseLimit(limit)
	if err != nil {
		return t, err
	}
	t.Limit = v
	return t, nil
}

func orWorkload(name string) string {
	if name == "" {
		return "the workload"
	}
	return name
}

func workloadMetrics(c Context) string {
	if len(c.Metrics) == 0 {
		return ""
	}
	return " or the workload's own (" + strings.Join(c.Metrics, ", ") + ")"
}

// unit is the metric's unit as the limit may carry it.
func (t *Threshold) unit() string {
	if t.pct > 0 {
		return "ms"
	}
	if t.run != nil {
		return t.run.Unit
	}
	return ""
}

// parseLimit reads the limit in the metric's unit.
func (t *Threshold) parseLimit(s string) (float64, error) {
	unit := t.unit()
	if unit == "ms" {
		num, err := strconv.ParseFloat(s, 64)
		if err == nil {
			return 0, fmt.Errorf("limit %q has no unit: %s is a latency, give one like %gms or %gs", s, t.Metric, num, num)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("bad limit %q: %s is a latency, want a duration such as 50ms, 1.5s or 500us", s, t.Metric)
		}
		if d < 0 {
			return 0, fmt.Errorf("bad limit %q: a latency is not negative", s)
		}
		return float64(d) / float64(time.Millisecond), nil
	}
	num, suffix := splitNumber(s)
	v, err := strconv.ParseFloat(num, 64)
	if num == "" || err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("bad limit %q: want a number", s)
	}
	suffix = strings.TrimSpace(suffix)
	switch {
	case suffix == "":
	case suffix == "%" && t.run != nil && unit == "count" && slices.Contains(percentable, t.Metric):
		t.Percent = true
	case suffix == "%" && t.run != nil && unit == "count":
		return 0, fmt.Errorf("bad unit %q in %q: %s is a count; only errors, retries and rollbacks take a percentage", suffix, s, t.Metric)
	case t.run != nil && unit != "count" && strings.EqualFold(suffix, unit):
	case t.run != nil:
		return 0, fmt.Errorf("bad unit %q in %q: %s is in %s", suffix, s, t.Metric, unitName(unit))
	default:
		return 0, fmt.Errorf("bad unit %q in %q: give %s's limit as a plain number", suffix, s, t.Metric)
	}
	return v, nil
}

func unitName(u string) string {
	switch u {
	case "count":
		return "a plain count"
	case "":
		return "no unit: give a plain number"
	}
	return u + " (give a plain number or add " + u + ")"
}

// splitNumber splits a leading number from what follows it.
func splitNumber(s string) (num, rest string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '-' || s[i] == '+' || s[i] == 'e' || s[i] == 'E') {
		i++
	}
	return s[:i], s[i:]
}

// ParseAll parses exprs against c; it reports every bad one at once,
// each a *workload.OptionError naming --threshold and the expression.
func ParseAll(exprs []string, c Context) ([]Threshold, []error) {
	var out []Threshold
	var errs []error
	for _, e := range exprs {
		t, err := Parse(e, c)
		if err != nil {
			errs = append(errs, &workload.OptionError{Flag: Flag, Value: e, Err: err.Error()})
			continue
		}
		out = append(out, t)
	}
	return out, errs
}

// Observe reads the threshold's metric from run, in the limit's unit;
// false, with the reason, when the run lacks it.
func (t Threshold) Observe(run *result.Run) (float64, string, bool) {
	if t.workload {
		for _, m := range run.Metrics {
			if m.Name == t.Metric {
				return m.Value, "", true
			}
		}
		return 0, "the run has no " + t.Metric, false
	}
	if t.pct > 0 {
		return t.percentile(run)
	}
	if t.Op == "" {
		if t.Percent {
			return percent(t.Metric, run.Transactions, run.Errors, run.Retries, run.Rollbacks), "", true
		}
		v, ok := t.run.Value(run)
		if !ok {
			return 0, "the run has no " + t.Metric + " (not sampled)", false
		}
		return v, "", true
	}
	k := slices.IndexFunc(run.Ops, func(o result.Op) bool { return o.Name == t.Op })
	if k < 0 {
		return 0, "the run has no operation " + t.Op, false
	}
	o := &run.Ops[k]
	if t.Percent {
		return percent(t.Metric, o.Count, o.Errors, o.Retries, o.Rollbacks), "", true
	}
	v, ok := t.run.OpValue(run, o)
	if !ok {
		return 0, "the run has no " + t.Metric + " for " + t.Op, false
	}
	return v, "", true
}

// percentile reads a pNN threshold's value from the histograms of the
// run's ops (the op's, or all of them merged).
func (t Threshold) percentile(run *result.Run) (float64, string, bool) {
	all := histogram.New()
	found := false
	for _, o := range run.Ops {
		if t.Op != "" && o.Name != t.Op {
			continue
		}
		found = true
		if o.HDR == "" {
			if o.Count > 0 {
				return 0, "the run has no latency histogram", false
			}
			continue
		}
		h, err := histogram.Decode(o.HDR)
		if err != nil {
			return 0, "the run's latency histogram of " + o.Name + " does not decode: " + err.Error(), false
		}
		all.Merge(h)
	}
	if !found {
		return 0, "the run has no operation " + t.Op, false
	}
	return histogram.Percentile(all, t.pct), "", true
}

// percent is a count as a percentage: errors of the attempts, retries of
// the committed transactions (as result.Run.RetryPct), rollbacks of the
// transactions; 0 when there is nothing to divide by.
func percent(metric string, tx, errs, retries, rollbacks int64) float64 {
	var n, d int64
	switch metric {
	case "errors":
		n, d = errs, tx+errs
	case "retries":
		n, d = retries, tx-rollbacks
	case "rollbacks":
		n, d = rollbacks, tx
	}
	if d <= 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// Holds tells whether v meets the criterion.
func (t Threshold) Holds(v float64) bool {
	switch t.Cmp {
	case "<":
		return v < t.Limit
	case "<=":
		return v <= t.Limit
	case ">":
		return v > t.Limit
	default:
		return v >= t.Limit
	}
}

// observedUnit is the unit of the value Observe reads.
func (t Threshold) observedUnit(run *result.Run) string {
	switch {
	case t.Percent:
		return "%"
	case t.workload:
		for _, m := range run.Metrics {
			if m.Name == t.Metric {
				return m.Unit
			}
		}
		return ""
	}
	return t.unit()
}

// Evaluate judges every threshold on a finished run, in order. A metric
// the run lacks fails its threshold: a gate that cannot be checked does
// not pass.
func Evaluate(ts []Threshold, run *result.Run) []result.Threshold {
	out := make([]result.Threshold, 0, len(ts))
	for _, t := range ts {
		v, why, ok := t.Observe(run)
		r := result.Threshold{Expr: t.Expr}
		pass := ok && t.Holds(v)
		r.Pass = &pass
		if ok {
			r.Observed, r.Unit = &v, t.observedUnit(run)
		} else {
			r.Note = why
		}
		out = append(out, r)
	}
	return out
}

// Judge evaluates again the thresholds a run records (a merged run's,
// whose verdicts Merge cleared), against the run's own ops and metrics.
// An expression that no longer parses (a workload metric that the merged
// run left out) fails with the reason as its note.
func Judge(run *result.Run) {
	c := Context{}
	for _, o := range run.Ops {
		c.Ops = append(c.Ops, o.Name)
	}
	for _, m := range run.Metrics {
		c.Metrics = append(c.Metrics, m.Name)
	}
	for i, r := range run.Thresholds {
		t, err := Parse(r.Expr, c)
		if err != nil {
			pass := false
			run.Thresholds[i] = result.Threshold{Expr: r.Expr, Pass: &pass, Note: "not evaluated: " + err.Error()}
			continue
		}
		run.Thresholds[i] = Evaluate([]Threshold{t}, run)[0]
	}
}

// Failed lists the thresholds of run that did not hold.
func Failed(run *result.Run) []string {
	var out []string
	for _, t := range run.Thresholds {
		if t.Pass != nil && !*t.Pass {
			out = append(out, t.Expr)
		}
	}
	return out
}

// Check returns an error wrapping ErrFailed when a run of f has a
// threshold that did not hold, naming them, nil otherwise.
func Check(f *result.File) error {
	var failed []string
	for i := range f.Runs {
		for _, e := range Failed(&f.Runs[i]) {
			if !slices.Contains(failed, e) {
				failed = append(failed, e)
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrFailed, strings.Join(failed, ", "))
}

// formatValue prints an observed value compactly.
func formatValue(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}
