package docolap_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	mongoengine "github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/workload/docolap"
)

// countEventsVar sets the number of events TestTopLevelCounts loads.
const countEventsVar = "DBARENA_DOCOLAP_COUNT_EVENTS"

// TestTopLevelCounts prepares the same generated events on PostgreSQL and
// on MongoDB and counts them by type and by actor.login on each: on
// MongoDB with a plain $group on the top-level fields, run with the
// driver as a MongoDB user would ($type, $actor.login: each event is the
// document itself), on PostgreSQL with the jsonb queries (doc->>'type',
// doc->'actor'->>'login'). Every group and every count must be the same,
// and the counts add up to the events. 20,000 events unless
// DBARENA_DOCOLAP_COUNT_EVENTS says otherwise (README.md, Tests, gives
// the command that runs it at 200,000).
func TestTopLevelCounts(t *testing.T) {
	events := int64(20000)
	if s := os.Getenv(countEventsVar); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number of events", countEventsVar, s)
		}
		events = n
	}
	args := []string{"--events", strconv.FormatInt(events, 10), "--seed-data", "3"}
	ctx := context.Background()
	prepare := func(name string, target engine.Target) engine.Conn {
		e := enginetest.Open(t, target)
		w := parse(t, args...)
		start := time.Now()
		if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
			t.Fatalf("%s: prepare: %v", name, err)
		}
		t.Logf("%s: prepared %d events in %.1f s", name, events, time.Since(start).Seconds())
		t.Cleanup(func() { load.Cleanup(context.Background(), e, w) })
		c, err := e.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	pg := prepare("postgres", testdb.Isolated(t, testdb.Postgres(t)))
	mc, err := mongoengine.ConnOf(prepare("mongodb", testdb.Isolated(t, testdb.Mongo(t))))
	if err != nil {
		t.Fatal(err)
	}
	coll := mc.DB().Collection(docolap.Table)

	var first bson.Raw
	if err := coll.FindOne(ctx, bson.D{}).Decode(&first); err != nil {
		t.Fatal(err)
	}
	elems, _ := first.Elements()
	var keys []string
	for _, e := range elems {
		keys = append(keys, e.Key())
	}
	t.Logf("a MongoDB document's fields: %s", strings.Join(keys, ", "))
	if len(keys) < 3 || keys[0] != "_id" || keys[1] != "id" || keys[2] != "type" {
		t.Fatalf("a document's fields are (%s), want the event's own (_id, id, type, …)", strings.Join(keys, ", "))
	}

	for _, by := range []struct{ field, jsonb string }{
		{"type", "doc->>'type'"},
		{"actor.login", "doc->'actor'->>'login'"},
	} {
		mongoCounts := map[string]int64{}
		cur, err := coll.Aggregate(ctx, drv.Pipeline{
			{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$" + by.field}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
		})
		if err != nil {
			t.Fatalf("$group by $%s: %v", by.field, err)
		}
		for cur.Next(ctx) {
			var g struct {
				Key string `bson:"_id"`
				N   int64  `bson:"n"`
			}
			if err := cur.Decode(&g); err != nil {
				t.Fatalf("$group by $%s: %v", by.field, err)
			}
			mongoCounts[g.Key] = g.N
		}
		if err := cur.Err(); err != nil {
			t.Fatalf("$group by $%s: %v", by.field, err)
		}
		cur.Close(ctx)

		pgCounts := map[string]int64{}
		sc, err := engine.SQL(pg)
		if err != nil {
			t.Fatal(err)
		}
		q := "SELECT " + by.jsonb + ", count(*) FROM events GROUP BY 1"
		err = sc.QueryRows(ctx, q, nil, func(vals []any) error {
			k, ok := vals[0].(string)
			if !ok {
				return fmt.Errorf("key %v (%T), want text", vals[0], vals[0])
			}
			pgCounts[k] = vals[1].(int64)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}

		var total int64
		for _, n := range pgCounts {
			total += n
		}
		if total != events {
			t.Errorf("by %s: PostgreSQL's counts add up to %d, want %d", by.field, total, events)
		}
		if !maps.Equal(mongoCounts, pgCounts) {
			var diff []string
			for _, k := range slices.Sorted(maps.Keys(pgCounts)) {
				if mongoCounts[k] != pgCounts[k] {
					diff = append(diff, fmt.Sprintf("%q: MongoDB %d, PostgreSQL %d", k, mongoCounts[k], pgCounts[k]))
				}
			}
			for k := range mongoCounts {
				if _, ok := pgCounts[k]; !ok {
					diff = append(diff, fmt.Sprintf("%q: MongoDB %d, PostgreSQL none", k, mongoCounts[k]))
				}
			}
			t.Fatalf("by %s: %d groups on MongoDB, %d on PostgreSQL; they differ:\n%s", by.field, len(mongoCounts), len(pgCounts), strings.Join(diff[:min(len(diff), 20)], "\n"))
		}
		top := slices.SortedFunc(maps.Keys(pgCounts), func(a, b string) int {
			if pgCounts[a] != pgCounts[b] {
				return int(pgCounts[b] - pgCounts[a])
			}
			return strings.Compare(a, b)
		})
		var head []string
		for _, k := range top[:min(len(top), 3)] {
			head = append(head, fmt.Sprintf("%s %d", k, pgCounts[k]))
		}
		t.Logf("by %s: %d groups, the same %d events on both (first: %s)", by.field, len(pgCounts), total, strings.Join(head, ", "))
	}
}
