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
