package result

import (
	"errors"
	"testing"
	"time"
)

func secs(v float64) *float64 { return &v }

func triesShard(t *testing.T, start time.Time, first string, a []*float64) *File {
	t.Helper()
	f := shard(t, start, 1, tick{lat: [2][]int64{{1000}, {2000}}})
	q := QueryTries{Name: "read"}
	for i, s := range a {
		tr := Try{Label: LabelHot, S: s, Rows: 3, Hash: "h"}
		if i == 0 {
			tr.Label = first
		}
		if s == nil {
			tr.Rows, tr.Hash, tr.Error = 0, "", "query timed out after 1s"
		}
		q.Tries = append(q.Tries, tr)
	}
	f.Runs[0].Tries = &Tries{Count: len(a), Queries: []QueryTries{q, {Name: "write"}}}
	return f
}

func TestQueryTriesFigures(t *testing.T) {
	q := QueryTries{Name: "A", Tries: []Try{
		{Label: LabelLukewarm, S: secs(3), Rows: 2, Hash: "x"},
		{Label: LabelHot, S: secs(2), Rows: 2, Hash: "x"},
		{Label: LabelHot, S: nil, Error: "boom"},
		{Label: LabelHot, S: secs(1.5), Rows: 2, Hash: "x"},
	}}
	if c := q.Cold(); c == nil || *c != 3 {
		t.Errorf("Cold = %v, want 3", c)
	}
	if h := q.Hot(); h == nil || *h != 1.5 {
		t.Errorf("Hot = %v, want 1.5 (the best of the later tries)", h)
	}
	if lo, hi, ok := q.Spread(); !ok || lo != 1.5 || hi != 2 {
		t.Errorf("Spread = %v, %v, %v, want 1.5, 2, true", lo, hi, ok)
	}
	if q.Errors() != 1 {
		t.Errorf("Errors = %d, want 1", q.Errors())
	}
	if rows, hash, differ, ok := q.Answer(); !ok || differ || rows != 2 || hash != "x" {
		t.Errorf("Answer = %d %q %v %v", rows, hash, differ, ok)
	}
	if q.FirstLabel() != LabelLukewarm {
		t.Errorf("FirstLabel = %q", q.FirstLabel())
	}

	failed := QueryTries{Tries: []Try{{Label: LabelCold, Error: "timed out"}, {Label: LabelHot, Error: "timed out"}}}
	if failed.Cold() != nil || failed.Hot() != nil {
		t.Errorf("failed tries: Cold %v Hot %v, want nil (null, never zero)", failed.Cold(), failed.Hot())
	}
	if _, _, ok := failed.Spread(); ok {
		t.Error("Spread of failed tries is ok")
	}
	one := QueryTries{Tries: []Try{{Label: LabelCold, S: secs(1)}}}
	if one.Hot() != nil {
		t.Errorf("one try: Hot = %v, want nil", *one.Hot())
	}
	differ := QueryTries{Tries: []Try{{Label: LabelCold, S: secs(1), Rows: 1, Hash: "a"}, {Label: LabelHot, S: secs(1), Rows: 1, Hash: "b"}}}
	if _, _, d, _ := differ.Answer(); !d {
		t.Error("tries with different hashes do not differ")
	}
}

func TestMergeTries(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := triesShard(t, start, LabelColdCacheKept, []*float64{secs(5), secs(2), secs(3)})
	b := triesShard(t, start.Add(time.Second), LabelColdCacheKept, []*float64{secs(4), nil, secs(2.5)})
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	tr := m.Runs[0].Tries
	if tr == nil || tr.Count != 3 || len(tr.Queries) != 2 {
		t.Fatalf("merged tries = %+v", tr)
	}
	q := tr.Queries[0]
	if len(q.Tries) != 6 {
		t.Fatalf("merged query has %d tries, want every shard's 6", len(q.Tries))
	}
	if c := q.Cold(); c == nil || *c != 4 {
		t.Errorf("merged Cold = %v, want the best first try, 4", c)
	}
	if h := q.Hot(); h == nil || *h != 2 {
		t.Errorf("merged Hot = %v, want 2", h)
	}
	if q.Tries[4].S != nil || q.Tries[4].Error == "" {
		t.Errorf("the failed try lost its null or error: %+v", q.Tries[4])
	}

	c := triesShard(t, start, LabelLukewarm, []*float64{secs(1), secs(1)})
	if _, err := Merge(a, c); !errors.Is(err, ErrNotMergeable) {
		t.Errorf("merging 3 tries with 2: %v, want ErrNotMergeable", err)
	} else if me := (*MergeError)(nil); errors.As(err, &me) && me.Field != "runs[0].tries.count" {
		t.Errorf("field = %q, want runs[0].tries.count", me.Field)
	}
	plain := shard(t, start, 1, tick{lat: [2][]int64{{1000}, {2000}}})
	if _, err := Merge(a, plain); !errors.Is(err, ErrNotMergeable) {
		t.Errorf("merging a tries run with a closed-loop one: %v, want ErrNotMergeable", err)
	}
	if m, err := Merge(plain, twin(t, plain)); err != nil || m.Runs[0].Tries != nil {
		t.Errorf("closed-loop runs merged: tries %+v, %v", m.Runs[0].Tries, err)
	}
}
