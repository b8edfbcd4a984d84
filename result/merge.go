package result

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/histogram"
)

// MaxStartSkew is how far apart the starts of the shards of one run may
// be: the files' started_at and each run's started_at. Shards are started
// together; their clocks may differ by this much.
const MaxStartSkew = 10 * time.Second

// ErrNotMergeable is wrapped by every MergeError.
var ErrNotMergeable = errors.New("cannot merge")

// MergeError says why a file given to Merge cannot be merged with the
// others: which file, which field and why.
type MergeError struct {
	// File is the file's index among Merge's arguments.
	File int
	// Name names the file in the message (callers that know its path set
	// it); empty means "file N", counted from 1.
	Name string
	// Field is the field as the result file names it: "schema_version",
	// "workload.options.tables", "runs[1].threads" …
	Field string
	// Reason says what is wrong with it.
	Reason string
}

func (e *MergeError) Error() string {
	name := e.Name
	if name == "" {
		name = fmt.Sprintf("file %d", e.File+1)
	}
	return fmt.Sprintf("%s: %s: %s", name, e.Field, e.Reason)
}

// Unwrap returns ErrNotMergeable.
func (e *MergeError) Unwrap() error { return ErrNotMergeable }

// DuplicateError says that two of the files given to Merge hold the same
// shard (one file given twice, or a shard of a merged file given again):
// merged, its transactions would count twice.
type DuplicateError struct {
	// Files are the two files' indices among Merge's arguments (the same
	// index twice for a merged file that holds a shard twice).
	Files [2]int
	// Names name them in the message (callers that know their paths set
	// them); empty means "file N", counted from 1.
	Names [2]string
	// Shard describes the shard: its identity, or for files written
	// before identities, its start, seed and host.
	Shard string
}

func (e *DuplicateError) Error() string {
	name := func(i int) string {
		if e.Names[i] != "" {
			return e.Names[i]
		}
		return fmt.Sprintf("file %d", e.Files[i]+1)
	}
	if e.Files[0] == e.Files[1] {
		return fmt.Sprintf("%s holds the same shard twice (%s)", name(0), e.Shard)
	}
	return fmt.Sprintf("%s and %s are the same shard (%s): merged, its transactions would count twice", name(0), name(1), e.Shard)
}

// Unwrap returns ErrNotMergeable.
func (e *DuplicateError) Unwrap() error { return ErrNotMergeable }

// checkDistinct refuses files that hold a shard twice (*DuplicateError).
// Shards are told apart by their Identity; those without one (files
// written before identities) by the start, seed, host, end and status of
// their process, and two such files given whole by their runs too.
func checkDistinct(files []*File) error {
	type shardOf struct {
		file  int
		whole bool // the file itself, not a shard listed in a merged file
		desc  string
	}
	seen := map[string]shardOf{}
	for i, f := range files {
		shards := f.Shards
		if len(shards) == 0 {
			shards = []Shard{{Client: f.Client, Seed: f.Seed, StartedAt: f.StartedAt, FinishedAt: f.FinishedAt, Status: f.Status, Identity: f.Identity}}
		}
		for _, s := range shards {
			cur := shardOf{file: i, whole: len(f.Shards) == 0}
			var key string
			if id := s.Identity; id != nil {
				key = fmt.Sprintf("id|%s|%s|%d|%d|%d", id.RunID, id.Host, id.PID, id.Index, id.Count)
				cur.desc = id.String()
			} else {
				key = fmt.Sprintf("old|%s|%d|%s|%s|%s", s.StartedAt.UTC().Format(time.RFC3339Nano), s.Seed, s.Client.Hostname, s.FinishedAt.UTC().Format(time.RFC3339Nano), s.Status)
				cur.desc = fmt.Sprintf("started at %s with seed %d on host %q, no identity", s.StartedAt.Format(time.RFC3339Nano), s.Seed, s.Client.Hostname)
			}
			prev, dup := seen[key]
			if dup && s.Identity == nil && prev.whole && cur.whole && !reflect.DeepEqual(files[prev.file].Runs, f.Runs) {
				dup = false // two hand-made files alike in their headers only
			}
			if dup {
				return &DuplicateError{Files: [2]int{prev.file, i}, Shard: cur.desc}
			}
			seen[key] = cur
		}
	}
	return nil
}

