package result

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// Every file a run writes names its shard: the process that ran it, on
// which host, and a run id of its own.
func TestNewIdentity(t *testing.T) {
	a, b := NewIdentity(), NewIdentity()
	host, _ := os.Hostname()
	if a.RunID == "" || a.RunID == b.RunID || a.Host != host || a.PID != os.Getpid() || a.Index != 0 || a.Count != 1 {
		t.Errorf("identities %+v and %+v: want distinct run ids, host %q, pid %d, shard 0 of 1", a, b, host, os.Getpid())
	}
}

// A shard given twice would count its transactions twice: Merge refuses
// it, naming both files, whether by its identity or, for files written
// before identities, by the start, seed and host of the process.
func TestMergeRefusesShardGivenTwice(t *testing.T) {
	a := shard(t, t0, 1, tick{lat: [2][]int64{{100}, {200}}})
	b := shard(t, t0, 2, tick{lat: [2][]int64{{100}, {200}}})
	old := func(f *File) *File {
		c := twin(t, f)
		c.Identity = nil
		for i := range c.Shards {
			c.Shards[i].Identity = nil
		}
		return c
	}
	ab, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(ab.Shards) != 2 || ab.Shards[0].Identity == nil || *ab.Shards[1].Identity != *b.Identity || ab.Identity != nil {
		t.Errorf("merged shards %+v, identity %+v: want each shard's identity, none of its own", ab.Shards, ab.Identity)
	}
	for _, tc := range []struct {
		name  string
		files []*File
		same  [2]int
	}{
		{"same file", []*File{a, a}, [2]int{0, 1}},
		{"a copy", []*File{a, b, twin(t, b)}, [2]int{0, 0}}, // twin has another identity: mergeable
		{"third repeats first", []*File{a, b, a}, [2]int{0, 2}},
		{"a shard of a merged file", []*File{ab, b}, [2]int{0, 1}},
		{"without identities", []*File{old(a), old(a)}, [2]int{0, 1}},
		{"merged without identities", []*File{old(ab), old(b)}, [2]int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(tc.files...)
			if tc.same == [2]int{} {
				if err != nil {
					t.Fatalf("Merge = %v, want a merge", err)
				}
				return
			}
			var de *DuplicateError
			if !errors.As(err, &de) || !errors.Is(err, ErrNotMergeable) {
				t.Fatalf("Merge = %v, want a DuplicateError", err)
			}
			if de.Files != tc.same {
				t.Errorf("files %v, want %v", de.Files, tc.same)
			}
			de.Names = [2]string{"x.json", "y.json"}
			if msg := de.Error(); !strings.Contains(msg, "x.json") || !strings.Contains(msg, "y.json") || !strings.Contains(msg, "same shard") {
				t.Errorf("message %q does not name both files", msg)
			}
		})
	}
	// Files without identities from different processes still merge.
	c := old(b)
	c.StartedAt = c.StartedAt.Add(time.Second)
	if _, err := Merge(old(a), old(b), c); err != nil {
		t.Errorf("three old shards: %v", err)
	}
}
