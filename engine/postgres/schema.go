package postgres

import (
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sqlddl"
	"github.com/dbarena/dbarena/workload/schema"
)

var _ engine.SchemaRenderer = Dialect{}

// ddl is PostgreSQL's rendering of declared tables: JSON is jsonb, bytes
// bytea; a JSON-path key is the expression (doc->'a'->>'b'), cast when it
// is indexed as another type than text; INCLUDE is native; the primary
// key is built after the load (AddPrimaryKeySQL) and SERIAL sequences are
// moved past the loaded ids.
func (d Dialect) ddl() sqlddl.Dialect {
	return sqlddl.Dialect{
		Type:     sqlddl.Types("JSONB", "BYTEA", d.ColumnType),
		PathExpr: pathExpr,
		Include:  true,
		DeferPK:  true,
		AddPK: func(table string, cols []string) string {
			return d.AddPrimaryKeySQL(table, cols...)
		},
		ResetSerial: d.ResetSequenceSQL,
	}
}

// pathExpr is col->'a'->>'b', the text at the path, cast to the key's
// type when it is not text.
func pathExpr(k schema.Key) string {
	var b strings.Builder
	b.WriteString(k.Column)
	for i, p := range k.Path {
		if i == len(k.Path)-1 {
			b.WriteString("->>")
		} else {
			b.WriteString("->")
		}
		b.WriteString("'" + p + "'")
	}
	switch k.ValueType() {
	case schema.BigInt:
		return "(" + b.String() + ")::bigint"
	case schema.Float:
		return "(" + b.String() + ")::double precision"
	case schema.Bool:
		return "(" + b.String() + ")::boolean"
	}
	return b.String()
}

// CreateTableSQL implements engine.SchemaRenderer: CREATE TABLE without
// the primary key, which AfterLoadSQL adds after the load.
func (d Dialect) CreateTableSQL(t *schema.Table) []string {
	return []string{d.ddl().CreateTable(t)}
}

// AfterLoadSQL implements engine.SchemaRenderer: the primary key, the
// indexes, the SERIAL sequences' resets, then ANALYZE, as pgbench's
// initialisation does: until autovacuum gets to a freshly loaded table
// the planner has no statistics, and its guesses (with foreign keys
// declared, a nested loop over the TPC-C-like order lines) can turn a
// one-second query into minutes.
func (d Dialect) AfterLoadSQL(t *schema.Table) []string {
	return append(d.ddl().AfterLoad(t), "ANALYZE "+t.Name)
}

// ForeignKeySQL implements engine.SchemaRenderer.
func (d Dialect) ForeignKeySQL(t *schema.Table) ([]string, error) {
	return d.ddl().ForeignKeys(t), nil
}
