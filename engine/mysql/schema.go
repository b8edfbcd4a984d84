package mysql

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sqlddl"
	"github.com/dbarena/dbarena/schema"
)

var _ engine.SchemaRenderer = Dialect{}

// types are MySQL's and MariaDB's names of the column types. Serial is
// INTEGER NOT NULL AUTO_INCREMENT: the workload declares the primary key
// itself. Timestamps are DATETIME(6), which, unlike TIMESTAMP, is free of
// time zone conversion and of the 2038 limit.
var types = sqlddl.Types{
	schema.Int:       "INT",
	schema.BigInt:    "BIGINT",
	schema.SmallInt:  "SMALLINT",
	schema.Serial:    "INTEGER NOT NULL AUTO_INCREMENT",
	schema.Decimal:   "DECIMAL(%d, %d)",
	schema.Float:     "DOUBLE",
	schema.Char:      "CHAR(%d)",
	schema.Varchar:   "VARCHAR(%d)",
	schema.Text:      "LONGTEXT",
	schema.Timestamp: "DATETIME(6)",
	schema.Date:      "DATE",
	schema.Bool:      "BOOLEAN",
	schema.Bytes:     "LONGBLOB",
	schema.JSON:      "JSON",
}

// ColumnType is c's type in MySQL DDL (types).
func (Dialect) ColumnType(c schema.Column) string { return types.Column(c) }

// ddl is the MySQL and MariaDB rendering of declared tables, written to
// the subset both servers take (MariaDB 10.11, MySQL 8): JSON is JSON (an
// alias of LONGTEXT with a validity check on MariaDB), bytes LONGBLOB.
// MariaDB has no expression indexes, so a JSON-path key is a virtual
// generated column, declared in CREATE TABLE and indexed like any other
// (Columns leaves generated columns out). There is no INCLUDE: included
// columns are appended to the key. The primary key belongs in CREATE
// TABLE (InnoDB keeps rows in key order).
var ddl = sqlddl.Dialect{
	Types:          types,
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
		if k.Size > 0 {
			return "VARCHAR(" + strconv.Itoa(k.Size) + ")"
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

var _ engine.TableInspector = Dialect{}

// MarkTableSQL implements engine.TableInspector: the marker is the
// table's comment (information_schema's TABLE_COMMENT).
func (Dialect) MarkTableSQL(stmts []string, t *schema.Table, marker string) []string {
	out := append([]string(nil), stmts...)
	if len(out) > 0 {
		out[0] += " COMMENT = '" + strings.ReplaceAll(marker, "'", "''") + "'"
	}
	return out
}

// TableIdentitySQL implements engine.TableInspector: the table's comment,
// which CREATE TABLE … LIKE copies, and its creation time in seconds
// since the epoch, which a copy gets anew: MariaDB's is when the table's
// definition (.frm) was last written, which ALTER TABLE, CREATE INDEX and
// RENAME TABLE renew too; MySQL's is kept in its data dictionary. The
// catalog adds InnoDB's table id where the user may read it (see
// catalog.Identity).
func (Dialect) TableIdentitySQL() (string, []string) {
	return "SELECT table_comment, UNIX_TIMESTAMP(create_time) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
		[]string{engine.MarkerColumn, createdField}
}

// createdField is the identity's field of the table's creation time.
const createdField = "created"

// ColumnTypesSQL implements engine.TableInspector: COLUMN_TYPE of every
// column but the generated ones (as ColumnsSQL).
func (Dialect) ColumnTypesSQL() string {
	return "SELECT column_name, column_type FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? AND COALESCE(generation_expression, '') = '' ORDER BY ordinal_position"
}

// intWidth is the display width MariaDB (and MySQL before 8.0.19) shows
// after an integer type: int(11).
var intWidth = regexp.MustCompile(`^(smallint|mediumint|int|bigint)\(\d+\)`)

// NormalType implements engine.TableInspector: lower case, integer types
// without their display width (BOOLEAN stays tinyint(1)), and MySQL's
// json as MariaDB's longtext, which is what JSON is there.
func (Dialect) NormalType(reported string) string {
	t := intWidth.ReplaceAllString(strings.ToLower(strings.TrimSpace(reported)), "$1")
	if t == "json" {
		return "longtext"
	}
	return t
}

// DeclaredType implements engine.TableInspector: COLUMN_TYPE of the type
// CreateTableSQL gives c, in NormalType's form (catalogTypes).
func (Dialect) DeclaredType(c schema.Column) string { return catalogTypes.Column(c) }

// catalogTypes are COLUMN_TYPE's names of the types in types, in
// NormalType's form: BOOLEAN is tinyint(1), JSON longtext.
var catalogTypes = sqlddl.Types{
	schema.Int:       "int",
	schema.BigInt:    "bigint",
	schema.SmallInt:  "smallint",
	schema.Serial:    "int",
	schema.Decimal:   "decimal(%d,%d)",
	schema.Float:     "double",
	schema.Char:      "char(%d)",
	schema.Varchar:   "varchar(%d)",
	schema.Text:      "longtext",
	schema.Timestamp: "datetime(6)",
	schema.Date:      "date",
	schema.Bool:      "tinyint(1)",
	schema.Bytes:     "longblob",
	schema.JSON:      "longtext",
}

var _ engine.SizeInspector = Dialect{}

// TableSizeSQL implements engine.SizeInspector: ANALYZE TABLE, so that
// InnoDB's statistics count the pages the load allocated (until then
// information_schema may show an empty table's 16 kB), then
// information_schema.TABLES' DATA_LENGTH (the clustered index: rows and
// primary key) and INDEX_LENGTH (the secondary indexes).
func (d Dialect) TableSizeSQL(name string) ([]string, string) {
	return []string{"ANALYZE TABLE " + d.QuoteIdent(name)},
		"SELECT data_length, index_length, data_length + index_length FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?"
}

// SizeNote implements engine.SizeInspector.
func (Dialect) SizeNote() string {
	return "InnoDB's sizes are estimates from its statistics after ANALYZE TABLE: whole pages allocated, free space in them included; data is the clustered index (rows and primary key), indexes the secondary ones"
}
