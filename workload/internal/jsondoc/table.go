package jsondoc

import (
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
	"github.com/dbarena/dbarena/workload"
)

// Table is a table of n generated documents declared by t, whose rows
// are (id(i), document i), batch documents a batch: doc is called once
// for each batch and returns the function making document i's value (a
// family's encoding of it: JSON text, or BSON for MongoDB).
func Table(t *schema.Table, n int64, batch int, id func(i int64) int64, doc func() func(i int64) any) workload.Table {
	b := int64(batch)
	return workload.Table{
		Schema:  t,
		Batches: int((n + b - 1) / b),
		Rows: func(k int) engine.RowSource {
			first := int64(k) * b
			value := doc()
			row := make([]any, 2)
			return workload.FuncRows(int(min(b, n-first)), func(i int) []any {
				row[0], row[1] = id(first+int64(i)), value(first+int64(i))
				return row
			})
		},
	}
}

// Declare is a table of documents named name: the document's number as
// the primary key (id; _id on MongoDB) and the document in JSON column
// column (jsonb on PostgreSQL, JSON on MySQL and MariaDB, JSON text on
// SQLite) that is, on MongoDB, the document itself
// (schema.Column.Document: its fields at the top level, beside _id),
// with indexes.
func Declare(name, column string, indexes ...schema.Index) *schema.Table {
	return &schema.Table{
		Name: name,
		Columns: []schema.Column{
			{Name: "id", Type: schema.BigInt},
			{Name: column, Type: schema.JSON, Document: true},
		},
		PrimaryKey: []string{"id"},
		Indexes:    indexes,
	}
}
