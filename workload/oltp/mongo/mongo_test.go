package mongo

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/oltp"
	"github.com/dbarena/dbarena/workload/oltp/internal/oltptest"
)

// The tests below run the suite on the MongoDB test server, each in a
// fresh database, prepared through the runner's generic setup.

// newTest is the registered test name with args parsed and validated.
func newTest(t *testing.T, name string, args ...string) *oltp.Test {
	t.Helper()
	m, ok := workload.Lookup(name)
	if !ok {
		t.Fatalf("%s not registered", name)
	}
	w := m.New().(*oltp.Test)
	spec := w.Define()
	if err := spec.Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	if errs := spec.Validate(); len(errs) > 0 {
		t.Fatalf("validate %v: %v", args, errs)
	}
	return w
}

// bind is w's implementation for MongoDB, as workload.ForFamily picks it.
func bind(t *testing.T, w *oltp.Test) workload.Workload {
	t.Helper()
	impl, err := workload.ForFamily(w, mongo.Dialect{})
	if err != nil {
		t.Fatal(err)
	}
	return impl
}

func openMongo(t *testing.T) engine.Engine {
	return enginetest.Open(t, testdb.Isolated(t, testdb.Mongo(t)))
}

func connect(t *testing.T, e engine.Engine) *mongo.Conn {
	t.Helper()
	c, err := e.Connect(context.Background())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*mongo.Conn)
}

func prepareMongo(t *testing.T, e engine.Engine, w workload.Workload) {
	t.Helper()
	if _, err := load.Prepare(context.Background(), e, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
		t.Fatalf("prepare: %v", err)
	}
}

func TestMongoTables(t *testing.T) {
	w := newTest(t, "oltp_read_write", "--tables=2", "--table-size=25000")
	tables := bind(t, w).Define().Tables(mongo.Dialect{})
	if len(tables) != 2 {
		t.Fatalf("%d tables, want 2", len(tables))
	}
	for i, tb := range tables {
		if f := mongo.Fields(tb.Schema); strings.Join(f, ",") != "_id,k,c,pad" || tb.Batches != 3 {
			t.Errorf("%s: fields %v, %d batches; want _id,k,c,pad and 3", tb.Name, f, tb.Batches)
		}
		ix := mongo.Indexes(tb.Schema)
		if len(ix) != 1 || ix[0].Name != "k_"+strconv.Itoa(i+1) || len(ix[0].Keys) != 1 || ix[0].Keys[0].Key != "k" {
			t.Errorf("%s: indexes %v, want k_N on k", tb.Name, ix)
		}
	}
	// The same rows as on SQL engines: one generator for every engine.
	sqlTables := w.DataTables()
	a, b := tables[1].Rows(2), sqlTables[1].Rows(2)
	for a.Next() && b.Next() {
		va, _ := a.Values()
		vb, _ := b.Values()
		for j := range va {
			if va[j] != vb[j] {
				t.Fatalf("row values differ: %v vs %v", va, vb)
			}
		}
	}
	if w := newTest(t, "oltp_read_write", "--create-secondary=false"); len(mongo.Indexes(bind(t, w).Define().Tables(mongo.Dialect{})[0].Schema)) != 0 {
		t.Error("--create-secondary=false still builds k_1")
	}
}

// Every test of the suite has this implementation for MongoDB, and the
// registered test stays the one for SQL engines.
func TestMongoSupport(t *testing.T) {
	for _, name := range oltp.Names() {
		w := newTest(t, name)
		impl, err := workload.ForFamily(w, mongo.Dialect{})
		if err != nil {
			t.Errorf("ForFamily(%s, mongodb) = %v", name, err)
		} else if s := impl.Define(); impl == workload.Workload(w) || s.Options != w.Define().Options || s.Meta.Name != name {
			t.Errorf("ForFamily(%s, mongodb) = %T named %q, not bound to the registered test and its options", name, impl, s.Meta.Name)
		}
		if impl, err := workload.ForFamily(w, postgres.Dialect{}); err != nil || impl != w {
			t.Errorf("ForFamily(%s, postgres) = %v, %v; want the registered test", name, impl, err)
		}
	}
}

