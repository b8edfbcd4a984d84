package sqlite

import (
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/internal/sqlddl"
	"github.com/dbarena/dbarena/schema"
)

var _ engine.SchemaRenderer = Dialect{}

// types are SQLite's names of the column types. Serial is INTEGER: with
// the workload's PRIMARY KEY (id) table constraint the column becomes an
// alias of the rowid, assigned automatically when NULL. JSON is TEXT
// holding the document, bytes BLOB.
var types = sqlddl.Types{
	schema.Int:       "INTEGER",
	schema.BigInt:    "BIGINT",
	schema.SmallInt:  "SMALLINT",
	schema.Serial:    "INTEGER",
	schema.Decimal:   "DECIMAL(%d, %d)",
	schema.Float:     "DOUBLE",
	schema.Char:      "CHAR(%d)",
	schema.Varchar:   "VARCHAR(%d)",
	schema.Text:      "TEXT",
	schema.Timestamp: "TIMESTAMP",
	schema.Date:      "DATE",
	schema.Bool:      "BOOLEAN",
	schema.Bytes:     "BLOB",
	schema.JSON:      "TEXT",
}

// ColumnType is c's type in SQLite DDL (types).
func (Dialect) ColumnType(c schema.Column) string { return types.Column(c) }

// ddl is SQLite's rendering of declared tables: JSON is TEXT holding the
// document, bytes BLOB; a JSON-path key is the expression
// json_extract(doc, '$.a.b'), which keeps the value's JSON type whatever
// the key's As (SQLite compares values by their stored type). SQLite has
// no INCLUDE: included columns are appended to the key, a plain composite
// index that covers the same queries. Foreign keys are refused (see
// ForeignKeySQL).
var ddl = sqlddl.Dialect{
	Types: types,
	PathExpr: func(k schema.Key) string {
		return "json_extract(" + k.Column + ", " + sqlddl.PathLiteral(k.Path) + ")"
	},
}

// CreateTableSQL implements engine.SchemaRenderer: columns, primary key,
// foreign keys.
func (Dialect) CreateTableSQL(t *schema.Table) []string { return []string{ddl.CreateTable(t)} }

// AfterLoadSQL implements engine.SchemaRenderer: the secondary indexes.
func (Dialect) AfterLoadSQL(t *schema.Table) []string { return ddl.AfterLoad(t) }

// ForeignKeySQL implements engine.SchemaRenderer: SQLite cannot add a
// foreign key to an existing table, and keys declared in CREATE TABLE
// would be checked row by row during a parallel load (dbarena's
// connections turn foreign_keys on), whose tables fill in any order. A
// table with foreign keys is refused with engine.ErrNoForeignKeys.
func (Dialect) ForeignKeySQL(t *schema.Table) ([]string, error) {
	if len(t.ForeignKeys) > 0 {
		return nil, fmt.Errorf("sqlite: table %s: %w", t.Name, engine.ErrNoForeignKeys)
	}
	return nil, nil
}

var _ engine.TableInspector = Dialect{}

// MarkTableSQL implements engine.TableInspector: the marker is a comment
// after the table's name, which SQLite keeps in sqlite_master's copy of
// the CREATE TABLE text (a comment after the last parenthesis it drops).
func (Dialect) MarkTableSQL(stmts []string, t *schema.Table, marker string) []string {
	out := append([]string(nil), stmts...)
	head := "CREATE TABLE " + t.Name + " "
	if len(out) > 0 && strings.HasPrefix(out[0], head) {
		out[0] = head + "/* " + strings.ReplaceAll(marker, "*/", "") + " */ " + out[0][len(head):]
	}
	return out
}

// TableIdentitySQL implements engine.TableInspector: the CREATE TABLE text
// that holds the marker, which a table created again from that text
// carries too, and what SQLite keeps of the table itself: its b-tree's
// root page (a copy made while the table exists gets another) and the
// rowid of its row in sqlite_master (a table created anew after the
// original was dropped gets a new row, though it may get the dropped
// one's root page). ALTER TABLE … RENAME keeps both, and so do index
// builds; VACUUM renumbers them, after which a table reads as another.
func (Dialect) TableIdentitySQL() (string, []string) {
	return "SELECT sql, rootpage, rowid FROM sqlite_master WHERE type = 'table' AND name = ?",
		[]string{engine.MarkerColumn, "rootpage", "schema_row"}
}

// ColumnTypesSQL implements engine.TableInspector: the types as the
// CREATE TABLE text wrote them.
func (Dialect) ColumnTypesSQL() string {
	return "SELECT name, type FROM pragma_table_info(?) ORDER BY cid"
}

// NormalType implements engine.TableInspector: lower case, without
// spaces.
func (Dialect) NormalType(reported string) string {
	return strings.ToLower(strings.ReplaceAll(reported, " ", ""))
}

// DeclaredType implements engine.TableInspector: the type CreateTableSQL
// writes for c, in NormalType's form.
func (d Dialect) DeclaredType(c schema.Column) string { return d.NormalType(types.Column(c)) }

var _ engine.SizeInspector = Dialect{}

// TableSizeSQL implements engine.SizeInspector from the dbstat virtual
// table (modernc.org/sqlite is built with it): the pages of the table's
// b-tree (overflow pages included) and those of the indexes sqlite_master
// lists for it, the automatic index of a composite primary key included.
func (Dialect) TableSizeSQL(string) ([]string, string) {
	return nil, "WITH t(name) AS (SELECT ?) SELECT data, idx, data + idx FROM (SELECT " +
		"(SELECT COALESCE(SUM(d.pgsize), 0) FROM dbstat d WHERE d.name = t.name AND d.aggregate = 1) AS data, " +
		"(SELECT COALESCE(SUM(d.pgsize), 0) FROM sqlite_master m JOIN dbstat d ON d.name = m.name AND d.aggregate = 1 WHERE m.type = 'index' AND m.tbl_name = t.name) AS idx " +
		"FROM t JOIN sqlite_master s ON s.type = 'table' AND s.name = t.name)"
}

// SizeNote implements engine.SizeInspector: SQLite's figures are whole
// pages of the one database file.
func (Dialect) SizeNote() string { return "" }
