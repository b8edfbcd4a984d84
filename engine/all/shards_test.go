package all_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
)

// The records of sharded runs on every engine: a second AddShardRecord
// of the same key writes nothing, PutShardRecord replaces, ShardRecords
// returns a run's records by phase and shard, DeleteShardRecords removes
// a run's and drops the table once empty; the server's clock is the
// host's within a second (the servers run here).
func TestShardRecords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(testing.TB) engine.Target
	}{
		{"postgres", testdb.Postgres},
		{"mysql", testdb.MySQL},
		{"sqlite", testdb.SQLite},
		{"mongodb", testdb.Mongo},
	} {
		t.Run("engine="+tc.name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t, testdb.Isolated(t, tc.target(t)))
			c, err := e.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			cat := c.Catalog()

			before := time.Now()
			st, err := cat.ServerTime(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d := st.Sub(before); d < -time.Second || d > time.Second {
				t.Errorf("ServerTime = %v, %v from the host's clock", st, d)
			}

			if recs, err := cat.ShardRecords(ctx, engine.ShardTable, "r1", ""); err != nil || len(recs) != 0 {
				t.Fatalf("ShardRecords before any = %v, %v", recs, err)
			}
			at := time.UnixMicro(time.Now().UnixMicro())
			big := strings.Repeat("x", 3<<20) // a result file of some size
			for _, rec := range []engine.ShardRecord{
				{Run: "r1", Phase: "run", Shard: 1, Count: 2, At: at, Body: `{"host":"b"}`},
				{Run: "r1", Phase: "run", Shard: 0, Count: 2, At: at.Add(time.Millisecond), Body: `{"host":"a"}`},
				{Run: "r1", Phase: "prepare", Shard: 0, Count: 2, At: at, Body: big},
				{Run: "r2", Phase: "run", Shard: 0, Count: 1, At: at, Body: "{}"},
			} {
				if added, err := cat.AddShardRecord(ctx, engine.ShardTable, rec); err != nil || !added {
					t.Fatalf("AddShardRecord(%s %s %d) = %v, %v", rec.Run, rec.Phase, rec.Shard, added, err)
				}
			}
			if added, err := cat.AddShardRecord(ctx, engine.ShardTable, engine.ShardRecord{Run: "r1", Phase: "run", Shard: 1, Count: 2, At: at, Body: "again"}); err != nil || added {
				t.Errorf("a second AddShardRecord = %v, %v; want false, nil", added, err)
			}
			if err := cat.PutShardRecord(ctx, engine.ShardTable, engine.ShardRecord{Run: "r1", Phase: "run", Shard: 0, Count: 2, At: at, Body: "replaced"}); err != nil {
				t.Fatal(err)
			}
			recs, err := cat.ShardRecords(ctx, engine.ShardTable, "r1", "")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range recs {
				got = append(got, r.Phase+"/"+string(rune('0'+r.Shard)))
			}
			if strings.Join(got, " ") != "prepare/0 run/0 run/1" {
				t.Fatalf("ShardRecords = %v", got)
			}
			if recs[0].Body != big || recs[1].Body != "replaced" || recs[2].Body != `{"host":"b"}` || recs[2].Count != 2 {
				t.Errorf("bodies or counts differ: %q… %q %q %d", recs[0].Body[:4], recs[1].Body, recs[2].Body, recs[2].Count)
			}
			if !recs[2].At.Equal(at) {
				t.Errorf("At = %v, want %v", recs[2].At, at)
			}
			if only, err := cat.ShardRecords(ctx, engine.ShardTable, "r1", "run"); err != nil || len(only) != 2 {
				t.Errorf("ShardRecords(r1, run) = %d records, %v", len(only), err)
			}
			if n, err := cat.DeleteShardRecords(ctx, engine.ShardTable, "r1"); err != nil || n != 3 {
				t.Errorf("DeleteShardRecords(r1) = %d, %v", n, err)
			}
			if ok, err := cat.TableExists(ctx, engine.ShardTable); err != nil || !ok {
				t.Errorf("%s dropped while r2 has a record: %v, %v", engine.ShardTable, ok, err)
			}
			if n, err := cat.DeleteShardRecords(ctx, engine.ShardTable, ""); err != nil || n != 1 {
				t.Errorf("DeleteShardRecords(all) = %d, %v", n, err)
			}
			if ok, err := cat.TableExists(ctx, engine.ShardTable); err != nil || ok {
				t.Errorf("%s left once empty: %v, %v", engine.ShardTable, ok, err)
			}
			if _, err := cat.ShardRecords(ctx, "users", "r1", ""); err == nil {
				t.Error("ShardRecords on another table: no error")
			}

			// Shards register at once, the table not there yet: InnoDB's
			// gap locks made concurrent inserts deadlock.
			const shards = 6
			cats := make([]engine.Catalog, shards)
			for i := range cats {
				ci, err := e.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer ci.Close()
				cats[i] = ci.Catalog()
			}
			for round := range 5 {
				phase := fmt.Sprintf("p%d", round)
				errs := make(chan error, 2*shards)
				var wg sync.WaitGroup
				for i, ci := range cats {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rec := engine.ShardRecord{Run: "c", Phase: phase, Shard: i, Count: shards, At: at, Body: "{}"}
						if added, err := ci.AddShardRecord(ctx, engine.ShardTable, rec); err != nil || !added {
							errs <- fmt.Errorf("shard %d: AddShardRecord = %v, %v", i, added, err)
						}
						rec.Phase += " told"
						if err := ci.PutShardRecord(ctx, engine.ShardTable, rec); err != nil {
							errs <- fmt.Errorf("shard %d: PutShardRecord: %v", i, err)
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Errorf("round %d: %v", round, err)
				}
			}
			if recs, err := cat.ShardRecords(ctx, engine.ShardTable, "c", ""); err != nil || len(recs) != 2*5*shards {
				t.Errorf("after the concurrent rounds: %d records, %v; want %d", len(recs), err, 2*5*shards)
			}
			if _, err := cat.DeleteShardRecords(ctx, engine.ShardTable, ""); err != nil {
				t.Error(err)
			}
		})
	}
}
