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

	f, err := ReadJournal(writeJournal(t, a, &bl))
	if err != nil {
		t.Fatal(err)
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

// What cannot be a journal is refused with a reason, never half-read.
func TestJournalBadInput(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		want string
	}{
		"empty":           {"", "has no header"},
		"torn header":     {`{"header":{"schema_ver`, "has no header"},
		"no header":       {`{"run":0,"start":{"threads":1,"ops":["a"]}}` + "\n", "comes before the header"},
		"not json":        {`{"header":{}}` + "\nhello\n", "line 2"},
		"unknown line":    {`{"header":{}}` + "\n{\"run\":0}\n", "not a line of an interval log"},
		"orphan":          {`{"header":{}}` + "\n" + `{"run":3,"interval":{"t_s":1}}` + "\n", "run 3, which did not start"},
		"started twice":   {`{"header":{}}` + "\n" + `{"run":0,"start":{"ops":[]}}` + "\n" + `{"run":0,"start":{"ops":[]}}` + "\n", "started twice"},
		"op out of range": {`{"header":{}}` + "\n" + `{"run":0,"start":{"ops":["a"]}}` + "\n" + `{"run":0,"interval":{"t_s":1,"transactions":1,"ops":[{"op":4,"count":1}]}}` + "\n", "op 4"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeJournal([]byte(tc.text), "r.json.journal")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := ReadJournal(filepath.Join(t.TempDir(), "none.journal")); !errors.Is(err, ErrNoJournal) {
		t.Errorf("a missing journal: %v, want ErrNoJournal", err)
	}
}
