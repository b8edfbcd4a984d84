package result

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/histogram"
)

// This file is the interval log (the journal) a run keeps beside its result
// file while it runs, and how a result file is rebuilt from it after dbarena
// was killed.
//
// The journal is JSON Lines, appended to and never rewritten: a header (the
// result file as described before the first run), then per run a line when
// it starts, one per interval as the interval ends, and the whole run when
// it ends. Each line is written with one write call, so a process killed at
// any instant leaves every line before the one being written intact; a
// torn last line is ignored when the journal is read.

// StatusKilled marks a result file rebuilt from a journal: dbarena was
// stopped (SIGKILL, a crash, the host's power) before it could write the
// file itself. A file written while a sweep goes on carries it too, until
// the sweep's end replaces it.
const StatusKilled = "killed"

// JournalSuffix is added to a result file's path to name its journal.
const JournalSuffix = ".journal"

// JournalPath is the journal of the result file at path.
func JournalPath(path string) string { return path + JournalSuffix }

// journalLine is one line of a journal: exactly one field is set.
type journalLine struct {
	// Header is the file before its first run (no runs, no status).
	Header *File `json:"header,omitempty"`
	// Start opens run Run.
	Start *RunStart `json:"start,omitempty"`
	// Interval is one interval of run Run.
	Interval *Interval `json:"interval,omitempty"`
	// End is run Run as it ended.
	End *Run `json:"end,omitempty"`
	Run int  `json:"run"`
}

// RunStart is what a journal knows of a run before its first interval
// ends: enough to rebuild the run from its intervals.
type RunStart struct {
	Threads   int       `json:"threads"`
	StartedAt time.Time `json:"started_at"`
	WarmupS   float64   `json:"warmup_s"`
	// Ops are the run's op names, which the intervals' op indices refer to.
	Ops []string `json:"ops"`
	// Open is the run's arrival rate (Run.Open), absent in the closed
	// model.
	Open *Open `json:"open,omitempty"`
}

// Journal is an open journal. Its methods are called from one goroutine at
// a time; a write error is kept and returned by every later call (and by
// Close), so a full disk never stops a run.
type Journal struct {
	f    *os.File
	path string
	buf  bytes.Buffer
	err  error
}

// CreateJournal creates the journal at path (replacing an older one) and
// writes its header: head without runs.
func CreateJournal(path string, head *File) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("interval log: %w", err)
	}
	h := *head
	h.Runs, h.Status, h.Error = nil, "", ""
	j := &Journal{f: f, path: path}
	if err := j.write(journalLine{Header: &h}); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return j, nil
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.path }

// Start records that run i (0-based) started.
func (j *Journal) Start(i int, s RunStart) error {
	return j.write(journalLine{Run: i, Start: &s})
}

// Interval records an interval of run i.
func (j *Journal) Interval(i int, iv *Interval) error {
	return j.write(journalLine{Run: i, Interval: iv})
}

// End records run i as it ended.
func (j *Journal) End(i int, r *Run) error {
	return j.write(journalLine{Run: i, End: r})
}

// write appends one line with one write call.
func (j *Journal) write(l journalLine) error {
	if j.err != nil {
		return j.err
	}
	j.buf.Reset()
	if err := json.NewEncoder(&j.buf).Encode(l); err != nil {
		j.err = fmt.Errorf("interval log %s: %w", j.path, err)
		return j.err
	}
	if _, err := j.f.Write(j.buf.Bytes()); err != nil {
		j.err = fmt.Errorf("interval log %s: %w", j.path, err)
	}
	return j.err
}

// Close closes the journal and returns the first write error.
func (j *Journal) Close() error {
	if err := j.f.Close(); err != nil && j.err == nil {
		j.err = fmt.Errorf("interval log %s: %w", j.path, err)
	}
	return j.err
}

// Remove closes and deletes the journal: the result file it guarded is
// written.
func (j *Journal) Remove() error {
	j.f.Close()
	return os.Remove(j.path)
}

// ErrNoJournal is returned by ReadJournal for a journal without a readable
// header: there is nothing to rebuild.
var ErrNoJournal = errors.New("no interval log to recover from")

// ReadJournal rebuilds a result file from the journal at path, with status
// killed: every run that ended as it ended, and the run that was going on
// rebuilt from its intervals (see RebuildRun). A torn last line is ignored.
func ReadJournal(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s does not exist", ErrNoJournal, path)
		}
		return nil, err
	}
	return DecodeJournal(b, path)
}

