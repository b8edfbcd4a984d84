package result

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var journalTicks = []tick{
	{lat: [2][]int64{{100, 200, 300}, {1000}}},
	{lat: [2][]int64{{150, 250}, {900, 1100}}, errors: 2, retries: 1},
	{lat: [2][]int64{{120}, {}}},
}

// writeJournal logs a sweep as Measure does: run 0 ended (a, whole),
// run 1 (b) killed after its intervals; the last line torn.
func writeJournal(t *testing.T, a, b *File) string {
	t.Helper()
	path := JournalPath(filepath.Join(t.TempDir(), "r.json"))
	j, err := CreateJournal(path, a)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range []*File{a, b} {
		r := &f.Runs[0]
		if err := j.Start(i, RunStart{Threads: r.Threads, StartedAt: r.StartedAt, WarmupS: r.WarmupS, Ops: opNames}); err != nil {
			t.Fatal(err)
		}
		for k := range r.Intervals {
			if err := j.Interval(i, &r.Intervals[k]); err != nil {
				t.Fatal(err)
			}
		}
		if i == 0 {
			if err := j.End(i, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	// The process was killed in the middle of its next line.
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(`{"run":1,"interval":{"t_s":4,"transa`)
	fh.Close()
	return path
}

// A journal gives back the runs that ended as they were, and the run that
// was killed with exactly the counts and percentiles of its intervals:
// what the run's own end would have computed from the same measurements.
func TestJournalRebuildsKilledRun(t *testing.T) {
	a := shard(t, t0, 1, journalTicks...)
	b := shard(t, t0.Add(time.Minute), 1, journalTicks[1:]...)
	// b's run as logged: a warm-up interval first, then b's measured ones.
	warm := shard(t, t0.Add(time.Minute), 1, journalTicks[0]).Runs[0].Intervals[0]
	warm.Warmup = true
	logged := b.Runs[0]
	logged.WarmupS = 1
	logged.Intervals = append([]Interval{warm}, logged.Intervals...)
	for k := range logged.Intervals {
		logged.Intervals[k].TS = float64(k + 1)
	}
	bl := *b
	bl.Runs = []Run{logged}

	f, skipped, err := ReadJournal(writeJournal(t, a, &bl))
	if err != nil {
		t.Fatal(err)
	}
	if skipped.Lines() != 0 {
		t.Errorf("skipped %+v of a sound journal", skipped)
	}
	if f.Status != StatusKilled || f.Error == "" || len(f.Runs) != 2 {
		t.Fatalf("status %q error %q, %d runs", f.Status, f.Error, len(f.Runs))
	}
	if !reflect.DeepEqual(f.Runs[0], a.Runs[0]) {
		t.Errorf("the run that ended changed:\n got %+v\nwant %+v", f.Runs[0], a.Runs[0])
	}
	got, want := f.Runs[1], b.Runs[0]
	if got.Status != StatusKilled || len(got.Intervals) != 3 || got.WarmupS != 1 {
		t.Errorf("killed run: status %q, %d intervals, warm-up %v s", got.Status, len(got.Intervals), got.WarmupS)
	}
	if got.Transactions != want.Transactions || got.Queries != want.Queries || got.Errors != want.Errors || got.Retries != want.Retries || got.DurationS != want.DurationS || got.TPS != want.TPS {
		t.Errorf("killed run's totals: txn %d q %d err %d retries %d dur %v tps %v; want %d %d %d %d %v %v",
			got.Transactions, got.Queries, got.Errors, got.Retries, got.DurationS, got.TPS,
			want.Transactions, want.Queries, want.Errors, want.Retries, want.DurationS, want.TPS)
	}
	if got.Reads == 0 || got.Reads != want.Reads || got.Writes != want.Writes || got.Other != want.Other || got.QPS != want.QPS {
		t.Errorf("killed run's statements: reads %d writes %d other %d qps %v; want %d %d %d %v",
			got.Reads, got.Writes, got.Other, got.QPS, want.Reads, want.Writes, want.Other, want.QPS)
	}
	if got.LatencyMS != want.LatencyMS {
		t.Errorf("latency %+v, want %+v", got.LatencyMS, want.LatencyMS)
	}
	for o := range want.Ops {
		if g, w := got.Ops[o], want.Ops[o]; g.Name != w.Name || g.Count != w.Count || g.Errors != w.Errors || g.LatencyMS != w.LatencyMS || g.HDR != w.HDR {
			t.Errorf("op %d: %+v, want %+v", o, g, w)
		}
	}
	if !f.FinishedAt.Equal(logged.StartedAt.Add(3 * time.Second)) {
		t.Errorf("finished at %v, want the end of the last logged interval", f.FinishedAt)
	}
}

// What cannot be a journal is refused with a reason, never half-read:
// a usage error (ErrNoJournal, ErrBadJournal or ErrSchema).
func TestJournalBadInput(t *testing.T) {
	const head = `{"header":{"schema_version":2}}` + "\n"
	for name, tc := range map[string]struct {
		text string
		want string
		is   error
	}{
		"empty":          {"", "has no header", ErrNoJournal},
		"torn header":    {`{"header":{"schema_ver`, "has no header", ErrNoJournal},
		"no header":      {`{"run":0,"start":{"threads":1,"ops":["a"]}}` + "\n", "has no header", ErrNoJournal},
		"no version":     {`{"header":{}}` + "\n", "schema_version 0", ErrSchema},
		"future version": {`{"header":{"schema_version":99}}` + "\n" + `{"run":0,"start":{"ops":["a"]}}` + "\n", "schema_version 99 (this build reads 1..2)", ErrSchema},
		"two headers":    {head + `{"header":{"schema_version":2,"seed":7}}` + "\n", "line 2: a second header", ErrBadJournal},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := DecodeJournal([]byte(tc.text), "r.json.journal")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) {
				t.Fatalf("error %v, want one containing %q and wrapping %v", err, tc.want, tc.is)
			}
		})
	}
	if _, _, err := ReadJournal(filepath.Join(t.TempDir(), "none.journal")); !errors.Is(err, ErrNoJournal) {
		t.Errorf("a missing journal: %v, want ErrNoJournal", err)
	}
}