// Merge combines shards of one run: files written by dbarena processes
// that ran the same workload with the same options against the same
// target, started together (within MaxStartSkew), with the same thread
// counts, warm-up and ops — for instance on several client hosts. The
// merged file is what one process running all their workers would have
// written:
//
//   - counts (transactions, queries, errors, retries, rollbacks,
//     reconnects, per op and per interval) and client CPU seconds are added;
//   - histograms are merged and every percentile is recomputed from them,
//     so percentiles are exact, not averages of percentiles;
//   - intervals are aligned by their t_s; an interval only some shards
//     reached holds their share only;
//   - a run's threads are the sum of the shards' threads, its duration the
//     mean of theirs, and rates (tps, qps, retries per second, CPU per
//     transaction) are recomputed from the added counts;
//   - server metrics, which every shard sampled from the same server, are
//     the mean of the shards' values;
//   - the workload's own metrics and database counters are left out: they
//     are the workload's to compute;
//   - a run of the analytic timing model keeps every shard's tries, one
//     shard after the other (shards must have run the same number of
//     tries of the same queries);
//   - the header (tool, client, seed) is the first file's, and Shards lists
//     every file's, with its Identity; the merged file has none of its
//     own.
//
// Files of schema version 1 are refused: their intervals have no
// histograms. A refusal is a *MergeError naming the file and the field,
// or a *DuplicateError for a shard given twice. The files are not
// modified.
func Merge(files ...*File) (*File, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no files", ErrNotMergeable)
	}
	for i, f := range files {
		if f.SchemaVersion < 2 {
			return nil, &MergeError{File: i, Field: "schema_version", Reason: fmt.Sprintf("version %d has no histograms per interval, so it cannot be merged exactly (files of version 2 and later can)", f.SchemaVersion)}
		}
	}
	if err := checkDistinct(files); err != nil {
		return nil, err
	}
	base := files[0]
	for i, f := range files[1:] {
		if err := sameRun(base, f); err != nil {
			err.File = i + 1
			return nil, err
		}
	}

	m := &File{
		SchemaVersion: SchemaVersion,
		Tool:          base.Tool,
		Workload:      Workload{Name: base.Workload.Name, Version: base.Workload.Version, Options: maps.Clone(base.Workload.Options)},
		Target:        base.Target,
		Client:        base.Client,
		Seed:          base.Seed,
		StartedAt:     base.StartedAt,
		FinishedAt:    base.FinishedAt,
	}
	m.Target.Settings = maps.Clone(base.Target.Settings)
	if base.Target.Monitor != nil {
		mon := *base.Target.Monitor
		m.Target.Monitor = &mon
	}
	var statuses, errs []string
	for _, f := range files {
		if f.StartedAt.Before(m.StartedAt) {
			m.StartedAt = f.StartedAt
		}
		if f.FinishedAt.After(m.FinishedAt) {
			m.FinishedAt = f.FinishedAt
		}
		statuses = append(statuses, f.Status)
		errs = append(errs, f.Error)
		if len(f.Shards) > 0 {
			m.Shards = append(m.Shards, f.Shards...)
		} else {
			m.Shards = append(m.Shards, Shard{Tool: f.Tool, Client: f.Client, Seed: f.Seed, StartedAt: f.StartedAt, FinishedAt: f.FinishedAt, Status: f.Status, Identity: f.Identity})
		}
	}
	m.Status, m.Error = worst(statuses), joinErrors(errs)
	m.MissingShards = missingShards(m.Shards)

	weights := make([]float64, len(files))
	for i, f := range files {
		weights[i] = float64(shards(f))
	}
	for r := range base.Runs {
		runs := make([]*Run, len(files))
		for i, f := range files {
			runs[i] = &f.Runs[r]
		}
		run, err := mergeRuns(runs, weights, r)
		if err != nil {
			return nil, err
		}
		m.Runs = append(m.Runs, *run)
	}
	return m, nil
}

