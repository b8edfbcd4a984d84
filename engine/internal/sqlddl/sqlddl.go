// Package sqlddl renders declared tables (package schema) as SQL
// DDL: the outline every SQL dialect shares (CREATE TABLE with column
// definitions and constraints, CREATE INDEX, ALTER TABLE … ADD CONSTRAINT
// … FOREIGN KEY), with what differs between dialects (types, defaults,
// expression keys, INCLUDE, where the primary key goes) supplied by each
// engine's Dialect.
//
// Identifiers are written as declared, unquoted: schema names are plain
// lower-case identifiers (schema.Validate), which every dialect takes as
// they are, and the workloads' statements name them the same way.
package sqlddl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/schema"
)

// Dialect is what one SQL dialect supplies.
type Dialect struct {
	// Type is a column's type in DDL, with whatever a Serial column
	// needs (SERIAL, AUTO_INCREMENT); NOT NULL and DEFAULT are added by
	// Render.
	Type func(c schema.Column) string
	// PathExpr is the expression of a JSON-path key (k.Path is set).
	PathExpr func(k schema.Key) string
	// GeneratedPaths makes CREATE TABLE add a virtual generated column
	// for every JSON-path key of every index, which the index then
	// indexes (MariaDB, which has no expression indexes). The column's
	// name is GeneratedName; its type PathType.
	GeneratedPaths bool
	// PathType is the column type of a generated JSON-path column.
	PathType func(k schema.Key) string
	// Include tells whether CREATE INDEX takes INCLUDE (…); without it
	// the included columns are appended to the key.
	Include bool
	// DeferPK leaves the primary key out of CREATE TABLE; AfterLoad adds
	// it first, with AddPK.
	DeferPK bool
	// AddPK is the statement adding a deferred primary key.
	AddPK func(table string, cols []string) string
	// ResetSerial, when set, is the statement moving a Serial column's
	// counter past the loaded values (PostgreSQL's sequences).
	ResetSerial func(table, col string) string
	// Bool renders a boolean literal (TRUE, 1).
	Bool func(b bool) string
}

// Literal renders a column default: numbers as they are, strings quoted
// with doubled single quotes, booleans by d.Bool.
func (d Dialect) Literal(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case bool:
		if d.Bool != nil {
			return d.Bool(x)
		}
		if x {
			return "TRUE"
		}
		return "FALSE"
	}
	panic(fmt.Sprintf("sqlddl: default of type %T", v))
}

// GeneratedName is the name of the generated column behind key number i
// (0-based) of index x.
func GeneratedName(x schema.Index, i int) string {
	return fmt.Sprintf("%s_k%d", x.Name, i+1)
}

// CreateTable is t's CREATE TABLE statement.
func (d Dialect) CreateTable(t *schema.Table) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + t.Name + " (\n")
	for n, c := range t.Columns {
		if n > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  " + c.Name + " " + d.Type(c))
		if c.Default != nil {
			b.WriteString(" DEFAULT " + d.Literal(c.Default))
		}
		if !c.Null && c.Type != schema.Serial {
			b.WriteString(" NOT NULL")
		}
	}
	if d.GeneratedPaths {
		for _, x := range t.Indexes {
			for i, k := range x.Keys {
				if len(k.Path) > 0 {
					b.WriteString(",\n  " + GeneratedName(x, i) + " " + d.PathType(k) + " AS (" + d.PathExpr(k) + ") VIRTUAL")
				}
			}
		}
	}
	if len(t.PrimaryKey) > 0 && !d.DeferPK {
		b.WriteString(",\n  PRIMARY KEY (" + strings.Join(t.PrimaryKey, ", ") + ")")
	}
	for _, ck := range t.Checks {
		b.WriteString(",\n  CONSTRAINT " + ck.Name + " CHECK (" + ck.Column + " " + ck.Op + " " + d.Literal(ck.Value) + ")")
	}
	b.WriteString("\n)")
	return b.String()
}

