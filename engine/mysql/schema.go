package mysql

import (
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sqlddl"
	"github.com/dbarena/dbarena/workload/schema"
)

var _ engine.SchemaRenderer = Dialect{}

// ddl is the MySQL and MariaDB rendering of declared tables, written to
// the subset both servers take (MariaDB 10.11, MySQL 8): JSON is JSON (an
// alias of LONGTEXT with a validity check on MariaDB), bytes LONGBLOB.
// MariaDB has no expression indexes, so a JSON-path key is a virtual
// generated column, declared in CREATE TABLE and indexed like any other
// (Columns leaves generated columns out). There is no INCLUDE: included
// columns are appended to the key. The primary key belongs in CREATE
// TABLE (InnoDB keeps rows in key order).
var ddl = sqlddl.Dialect{
	Type:           sqlddl.Types("JSON", "LONGBLOB", Dialect{}.ColumnType),
	PathExpr:       pathExpr,
	GeneratedPaths: true,
	PathType: func(k schema.Key) string {
		switch k.ValueType() {
		case schema.BigInt:
			return "BIGINT"
		case schema.Float:
			return "DOUBLE"
		case schema.Bool:
			return "BOOLEAN"
		}
		return "VARCHAR(255)"
	},
}

// pathExpr extracts the value at the key's path as its type.
func pathExpr(k schema.Key) string {
	v := "JSON_UNQUOTE(JSON_EXTRACT(" + k.Column + ", " + sqlddl.PathLiteral(k.Path) + "))"
	switch k.ValueType() {
	case schema.BigInt:
		return "CAST(" + v + " AS SIGNED)"
	case schema.Float:
		return "CAST(" + v + " AS DOUBLE)"
	case schema.Bool:
		return "(" + v + " = 'true')"
	}
	return v
}

// CreateTableSQL implements engine.SchemaRenderer: columns, generated
// columns of JSON-path keys, primary key.
func (Dialect) CreateTableSQL(t *schema.Table) []string { return []string{ddl.CreateTable(t)} }

// AfterLoadSQL implements engine.SchemaRenderer: the secondary indexes.
func (Dialect) AfterLoadSQL(t *schema.Table) []string { return ddl.AfterLoad(t) }

// ForeignKeySQL implements engine.SchemaRenderer.
func (Dialect) ForeignKeySQL(t *schema.Table) ([]string, error) { return ddl.ForeignKeys(t), nil }