// missingShards returns the indexes of a sharded run's shards that
// shards lack, when their identities name one run of more shards.
func missingShards(shards []Shard) []int {
	count := 0
	have := map[int]bool{}
	for _, s := range shards {
		if s.Identity == nil || s.Identity.Count <= 1 {
			return nil
		}
		count = max(count, s.Identity.Count)
		have[s.Identity.Index] = true
	}
	var missing []int
	for i := range count {
		if !have[i] {
			missing = append(missing, i)
		}
	}
	return missing
}

// sameRun checks that f is a shard of the run base is a shard of.
func sameRun(base, f *File) *MergeError {
	differ := func(field string, want, got any) *MergeError {
		return &MergeError{Field: field, Reason: fmt.Sprintf("%v, but the first file has %v: not a shard of the same run", got, want)}
	}
	switch {
	case f.Tool.Version != base.Tool.Version:
		return differ("tool.version", base.Tool.Version, f.Tool.Version)
	case f.Tool.Commit != base.Tool.Commit:
		return differ("tool.commit", base.Tool.Commit, f.Tool.Commit)
	case f.Workload.Name != base.Workload.Name:
		return differ("workload.name", base.Workload.Name, f.Workload.Name)
	case f.Workload.Version != base.Workload.Version:
		return differ("workload.version", base.Workload.Version, f.Workload.Version)
	case f.Target.Label != base.Target.Label:
		return differ("target.label", base.Target.Label, f.Target.Label)
	case f.Target.Engine != base.Target.Engine:
		return differ("target.engine", base.Target.Engine, f.Target.Engine)
	case f.Target.URL != base.Target.URL:
		return differ("target.url", base.Target.URL, f.Target.URL)
	case f.Target.ServerVersion != base.Target.ServerVersion:
		return differ("target.server_version", base.Target.ServerVersion, f.Target.ServerVersion)
	}
	keys := slices.Sorted(maps.Keys(base.Workload.Options))
	for k := range f.Workload.Options {
		if _, ok := base.Workload.Options[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		want, inBase := base.Workload.Options[k]
		got, inF := f.Workload.Options[k]
		if want != got || inBase != inF {
			return differ("workload.options."+k, quoteOpt(want, inBase), quoteOpt(got, inF))
		}
	}
	if skew := absDuration(f.StartedAt.Sub(base.StartedAt)); skew > MaxStartSkew {
		return &MergeError{Field: "started_at", Reason: fmt.Sprintf("%s, %s from the first file's %s (shards of one run start within %s)", f.StartedAt.Format(time.RFC3339), skew, base.StartedAt.Format(time.RFC3339), MaxStartSkew)}
	}
	if len(f.Runs) != len(base.Runs) || !slices.EqualFunc(f.Runs, base.Runs, func(a, b Run) bool { return a.Threads/shards(f) == b.Threads/shards(base) }) {
		return differ("runs", "threads "+threadList(base), "threads "+threadList(f))
	}
	for r := range base.Runs {
		b, g := &base.Runs[r], &f.Runs[r]
		field := func(name string) string { return fmt.Sprintf("runs[%d].%s", r, name) }
		if skew := absDuration(g.StartedAt.Sub(b.StartedAt)); skew > MaxStartSkew {
			return &MergeError{Field: field("started_at"), Reason: fmt.Sprintf("%s, %s from the first file's %s (shards of one run start within %s)", g.StartedAt.Format(time.RFC3339), skew, b.StartedAt.Format(time.RFC3339), MaxStartSkew)}
		}
		if g.WarmupS != b.WarmupS {
			return differ(field("warmup_s"), b.WarmupS, g.WarmupS)
		}
		if !slices.EqualFunc(g.Ops, b.Ops, func(x, y Op) bool { return x.Name == y.Name }) {
			return differ(field("ops"), opList(b.Ops), opList(g.Ops))
		}
		if !sameOpen(b.Open, g.Open) {
			return differ(field("open"), openString(b.Open), openString(g.Open))
		}
		if err := sameTries(field("tries"), b.Tries, g.Tries); err != nil {
			return err
		}
	}
	return nil
}

// mergeRuns merges the r-th run of every file (runs[i] from file i, which
// holds weights[i] shards).
func mergeRuns(runs []*Run, weights []float64, r int) (*Run, error) {
	field := func(file int, format string, args ...any) *MergeError {
		return &MergeError{File: file, Field: fmt.Sprintf("runs[%d].", r) + fmt.Sprintf(format, args...)}
	}
	base := runs[0]
	m := &Run{StartedAt: base.StartedAt, WarmupS: base.WarmupS}
	var durS, cpuS, n float64
	var statuses, errs []string
	for i, run := range runs {
		if b := run.Barrier; b != nil {
			if m.Barrier == nil {
				m.Barrier = &Barrier{At: b.At}
			}
			m.Barrier.Starts = append(m.Barrier.Starts, b.Starts...)
		}
		n += weights[i]
		durS += weights[i] * run.DurationS
		m.Threads += run.Threads
		m.Events += run.Events // each shard ran its own limit
		if run.StartedAt.Before(m.StartedAt) {
			m.StartedAt = run.StartedAt
		}
		cpuS += run.ClientCPUS
		m.Transactions += run.Transactions
		m.Queries += run.Queries
		m.Reads += run.Reads
		m.Writes += run.Writes
		m.Other += run.Other
		m.Errors += run.Errors
		m.Retries += run.Retries
		m.Reconnects += run.Reconnects
		m.Rollbacks += run.Rollbacks
		statuses = append(statuses, run.Status)
		errs = append(errs, run.Error)
		m.Unfinished += run.Unfinished
		m.OfferedTPS += run.OfferedTPS
		m.Late += run.Late
		m.Skipped += run.Skipped
		m.Dropped += run.Dropped
		m.Unstarted += run.Unstarted
		m.Offered += run.Offered
		m.Started += run.Started
		if e := run.UnfinishedMS; e != nil {
			if m.UnfinishedMS == nil {
				m.UnfinishedMS = &Elapsed{}
			}
			// The shards' elapsed times are not kept: the largest median
			// bounds the merged one from above.
			m.UnfinishedMS.P50 = max(m.UnfinishedMS.P50, e.P50)
			m.UnfinishedMS.Max = max(m.UnfinishedMS.Max, e.Max)
		}
		for _, w := range run.Warnings {
			if !slices.Contains(m.Warnings, w) {
				m.Warnings = append(m.Warnings, w)
			}
		}
		// Each shard judged its own host: every distinct cause is kept.
		for _, d := range run.Disturbed {
			if !slices.Contains(m.Disturbed, d) {
				m.Disturbed = append(m.Disturbed, d)
			}
		}
	}
	// The shards' verdicts are about their own shares: the merged run
	// keeps the criteria, unjudged (Pass nil), for the caller to judge
	// again on the merged figures (dbarena merge does).
	for _, t := range base.Thresholds {
		m.Thresholds = append(m.Thresholds, Threshold{Expr: t.Expr})
	}
	durS /= n
	m.DurationS = round(durS, 3)
	m.ClientCPUS = round(cpuS, 3)
	m.setRates(durS, cpuS*1e6)
	m.Status, m.Error = worst(statuses), joinErrors(errs)

	open := base.Open != nil
	if open {
		o := *base.Open
		m.Open = &o
		m.OfferedTPS = round(m.OfferedTPS, 2)
	}
	if m.Unstarted > 0 {
		waits := histogram.New()
		for i, run := range runs {
			if err := mergeHDR(waits, run.UnstartedHDR, run.Unstarted); err != nil {
				e := field(i, "unstarted_hdr")
				e.Reason = err.Error()
				return nil, e
			}
		}
		m.UnstartedMS, m.UnstartedHDR = summary(waits), encode(waits)
	}
	all, allSvc, allLag := histogram.New(), histogram.New(), histogram.New()
	for o, op := range base.Ops {
		h, svc, lag := histogram.New(), histogram.New(), histogram.New()
		mo := Op{Name: op.Name}
		for i, run := range runs {
			ro := run.Ops[o]
			if err := mergeHDR(h, ro.HDR, ro.Count); err != nil {
				e := field(i, "ops[%d].hdr", o)
				e.Reason = err.Error()
				return nil, e
			}
			if open {
				for _, x := range []struct {
					name string
					h    *hdr.Histogram
					s    string
				}{{"service_hdr", svc, ro.ServiceHDR}, {"lag_hdr", lag, ro.LagHDR}} {
					if err := mergeHDR(x.h, x.s, ro.Count); err != nil {
						e := field(i, "ops[%d].%s", o, x.name)
						e.Reason = err.Error()
						return nil, e
					}
				}
			}
			mo.Count += ro.Count
			mo.Errors += ro.Errors
			mo.Retries += ro.Retries
			mo.Rollbacks += ro.Rollbacks
			mo.Late += ro.Late
		}
		mo.LatencyMS = histogram.Summarize(h)
		mo.HDR = encode(h)
		all.Merge(h)
		steps, err := mergeSteps(runs, o, field)
		if err != nil {
			return nil, err
		}
		mo.Steps = steps
		if open {
			mo.ServiceMS, mo.ServiceHDR = summary(svc), encode(svc)
			mo.LagMS, mo.LagHDR = summary(lag), encode(lag)
			allSvc.Merge(svc)
			allLag.Merge(lag)
		}
		m.Ops = append(m.Ops, mo)
	}
	m.LatencyMS = histogram.Summarize(all)
	if open {
		m.ServiceMS, m.LagMS = summary(allSvc), summary(allLag)
	}

	servers := make([]map[string]float64, len(runs))
	for i, run := range runs {
		servers[i] = run.Server
	}
	m.Server = meanMetrics(servers, weights)
	m.SetServerCPU()

	ivs, err := mergeIntervals(runs, weights, len(base.Ops), field)
	if err != nil {
		return nil, err
	}
	m.Intervals = ivs
	m.Tries = mergeTries(runs)
	if b := m.Barrier; b != nil {
		slices.SortFunc(b.Starts, func(x, y ShardStart) int { return x.Shard - y.Shard })
		b.SkewMS = round(float64(b.Skew())/float64(time.Millisecond), 3)
	}
	return m, nil
}

// mergeSteps merges the steps of op o of runs: counts added, histograms
// merged. The runs must have the same steps (names and order).
func mergeSteps(runs []*Run, o int, field func(int, string, ...any) *MergeError) ([]Step, error) {
	base := runs[0].Ops[o].Steps
	if len(base) == 0 {
		for i, run := range runs[1:] {
			if len(run.Ops[o].Steps) > 0 {
				e := field(i+1, "ops[%d].steps", o)
				e.Reason = fmt.Sprintf("%d steps, where file 1 has none", len(run.Ops[o].Steps))
				return nil, e
			}
		}
		return nil, nil
	}
	out := make([]Step, len(base))
	for j, st := range base {
		h := histogram.New()
		m := Step{Name: st.Name, Text: st.Text}
		for i, run := range runs {
			rs := run.Ops[o].Steps
			if len(rs) != len(base) || rs[j].Name != st.Name {
				e := field(i, "ops[%d].steps", o)
				e.Reason = fmt.Sprintf("the steps differ from file 1's (%d steps, %d here)", len(base), len(rs))
				return nil, e
			}
			if err := mergeHDR(h, rs[j].HDR, rs[j].Count); err != nil {
				e := field(i, "ops[%d].steps[%d].hdr", o, j)
				e.Reason = err.Error()
				return nil, e
			}
			m.Count += rs[j].Count
			m.Failures += rs[j].Failures
			m.Retries += rs[j].Retries
		}
		m.LatencyMS, m.HDR = histogram.Summarize(h), encode(h)
		out[j] = m
	}
	return out, nil
}

// mergeIntervals aligns the runs' intervals by t_s and merges each group.
func mergeIntervals(runs []*Run, weights []float64, nops int, field func(int, string, ...any) *MergeError) ([]Interval, error) {
	type part struct {
		file int
		iv   *Interval
		j    int
	}
	groups := map[int64][]part{}
	var order []int64
	for i, run := range runs {
		for j := range run.Intervals {
			iv := &run.Intervals[j]
			if err := checkInterval(iv, nops); err != "" {
				e := field(i, "intervals[%d].ops", j)
				e.Reason = err
				return nil, e
			}
			k := int64(math.Round(iv.TS * 1000))
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], part{i, iv, j})
		}
	}
	sort.Slice(order, func(a, b int) bool { return order[a] < order[b] })

	out := make([]Interval, 0, len(order))
	for _, k := range order {
		parts := groups[k]
		m := Interval{TS: parts[0].iv.TS}
		hists := make([]*hdr.Histogram, nops)
		svcs := make([]*hdr.Histogram, nops)
		lags := make([]*hdr.Histogram, nops)
		counts := make([]IntervalOp, nops)
		open := false
		var lengthS, n float64
		servers := make([]map[string]float64, 0, len(parts))
		ws := make([]float64, 0, len(parts))
		for _, p := range parts {
			iv := p.iv
			m.Warmup = m.Warmup || iv.Warmup
			n += weights[p.file]
			ws = append(ws, weights[p.file])
			lengthS += weights[p.file] * iv.LengthS
			m.Transactions += iv.Transactions
			m.Queries += iv.Queries
			m.Reads += iv.Reads
			m.Writes += iv.Writes
			m.Other += iv.Other
			m.Errors += iv.Errors
			m.Retries += iv.Retries
			m.Reconnects += iv.Reconnects
			m.Rollbacks += iv.Rollbacks
			m.OfferedTPS += iv.OfferedTPS
			m.Late += iv.Late
			m.Skipped += iv.Skipped
			m.Dropped += iv.Dropped
			open = open || iv.ServiceMS != nil
			servers = append(servers, iv.Server)
			m.Disturbed = unionCauses(m.Disturbed, iv.Disturbed)
			for _, op := range iv.Ops {
				if hists[op.Op] == nil {
					hists[op.Op] = histogram.New()
				}
				if err := mergeHDR(hists[op.Op], op.HDR, op.Count); err != nil {
					e := field(p.file, "intervals[%d].ops[op %d].hdr", p.j, op.Op)
					e.Reason = err.Error()
					return nil, e
				}
				if op.ServiceHDR != "" || op.LagHDR != "" {
					if svcs[op.Op] == nil {
						svcs[op.Op], lags[op.Op] = histogram.New(), histogram.New()
					}
					for _, x := range []struct {
						name string
						h    *hdr.Histogram
						s    string
					}{{"service_hdr", svcs[op.Op], op.ServiceHDR}, {"lag_hdr", lags[op.Op], op.LagHDR}} {
						if err := mergeHDR(x.h, x.s, op.Count); err != nil {
							e := field(p.file, "intervals[%d].ops[op %d].%s", p.j, op.Op, x.name)
							e.Reason = err.Error()
							return nil, e
						}
					}
				}
				c := &counts[op.Op]
				c.Count += op.Count
				c.Errors += op.Errors
				c.Retries += op.Retries
				c.Rollbacks += op.Rollbacks
				c.Late += op.Late
			}
		}
		lengthS /= n
		m.LengthS = round(lengthS, 6)
		m.setRates(lengthS)
		all, allSvc, allLag := histogram.New(), histogram.New(), histogram.New()
		for o, h := range hists {
			c := counts[o]
			if h == nil && c.Errors == 0 && c.Retries == 0 && c.Rollbacks == 0 {
				continue
			}
			c.Op = o
			if h != nil && h.TotalCount() > 0 {
				c.HDR = encode(h)
				all.Merge(h)
			}
			if s := svcs[o]; s != nil && s.TotalCount() > 0 {
				c.ServiceHDR, c.LagHDR = encode(s), encode(lags[o])
				allSvc.Merge(s)
				allLag.Merge(lags[o])
			}
			m.Ops = append(m.Ops, c)
		}
		m.LatencyMS = intervalLatency(all)
		if open {
			m.OfferedTPS = round(m.OfferedTPS, 2)
			svc, lag := intervalLatency(allSvc), intervalLatency(allLag)
			m.ServiceMS, m.LagMS = &svc, &lag
		}
		m.Server = meanMetrics(servers, ws)
		out = append(out, m)
	}
	return out, nil
}

