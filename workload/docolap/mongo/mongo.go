// Package mongo is the docolap workload's implementation for MongoDB: the
// events collection holds the same events as the SQL table, each event
// the document itself, as the study imported them: its fields (its own
// id, a numeric string, among them) at the top level, after _id, the
// event's id as a number (the SQL table's id column). The study's five
// indexes are on type, repo.name, payload.action, actor.login and
// payload.issue.comments (declared once, in package workload/docolap, and
// built by engine/mongo). The queries are
// aggregation pipelines run with allowDiskUse, ordered with the same
// tie-breaking keys as the SQL ones, so that every engine returns the
// same rows. It registers itself for engine.FamilyMongo; workload.ForFamily
// returns it, bound to the registered workload/docolap workload whose
// options it reads, for MongoDB targets.
//
// Import it for its side effects, as workload/all/mongo does:
//
//	import _ "github.com/dbarena/dbarena/workload/docolap/mongo"
package mongo

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/docolap"
	jmongo "github.com/dbarena/dbarena/workload/internal/jsondoc/mongo"
)

func init() {
	workload.RegisterFamily("docolap", engine.FamilyMongo, func(base workload.Workload) workload.Workload {
		return &Docolap{base: base.(*docolap.Docolap)}
	})
}

// Docolap is a workload, and runs the queries on MongoDB.
var (
	_ workload.Workload = (*Docolap)(nil)
	_ docolap.Querier   = (*Docolap)(nil)
)

// Docolap is the docolap workload's implementation for MongoDB, built on
// the registered workload whose options it reads.
type Docolap struct {
	base *docolap.Docolap
}

// Define is the registered workload's Spec (its options, data options,
// ops, the analytic timing model's queries and the dump) with MongoDB's
// own tables and answers, refusing --normalized.
func (w *Docolap) Define() workload.Spec {
	s := w.base.Define()
	s.Tables = w.tables
	s.Supports = w.supports
	s.Answers = &workload.Answers{Ops: s.Answers.Ops, Answer: w.answer}
	return s
}

// Open starts a run on MongoDB: its workers run --query's queries in
// turn and share nothing.
func (w *Docolap) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: w.newWorker}, nil
}

// tables are the registered workload's (docolap.Docolap.EventTables),
// the events as BSON documents (AppendEventBSON) rather than JSON for
// engine/mongo to parse: the same documents (TestBSONIsTheJSON), loaded
// without parsing JSON, which costs far more than making them. The loader
// holds a chunk of documents before sending them, so each has its own
// bytes, cut from 1 MiB slabs.
func (w *Docolap) tables(engine.Dialect) []workload.Table {
	return w.base.EventTables(func(g *docolap.Generator) func(i int64) any { return jmongo.Slabs(g.AppendEventBSON) })
}

// supports refuses --normalized (Spec.Supports): a relational form of
// the events is for SQL engines; MongoDB keeps the documents.
func (w *Docolap) supports(engine.Capabilities) []error {
	if w.base.Normalized() {
		return []error{&workload.OptionError{Flag: "normalized", Value: "true",
			Err: "the normalized form is relational: SQL engines only (PostgreSQL, MySQL/MariaDB, SQLite); MongoDB stores the events as documents"}}
	}
	return nil
}

// newWorker returns a worker running --query's queries in turn on c, a
// MongoDB connection.
func (w *Docolap) newWorker(_ context.Context, c engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	if err := w.base.CheckOptions(); err != nil {
		return nil, err
	}
	if _, err := mongo.ConnOf(c); err != nil {
		return nil, err
	}
	return docolap.NewRunner(w.base, c, env, w)
}

// RunQuery implements docolap.Querier: query name's pipeline on the
// events collection of c, a MongoDB connection, with allowDiskUse.
func (w *Docolap) RunQuery(ctx context.Context, c engine.Conn, name string) ([]docolap.Row, error) {
	return jmongo.Query(ctx, c, docolap.Table, docolap.Queries(), name, Pipeline)
}

// answer is query op's rows on c, a MongoDB connection (Spec.Answers).
func (w *Docolap) answer(ctx context.Context, c engine.Conn, op string) ([][]string, error) {
	return docolap.AnswerWith(ctx, w, c, op)
}

// Pipeline is query name's aggregation pipeline, on the events' own
// fields (paths from the document's root: $type, $actor.login, …). Each sorts by its figure
// descending and then by _id (the name) ascending, in byte order (the
// simple collation), as the SQL queries do.
func Pipeline(name string) (drv.Pipeline, error) {
	count := func(key string, limit int) drv.Pipeline {
		p := drv.Pipeline{
			{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$" + key}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
			{{Key: "$sort", Value: bson.D{{Key: "n", Value: -1}, {Key: "_id", Value: 1}}}},
		}
		if limit > 0 {
			p = append(p, bson.D{{Key: "$limit", Value: limit}})
		}
		return p
	}
	avg := func(typ string) drv.Pipeline {
		return drv.Pipeline{
			{{Key: "$match", Value: bson.D{{Key: "type", Value: typ}, {Key: "payload.issue.comments", Value: bson.D{{Key: "$gt", Value: 2}}}}}},
			{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$repo.name"}, {Key: "comments", Value: bson.D{{Key: "$avg", Value: "$payload.issue.comments"}}}}}},
			{{Key: "$sort", Value: bson.D{{Key: "comments", Value: -1}, {Key: "_id", Value: 1}}}},
		}
	}
	switch name {
	case docolap.QueryA:
		return append(drv.Pipeline{
			{{Key: "$match", Value: bson.D{{Key: "type", Value: "IssuesEvent"}, {Key: "payload.action", Value: "opened"}}}},
		}, count("repo.name", 0)...), nil
	case docolap.QueryB:
		return count("type", 0), nil
	case docolap.QueryC:
		return count("actor.login", 10), nil
	case docolap.QueryD:
		return avg(docolap.DEventType), nil
	case docolap.QueryD2:
		return avg(docolap.D2EventType), nil
	}
	return nil, fmt.Errorf("docolap: no query %q (known: %s)", name, docolap.QueryNames())
}
