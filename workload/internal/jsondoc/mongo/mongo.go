// Package mongo runs the analytic queries of the generated-document
// workloads (package jsondoc) on MongoDB: an aggregation pipeline whose
// output documents are the query's rows, their fields in the query's
// column order.
package mongo

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	mopts "go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/mongo"
	"github.com/dbarena/dbarena/workload/internal/jsondoc"
)

// Aggregate runs pipeline p, query q, on collection coll of c (a MongoDB
// connection) with allowDiskUse, and returns its output documents as q's
// rows: each document's fields, in order, are q's columns.
func Aggregate(ctx context.Context, c engine.Conn, coll string, q jsondoc.Query, p drv.Pipeline) ([]jsondoc.Row, error) {
	mc, err := mongo.ConnOf(c)
	if err != nil {
		return nil, err
	}
	cur, err := mc.DB().Collection(coll).Aggregate(mc.Ctx(ctx), p, mopts.Aggregate().SetAllowDiskUse(true))
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q.Name, err)
	}
	defer cur.Close(ctx)
	var out []jsondoc.Row
	vals := make([]any, len(q.Columns))
	for cur.Next(ctx) {
		var d bson.D
		if err := cur.Decode(&d); err != nil {
			return nil, fmt.Errorf("query %s: %w", q.Name, err)
		}
		if len(d) != len(vals) {
			return nil, fmt.Errorf("query %s: %d fields, want %d", q.Name, len(d), len(vals))
		}
		for i, e := range d {
			vals[i] = e.Value
		}
		row, err := q.Row(vals)
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("query %s: %w", q.Name, err)
	}
	return out, nil
}

// Slabs returns, for jsondoc.Table's doc, the function making document
// i's value as BSON (appendBSON appends it) for engine/mongo to load as
// is: the loader holds a chunk of documents before sending them, so each
// has its own bytes, cut from 1 MiB slabs.
func Slabs(appendBSON func(dst []byte, i int64) []byte) func(i int64) any {
	var slab []byte
	return func(i int64) any {
		if cap(slab)-len(slab) < 64<<10 {
			slab = make([]byte, 0, 1<<20)
		}
		d := appendBSON(slab[len(slab):], i)
		if len(d) <= cap(slab)-len(slab) { // written in place
			slab = slab[:len(slab)+len(d)]
		}
		return bson.Raw(d)
	}
}

// Query runs query name of qs (case does not matter) on collection coll
// of c: the aggregation pipeline pipeline returns for it, as Aggregate
// does. An unknown name is an error naming the known ones.
func Query(ctx context.Context, c engine.Conn, coll string, qs []jsondoc.Query, name string, pipeline func(name string) (drv.Pipeline, error)) ([]jsondoc.Row, error) {
	q, ok := jsondoc.Lookup(qs, name)
	if !ok {
		return nil, fmt.Errorf("no query %q (known: %s)", name, jsondoc.Names(qs))
	}
	p, err := pipeline(q.Name)
	if err != nil {
		return nil, err
	}
	return Aggregate(ctx, c, coll, q, p)
}
