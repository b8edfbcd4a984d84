package sqlite

import (
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sqlddl"
	"github.com/dbarena/dbarena/workload/schema"
)

var _ engine.SchemaRenderer = Dialect{}

// ddl is SQLite's rendering of declared tables: JSON is TEXT holding the
// document, bytes BLOB; a JSON-path key is the expression
// json_extract(doc, '$.a.b'), which keeps the value's JSON type whatever
// the key's As (SQLite compares values by their stored type). SQLite has
// no INCLUDE: included columns are appended to the key, a plain composite
// index that covers the same queries. Foreign keys are part of CREATE
// TABLE (SQLite cannot add them to a table); SQLite enforces them only on
// connections with PRAGMA foreign_keys=ON.
var ddl = sqlddl.Dialect{
	Type: func(c schema.Column) string {
		switch c.Type {
		case schema.JSON:
			return "TEXT"
		case schema.Bytes:
			return "BLOB"
		}
		ct, _ := sqlddl.ColType(c.Type)
		return Dialect{}.ColumnType(ct, c.Size, c.Scale)
	},
	PathExpr: func(k schema.Key) string {
		p := "'$"
		for _, e := range k.Path {
			p += "." + e
		}
		return "json_extract(" + k.Column + ", " + p + "')"
	},
	InlineFK: true,
}

// CreateTableSQL implements engine.SchemaRenderer: columns, primary key,
// foreign keys.
func (Dialect) CreateTableSQL(t *schema.Table) []string { return []string{ddl.CreateTable(t)} }

// AfterLoadSQL implements engine.SchemaRenderer: the secondary indexes.
func (Dialect) AfterLoadSQL(t *schema.Table) []string { return ddl.AfterLoad(t) }

// ForeignKeySQL implements engine.SchemaRenderer: nothing, the keys are
// part of CREATE TABLE.
func (Dialect) ForeignKeySQL(t *schema.Table) []string { return ddl.ForeignKeys(t) }
