package result

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
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

// ErrBadJournal is returned by ReadJournal for a journal that is not the
// log of one run: two different headers.
var ErrBadJournal = errors.New("not the interval log of one run")

// SkippedLine is a line of a journal that ReadJournal left out, counted
// from 1, and why.
type SkippedLine struct {
	Line   int
	Reason string
}

// Skipped is what ReadJournal left out of a journal: the lines it could
// not read (not JSON, not a line of a journal, an interval whose counts or
// histograms do not hold together, a line of a run that did not start),
// and the lines that repeat one read before (Duplicates, by line number):
// of a run's start, of each of its intervals (by t_s) and of its end, the
// first is kept.
type Skipped struct {
	Bad        []SkippedLine
	Duplicates []int
}

// Lines is how many lines were left out.
func (s Skipped) Lines() int { return len(s.Bad) + len(s.Duplicates) }

// maxListed is how many skipped lines a note lists.
const maxListed = 10

// Notes says what was left out, in lines for a reader: none when nothing
// was.
func (s Skipped) Notes() []string {
	var notes []string
	if n := len(s.Bad); n > 0 {
		notes = append(notes, fmt.Sprintf("skipped %s:", plural(n, "unreadable line")))
		for k, b := range s.Bad {
			if k == maxListed {
				notes = append(notes, fmt.Sprintf("  … and %d more", n-maxListed))
				break
			}
			notes = append(notes, fmt.Sprintf("  line %d: %s", b.Line, b.Reason))
		}
	}
	if n := len(s.Duplicates); n > 0 {
		notes = append(notes, fmt.Sprintf("skipped %s, keeping the first of each: %s", plural(n, "repeated line"), lineList(s.Duplicates)))
	}
	return notes
}