// unionCauses adds the causes of b missing from a, keeping the order
// other, steal, client.
func unionCauses(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	var out []string
	for _, c := range []string{DisturbedOther, DisturbedSteal, DisturbedClient} {
		if slices.Contains(a, c) || slices.Contains(b, c) {
			out = append(out, c)
		}
	}
	for _, c := range append(slices.Clone(a), b...) { // causes of later versions
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// sameOpen tells whether two runs had the same arrival rate (or none).
func sameOpen(a, b *Open) bool {
	return openString(a) == openString(b)
}

func openString(o *Open) string {
	if o == nil {
		return "no arrival rate"
	}
	s := fmt.Sprintf("%s arrivals at %g/s", o.Arrival, o.RateTPS)
	if o.RateStages != "" {
		s += ", stages " + o.RateStages
	}
	if o.LatencyLimitMS > 0 {
		s += fmt.Sprintf(", latency limit %g ms", o.LatencyLimitMS)
	}
	if o.MaxQueue != nil {
		s += fmt.Sprintf(", max queue %d", *o.MaxQueue)
	}
	return s
}

// checkInterval says what is wrong with a version-2 interval's ops, or "".
func checkInterval(iv *Interval, nops int) string {
	var late int64
	for _, op := range iv.Ops {
		late += op.Late
	}
	if late != iv.Late {
		return fmt.Sprintf("the ops' late transactions (%d) do not add up to the interval's (%d)", late, iv.Late)
	}
	var n, errs, retries, rollbacks int64
	for _, op := range iv.Ops {
		if op.Op < 0 || op.Op >= nops {
			return fmt.Sprintf("op %d: the run has %d ops", op.Op, nops)
		}
		n += op.Count
		errs += op.Errors
		retries += op.Retries
		rollbacks += op.Rollbacks
	}
	if n != iv.Transactions || errs != iv.Errors || retries != iv.Retries || rollbacks != iv.Rollbacks {
		return fmt.Sprintf("the ops' counts (%d transactions, %d errors, %d retries, %d rollbacks) do not add up to the interval's (%d, %d, %d, %d)",
			n, errs, retries, rollbacks, iv.Transactions, iv.Errors, iv.Retries, iv.Rollbacks)
	}
	return ""
}

// mergeHDR adds the encoded histogram s, which must hold count values, to h.
func mergeHDR(h *hdr.Histogram, s string, count int64) error {
	if s == "" {
		if count == 0 {
			return nil
		}
		return fmt.Errorf("missing, but the count is %d", count)
	}
	d, err := histogram.Decode(s)
	if err != nil {
		return fmt.Errorf("not a histogram: %v", err)
	}
	if d.TotalCount() != count {
		return fmt.Errorf("holds %d values, but the count is %d", d.TotalCount(), count)
	}
	h.Merge(d)
	return nil
}

// meanMetrics is each metric's mean over the maps that have it, ms[i]
// weighing ws[i]; nil when none has any.
func meanMetrics(ms []map[string]float64, ws []float64) map[string]float64 {
	sum := map[string]float64{}
	n := map[string]float64{}
	for i, m := range ms {
		for k, v := range m {
			sum[k] += ws[i] * v
			n[k] += ws[i]
		}
	}
	if len(sum) == 0 {
		return nil
	}
	for k := range sum {
		sum[k] = round(sum[k]/n[k], 6)
	}
	return sum
}

// worst is the worst of statuses: failed, then killed, then interrupted,
// then complete.
func worst(statuses []string) string {
	rank := map[string]int{StatusComplete: 0, StatusInterrupted: 1, StatusKilled: 2, StatusStalled: 3, StatusFailed: 4}
	w := ""
	for _, s := range statuses {
		if w == "" || rank[s] > rank[w] {
			w = s
		}
	}
	return w
}

// joinErrors joins the distinct non-empty messages.
func joinErrors(errs []string) string {
	var out []string
	for _, e := range errs {
		if e != "" && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return strings.Join(out, "; ")
}

func quoteOpt(v string, ok bool) string {
	if !ok {
		return "no such option"
	}
	return fmt.Sprintf("%q", v)
}

// shards is the number of shards f holds: 1 unless it was merged.
func shards(f *File) int { return max(1, len(f.Shards)) }

// threadList is f's thread counts per shard.
func threadList(f *File) string {
	s := make([]string, len(f.Runs))
	for i, r := range f.Runs {
		s[i] = fmt.Sprint(r.Threads / shards(f))
	}
	return "(" + strings.Join(s, ",") + ")"
}

func opList(ops []Op) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = o.Name
	}
	return "(" + strings.Join(s, ",") + ")"
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