// journalLines is the journal of writeJournal's two runs, without its
// torn last line, one line per element.
func journalLines(t *testing.T) ([]string, *File) {
	t.Helper()
	a := shard(t, t0, 1, journalTicks...)
	b := shard(t, t0.Add(time.Minute), 1, journalTicks...)
	raw, err := os.ReadFile(writeJournal(t, a, b))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	lines = lines[:len(lines)-1] // the torn line
	f, skipped, err := DecodeJournal([]byte(strings.Join(lines, "")), "r.json.journal")
	if err != nil || skipped.Lines() != 0 {
		t.Fatalf("the sound journal: %v, skipped %+v", err, skipped)
	}
	return lines, f
}

// Lines that cannot be read (garbage, a line torn in the middle of the
// log, an interval whose counts do not add up, one of a run that never
// started) are skipped, each by its line number; the rest is recovered.
func TestJournalSkipsBadLines(t *testing.T) {
	lines, sound := journalLines(t)
	// lines: 1 header, 2 start 0, 3-5 intervals, 6 end 0, 7 start 1, 8-10 intervals.
	bad := []string{
		"hello\n",
		`{"run":1,"interval":{"t_s":9,"transa` + "\n",
		`{"run":0}` + "\n",
		`{"run":5,"interval":{"t_s":1}}` + "\n",
		`{"run":1,"interval":{"t_s":7,"transactions":3,"ops":[{"op":0,"count":1}]}}` + "\n",
		`{"run":1,"interval":{"t_s":8,"transactions":1,"ops":[{"op":9,"count":1}]}}` + "\n",
		`{"run":1,"interval":{"t_s":6,"transactions":1,"ops":[{"op":0,"count":1,"hdr":"garbage"}]}}` + "\n",
	}
	var text []string
	text = append(text, lines[:3]...)
	text = append(text, bad[:4]...) // lines 4-7
	text = append(text, lines[3:8]...)
	text = append(text, bad[4:]...) // lines 13-15
	text = append(text, lines[8:]...)
	f, skipped, err := DecodeJournal([]byte(strings.Join(text, "")), "r.json.journal")
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, b := range skipped.Bad {
		got = append(got, b.Line)
	}
	if want := []int{4, 5, 6, 7, 13, 14, 15}; !reflect.DeepEqual(got, want) || len(skipped.Duplicates) != 0 {
		t.Errorf("skipped %+v, want bad lines %v", skipped, want)
	}
	for _, b := range skipped.Bad {
		if b.Reason == "" {
			t.Errorf("line %d skipped without a reason", b.Line)
		}
	}
	if !reflect.DeepEqual(f.Runs, sound.Runs) {
		t.Errorf("the runs recovered around bad lines differ from the sound journal's:\n%+v\n%+v", f.Runs, sound.Runs)
	}
	note := strings.Join(skipped.Notes(), "\n")
	if !strings.Contains(note, "7 unreadable lines") || !strings.Contains(note, "line 4") || !strings.Contains(note, "line 15") {
		t.Errorf("notes %q: want the count and the line numbers", note)
	}
	if !strings.Contains(f.Error, "7 unreadable lines") {
		t.Errorf("the file's error %q does not say lines were skipped", f.Error)
	}
}

// A line repeated (a copy of the log appended to itself, a line written
// twice) counts once: the first of each run's start, interval (by its
// t_s) and end is kept, the repeats are skipped by their line numbers.
func TestJournalSkipsDuplicates(t *testing.T) {
	lines, sound := journalLines(t)
	var text []string
	text = append(text, lines...)
	text = append(text, lines...) // the whole log twice: lines 11-20 repeat 1-10
	text = append(text, lines[9]) // line 21 repeats line 10 again
	f, skipped, err := DecodeJournal([]byte(strings.Join(text, "")), "r.json.journal")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Runs, sound.Runs) {
		t.Errorf("duplicated lines changed the runs: %d transactions, want %d", f.Runs[1].Transactions, sound.Runs[1].Transactions)
	}
	if len(skipped.Duplicates) != 11 || skipped.Duplicates[0] != 11 || skipped.Duplicates[10] != 21 || len(skipped.Bad) != 0 {
		t.Errorf("skipped %+v, want lines 11-21 as duplicates", skipped)
	}
	if note := strings.Join(skipped.Notes(), "\n"); !strings.Contains(note, "11 repeated lines") || !strings.Contains(note, "first") {
		t.Errorf("notes %q", note)
	}
}
