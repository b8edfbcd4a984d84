// Package mongo is the jsonbench workload's implementation for MongoDB:
// the bluesky collection holds the same events as the SQL table, each
// event the document itself (did, time_us, kind, commit … at the top
// level, after _id, the event's number), with JSONBench's compound index
// {kind, commit.operation, commit.collection, did, time_us} (declared
// once, in package workload/jsonbench, and built by engine/mongo). The
// queries are aggregation pipelines in JSONBench's form, run with
// allowDiskUse, ordered with the same tie-breaking keys as the SQL ones,
// so that every engine returns the same rows. It registers itself for
// engine.FamilyMongo.
//
// Import it for its side effects, as workload/all/mongo does:
//
//	import _ "github.com/dbarena/dbarena/workload/jsonbench/mongo"
package mongo

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/internal/jsondoc"
	jmongo "github.com/dbarena/dbarena/workload/internal/jsondoc/mongo"
	"github.com/dbarena/dbarena/workload/jsonbench"
)

func init() {
	workload.RegisterFamily("jsonbench", engine.FamilyMongo, func(base workload.Workload) workload.Workload {
		return &JSONBench{base: base.(*jsonbench.JSONBench)}
	})
}

var _ workload.Workload = (*JSONBench)(nil)

// JSONBench is the jsonbench workload's implementation for MongoDB,
// built on the registered workload whose options it reads.
type JSONBench struct {
	base *jsonbench.JSONBench
}

// Define is the registered workload's Spec with MongoDB's own tables
// (the events as BSON) and answers.
func (w *JSONBench) Define() workload.Spec {
	s := w.base.Define()
	s.Tables = w.tables
	s.Answers = &workload.Answers{Ops: s.Answers.Ops, Answer: func(ctx context.Context, c engine.Conn, op string) ([][]string, error) {
		return jsondoc.Answer(ctx, w, c, op)
	}}
	return s
}

// Open starts a run on MongoDB: its workers run --query's queries in
// turn and share nothing.
func (w *JSONBench) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: func(_ context.Context, c engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
		if _, err := mongo.ConnOf(c); err != nil {
			return nil, err
		}
		return w.base.NewWorker(c, env, w)
	}}, nil
}

// tables are the registered workload's, the events as BSON documents
// (AppendDocBSON), each with its own bytes cut from 1 MiB slabs (the
// loader holds a chunk of documents before sending them).
func (w *JSONBench) tables(engine.Dialect) []workload.Table {
	return w.base.DocTables(func(g *jsonbench.Generator) func(i int64) any { return jmongo.Slabs(g.AppendDocBSON) })
}

// RunQuery runs query name's pipeline on the bluesky collection of c, a
// MongoDB connection.
func (w *JSONBench) RunQuery(ctx context.Context, c engine.Conn, name string) ([]jsonbench.Row, error) {
	return jmongo.Query(ctx, c, jsonbench.Table, jsonbench.Queries(), name, Pipeline)
}

type d = bson.D
type e = bson.E

// Pipeline is query name's aggregation pipeline, in JSONBench's form, on
// the events' own fields; each sorts by its figure and then by the group
// key (_id, in byte order: the simple collation), as the SQL queries do,
// and its output documents have the query's columns in order.
func Pipeline(name string) (drv.Pipeline, error) {
	creates := d{{Key: "kind", Value: "commit"}, {Key: "commit.operation", Value: "create"}}
	posts := append(creates[:len(creates):len(creates)], e{Key: "commit.collection", Value: jsonbench.Post.NSID()})
	one := d{{Key: "$sum", Value: 1}}
	switch name {
	case jsonbench.Q1:
		return drv.Pipeline{
			{{Key: "$group", Value: d{{Key: "_id", Value: "$commit.collection"}, {Key: "count", Value: one}}}},
			{{Key: "$sort", Value: d{{Key: "count", Value: -1}, {Key: "_id", Value: 1}}}},
		}, nil
	case jsonbench.Q2:
		return drv.Pipeline{
			{{Key: "$match", Value: creates}},
			{{Key: "$group", Value: d{{Key: "_id", Value: "$commit.collection"}, {Key: "count", Value: one}, {Key: "users", Value: d{{Key: "$addToSet", Value: "$did"}}}}}},
			{{Key: "$sort", Value: d{{Key: "count", Value: -1}, {Key: "_id", Value: 1}}}},
			{{Key: "$replaceWith", Value: d{{Key: "event", Value: "$_id"}, {Key: "count", Value: "$count"}, {Key: "users", Value: d{{Key: "$size", Value: "$users"}}}}}},
		}, nil
	case jsonbench.Q3:
		var in bson.A
		for _, c := range jsonbench.Hourly {
			in = append(in, c.NSID())
		}
		match := append(creates[:len(creates):len(creates)], e{Key: "commit.collection", Value: d{{Key: "$in", Value: in}}})
		hour := d{{Key: "$hour", Value: d{{Key: "$toDate", Value: d{{Key: "$divide", Value: bson.A{"$time_us", 1000}}}}}}}
		return drv.Pipeline{
			{{Key: "$match", Value: match}},
			{{Key: "$group", Value: d{{Key: "_id", Value: d{{Key: "event", Value: "$commit.collection"}, {Key: "hour_of_day", Value: hour}}}, {Key: "count", Value: one}}}},
			{{Key: "$sort", Value: d{{Key: "_id.hour_of_day", Value: 1}, {Key: "_id.event", Value: 1}}}},
			{{Key: "$replaceWith", Value: d{{Key: "event", Value: "$_id.event"}, {Key: "hour_of_day", Value: "$_id.hour_of_day"}, {Key: "count", Value: "$count"}}}},
		}, nil
	case jsonbench.Q4:
		return drv.Pipeline{
			{{Key: "$match", Value: posts}},
			{{Key: "$group", Value: d{{Key: "_id", Value: "$did"}, {Key: "first_post_ts", Value: d{{Key: "$min", Value: "$time_us"}}}}}},
			{{Key: "$sort", Value: d{{Key: "first_post_ts", Value: 1}, {Key: "_id", Value: 1}}}},
			{{Key: "$limit", Value: 3}},
		}, nil
	case jsonbench.Q5:
		return drv.Pipeline{
			{{Key: "$match", Value: posts}},
			{{Key: "$group", Value: d{{Key: "_id", Value: "$did"}, {Key: "lo", Value: d{{Key: "$min", Value: "$time_us"}}}, {Key: "hi", Value: d{{Key: "$max", Value: "$time_us"}}}}}},
			{{Key: "$replaceWith", Value: d{{Key: "user_id", Value: "$_id"}, {Key: "activity_span", Value: d{{Key: "$subtract", Value: bson.A{"$hi", "$lo"}}}}}}},
			{{Key: "$sort", Value: d{{Key: "activity_span", Value: -1}, {Key: "user_id", Value: 1}}}},
			{{Key: "$limit", Value: 3}},
		}, nil
	}
	return nil, fmt.Errorf("jsonbench: no query %q (known: %s)", name, jsonbench.QueryNames())
}