// TestMongoRunThenCheck runs every test for a few hundred events by two
// workers, checks the data, and checks that each event sent the
// statements sysbench counts for it: reads, writes and BEGIN/COMMIT.
func TestMongoRunThenCheck(t *testing.T) {
	for _, c := range oltptest.RunCases {
		t.Run(c.Test+"/"+strings.Join(c.Args, ","), func(t *testing.T) {
			ctx := context.Background()
			e := openMongo(t)
			args := append([]string{"--tables=2", "--table-size=2000", "--seed-data=3"}, c.Args...)
			w := newTest(t, c.Test, args...)
			prepareMongo(t, e, w)
			const events = 200
			queries := oltptest.RunEvents(t, e, bind(t, w), events, func() engine.Conn { return connect(t, e) })
			probs, err := bind(t, w).Define().Check(ctx, connect(t, e))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range probs {
				t.Errorf("problem: %s: %s", p.Check, p.Detail)
			}

			// Statement counts: every committed event sent exactly its
			// group counts; failed events (retried) add whole or partial
			// events, so the totals are at least events × per-event.
			n := w.Counts()
			reads := int64(n.Points + n.Simple + n.Sum + n.Order + n.Distinct)
			writes := int64(n.IdxUpdates + n.NonIdx + 2*n.DelIns)
			switch w.Kind() {
			case oltp.EventInsert, oltp.EventDelete:
				writes = 1
			case oltp.EventPct:
				reads, writes = -1, -1 // one or the other per event
			}
			other := int64(0)
			if w.Trx() {
				other = 2
			}
			for id, q := range queries {
				if reads >= 0 && (q.Reads < events*reads || q.Writes < events*writes) {
					t.Errorf("worker %d: %d reads, %d writes; want at least %d, %d", id, q.Reads, q.Writes, events*reads, events*writes)
				}
				if reads < 0 && q.Reads+q.Writes < events {
					t.Errorf("worker %d: %d reads + %d writes < %d events", id, q.Reads, q.Writes, events)
				}
				if q.Other < events*other || other == 0 && q.Other != 0 {
					t.Errorf("worker %d: %d other, want %d per event", id, q.Other, other)
				}
			}

			count, err := connect(t, e).DB().Collection("sbtest1").CountDocuments(ctx, bson.D{})
			if err != nil {
				t.Fatal(err)
			}
			switch c.Test {
			case "oltp_insert":
				if count <= 2000 && w.AutoInc() || count == 0 {
					t.Errorf("oltp_insert left %d documents", count)
				}
			case "oltp_delete":
				if count >= 2000 {
					t.Errorf("oltp_delete left %d documents", count)
				}
			default:
				if w.RowRule() == oltp.RowsEqual && count != 2000 {
					t.Errorf("%d documents, want 2000", count)
				}
			}
		})
	}
}

func TestMongoCheckFindsProblems(t *testing.T) {
	ctx := context.Background()
	e := openMongo(t)
	w := newTest(t, "oltp_read_write", "--tables=3", "--table-size=300")
	prepareMongo(t, e, w)
	c := connect(t, e)
	check := bind(t, w).Define().Check
	if probs, err := check(ctx, c); err != nil || len(probs) != 0 {
		t.Fatalf("fresh data: %v %v", probs, err)
	}
	s1 := c.DB().Collection("sbtest1")
	set := func(id int64, field string, v any) {
		if _, err := s1.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: field, Value: v}}}}); err != nil {
			t.Fatal(err)
		}
	}
	set(5, "c", "short")
	set(6, "pad", "12345678901-1234567890x-12345678901-12345678901-12345678901")
	set(8, "k", int64(0))
	if _, err := s1.DeleteOne(ctx, bson.D{{Key: "_id", Value: int64(7)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s1.InsertOne(ctx, bson.D{{Key: "_id", Value: int64(301)}, {Key: "k", Value: int64(1)},
		{Key: "c", Value: strings.Repeat("1", 119)}, {Key: "pad", Value: strings.Repeat("2", 59)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s1.UpdateOne(ctx, bson.D{{Key: "_id", Value: int64(9)}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "pad", Value: ""}}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.DB().Collection("sbtest3").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	probs, err := check(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	got := oltptest.Found(t, probs, "sbtest1 c_length", "sbtest1 c_pattern", "sbtest1 k_positive", "sbtest1 id_range", "sbtest1 not_null", "sbtest3 table_exists")
	if got["sbtest1 row_count"] || got["sbtest2 c_length"] {
		t.Error("a problem reported where there is none")
	}
}

// TestMongoRunner drives the suite through runner.Run, the way the CLI
// does: transactions with write conflicts are retried and counted.
func TestMongoRunner(t *testing.T) {
	ctx := context.Background()
	e := openMongo(t)
	w := newTest(t, "oltp_write_only", "--tables=1", "--table-size=50")
	prepareMongo(t, e, w)
	run, err := runner.Run(ctx, e, w, runner.Config{Threads: 4, Duration: 2e9, ReportInterval: 1e9, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != result.StatusComplete {
		t.Errorf("status %q", run.Status)
	}
	if run.Transactions == 0 || run.Errors != 0 {
		t.Errorf("%d transactions, %d errors", run.Transactions, run.Errors)
	}
	// 4 writers on 50 documents in transactions conflict.
	if run.Retries == 0 {
		t.Error("no retries: write conflicts were not classified as retryable")
	}
	if probs, err := load.Check(ctx, e, w); err != nil || len(probs) > 0 {
		t.Errorf("check: %v %v", probs, err)
	}
}

// The implementation's Spec.Metrics name what its Run reports: nothing,
// as on SQL engines.
func TestMongoMetricNames(t *testing.T) {
	for _, name := range oltp.Names() {
		t.Run("workload="+name, func(t *testing.T) {
			oltptest.CheckMetrics(t, bind(t, newTest(t, name)),
				workload.RunEnv{Engine: mongo.Dialect{}.Capabilities(), Dialect: mongo.Dialect{}, Shard: workload.Shard{Index: 0, Count: 1}, Now: time.Now})
		})
	}
}