// CreateIndex is the CREATE INDEX statement of x on t.
func (d Dialect) CreateIndex(t *schema.Table, x schema.Index) string {
	keys := make([]string, 0, len(x.Keys)+len(x.Include))
	for i, k := range x.Keys {
		var e string
		switch {
		case len(k.Path) == 0:
			e = k.Column
		case d.GeneratedPaths:
			e = GeneratedName(x, i)
		default:
			e = "(" + d.PathExpr(k) + ")"
		}
		if k.Desc {
			e += " DESC"
		}
		keys = append(keys, e)
	}
	if !d.Include {
		keys = append(keys, x.Include...)
	}
	s := "CREATE "
	if x.Unique {
		s += "UNIQUE "
	}
	s += "INDEX " + x.Name + " ON " + t.Name + " (" + strings.Join(keys, ", ") + ")"
	if d.Include && len(x.Include) > 0 {
		s += " INCLUDE (" + strings.Join(x.Include, ", ") + ")"
	}
	return s
}

// AfterLoad lists the statements run once t's rows are in: the deferred
// primary key, the secondary indexes in order, the Serial counters'
// resets.
func (d Dialect) AfterLoad(t *schema.Table) []string {
	var out []string
	if d.DeferPK && len(t.PrimaryKey) > 0 {
		out = append(out, d.AddPK(t.Name, t.PrimaryKey))
	}
	for _, x := range t.Indexes {
		out = append(out, d.CreateIndex(t, x))
	}
	if d.ResetSerial != nil {
		for _, c := range t.Columns {
			if c.Type == schema.Serial {
				out = append(out, d.ResetSerial(t.Name, c.Name))
			}
		}
	}
	return out
}

// ForeignKeys lists the ALTER TABLE statements adding t's foreign keys.
func (d Dialect) ForeignKeys(t *schema.Table) []string {
	out := make([]string, 0, len(t.ForeignKeys))
	for _, fk := range t.ForeignKeys {
		out = append(out, "ALTER TABLE "+t.Name+" ADD "+fkConstraint(fk))
	}
	return out
}

func fkConstraint(fk schema.ForeignKey) string {
	return fmt.Sprintf("CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s)",
		fk.Name, strings.Join(fk.Columns, ", "), fk.Ref, strings.Join(fk.RefColumns, ", "))
}

// ColType maps the schema types that engine.ColType also has (all but
// Bytes and JSON) to it, so that a dialect renders them with its
// ColumnType; ok is false for the others.
func ColType(t schema.Type) (ct engine.ColType, ok bool) {
	switch t {
	case schema.Int:
		return engine.TypeInt, true
	case schema.BigInt:
		return engine.TypeBigInt, true
	case schema.Serial:
		return engine.TypeSerialPK, true
	case schema.Decimal:
		return engine.TypeDecimal, true
	case schema.Float:
		return engine.TypeFloat, true
	case schema.Char:
		return engine.TypeChar, true
	case schema.Varchar:
		return engine.TypeVarchar, true
	case schema.Text:
		return engine.TypeText, true
	case schema.Timestamp:
		return engine.TypeTimestamp, true
	case schema.Bool:
		return engine.TypeBool, true
	case schema.SmallInt:
		return engine.TypeSmallInt, true
	case schema.Date:
		return engine.TypeDate, true
	}
	return 0, false
}

// Types is a Dialect.Type for a dialect whose JSON and Bytes columns are
// json and bytes, and every other column what colType (the dialect's
// engine.SQLDialect.ColumnType) makes of its ColType.
func Types(json, bytes string, colType func(t engine.ColType, size, scale int) string) func(schema.Column) string {
	return func(c schema.Column) string {
		switch c.Type {
		case schema.JSON:
			return json
		case schema.Bytes:
			return bytes
		}
		ct, _ := ColType(c.Type)
		return colType(ct, c.Size, c.Scale)
	}
}

// PathLiteral is the string literal of a JSON path for MySQL's and
// SQLite's JSON functions: '$.a.b'.
func PathLiteral(path []string) string {
	return "'$." + strings.Join(path, ".") + "'"
}
