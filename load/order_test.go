package load

import (
	"fmt"
	"slices"
	"testing"

	"github.com/dbarena/dbarena/shard"
	"github.com/dbarena/dbarena/workload"
)

// The shards of a sharded prepare load every batch once between them:
// without units, every N-th batch of the load order (parts differ by one
// batch at most); with units, whole units (a warehouse's rows of every
// table with one shard).
func TestLoadOrderSharded(t *testing.T) {
	tables := []workload.Table{{Name: "a", Batches: 5}, {Name: "b", Batches: 1}, {Name: "c", Batches: 3}}
	for _, unit := range []string{"", "warehouses"} {
		whole, units := loadOrder(tables, unit, nil)
		if units != 5 || len(whole) != 9 {
			t.Fatalf("unit %q: %d batches in %d units, want 9 in 5", unit, len(whole), units)
		}
		for _, n := range []int{1, 2, 3, 4, 9, 12} {
			var all []batchJob
			sizes := map[int]bool{}
			for i := range n {
				part, _ := loadOrder(tables, unit, &shard.Spec{Index: i, Count: n})
				all = append(all, part...)
				sizes[len(part)] = true
				if unit != "" {
					for _, j := range part {
						if j.batch%n != i {
							t.Errorf("unit %q, shard %d/%d loads unit %d", unit, i, n, j.batch)
						}
					}
				}
			}
			key := func(j batchJob) string { return fmt.Sprintf("%d/%d", j.table, j.batch) }
			got, want := make([]string, len(all)), make([]string, len(whole))
			for i, j := range all {
				got[i] = key(j)
			}
			for i, j := range whole {
				want[i] = key(j)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("unit %q, %d shards load %v, one process %v", unit, n, got, want)
			}
			if unit == "" {
				lo, hi := len(whole), 0
				for s := range sizes {
					lo, hi = min(lo, s), max(hi, s)
				}
				if hi-lo > 1 {
					t.Errorf("%d shards: parts of %v batches", n, sizes)
				}
			}
		}
	}
}
