package postgres

import (
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sqlddl"
	"github.com/dbarena/dbarena/schema"
)

var _ engine.SchemaRenderer = Dialect{}

// types are PostgreSQL's names of the column types. Serial is SERIAL: the
// workload declares the primary key itself.
var types = sqlddl.Types{
	schema.Int:       "INTEGER",
	schema.BigInt:    "BIGINT",
	schema.SmallInt:  "SMALLINT",
	schema.Serial:    "SERIAL",
	schema.Decimal:   "NUMERIC(%d, %d)",
	schema.Float:     "DOUBLE PRECISION",
	schema.Char:      "CHAR(%d)",
	schema.Varchar:   "VARCHAR(%d)",
	schema.Text:      "TEXT",
	schema.Timestamp: "TIMESTAMP",
	schema.Date:      "DATE",
	schema.Bool:      "BOOLEAN",
	schema.Bytes:     "BYTEA",
	schema.JSON:      "JSONB",
}

// ColumnType is c's type in PostgreSQL DDL (types).
func (Dialect) ColumnType(c schema.Column) string { return types.Column(c) }

// ddl is PostgreSQL's rendering of declared tables: JSON is jsonb, bytes
// bytea; a JSON-path key is the expression (doc->'a'->>'b'), cast when it
// is indexed as another type than text; INCLUDE is native; the primary
// key is built after the load (AddPrimaryKeySQL) and SERIAL sequences are
// moved past the loaded ids.
func (d Dialect) ddl() sqlddl.Dialect {
	return sqlddl.Dialect{
		Types:    types,
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

var _ engine.TableInspector = Dialect{}

// MarkTableSQL implements engine.TableInspector: PostgreSQL identifies a
// table by its oid, so the statements stay as they are.
func (Dialect) MarkTableSQL(stmts []string, _ *schema.Table, _ string) []string { return stmts }

// TableIdentitySQL implements engine.TableInspector: the table's oid in
// pg_class, which a table of the same name created later never has (nor
// a copy, CREATE TABLE … (LIKE …)).
func (Dialect) TableIdentitySQL() (string, []string) {
	return "SELECT c.oid::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relname = ? AND c.relkind IN ('r', 'p')",
		[]string{""}
}

// ColumnTypesSQL implements engine.TableInspector: format_type of every
// live column ("character varying(60)", "numeric(12,2)").
func (Dialect) ColumnTypesSQL() string {
	return "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace " +
		"WHERE n.nspname = current_schema() AND c.relname = ? AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum"
}

// NormalType implements engine.TableInspector: format_type's names are
// already the canonical form.
func (Dialect) NormalType(reported string) string { return reported }

// DeclaredType implements engine.TableInspector: format_type's name of
// the type CreateTableSQL gives c (catalogTypes).
func (Dialect) DeclaredType(c schema.Column) string { return catalogTypes.Column(c) }

// catalogTypes are format_type's names of the types in types (a SERIAL
// is an integer with a sequence).
var catalogTypes = sqlddl.Types{
	schema.Int:       "integer",
	schema.BigInt:    "bigint",
	schema.SmallInt:  "smallint",
	schema.Serial:    "integer",
	schema.Decimal:   "numeric(%d,%d)",
	schema.Float:     "double precision",
	schema.Char:      "character(%d)",
	schema.Varchar:   "character varying(%d)",
	schema.Text:      "text",
	schema.Timestamp: "timestamp without time zone",
	schema.Date:      "date",
	schema.Bool:      "boolean",
	schema.Bytes:     "bytea",
	schema.JSON:      "jsonb",
}

var _ engine.SizeInspector = Dialect{}

// TableSizeSQL implements engine.SizeInspector: pg_table_size (the heap,
// its TOAST table with the TOAST index, the free space and visibility
// maps), pg_indexes_size (every index of the table, the primary key's
// included) and pg_total_relation_size (the two together), in bytes.
func (Dialect) TableSizeSQL(string) ([]string, string) {
	return nil, "SELECT pg_table_size(c.oid), pg_indexes_size(c.oid), pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace " +
		"WHERE n.nspname = current_schema() AND c.relname = ? AND c.relkind IN ('r', 'p')"
}

// SizeNote implements engine.SizeInspector: PostgreSQL's figures are the
// files' sizes, nothing to add.
func (Dialect) SizeNote() string { return "" }