// summary is Notes in one line, for the rebuilt file's error.
func (s Skipped) summary() string {
	var parts []string
	if n := len(s.Bad); n > 0 {
		lines := make([]int, n)
		for k, b := range s.Bad {
			lines[k] = b.Line
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", plural(n, "unreadable line"), lineList(lines)))
	}
	if n := len(s.Duplicates); n > 0 {
		parts = append(parts, fmt.Sprintf("%s (%s)", plural(n, "repeated line"), lineList(s.Duplicates)))
	}
	return strings.Join(parts, " and ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// lineList lists line numbers: "lines 4, 5, 9", at most maxListed.
func lineList(ns []int) string {
	s := make([]string, 0, maxListed)
	for k, n := range ns {
		if k == maxListed {
			s = append(s, fmt.Sprintf("… and %d more", len(ns)-maxListed))
			break
		}
		s = append(s, strconv.Itoa(n))
	}
	if len(ns) == 1 {
		return "line " + s[0]
	}
	return "lines " + strings.Join(s, ", ")
}

// ReadJournal rebuilds a result file from the journal at path, with status
// killed: every run that ended as it ended, and the run that was going on
// rebuilt from its intervals (see RebuildRun). A torn last line is ignored;
// other lines that cannot be read, and repeated ones, are left out and
// reported in Skipped (and in the file's error). A journal without a
// header is ErrNoJournal, one whose header has a schema version this build
// cannot read ErrSchema, one with two different headers ErrBadJournal.
func ReadJournal(path string) (*File, Skipped, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, Skipped{}, fmt.Errorf("%w: %s does not exist", ErrNoJournal, path)
		}
		return nil, Skipped{}, err
	}
	return DecodeJournal(b, path)
}

// DecodeJournal is ReadJournal of a journal's bytes; name is used in
// messages.
func DecodeJournal(b []byte, name string) (*File, Skipped, error) {
	type ivKey struct {
		run int
		ms  int64
	}
	var (
		file    *File
		header  []byte
		sk      Skipped
		started = map[int]*RunStart{}
		ivs     = map[int][]Interval{}
		seen    = map[ivKey]bool{}
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
		bad := func(format string, args ...any) {
			sk.Bad = append(sk.Bad, SkippedLine{Line: n, Reason: fmt.Sprintf(format, args...)})
		}
		var l journalLine
		if jerr := json.Unmarshal(line, &l); jerr != nil {
			bad("%v", jerr)
			continue
		}
		switch {
		case l.Header != nil:
			if file == nil {
				if err := checkVersion(l.Header.SchemaVersion); err != nil {
					return nil, sk, fmt.Errorf("%s: line %d: %w", name, n, err)
				}
				file, header = l.Header, line
				continue
			}
			if !bytes.Equal(line, header) {
				return nil, sk, fmt.Errorf("%w: %s: line %d: a second header, unlike the first: the log of another run was added to it", ErrBadJournal, name, n)
			}
			sk.Duplicates = append(sk.Duplicates, n)
		case file == nil:
			bad("comes before the header")
		case l.Start != nil:
			if _, dup := started[l.Run]; dup {
				sk.Duplicates = append(sk.Duplicates, n)
				continue
			}
			started[l.Run] = l.Start
			order = append(order, l.Run)
		case l.Interval != nil:
			s := started[l.Run]
			if s == nil {
				bad("an interval of run %d, which did not start", l.Run)
				continue
			}
			if msg := validInterval(l.Interval, len(s.Ops)); msg != "" {
				bad("an interval of run %d: %s", l.Run, msg)
				continue
			}
			k := ivKey{l.Run, int64(math.Round(l.Interval.TS * 1000))}
			if seen[k] {
				sk.Duplicates = append(sk.Duplicates, n)
				continue
			}
			seen[k] = true
			ivs[l.Run] = append(ivs[l.Run], *l.Interval)
		case l.End != nil:
			if started[l.Run] == nil {
				bad("the end of run %d, which did not start", l.Run)
				continue
			}
			if ended[l.Run] != nil {
				sk.Duplicates = append(sk.Duplicates, n)
				continue
			}
			ended[l.Run] = l.End
		default:
			bad("not a line of an interval log")
		}
	}
	if file == nil {
		return nil, sk, fmt.Errorf("%w: %s has no header", ErrNoJournal, name)
	}
	file.Status = StatusKilled
	file.Error = "dbarena stopped before it wrote this file; rebuilt from its interval log"
	if sk.Lines() > 0 {
		file.Error += ", without its " + sk.summary()
	}
	for _, i := range order {
		if r := ended[i]; r != nil {
			file.Runs = append(file.Runs, *r)
			continue
		}
		r, err := RebuildRun(started[i], ivs[i])
		if err != nil {
			return nil, sk, fmt.Errorf("%s: run %d: %w", name, i, err)
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
	return file, sk, nil
}

// validInterval says what is wrong with an interval of a run of nops ops,
// or "": its ops' counts must add up to its own and each histogram must
// hold its op's count.
func validInterval(iv *Interval, nops int) string {
	if msg := checkInterval(iv, nops); msg != "" {
		return msg
	}
	for _, op := range iv.Ops {
		for _, h := range []struct{ field, s string }{{"hdr", op.HDR}, {"service_hdr", op.ServiceHDR}, {"lag_hdr", op.LagHDR}} {
			if h.field != "hdr" && op.ServiceHDR == "" && op.LagHDR == "" {
				continue
			}
			if err := mergeHDR(histogram.New(), h.s, op.Count); err != nil {
				return fmt.Sprintf("op %d: %s: %v", op.Op, h.field, err)
			}
		}
	}
	return ""
}

// RebuildRun rebuilds a run that was stopped before it ended from what
// its intervals hold: counts added (statements by kind too, from
// intervals that keep them), histograms merged, rates over the measured
// intervals' lengths. What only the run's end computes is absent:
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
		r.Reads += iv.Reads
		r.Writes += iv.Writes
		r.Other += iv.Other
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