// DecodeJournal is ReadJournal of a journal's bytes; name is used in
// messages.
func DecodeJournal(b []byte, name string) (*File, error) {
	var (
		file    *File
		started = map[int]*RunStart{}
		ivs     = map[int][]Interval{}
		ended   = map[int]*Run{}
		order   []int
	)
	rd := bufio.NewReader(bytes.NewReader(b))
	for n := 1; ; n++ {
		line, err := rd.ReadBytes('\n')
		if err == io.EOF {
			// A line without its newline was being written when the
			// process stopped: it is not part of the journal.
			break
		}
		var l journalLine
		if jerr := json.Unmarshal(line, &l); jerr != nil {
			return nil, fmt.Errorf("%s: line %d: %v", name, n, jerr)
		}
		switch {
		case l.Header != nil:
			if file != nil {
				return nil, fmt.Errorf("%s: line %d: a second header", name, n)
			}
			file = l.Header
		case file == nil:
			return nil, fmt.Errorf("%w: %s: line %d comes before the header", ErrNoJournal, name, n)
		case l.Start != nil:
			if _, dup := started[l.Run]; dup {
				return nil, fmt.Errorf("%s: line %d: run %d started twice", name, n, l.Run)
			}
			started[l.Run] = l.Start
			order = append(order, l.Run)
		case l.Interval != nil:
			if started[l.Run] == nil {
				return nil, fmt.Errorf("%s: line %d: an interval of run %d, which did not start", name, n, l.Run)
			}
			ivs[l.Run] = append(ivs[l.Run], *l.Interval)
		case l.End != nil:
			if started[l.Run] == nil {
				return nil, fmt.Errorf("%s: line %d: the end of run %d, which did not start", name, n, l.Run)
			}
			ended[l.Run] = l.End
		default:
			return nil, fmt.Errorf("%s: line %d: not a line of an interval log", name, n)
		}
	}
	if file == nil {
		return nil, fmt.Errorf("%w: %s has no header", ErrNoJournal, name)
	}
	file.Status = StatusKilled
	file.Error = "dbarena stopped before it wrote this file; rebuilt from its interval log"
	for _, i := range order {
		if r := ended[i]; r != nil {
			file.Runs = append(file.Runs, *r)
			continue
		}
		r, err := RebuildRun(started[i], ivs[i])
		if err != nil {
			return nil, fmt.Errorf("%s: run %d: %w", name, i, err)
		}
		file.Runs = append(file.Runs, *r)
	}
	if n := len(file.Runs); n > 0 {
		last := file.Runs[n-1]
		end := last.StartedAt.Add(time.Duration((last.WarmupS + last.DurationS) * float64(time.Second)))
		if len(last.Intervals) > 0 {
			end = last.StartedAt.Add(time.Duration(last.Intervals[len(last.Intervals)-1].TS * float64(time.Second)))
		}
		file.FinishedAt = end.UTC()
	}
	return file, nil
}

// RebuildRun rebuilds a run that was stopped before it ended from what
// its intervals hold: counts added, histograms merged, rates over the
// measured intervals' lengths. What only the run's end computes is absent:
// client CPU, database counters, the workload's own figures (Metrics) and
// the server summary (the caller derives it from the intervals' server
// metrics). Its status is killed.
func RebuildRun(s *RunStart, ivs []Interval) (*Run, error) {
	r := &Run{Threads: s.Threads, StartedAt: s.StartedAt, WarmupS: s.WarmupS, Intervals: ivs, Open: s.Open,
		Status: StatusKilled, Error: "dbarena was stopped during this run; its totals are those of the intervals it logged"}
	if r.Intervals == nil {
		r.Intervals = []Interval{}
	}
	ops := make([]Op, len(s.Ops))
	opHist := make([]*hdr.Histogram, len(s.Ops))
	for o, name := range s.Ops {
		ops[o].Name = name
		opHist[o] = histogram.New()
	}
	var secs, offered float64
	open := false
	svcHist := make([]*hdr.Histogram, len(s.Ops))
	lagHist := make([]*hdr.Histogram, len(s.Ops))
	for o := range s.Ops {
		svcHist[o], lagHist[o] = histogram.New(), histogram.New()
	}
	for k := range ivs {
		iv := &ivs[k]
		if msg := checkInterval(iv, len(s.Ops)); msg != "" {
			return nil, fmt.Errorf("intervals[%d]: %s", k, msg)
		}
		if iv.Warmup {
			continue
		}
		secs += iv.LengthS
		r.Transactions += iv.Transactions
		r.Queries += iv.Queries
		r.Errors += iv.Errors
		r.Retries += iv.Retries
		r.Reconnects += iv.Reconnects
		r.Rollbacks += iv.Rollbacks
		r.Late += iv.Late
		r.Skipped += iv.Skipped
		r.Dropped += iv.Dropped
		offered += iv.OfferedTPS * iv.LengthS
		open = open || iv.ServiceMS != nil
		for _, op := range iv.Ops {
			if err := mergeHDR(opHist[op.Op], op.HDR, op.Count); err != nil {
				return nil, fmt.Errorf("intervals[%d]: op %d: %v", k, op.Op, err)
			}
			if op.ServiceHDR != "" || op.LagHDR != "" {
				if err := mergeHDR(svcHist[op.Op], op.ServiceHDR, op.Count); err != nil {
					return nil, fmt.Errorf("intervals[%d]: op %d: service_hdr: %v", k, op.Op, err)
				}
				if err := mergeHDR(lagHist[op.Op], op.LagHDR, op.Count); err != nil {
					return nil, fmt.Errorf("intervals[%d]: op %d: lag_hdr: %v", k, op.Op, err)
				}
			}
			ops[op.Op].Late += op.Late
			o := &ops[op.Op]
			o.Count += op.Count
			o.Errors += op.Errors
			o.Retries += op.Retries
			o.Rollbacks += op.Rollbacks
		}
	}
	r.DurationS = round(secs, 3)
	r.setRates(secs, 0)
	all, allSvc, allLag := histogram.New(), histogram.New(), histogram.New()
	for o := range ops {
		h := opHist[o]
		ops[o].LatencyMS = histogram.Summarize(h)
		ops[o].HDR = encode(h)
		all.Merge(h)
		if open {
			ops[o].ServiceMS, ops[o].ServiceHDR = summary(svcHist[o]), encode(svcHist[o])
			ops[o].LagMS, ops[o].LagHDR = summary(lagHist[o]), encode(lagHist[o])
			allSvc.Merge(svcHist[o])
			allLag.Merge(lagHist[o])
		}
	}
	r.Ops = ops
	r.LatencyMS = histogram.Summarize(all)
	if open {
		r.ServiceMS, r.LagMS = summary(allSvc), summary(allLag)
		if secs > 0 {
			r.OfferedTPS = round(offered/secs, 2)
		}
	}
	return r, nil
}
